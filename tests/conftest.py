"""Test-wide isolation: no test may touch the user's real home, trash, cache, config or display;
and the desktop app's windows, each with its own settings, journal and decisions.

These variables are set at import time, before any test module imports send2trash
(which reads XDG_DATA_HOME once) or creates a QApplication. The window fixtures live here, not
in a tests/gui/conftest.py: mypy sees each test folder as pytest's sys.path does (pyproject's
mypy_path), where two files named conftest.py would be one module twice. They import Qt only
when a test asks for them, so the headless tests never load it.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

_SANDBOX = tempfile.mkdtemp(prefix="dupfinder-tests-")
for _name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
    os.environ[_name] = os.path.join(_SANDBOX, _name.lower())
    os.makedirs(os.environ[_name], exist_ok=True)
# send2trash picks the home trash only for files on the same device as HOME: keep HOME beside
# the test files, or a tmpfs /tmp would send them to a per-volume trash instead.
os.environ["HOME"] = os.path.join(_SANDBOX, "home")
os.makedirs(os.environ["HOME"], exist_ok=True)
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ.setdefault("HYPOTHESIS_PROFILE", "ci")
# Started in the background (`cmd &`, nohup), a runner inherits SIGINT ignored and Python then
# installs no KeyboardInterrupt handler; the Ctrl-C tests need the one a terminal gives.
signal.signal(signal.SIGINT, signal.default_int_handler)


import pytest  # noqa: E402 - after the environment above is set
from group_rules import check_groups  # noqa: E402

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from dupfinder.core.model import Group
    from dupfinder.gui.main_window import MainWindow
    from dupfinder.gui.settings import Settings


@pytest.fixture(autouse=True)
def _one_action_lock_per_test_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Applies and undos in this process take a lock of this test run, not the account's
    (tests that need the account's lock run their applies in child processes)."""
    from dupfinder.core.actions import lock

    monkeypatch.setattr(lock, "default_lock_path", lambda: Path(_SANDBOX) / "actions.lock")


@pytest.fixture(autouse=True)
def _every_group_keeps_its_promise(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scan a test runs (core, CLI or app) has its groups checked by group_rules."""
    from dupfinder.core.scan import pipeline as scan

    compare = scan._compare

    def checked(*args: Any, **kwargs: Any) -> tuple[list[Group], int]:  # _compare's arguments
        groups, pairs = compare(*args, **kwargs)
        options = args[2] if len(args) > 2 else kwargs["options"]
        check_groups(groups, options)
        return groups, pairs

    monkeypatch.setattr(scan, "_compare", checked)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The desktop app's settings in the test's folder (never the user's)."""
    from PySide6.QtCore import QSettings

    from dupfinder.gui.settings import Settings

    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def make_window(
    qtbot: QtBot, tmp_path: Path, settings: Settings
) -> Iterator[Callable[..., MainWindow]]:
    """Build windows that keep journal and decisions in the test's folder."""
    from dupfinder.core.actions.journal import Journal
    from dupfinder.core.results.decisions import DecisionStore
    from dupfinder.gui.main_window import MainWindow

    windows: list[MainWindow] = []

    def make(**kwargs: Any) -> MainWindow:  # MainWindow's keyword arguments
        kwargs.setdefault("settings", settings)
        kwargs.setdefault("journal", Journal(tmp_path / "journal.jsonl"))
        kwargs.setdefault("decisions", DecisionStore(tmp_path / "decisions.json"))
        window = MainWindow(**kwargs)
        qtbot.addWidget(window)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.shutdown()  # stop every thread before pytest-qt closes the widgets


@pytest.fixture
def window(make_window: Callable[..., MainWindow]) -> MainWindow:
    return make_window()
