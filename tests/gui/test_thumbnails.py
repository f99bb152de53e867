"""Thumbnails in the results list: off the GUI thread, only for rows on screen, cached."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from gui_helpers import picture, scan_folder, write_image_corpus
from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon, QImage
from pytestqt.qtbot import QtBot

from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.results_model import ResultsModel
from dupfinder.gui.thumbnails import LruCache, Thumbnails, ThumbState, decode_thumbnail


def _member(path: Path | str, distance: int = 0) -> Member:
    return Member(str(path), 1000, 1, distance, Fingerprint(Kind.IMAGE, 1), 64, 64)


def test_pictures_get_thumbnails_decoded_off_the_gui_thread(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    thumbnails = window.model.thumbnails

    def decode(path: str, side: int) -> tuple[QImage | None, str | None]:
        threads.append(threading.current_thread())
        return decode_thumbnail(path, side)

    monkeypatch.setattr(thumbnails, "decode", decode)
    files = write_image_corpus(tmp_path / "pictures")
    window.resize(1280, 800)
    window.show()
    scan_folder(qtbot, window, tmp_path / "pictures")
    index = window.model.index_of_path(str(files["small"]))
    member = window.model.member_at(index)
    assert member is not None
    first = index.data(Qt.ItemDataRole.DecorationRole)
    assert isinstance(first, QIcon)  # a placeholder at once, the thumbnail later
    qtbot.waitUntil(lambda: thumbnails.state(member) is ThumbState.READY, timeout=10_000)
    assert isinstance(index.data(Qt.ItemDataRole.DecorationRole), QIcon)
    shown = thumbnails.pixmap(member)
    side = thumbnails.device_side()
    assert max(shown.width(), shown.height()) == side  # 320 × 200 reduced to the side
    assert shown.width() == side  # landscape: as wide as the side, less tall
    assert shown.height() < side
    assert shown.devicePixelRatio() == thumbnails.ratio
    assert threads
    assert threading.main_thread() not in threads
    # The group row shows its first picture too.
    assert isinstance(index.parent().data(Qt.ItemDataRole.DecorationRole), QIcon)
    # Cached: asking again decodes nothing.
    count = len(threads)
    index.data(Qt.ItemDataRole.DecorationRole)
    assert len(threads) == count


def test_a_picture_that_cannot_be_read_says_so(qtbot: QtBot, tmp_path: Path) -> None:
    good = tmp_path / "good.png"
    picture(80, 60).save(good)
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\nnot really a picture")
    model = ResultsModel()
    model.set_result(ScanResult((Group(Kind.IMAGE, (_member(good), _member(broken, 3))),)))
    group = model.index(0, 0)
    bad = model.index(1, 0, group)
    placeholder = bad.data(Qt.ItemDataRole.DecorationRole).pixmap(32).toImage()
    member = model.member_at(bad)
    assert member is not None
    qtbot.waitUntil(lambda: model.thumbnails.state(member) is ThumbState.FAILED, timeout=10_000)
    cannot = bad.data(Qt.ItemDataRole.DecorationRole).pixmap(32).toImage()
    assert cannot != placeholder  # a picture of its own, not the loading one
    assert "Cannot read this picture" in bad.data(Qt.ItemDataRole.ToolTipRole)
    model.thumbnails.stop()


def test_only_rows_on_screen_are_decoded(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    decoded: list[str] = []
    thumbnails = window.model.thumbnails

    def decode(path: str, side: int) -> tuple[QImage | None, str | None]:
        decoded.append(path)
        return None, "not there"

    thumbnails.decode = decode
    groups = tuple(
        Group(Kind.IMAGE, (_member(f"/p/{g}-a.png"), _member(f"/p/{g}-b.png", 2)))
        for g in range(3000)
    )
    window.resize(1280, 800)
    window.show()
    window.model.set_result(ScanResult(groups))
    window.view.expandAll()
    qtbot.wait(300)  # paint, decode, repaint
    assert 0 < thumbnails.requested < 100  # a screenful, not 9,000 rows
    assert len(decoded) == thumbnails.requested


def test_the_cache_forgets_the_least_recently_used() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    cache.put("c", 3)
    assert "b" not in cache
    assert cache.get("a") == 1
    assert cache.get("c") == 3
    assert len(cache) == 2
    with pytest.raises(ValueError, match="capacity"):
        LruCache(0)


def test_names_stay_in_line_beside_pictures(tmp_path: Path) -> None:
    """With pictures in the result, documents and other files get an empty icon as wide as a
    thumbnail; a result without pictures gets none (its rows stay short)."""
    from gui_helpers import group_of, synthetic_result

    model = ResultsModel()
    model.set_result(synthetic_result(2))  # a group of documents, then one of pictures
    text_group = model.index(0, 0)
    assert group_of(model, text_group).kind is Kind.TEXT
    blank = model.index(0, 0, text_group).data(Qt.ItemDataRole.DecorationRole)
    assert isinstance(blank, QIcon)
    assert blank.pixmap(32).toImage().pixelColor(16, 16).alpha() == 0
    assert model.index(0, 1, text_group).data(Qt.ItemDataRole.DecorationRole) is None
    only_text = ScanResult((synthetic_result(1).groups[0],))
    model.set_result(only_text)
    assert model.index(0, 0).data(Qt.ItemDataRole.DecorationRole) is None
    model.thumbnails.stop()


def test_thumbnails_are_sharp_on_a_2x_screen(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "icon.png"
    picture(256, 256).save(path)
    thumbnails = Thumbnails(side=32)
    thumbnails.set_ratio(2.0)
    member = _member(path)
    thumbnails.pixmap(member)
    qtbot.waitUntil(lambda: thumbnails.state(member) is ThumbState.READY, timeout=10_000)
    pixmap = thumbnails.pixmap(member)
    assert (pixmap.width(), pixmap.height()) == (64, 64)  # device pixels
    assert pixmap.devicePixelRatio() == 2.0  # drawn in 32 logical pixels
    thumbnails.stop()


def test_moving_to_a_sharper_screen_makes_the_thumbnails_again(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    path = tmp_path / "icon.png"
    picture(256, 256).save(path)
    member = _member(path)
    thumbnails = window.model.thumbnails
    thumbnails.pixmap(member)
    qtbot.waitUntil(lambda: thumbnails.state(member) is ThumbState.READY, timeout=10_000)
    assert thumbnails.pixmap(member).width() == 32
    monkeypatch.setattr(window.view, "devicePixelRatioF", lambda: 2.0)
    QApplication.sendEvent(window.view, QEvent(QEvent.Type.DevicePixelRatioChange))
    assert thumbnails.ratio == 2.0
    assert thumbnails.state(member) is ThumbState.LOADING  # the 1x one is not shown blurred
    thumbnails.pixmap(member)
    qtbot.waitUntil(lambda: thumbnails.state(member) is ThumbState.READY, timeout=10_000)
    assert thumbnails.pixmap(member).width() == 64


def test_a_white_icon_on_transparency_shows_on_a_checkerboard(tmp_path: Path) -> None:
    """A white symbolic icon drawn on nothing vanished on the list's white rows: transparent
    parts now show a grey checkerboard, and the white strokes stand out on it."""
    from PIL import Image, ImageDraw

    icon = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    ImageDraw.Draw(icon).rectangle((24, 8, 40, 56), fill=(255, 255, 255, 255))
    path = tmp_path / "symbolic.png"
    icon.save(path)
    image, problem = decode_thumbnail(str(path), 64)
    assert problem is None
    assert image is not None
    stroke, empty = image.pixelColor(32, 32), image.pixelColor(4, 4)
    assert (stroke.red(), stroke.alpha()) == (255, 255)
    assert empty.alpha() == 255  # no longer transparent: the row's white cannot show through
    assert empty.red() < 200  # a grey the white stroke stands out on
    opaque = tmp_path / "photo.png"
    picture(64, 48).save(opaque)
    plain, _ = decode_thumbnail(str(opaque), 64)
    assert plain is not None
    assert plain.pixelColor(4, 4) == QImage(str(opaque)).pixelColor(4, 4)  # opaque: unchanged
