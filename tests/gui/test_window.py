"""The window as a whole: settings round-trip, keyboard, scan panel, About, entry point."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from gui_helpers import drop_event, scan_folder, synthetic_result, write_text_corpus
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from dupfinder import __version__
from dupfinder.app.progress import ProgressEstimate
from dupfinder.core.model import DEFAULT_TEXT_SIMILARITY, Kind, Phase, Progress
from dupfinder.gui import GuiUnavailable, display_available
from dupfinder.gui.dialogs import AboutDialog
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.results_model import Column
from dupfinder.gui.scan_panel import alike_pictures, shared_text, split_patterns
from dupfinder.gui.settings import AdvancedSettings, FolderEntry, ScanSettings, Settings


def test_scan_settings_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "s.ini"
    state = ScanSettings(
        folders=(FolderEntry(str(tmp_path), True), FolderEntry("/photos", False)),
        include="*.txt; *.pdf",
        exclude="*/tmp/*",
        kinds=frozenset({Kind.IMAGE}),
        text_similarity=85,
        image_similarity=92,
        advanced=AdvancedSettings(identical=False, cache_dir=str(tmp_path / "cache")),
    )
    Settings(QSettings(str(path), QSettings.Format.IniFormat)).save_scan(state)
    again = Settings(QSettings(str(path), QSettings.Format.IniFormat)).load_scan()
    assert again == state


def test_damaged_settings_fall_back_to_defaults(tmp_path: Path) -> None:
    path = tmp_path / "s.ini"
    path.write_text("[scan]\ntext_similarity=banana\nimage_similarity=12\nkinds=sound\n")
    loaded = Settings(QSettings(str(path), QSettings.Format.IniFormat)).load_scan()
    assert loaded == ScanSettings()


@pytest.mark.parametrize(
    ("old", "text", "image"),
    [
        ("text_threshold=8\nimage_threshold=8", 70, 85),  # the old defaults: the new ones
        ("text_threshold=4\nimage_threshold=2", 85, 96),  # stricter stays stricter
        ("text_threshold=12\nimage_threshold=16", 55, 70),  # looser stays looser
        ("text_threshold=0\nimage_threshold=32", 100, 50),  # identical only; the floor
        ("text_threshold=4\ntext_similarity=90", 90, 85),  # a new setting wins
    ],
)
def test_a_radius_saved_by_an_earlier_version_becomes_a_similarity(
    tmp_path: Path, old: str, text: int, image: int
) -> None:
    path = tmp_path / "s.ini"
    path.write_text(f"[scan]\n{old}\n")
    loaded = Settings(QSettings(str(path), QSettings.Format.IniFormat)).load_scan()
    assert (loaded.text_similarity, loaded.image_similarity) == (text, image)


def test_window_remembers_folders_thresholds_geometry_and_columns(
    make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    first = make_window()
    first.panel.folders.add_folder(str(tmp_path), reference=True)
    first.panel.text_similarity.set_value(80)
    first.panel.image_similarity.set_value(94)
    first.panel.include.setText("*.md")
    first.resize(760, 540)  # within the offscreen screen (800x600): restoring clamps to it
    first.view.setColumnWidth(Column.FOLDER, 333)
    first.save_settings()

    second = make_window()
    assert second.panel.folders.entries() == (FolderEntry(str(tmp_path), True),)
    assert second.panel.text_similarity.value() == 80
    assert second.panel.image_similarity.value() == 94
    assert second.panel.include.text() == "*.md"
    assert (second.width(), second.height()) == (760, 540)
    assert second.view.columnWidth(Column.FOLDER) == 333


def test_threshold_labels_show_the_verified_similarity(window: MainWindow) -> None:
    assert shared_text(75) == "≥ 75% of the text shared"
    assert alike_pictures(92) == "≥ 92% alike"
    window.panel.text_similarity.set_value(round(DEFAULT_TEXT_SIMILARITY * 100))
    assert window.panel.text_similarity.label.text().endswith("(default)")
    window.panel.text_similarity.set_value(90)
    assert window.panel.text_similarity.label.text() == shared_text(90)
    window.panel.add_folders([str(Path.home())])
    assert window.panel.scan_options().text_similarity == 0.9  # the verified share, not bits
    assert split_patterns("*.pdf; *.docx,*.txt\n") == ("*.pdf", "*.docx", "*.txt")


def test_scan_options_come_from_the_panel(window: MainWindow, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="folder"):
        window.panel.scan_options()
    window.panel.add_folders([str(tmp_path)])
    window.panel.kinds.setCurrentIndex(1)
    window.panel.exclude.setText("*.log; */cache/*")
    window.panel.image_similarity.set_value(93)
    options = window.panel.scan_options()
    assert options.roots == (tmp_path,)
    assert options.kinds == frozenset({Kind.TEXT})
    assert options.exclude == ("*.log", "*/cache/*")
    assert options.image_similarity == 0.93  # the verified similarity, not bits


def test_progress_text_has_counts_and_an_estimate() -> None:
    estimate = ProgressEstimate()
    assert estimate.describe(Progress(Phase.WALKING, 120), now=0.0) == "Finding files: 120 so far"
    estimate.describe(Progress(Phase.FINGERPRINTING, 0, 1000), now=10.0)
    text = estimate.describe(Progress(Phase.FINGERPRINTING, 250, 1000), now=15.0)
    assert text == "Fingerprinting: 250 of 1,000 · this step about 15 s left"


def test_folders_can_be_dropped_on_the_window(window: MainWindow, tmp_path: Path) -> None:
    event = drop_event(tmp_path, tmp_path / "none")
    window.panel.folders.dropEvent(event)
    assert window.panel.folders.paths() == [str(tmp_path)]
    window.dropEvent(event)  # already listed: not added twice
    assert window.panel.folders.paths() == [str(tmp_path)]


def test_keyboard_filter_and_arrows(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    write_text_corpus(tmp_path / "docs")
    scan_folder(qtbot, window, tmp_path / "docs")
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    window.view.setFocus()
    group = window.model.index(0, 0)
    window.view.setCurrentIndex(group)
    qtbot.keyClick(window.view, Qt.Key.Key_Down)
    assert window.view.currentIndex() == window.model.index(0, 0, group)
    qtbot.keyClick(window.view, Qt.Key.Key_Space)
    assert len(window.model.marks()) == 1
    qtbot.keyClick(window.view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.filter.hasFocus()
    qtbot.keyClicks(window.filter, "no-such-name")
    qtbot.waitUntil(lambda: window.model.rowCount() == 0)
    assert window.view.placeholder == "No group matches the filter."
    assert "showing 0 of" in window.totals_label.text()
    window.filter.clear()
    qtbot.waitUntil(lambda: window.model.rowCount() > 0)


def test_model_scales_to_many_groups_in_the_view(window: MainWindow) -> None:
    from dupfinder.gui.results_model import prepare

    window.model.set_prepared(prepare(synthetic_result(20_000)))
    assert window.model.rowCount() == 20_000
    assert window.view.uniformRowHeights()
    window.view.sortByColumn(Column.NAME, Qt.SortOrder.AscendingOrder)
    first = window.model.index(0, 0)
    assert window.model.group_at(first) is not None


def test_about_shows_the_version(window: MainWindow) -> None:
    dialog = AboutDialog(window.windowIcon(), window)
    assert __version__ in dialog.text.text()
    assert not window.windowIcon().isNull()
    assert window.windowTitle() == "dupfinder"


def test_quit_shortcut_is_ctrl_q(window: MainWindow) -> None:
    assert window.commands.quit.shortcut().toString() == "Ctrl+Q"
    assert window.commands.filter.shortcut().toString() == "Ctrl+F"


def test_main_opens_the_window_with_folders_and_returns(tmp_path: Path) -> None:
    from dupfinder.gui import app

    def close_windows() -> None:
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
        if not windows or any(w.app.job is not None for w in windows):
            # the window comes once the first one has painted, and scans the folders first
            QTimer.singleShot(20, close_windows)
            return
        for widget in windows:
            assert str(tmp_path) in widget.panel.folders.paths()
            widget.close()

    QTimer.singleShot(0, close_windows)
    assert app.main([str(tmp_path)]) == 0


def test_core_and_gui_package_import_without_qt() -> None:
    code = textwrap.dedent(
        """
        import sys
        import dupfinder.core.scan.pipeline, dupfinder.gui
        assert not any(name.startswith("PySide6") for name in sys.modules), "Qt loaded"
        sys.modules["PySide6"] = None  # as if PySide6 were not installed
        try:
            import dupfinder.gui.app
        except ImportError as exc:
            assert type(exc).__name__ == "GuiUnavailable", type(exc)
            print(exc)
        else:
            raise SystemExit("imported without PySide6")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'dupfinder[gui]'" in done.stdout
    assert issubclass(GuiUnavailable, ImportError)


def test_display_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert not display_available()
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert display_available()


def test_folders_on_the_command_line_are_scanned_and_quit_after_closes(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scan_helpers import essay, write

    from dupfinder.gui import app

    write(tmp_path / "a.txt", essay(1))
    write(tmp_path / "b.txt", essay(1))
    seen: list[int] = []

    def count_groups() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow) and widget.isVisible():
                seen.append(widget.model.rowCount())

    monkeypatch.setenv("DUPFINDER_QUIT_AFTER_MS", "3000")
    QTimer.singleShot(2500, count_groups)
    assert app.main([str(tmp_path)]) == 0
    assert seen == [1]


def test_the_window_takes_the_gil_back_quickly(window: MainWindow) -> None:
    """A worker thread running Python keeps the GIL at most this long from the window."""
    import sys

    from dupfinder.gui.latency import GIL_SWITCH_SECONDS

    assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_SECONDS)
    assert GIL_SWITCH_SECONDS < 0.005  # shorter than Python's default


def test_the_app_lifetime_objects_are_out_of_the_collectors_full_passes(
    window: MainWindow,
) -> None:
    """The modules and the window are frozen: a full pass walks only what came after."""
    import gc

    assert gc.get_freeze_count() > 10_000
