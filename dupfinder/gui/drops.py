"""What a drop onto the window may do to the dragged files: nothing (they are only read).

A drag proposes an action to its source: copy, link or move. Accepting a *move* tells a
file manager that honours it to delete the originals once the drop is done, so a file or
folder dragged onto dupfinder would vanish from where it was. Every drop target here accepts
a copy (or, when a source offers no copy, a link) and refuses a drag that offers neither.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent

__all__ = ["accept_without_moving"]

DragEvent = QDropEvent | QDragEnterEvent | QDragMoveEvent


def accept_without_moving(event: DragEvent) -> bool:
    """Accept ``event`` as a copy (or a link), never as a move; False when it offers
    neither, and the event is then ignored."""
    offered = event.possibleActions()
    for action in (Qt.DropAction.CopyAction, Qt.DropAction.LinkAction):
        if offered & action:
            event.setDropAction(action)
            event.accept()
            return True
    event.ignore()
    return False
