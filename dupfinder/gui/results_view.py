"""The results tree view: uniform rows, sortable columns, and Space to toggle marks.

Space is handled here instead of by the item delegate, so it toggles the mark of every
selected member whichever column has focus (the delegate only reacts on the check box column).
Delete is handled here too rather than as a window shortcut, so that it never trashes files
while the user is deleting text in the filter or removing a folder from the scan list.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeView, QWidget

from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.results_model import Column, ResultsModel

__all__ = ["ResultsView"]

_DEFAULT_WIDTHS = {
    Column.NAME: 220,
    Column.FOLDER: 200,
    Column.SIZE: 75,
    Column.MODIFIED: 122,
    Column.DIMENSIONS: 88,
    Column.DISTANCE: 98,
    Column.SIMILARITY: 70,
}


class ResultsView(QTreeView):
    """Groups and members; Space toggles marks, Delete asks to trash the marked files."""

    toggle_requested = Signal()
    #: Delete pressed in the results: trash the marked files (after confirmation).
    delete_requested = Signal()

    def __init__(self, model: ResultsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        model.checks_reset.connect(self.viewport().update)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.setAllColumnsShowFocus(True)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # keep both ends of long paths
        header = self.header()
        header.setSectionsMovable(True)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in _DEFAULT_WIDTHS.items():
            self.setColumnWidth(column, width)
        self.setSortingEnabled(True)
        self.sortByColumn(Column.SIZE, Qt.SortOrder.DescendingOrder)
        #: Shown in the empty view: what to do next, or why nothing is listed.
        self.placeholder = ""

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Space and not event.modifiers():
            self.toggle_requested.emit()
            event.accept()
            return
        if event.key() == Qt.Key.Key_Delete and not event.modifiers():
            self.delete_requested.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        super().paintEvent(event)
        model = self.model()
        if self.placeholder and (model is None or model.rowCount() == 0):
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(
                self.viewport().rect().adjusted(16, 16, -16, -16),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.placeholder,
            )
            painter.end()

    def selected_rows(self) -> list[QModelIndex]:
        """One index (column 0) per selected row, in view order."""
        rows = self.selectionModel().selectedRows(0)
        return sorted(rows, key=lambda i: (i.parent().row(), i.row()))
