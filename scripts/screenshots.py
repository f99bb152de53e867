"""Regenerate the screenshots in docs/ from the sample folder (resources/sample).

    python scripts/screenshots.py [--out docs] [--size 1280x800]

The sample gets a small icon with a JPEG copy and an archive kept twice, for the
enlarged-icon comparison and a group of byte-identical files of another type. Besides the
English shots it takes one in Chinese (the app's zh_CN translation) and runs
itself once more with QT_SCALE_FACTOR=2 for one at twice the scale (screenshot-2x.png).

Runs without a display (Qt's offscreen platform renders exactly what a real window shows) on
copies of the sample files in a temporary folder, with its own settings, cache, trash,
journal and decisions, so nothing of the user's is read or changed. Each state is a real
scan or a real selection in the app; nothing is painted by hand.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "resources" / "sample"
WORDS = (
    "river bridge garden window morning evening kitchen market letter station winter summer "
    "harbour village mountain forest valley meadow orchard library teacher doctor painter"
).split()


def _isolate(temp: Path) -> None:
    """Point every per-user folder at ``temp`` before dupfinder (and send2trash) is imported."""
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        folder = temp / name.lower()
        folder.mkdir()
        os.environ[name] = str(folder)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _many_files(folder: Path, count: int) -> None:
    """Enough small documents for the scan to be caught while it fingerprints."""
    folder.mkdir()
    rng = random.Random(7)
    for i in range(count):
        text = " ".join(rng.choice(WORDS) for _ in range(120))
        (folder / f"note-{i:05d}.txt").write_text(text, encoding="utf-8")


def _icons_and_archives(demo: Path) -> None:
    """A 48-pixel icon with a JPEG copy of it (shown enlarged in the comparison), a 64-pixel
    version of it, and an archive kept twice (byte-identical files of no picture or text
    type)."""
    import zipfile

    from PIL import Image, ImageDraw

    def icon(side: int) -> Image.Image:
        image = Image.new("RGBA", (side, side), (0, 0, 0, 0))
        draw = ImageDraw.Draw(image)
        unit = side / 48
        draw.rounded_rectangle(
            (4 * unit, 8 * unit, 44 * unit, 42 * unit), 6 * unit, fill=(52, 101, 164, 255)
        )
        draw.rectangle((4 * unit, 4 * unit, 20 * unit, 12 * unit), fill=(52, 101, 164, 255))
        draw.rounded_rectangle(
            (8 * unit, 16 * unit, 40 * unit, 38 * unit), 4 * unit, fill=(114, 159, 207, 255)
        )
        draw.ellipse((18 * unit, 20 * unit, 30 * unit, 32 * unit), fill=(252, 233, 79, 255))
        return image

    icons = demo / "icons"
    icons.mkdir()
    icon(48).save(icons / "folder-48.png")
    icon(64).save(icons / "folder-64.png")
    flat = Image.new("RGB", (48, 48), (255, 255, 255))
    flat.paste(icon(48), mask=icon(48))
    flat.save(icons / "folder-48 copy.jpg", quality=90)
    downloads = demo / "downloads"
    downloads.mkdir()
    with zipfile.ZipFile(downloads / "notes.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted((demo / "notes").iterdir()):
            archive.write(path, path.name)
    shutil.copyfile(downloads / "notes.zip", downloads / "notes (1).zip")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--size", default="1280x800", help="window size, WIDTHxHEIGHT")
    parser.add_argument("--scaled", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dupfinder-shots-") as temp_name:
        temp = Path(temp_name)
        _isolate(temp)
        demo = temp / "Documents"
        shutil.copytree(SAMPLE, demo)
        _icons_and_archives(demo)
        many = temp / "Archive"
        _many_files(many, 4000)
        if args.scaled:
            return _shoot_scaled(args.out, width, height, temp, demo)
        done = _shoot(args.out, width, height, temp, demo, many)
    env = {**os.environ, "QT_SCALE_FACTOR": "2"}
    scaled = [sys.executable, __file__, "--out", str(args.out), "--size", args.size, "--scaled"]
    return done or subprocess.run(scaled, env=env, check=False).returncode


def _shoot_scaled(out: Path, width: int, height: int, temp: Path, demo: Path) -> int:
    """The main view at QT_SCALE_FACTOR=2: a 2560×1600 screen's worth of pixels."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from dupfinder.core.actions.journal import Journal
    from dupfinder.core.results.decisions import DecisionStore
    from dupfinder.gui.app import create_application
    from dupfinder.gui.main_window import MainWindow
    from dupfinder.gui.settings import Settings

    app = create_application([])
    settings = Settings(QSettings(str(temp / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(
        settings, journal=Journal(temp / "journal.jsonl"), decisions=DecisionStore(temp / "d.json")
    )
    window.resize(width, height)
    window.show()
    window.panel.add_folders([str(demo)])
    window.start_scan()
    deadline = time.monotonic() + 120
    while window.busy() or window.model.rowCount() == 0:
        if time.monotonic() > deadline:
            raise TimeoutError("gave up waiting for the scan")
        app.processEvents()
        time.sleep(0.005)
    for _ in range(50):
        app.processEvents()
        time.sleep(0.01)
    path = out / "screenshot-2x.png"
    window.grab().save(str(path))
    print(f"wrote {path}")
    window.shutdown()
    window.close()
    QApplication.processEvents()
    return 0


def _shoot(out: Path, width: int, height: int, temp: Path, demo: Path, many: Path) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QAbstractItemView, QApplication, QWidget

    from dupfinder.core.actions import Action, make_plan
    from dupfinder.core.actions.journal import Journal
    from dupfinder.core.results.decisions import DecisionStore
    from dupfinder.gui.app import create_application
    from dupfinder.gui.dialogs import PlanDialog
    from dupfinder.gui.image_preview import ImagePreview
    from dupfinder.gui.main_window import MainWindow
    from dupfinder.gui.settings import Settings
    from dupfinder.gui.text_preview import TextPreview

    app = create_application([])
    if not QFontMetrics(app.font()).inFontUcs4(ord("中")):
        print("warning: no font with Chinese glyphs: install fonts-wqy-microhei", file=sys.stderr)

    def wait(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"gave up waiting for {what}")
            app.processEvents()
            time.sleep(0.005)
        for _ in range(5):  # let layouts and repaints settle
            app.processEvents()

    def shot(widget: QWidget, name: str) -> None:
        path = out / name
        widget.grab().save(str(path))
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")

    settings = Settings(QSettings(str(temp / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(
        settings, journal=Journal(temp / "journal.jsonl"), decisions=DecisionStore(temp / "d.json")
    )
    window.resize(width, height)
    window.show()
    wait(lambda: window.isVisible(), "the window")
    shot(window, "screenshot-empty.png")

    # Scanning: a few thousand files, caught while they are fingerprinted.
    window.panel.add_folders([str(demo), str(many)])
    window.start_scan()
    bar = window.panel.progress_bar

    def fingerprinting() -> bool:
        """In the fingerprinting phase with an estimate, or half through it (a fast machine
        may finish before an estimate is worth showing)."""
        text = window.panel.progress_label.text()
        halfway = bar.maximum() > 0 and bar.value() * 2 >= bar.maximum()
        return text.startswith("Fingerprinting") and ("left" in text or halfway)

    wait(fingerprinting, "the fingerprinting phase")
    shot(window, "screenshot-scanning.png")
    window.cancel_job()
    wait(lambda: not window.busy(), "the cancelled scan")

    # Results: scan the documents only, then look at groups one by one.
    window.panel.folders.clear()
    window.panel.add_folders([str(demo)])
    window.start_scan()
    wait(lambda: not window.busy(), "the scan")

    def select(relative: str, preview: TextPreview | ImagePreview) -> None:
        index = window.model.index_of_path(str(demo / relative))
        if not index.isValid():
            raise LookupError(f"{relative} is in no group")
        rendered = []
        preview.rendered.connect(lambda: rendered.append(True))
        window.view.setCurrentIndex(index)
        top = QAbstractItemView.ScrollHint.PositionAtTop
        window.view.scrollTo(index.parent(), top)  # the whole group in view
        wait(lambda: bool(rendered), f"the preview of {relative}")

    select("articles/river-walk.txt", window.text_preview)
    shot(window, "screenshot-main.png")
    select("中文/泡茶笔记.txt", window.text_preview)
    shot(window, "screenshot-text-cjk.png")
    select("reports/maintenance-report.pdf", window.text_preview)
    shot(window, "screenshot-text-pdf-docx.png")
    select("photos/hills-small.jpg", window.image_preview)
    shot(window, "screenshot-images.png")
    window.image_preview.show_difference.setChecked(True)
    select("photos/hills.webp", window.image_preview)
    shot(window, "screenshot-image-difference.png")
    window.image_preview.show_difference.setChecked(False)
    select("icons/folder-48 copy.jpg", window.image_preview)
    shot(window, "screenshot-icon-enlarged.png")
    index = window.model.index_of_path(str(demo / "downloads" / "notes (1).zip"))
    window.view.setCurrentIndex(index)
    window.view.scrollTo(index.parent(), QAbstractItemView.ScrollHint.PositionAtTop)
    wait(lambda: window.preview.currentWidget() is window.file_preview, "the file facts")
    shot(window, "screenshot-other.png")

    # The confirmation the window shows before trashing: keep the newest of each group.
    window.apply_keep_rule("newest")
    wait(lambda: not window.busy(), "the mark rule")
    shot(window, "screenshot-marked.png")
    plan = make_plan(window.model.result(), window.model.marks(), Action())
    dialog = PlanDialog(plan, window)
    dialog.show()
    wait(lambda: dialog.isVisible(), "the dialog")
    shot(dialog, "screenshot-confirm.png")
    dialog.close()

    window.shutdown()
    window.close()

    # The same folder in Chinese: the translation the app picks for a zh_CN locale.
    from PySide6.QtCore import QLocale

    from dupfinder.gui.translations import install_translations

    install_translations(app, QLocale("zh_CN"))
    chinese = MainWindow(
        settings, journal=Journal(temp / "journal.jsonl"), decisions=DecisionStore(temp / "d.json")
    )
    chinese.resize(width, height)
    chinese.show()
    chinese.panel.folders.clear()
    chinese.panel.add_folders([str(demo)])
    chinese.start_scan()
    wait(lambda: not chinese.busy() and chinese.model.rowCount() > 0, "the Chinese scan")
    window = chinese
    select("中文/泡茶笔记.txt", chinese.text_preview)
    shot(chinese, "screenshot-zh.png")
    chinese.shutdown()
    chinese.close()
    QApplication.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
