"""The results tree view: uniform rows, sortable columns, and Space to toggle marks.

Space is handled here instead of by the item delegate, so it toggles the mark of every
selected member whichever column has focus (the delegate only reacts on the check box column).
Delete is handled here too rather than as a window shortcut, so that it never trashes files
while the user is deleting text in the filter or removing a folder from the scan list.
A click on a member's check box is handled by ``MarkDelegate``: the model keeps Qt's default
item flags (see ResultsModel.is_checkable), so Qt's own check box handling never fires.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QWidget,
)

from dupfinder.app.i18n import translate
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.results_model import Column, ResultsModel

__all__ = ["MarkDelegate", "ResultsView"]

_DEFAULT_WIDTHS = {
    Column.NAME: 300,
    Column.SIMILARITY: 80,
    Column.SIZE: 80,
    Column.MODIFIED: 122,
    Column.DIMENSIONS: 88,
    Column.FOLDER: 260,
    Column.DIFFERENCE: 90,
}


_MOUSE_EVENTS = frozenset(
    {
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonRelease,
        QEvent.Type.MouseButtonDblClick,
    }
)


class MarkDelegate(QStyledItemDelegate):
    """Toggles a member's mark when its check box is clicked (on release, as Qt does)."""

    def editorEvent(  # noqa: N802
        self,
        event: QEvent,
        model: QAbstractItemModel,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        if (
            event.type() not in _MOUSE_EVENTS
            or not isinstance(event, QMouseEvent)
            or event.button() != Qt.MouseButton.LeftButton
            or not isinstance(model, ResultsModel)
            or not model.is_checkable(index)
        ):
            return super().editorEvent(event, model, option, index)
        styled = QStyleOptionViewItem(option)
        self.initStyleOption(styled, index)
        widget = styled.widget
        style = widget.style() if widget is not None else QApplication.style()
        box = style.subElementRect(QStyle.SubElement.SE_ItemViewItemCheckIndicator, styled, widget)
        if not box.contains(event.position().toPoint()):
            return False
        if event.type() == QEvent.Type.MouseButtonRelease:
            model.toggle_mark(model.index(index.row(), index.column(), index.parent()))
        return True  # the press and a double-click on the box are the check box's too

    def sizeHint(  # noqa: N802
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        """Rows tall enough for a thumbnail when the result has pictures (the view's rows
        are uniform: the first row's height is every row's)."""
        hint = super().sizeHint(option, index)
        model = index.model()
        if isinstance(model, ResultsModel) and model.has_pictures():
            hint.setHeight(max(hint.height(), model.thumbnails.side + 4))
        return hint


class ResultsView(QTreeView):
    """Groups and members; Space toggles marks, Delete asks to trash the marked files."""

    toggle_requested = Signal()
    #: Delete pressed in the results: trash the marked files (after confirmation).
    delete_requested = Signal()
    #: K pressed: keep the current file (it becomes its group's bold one).
    keep_requested = Signal()

    def __init__(self, model: ResultsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setItemDelegate(MarkDelegate(self))
        side = model.thumbnails.side
        self.setIconSize(QSize(side, side))
        model.thumbnails.set_ratio(self.devicePixelRatioF())
        model.checks_reset.connect(self.viewport().update)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.setAllColumnsShowFocus(True)
        # Long names and folders keep both ends (the start and the extension); the name
        # column is the widest and the tooltip has the whole path.
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setAccessibleName(translate("Results", "Groups of near-duplicate files"))
        header = self.header()
        header.setSectionsMovable(True)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in _DEFAULT_WIDTHS.items():
            self.setColumnWidth(column, width)
        self.setColumnHidden(Column.DIFFERENCE, True)  # for experts: View ▸ Show bits differing
        self.setSortingEnabled(True)
        self.sortByColumn(Column.SIZE, Qt.SortOrder.DescendingOrder)
        #: Shown in the empty view: what to do next, or why nothing is listed.
        self.placeholder = ""

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self._follow_screen()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.DevicePixelRatioChange:  # moved to another screen
            self._follow_screen()
        return super().event(event)

    def _follow_screen(self) -> None:
        """Sharp thumbnails on the screen the list is on, made again when that changes."""
        model = self.model()
        if isinstance(model, ResultsModel) and model.thumbnails.set_ratio(self.devicePixelRatioF()):
            self.viewport().update()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Space and not event.modifiers():
            self.toggle_requested.emit()
            event.accept()
            return
        if event.key() == Qt.Key.Key_Delete and not event.modifiers():
            self.delete_requested.emit()
            event.accept()
            return
        if event.key() == Qt.Key.Key_K and not event.modifiers():
            self.keep_requested.emit()
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
