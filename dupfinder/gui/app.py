"""Entry point of the desktop app: ``dupfinder`` with no arguments, or ``dupfinder gui``.

Importing this module fails with ``GuiUnavailable`` (an ``ImportError``) and a message that
says what to install when Qt cannot be loaded, so the CLI can explain instead of crashing.
"""

from __future__ import annotations

import os
import signal
import sys

from dupfinder.gui import INSTALL_HINT, GuiUnavailable, display_available, system_check

try:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
except ModuleNotFoundError as exc:
    raise GuiUnavailable(INSTALL_HINT) from exc
except ImportError as exc:  # PySide6 is there but a system library Qt links to is not
    _missing = system_check.check()
    raise GuiUnavailable(
        system_check.describe(_missing).rstrip()
        if _missing
        else f"Qt could not be loaded ({exc}); on Linux install the libraries Qt needs, e.g. "
        "libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3"
    ) from exc

from dupfinder import __version__
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.icons import app_icon
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.translations import install_translations

__all__ = ["create_application", "main"]


def create_application(args: list[str]) -> QApplication:
    """The QApplication with the names QSettings and the desktop use to find our files."""
    app = QApplication(["dupfinder", *args])
    app.setApplicationName("dupfinder")
    app.setOrganizationName("dupfinder")
    app.setApplicationDisplayName("dupfinder")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("dupfinder")
    app.setWindowIcon(app_icon())
    install_translations(app)  # the translators have the app as parent: they live with it
    return app


def main(argv: list[str] | None = None) -> int:
    """Open the window; ``argv`` (without the program name) lists folders to put in the scan
    list, and may hold Qt's own options (``-platform``, ``-style``...)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not display_available() and "-platform" not in args:
        sys.stderr.write(
            "dupfinder: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are "
            "unset). Use 'dupfinder scan PATH' for the command line.\n"
        )
        return 2
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        app, folders = existing, args
    else:
        # a missing xcb library makes Qt abort the process: name every missing one first
        missing = system_check.check()
        if missing:
            sys.stderr.write(system_check.describe(missing))
            return 1
        app = create_application(args)
        folders = app.arguments()[1:]  # Qt has removed its own options
    window = MainWindow()
    named = window.open_folders(folders)  # those alone, not beside the remembered ones
    app.aboutToQuit.connect(window.shutdown)
    # Let Ctrl+C in a terminal close the window properly (threads stopped, settings saved):
    # Python only runs signal handlers between bytecodes, so wake it up now and then.
    previous = signal.signal(signal.SIGINT, lambda *_: window.close())
    timer = QTimer()
    timer.timeout.connect(lambda: None)
    timer.start(250)
    window.show()
    if named:  # folders named on the command line: the user wants them scanned
        QTimer.singleShot(0, window.start_scan)
    quit_after = os.environ.get("DUPFINDER_QUIT_AFTER_MS", "")
    if quit_after.isdigit():  # smoke tests of the bundles close the window the normal way
        QTimer.singleShot(int(quit_after), window.close)
    try:
        return int(app.exec())
    finally:
        timer.stop()
        signal.signal(signal.SIGINT, previous)
