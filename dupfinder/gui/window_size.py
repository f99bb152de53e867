"""Keep the window on its screen: never larger than the space the desktop leaves free.

At ``QT_SCALE_FACTOR=2`` on a 2560×1600 screen Qt reports 1280×800 device-independent
pixels, of which panels take some: a saved or default size of 1280×800 would then spill
over the edges and cut off the status bar.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QWidget

__all__ = ["fit_size", "fit_to_screen"]


def fit_size(wanted: QSize, frame: QSize, available: QRect) -> QSize:
    """The largest size up to ``wanted`` whose window, with its ``frame`` (title bar and
    borders), fits in ``available``."""
    width = min(wanted.width(), available.width() - frame.width())
    height = min(wanted.height(), available.height() - frame.height())
    return QSize(max(width, 200), max(height, 150))


def fit_to_screen(window: QWidget) -> None:
    """Shrink and move ``window`` so that it lies wholly on its screen."""
    screen = window.screen()
    if screen is None:
        return
    available = screen.availableGeometry()
    frame = window.frameGeometry().size() - window.geometry().size()
    if frame.width() < 0 or frame.height() < 0 or not window.isVisible():
        frame = QSize(16, 40)  # before the window is shown the frame is unknown
    size = fit_size(window.size(), frame, available)
    if size != window.size():
        window.resize(size)
    position = window.pos()
    x = min(max(position.x(), available.left()), available.right() - size.width() - frame.width())
    y = min(max(position.y(), available.top()), available.bottom() - size.height() - frame.height())
    if (x, y) != (position.x(), position.y()):
        window.move(max(x, available.left()), max(y, available.top()))
