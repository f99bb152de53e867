"""Fixtures for the desktop app's tests: windows with their own settings, journal and
decisions (never the user's).

QT_QPA_PLATFORM=offscreen and the redirected XDG folders come from tests/conftest.py, which
runs before anything here creates a QApplication or imports send2trash.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from dupfinder.core.actions.journal import Journal
from dupfinder.core.results.decisions import DecisionStore
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.settings import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def make_window(
    qtbot: object, tmp_path: Path, settings: Settings
) -> Iterator[Callable[..., MainWindow]]:
    """Build windows that keep journal and decisions in the test's folder."""
    windows: list[MainWindow] = []

    def make(**kwargs: object) -> MainWindow:
        kwargs.setdefault("settings", settings)
        kwargs.setdefault("journal", Journal(tmp_path / "journal.jsonl"))
        kwargs.setdefault("decisions", DecisionStore(tmp_path / "decisions.json"))
        window = MainWindow(**kwargs)  # type: ignore[arg-type]
        qtbot.addWidget(window)  # type: ignore[attr-defined]
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.shutdown()  # stop every thread before pytest-qt closes the widgets


@pytest.fixture
def window(make_window: Callable[..., MainWindow]) -> MainWindow:
    return make_window()
