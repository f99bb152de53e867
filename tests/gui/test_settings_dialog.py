"""The settings window: identical files of every type, the cache folder and clearing it."""

from __future__ import annotations

from pathlib import Path

from dupfinder.app.scan_settings import AdvancedSettings
from dupfinder.core.model import ScanOptions
from dupfinder.core.scan import pipeline as scan
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.settings_dialog import SettingsDialog


def test_identical_files_and_the_cache_folder_reach_the_scan(
    window: MainWindow, tmp_path: Path
) -> None:
    dialog = SettingsDialog(AdvancedSettings(), window)
    assert dialog.identical.isChecked()  # as the command line: identical files of every type
    dialog.identical.setChecked(False)
    dialog.cache_dir.setText(str(tmp_path / "cache"))
    chosen = dialog.settings()
    assert not chosen.identical
    assert chosen.cache_dir == str(tmp_path / "cache")
    dialog.restore_defaults()
    assert dialog.settings() == AdvancedSettings()
    window.panel.advanced = chosen
    window.panel.add_folders([str(tmp_path)])
    options = window.panel.scan_options()
    assert not options.identical
    assert options.cache_dir == tmp_path / "cache"


def test_clear_cache_says_how_much_it_freed(window: MainWindow, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(4):
        (docs / f"n{i}.txt").write_text(f"a note numbered {i} " * 300, encoding="utf-8")
    scan.run(ScanOptions(roots=(docs,), cache_dir=cache))
    used = sum(p.stat().st_size for p in cache.iterdir() if p.is_file())
    dialog = SettingsDialog(AdvancedSettings(cache_dir=str(cache)), window)
    assert dialog.clear_button.isEnabled()
    from dupfinder.core.wording import format_size

    assert format_size(used) in dialog.cache_usage.text()
    dialog.clear_button.click()
    assert dialog.cache_usage.text() == f"Cache cleared: {format_size(used)} freed."
    assert not dialog.clear_button.isEnabled()
    assert not any(p.is_file() for p in cache.iterdir())
