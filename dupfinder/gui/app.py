"""Entry point of the desktop app: ``dupfinder`` with no arguments, or ``dupfinder gui``.

Importing this module fails with ``GuiUnavailable`` (an ``ImportError``) and a message that
says what to install when Qt cannot be loaded, so the CLI can explain instead of crashing.

The window paints before the engine loads: this module imports Qt and nothing of the engine
(numpy, the scan, the actions), ``main`` shows a first window at once, and only once that
window has painted is the main window (and with it the engine) imported and put in its place.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from dupfinder.gui import INSTALL_HINT, GuiUnavailable, display_available, system_check

try:
    from PySide6.QtCore import QSettings, Qt, QTimer
    from PySide6.QtGui import QPaintEvent
    from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget
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

from dupfinder.app.i18n import translate
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.icons import app_icon
from dupfinder.gui.translations import install_translations
from dupfinder.gui.window_size import fit_to_screen

if TYPE_CHECKING:  # imported when the first window has painted: it loads the engine
    from dupfinder.gui.main_window import MainWindow

__all__ = ["FirstWindow", "create_application", "main"]


def create_application(args: list[str]) -> QApplication:
    """The QApplication with the names QSettings and the desktop use to find our files."""
    app = QApplication(["dupfinder", *args])
    app.setApplicationName("dupfinder")
    app.setOrganizationName("dupfinder")
    app.setApplicationDisplayName("dupfinder")
    app.setDesktopFileName("dupfinder")
    app.setWindowIcon(app_icon())
    install_translations(app)  # the translators have the app as parent: they live with it
    return app


class FirstWindow(QWidget):
    """What the user sees while the engine loads: the window's title, icon and place, and a
    word saying it is coming. Its first paint starts the loading (``painted``)."""

    #: Where the main window keeps its place and size (``Settings.save_state("geometry")``).
    GEOMETRY_KEY = "window/geometry"

    def __init__(self, painted: Callable[[], None]) -> None:
        super().__init__()
        self._painted: Callable[[], None] | None = painted
        self.setWindowTitle("dupfinder")
        self.setWindowIcon(app_icon())
        label = QLabel(translate("Window", "Loading…"))
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        QVBoxLayout(self).addWidget(label)
        geometry = QSettings().value(self.GEOMETRY_KEY)
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1280, 800)
        fit_to_screen(self)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        super().paintEvent(event)
        if self._painted is not None:  # once: the loading waits for the next turn of events
            painted, self._painted = self._painted, None
            QTimer.singleShot(0, painted)


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
    shown: list[QWidget] = []

    def load() -> None:
        if shown[-1] is not first or not first.isVisible():
            return  # loaded already (painted, or the fallback timer), or closed meanwhile
        try:
            window = _main_window(folders)
        except Exception as exc:  # a broken install: say so instead of an empty window
            sys.stderr.write(f"dupfinder: the window could not be opened ({exc}).\n")
            app.exit(1)
            return
        shown.append(window)
        app.aboutToQuit.connect(window.shutdown)
        window.show()
        first.close()

    first = FirstWindow(load)
    shown.append(first)
    # Let Ctrl+C in a terminal close the window properly (threads stopped, settings saved):
    # Python only runs signal handlers between bytecodes, so wake it up now and then.
    previous = signal.signal(signal.SIGINT, lambda *_: shown[-1].close())
    timer = QTimer()
    timer.timeout.connect(lambda: None)
    timer.start(250)
    first.show()
    QTimer.singleShot(500, load)  # a platform that never paints a hidden or offscreen window
    try:
        return int(app.exec())
    finally:
        timer.stop()
        signal.signal(signal.SIGINT, previous)


def _main_window(folders: list[str]) -> MainWindow:
    """The main window, with the folders named on the command line (scanned at once)."""
    import dupfinder
    from dupfinder.gui.main_window import MainWindow  # the engine loads here

    QApplication.setApplicationVersion(dupfinder.__version__)  # package metadata: ~0.1 s
    window = MainWindow()
    if window.open_folders(folders):  # those alone, not beside the remembered ones
        QTimer.singleShot(0, window.start_scan)
    quit_after = os.environ.get("DUPFINDER_QUIT_AFTER_MS", "")
    if quit_after.isdigit():  # smoke tests of the bundles close the window the normal way
        QTimer.singleShot(int(quit_after), window.close)
    return window
