"""The desktop app (PySide6). Nothing outside this package imports Qt.

Importing this package itself needs no Qt, so the CLI can ask whether a window can open
(``display_available``) and get a helpful ``GuiUnavailable`` (an ``ImportError``) from
``dupfinder.gui.app`` when PySide6 is not installed.
"""

from __future__ import annotations

import os
import sys

__all__ = ["INSTALL_HINT", "GuiUnavailable", "display_available"]

INSTALL_HINT = "the desktop app needs PySide6: pip install 'dupfinder[gui]'"


class GuiUnavailable(ImportError):
    """PySide6 (the Qt binding the desktop app uses) is not installed."""


def display_available() -> bool:
    """Whether a window can be shown: always on Windows and macOS; on other systems an X11
    or Wayland display, or an explicit QT_QPA_PLATFORM (offscreen, vnc...), is needed."""
    if sys.platform in ("win32", "darwin"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))
