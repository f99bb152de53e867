"""The app icon and toolbar icons.

The app icon is the one SVG in ``resources/icons`` (packaging derives PNG/ICO/ICNS from it);
it is looked up in the source tree, in a PyInstaller bundle and in an installed ``share``
folder. Toolbar icons come from the desktop's icon theme when there is one and fall back to
Qt's built-in standard icons, so the toolbar never shows empty buttons.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle

__all__ = ["app_icon", "app_icon_path", "themed"]

_ICON_NAME = "dupfinder.svg"


def _candidates() -> list[Path]:
    places = [Path(__file__).resolve().parents[2] / "resources" / "icons" / _ICON_NAME]
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        places.append(Path(bundle) / "resources" / "icons" / _ICON_NAME)
    places.append(
        Path(sys.prefix) / "share" / "icons" / "hicolor" / "scalable" / "apps" / _ICON_NAME
    )
    return places


def app_icon_path() -> Path | None:
    """Where the app icon SVG is, or None when this installation has none."""
    return next((path for path in _candidates() if path.is_file()), None)


def app_icon() -> QIcon:
    path = app_icon_path()
    if path is not None:
        icon = QIcon(str(path))
        if not icon.isNull():
            return icon
    return themed("dupfinder", QStyle.StandardPixmap.SP_FileDialogContentsView)


def themed(name: str, fallback: QStyle.StandardPixmap) -> QIcon:
    """The theme's icon ``name`` (freedesktop naming), else Qt's standard ``fallback``."""
    icon = QIcon.fromTheme(name)
    if icon.isNull():
        icon = QApplication.style().standardIcon(fallback)
    return icon
