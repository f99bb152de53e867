"""Builders for the desktop app's tests: small real folders of near-duplicate documents and
pictures, synthetic results for the model, and helpers that drive the window like a user."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from PySide6.QtCore import QMimeData, QModelIndex, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult, ScanStats
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.results_model import ResultsModel

WORDS = (
    "river bridge garden window morning evening kitchen market letter station winter summer "
    "harbour village mountain forest valley meadow orchard library teacher doctor painter "
    "baker farmer sailor engine ladder basket candle lantern mirror pocket ribbon saddle "
    "wagon anchor barrel bottle button carpet feather hammer needle pillow shovel spoon"
).split()


def essay(seed: int, words: int = 420) -> str:
    """Paragraphs of pseudo-random sentences; different seeds share only the vocabulary."""
    rng = random.Random(seed)
    sentences = []
    total = 0
    while total < words:
        length = rng.randint(8, 14)
        sentences.append(" ".join(rng.choice(WORDS) for _ in range(length)).capitalize() + ".")
        total += length
    return "\n".join(" ".join(sentences[i : i + 4]) for i in range(0, len(sentences), 4)) + "\n"


#: The one word the edited copy changes; the diff tests look for it.
EDITED_FROM, EDITED_TO = "lighthouse", "windmill"

CHINESE = (
    "绿茶不要用刚烧开的水。水烧开以后稍等两三分钟，让温度降到八十度左右，再慢慢倒进杯子里。\n"
    "乌龙茶正好相反，需要很热的水。先用开水温壶，再放入茶叶，第一道水很快倒掉。\n"
    "红茶的味道比较浓，可以加一点牛奶或者柠檬，冬天的下午喝一杯，整个人都暖和起来。\n"
    "普洱茶越放越香，老茶饼要先用茶刀轻轻撬开，不要弄得太碎。\n"
    "泡茶的水最好是山泉水，其次是过滤过的自来水，矿泉水里的矿物质太多反而影响味道。\n"
    "茶具用完以后马上用热水冲洗干净，放在通风的地方晾干，不要用洗洁精。\n"
)


def write_text_corpus(folder: Path) -> dict[str, Path]:
    """An essay, an edited copy (one word changed, one line re-wrapped), a Chinese note with
    an edited copy, and an unrelated essay."""
    folder.mkdir(parents=True, exist_ok=True)
    original = essay(1).replace("river", EDITED_FROM, 1)
    edited = original.replace(EDITED_FROM, EDITED_TO, 1)
    files = {
        "original": folder / "essay.txt",
        "edited": folder / "essay-edited.txt",
        "other": folder / "unrelated.txt",
        "chinese": folder / "茶.txt",
        "chinese_copy": folder / "茶-副本.txt",
    }
    files["original"].write_text(original, encoding="utf-8")
    files["edited"].write_text(edited, encoding="utf-8")
    files["other"].write_text(essay(99), encoding="utf-8")
    files["chinese"].write_text(CHINESE, encoding="utf-8")
    files["chinese_copy"].write_text(CHINESE.replace("红茶", "黑茶", 1), encoding="utf-8")
    return files


def picture(width: int = 640, height: int = 400, seed: int = 3) -> Image.Image:
    """A synthetic landscape: gradient sky, hills and a sun (perceptual hashes need structure)."""
    rng = np.random.default_rng(seed)
    sky = np.linspace(90, 220, height, dtype=np.float32)[:, None].repeat(width, axis=1)
    image = np.stack([sky * 0.6, sky * 0.8, sky], axis=-1)
    image += rng.normal(0, 3, image.shape)
    canvas = Image.fromarray(np.clip(image, 0, 255).astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(canvas)
    draw.ellipse((width * 0.7, height * 0.1, width * 0.85, height * 0.33), fill=(250, 220, 90))
    draw.polygon(
        [
            (0, height),
            (0, height * 0.6),
            (width * 0.35, height * 0.4),
            (width * 0.7, height * 0.65),
            (width, height * 0.5),
            (width, height),
        ],
        fill=(60, 120, 60),
    )
    return canvas


def write_image_corpus(folder: Path) -> dict[str, Path]:
    """A picture, a smaller JPEG copy, and a copy with a mark painted on it."""
    folder.mkdir(parents=True, exist_ok=True)
    base = picture()
    files = {
        "original": folder / "landscape.png",
        "small": folder / "landscape-small.jpg",
        "marked": folder / "landscape-marked.png",
    }
    base.save(files["original"])
    base.resize((320, 200)).save(files["small"], quality=85)
    marked = base.copy()
    ImageDraw.Draw(marked).rectangle((40, 40, 90, 90), fill=(200, 30, 30))
    marked.save(files["marked"])
    return files


def synthetic_result(groups: int, members: int = 3) -> ScanResult:
    """A result with ``groups`` groups, alternating text and image, for model tests."""
    built = []
    for g in range(groups):
        kind = Kind.TEXT if g % 2 == 0 else Kind.IMAGE
        rows = []
        for m in range(members):
            width = 800 + m * 10 if kind is Kind.IMAGE else None
            rows.append(
                Member(
                    path=f"/data/set{g % 7}/file{g:05d}-{m}.{'txt' if kind is Kind.TEXT else 'jpg'}",
                    size=1000 + 37 * ((g * 13 + m * 7) % 101),
                    mtime_ns=1_700_000_000_000_000_000 + (g * 7 + m * 3) % 50 * 10**9,
                    distance=0 if m == 0 else 1 + (g + m) % 5,
                    fingerprint=Fingerprint(kind, (g * 1_000_003 + m) & (2**64 - 1)),
                    width=width,
                    height=600 if width else None,
                )
            )
        built.append(Group(kind, tuple(rows)))
    return ScanResult(tuple(built), (), ScanStats(files_seen=groups * members))


def group_of(model: ResultsModel, index: QModelIndex) -> Group:
    """The group a row of the list shows or belongs to; the test fails where there is none."""
    group = model.group_at(index)
    assert group is not None, f"no group at row {index.row()}"
    return group


def member_of(model: ResultsModel, index: QModelIndex) -> Member:
    """The member a row of the list shows; the test fails where it shows none."""
    member = model.member_at(index)
    assert member is not None, f"no member at row {index.row()}"
    return member


def wait_idle(qtbot: QtBot, window: MainWindow, timeout: int = 20_000) -> None:
    """Wait until the window's job (scan, action...) has finished and its thread stopped."""
    qtbot.waitUntil(lambda: not window.busy(), timeout=timeout)


def scan_folder(qtbot: QtBot, window: MainWindow, folder: Path) -> None:
    """Scan ``folder`` through the window, as a user would, and wait for the results."""
    window.panel.add_folders([str(folder)])
    window.start_scan()
    assert window.busy()
    wait_idle(qtbot, window)


def drop_event(*paths: Path) -> QDropEvent:
    """What Qt hands a widget when files or folders are dropped on it."""
    mime = QMimeData()
    mime.setParent(QApplication.instance())  # the event does not own it: keep it alive
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
