"""The results tree: groups and their members in one custom QAbstractItemModel.

Two levels are encoded in the index's integer internal id: 0 for a group row, ``g + 1`` for a
member of the group stored at position ``g`` (its position in the scan result, which sorting and
filtering never change). Every column is answered in O(1) from values computed once per result,
so the view stays smooth with 100,000 groups; sorting reorders small integer lists and keeps the
selection through persistent indexes instead of resetting the model.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QApplication

from dupfinder.core.model import Group, Member, ScanResult
from dupfinder.core.report import format_size
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)

__all__ = ["GROUP_ROLE", "MEMBER_ROLE", "Column", "PreparedResult", "ResultsModel", "prepare"]

AnyIndex = QModelIndex | QPersistentModelIndex

#: Role returning the Member of a member row (None for a group row).
MEMBER_ROLE = Qt.ItemDataRole.UserRole + 1
#: Role returning the Group of any row.
GROUP_ROLE = Qt.ItemDataRole.UserRole + 2


class Column(enum.IntEnum):
    NAME = 0
    FOLDER = 1
    SIZE = 2
    MODIFIED = 3
    DIMENSIONS = 4
    DISTANCE = 5
    SIMILARITY = 6


HEADERS = ("Name", "Folder", "Size", "Modified", "Dimensions", "Distance", "Similarity")
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_NUMERIC = frozenset({Column.SIZE, Column.DISTANCE, Column.SIMILARITY})
_COLUMNS = len(HEADERS)
_NAME_COLUMN = int(Column.NAME)  # a plain int: enum member lookups cost a call per row


def _pixels(member: Member) -> int:
    return (member.width or 0) * (member.height or 0)


def _date(mtime_ns: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(mtime_ns / 1e9))


def _member_value(column: Column) -> Callable[[Member], Any]:
    values: dict[Column, Callable[[Member], Any]] = {
        Column.SIZE: lambda m: m.size,
        Column.MODIFIED: lambda m: m.mtime_ns,
        Column.DIMENSIONS: _pixels,
        Column.DISTANCE: lambda m: m.distance,
        Column.SIMILARITY: lambda m: -m.distance,
    }
    return values[column]


def _sort_keys(
    column: Column,
    groups: Sequence[Group],
    names: Sequence[tuple[str, ...]],
    folders: Sequence[tuple[str, ...]],
) -> tuple[Callable[[int], Any], Callable[[int, int], Any]]:
    """Key of group ``g`` and of member ``i`` of group ``g`` for sorting by ``column``.

    Names and folders come from the split paths prepared once per result, not from the
    paths again: sorting 10,000 groups by name then costs a few milliseconds.
    """
    if column in (Column.NAME, Column.FOLDER):
        parts = names if column is Column.NAME else folders

        def text_key(g: int, i: int) -> str:
            return parts[g][i].casefold()

        return (lambda g: text_key(g, 0)), text_key
    value = _member_value(column)

    def member_key(g: int, i: int) -> Any:
        return value(groups[g].members[i])

    if column is Column.SIZE:
        return (lambda g: groups[g].reclaimable_bytes), member_key
    if column is Column.DISTANCE:
        return (lambda g: max(m.distance for m in groups[g].members)), member_key
    if column is Column.SIMILARITY:
        return (lambda g: -max(m.distance for m in groups[g].members)), member_key
    return (lambda g: member_key(g, 0)), member_key


SortState = tuple[int, Qt.SortOrder]


@dataclass(frozen=True, slots=True)
class PreparedResult:
    """Everything the model precomputes for a result; built without Qt, in any thread."""

    result: ScanResult
    names: list[tuple[str, ...]]
    folders: list[tuple[str, ...]]
    size_of: dict[str, int]
    group_of: dict[str, int]  # path -> position of its group in result.groups
    protected: frozenset[str]
    protect: Callable[[Member], bool] | None
    totals: tuple[int, int, int]  # groups, files, reclaimable bytes
    #: The unfiltered order for ``sort`` (column, Qt.SortOrder), when it was asked for.
    sort: SortState | None = None
    order: list[int] | None = None
    member_order: list[tuple[int, ...] | None] | None = None


def sorted_order(
    groups: Sequence[Group],
    names: Sequence[tuple[str, ...]],
    folders: Sequence[tuple[str, ...]],
    visible: list[int],
    sort: SortState,
) -> tuple[list[int], list[tuple[int, ...] | None]]:
    """Groups in ``visible`` ordered by ``sort``, and each group's member order (the
    representative stays on top); None orders when no column is chosen. Pure Python, so
    a large result can be sorted off the GUI thread."""
    column, direction = sort
    member_order: list[tuple[int, ...] | None] = [None] * len(groups)
    if not 0 <= column < len(HEADERS):
        return visible, member_order
    reverse = direction == Qt.SortOrder.DescendingOrder
    group_key, member_key = _sort_keys(Column(column), groups, names, folders)
    order = sorted(visible, key=group_key, reverse=reverse)
    for g in order:
        count = len(groups[g].members)
        if count == 2:
            member_order[g] = (0, 1)
            continue
        rest = sorted(range(1, count), key=lambda i, g=g: member_key(g, i), reverse=reverse)
        member_order[g] = (0, *rest)
    return order, member_order


def prepare(
    result: ScanResult,
    protect: Callable[[Member], bool] | None = None,
    sort: SortState | None = None,
) -> PreparedResult:
    """Split paths into name and folder once, find the protected members and, given the
    view's sort, order the groups (sorting 100,000 groups on the GUI thread stalls it)."""
    names: list[tuple[str, ...]] = []
    folders: list[tuple[str, ...]] = []
    size_of: dict[str, int] = {}
    group_of: dict[str, int] = {}
    protected: set[str] = set()
    for g, group in enumerate(result.groups):
        split = [os.path.split(m.path) for m in group.members]
        folders.append(tuple(folder for folder, _ in split))
        names.append(tuple(name for _, name in split))
        for member in group.members:
            size_of[member.path] = member.size
            group_of[member.path] = g
            if protect is not None and protect(member):
                protected.add(member.path)
    totals = (len(result.groups), len(size_of), sum(g.reclaimable_bytes for g in result.groups))
    order = member_order = None
    if sort is not None:
        order, member_order = sorted_order(
            result.groups, names, folders, list(range(len(result.groups))), sort
        )
    return PreparedResult(
        result,
        names,
        folders,
        size_of,
        group_of,
        frozenset(protected),
        protect,
        totals,
        sort,
        order,
        member_order,
    )


class ResultsModel(QAbstractItemModel):
    """Groups → members with check boxes for the files to act on (the "marks")."""

    #: Emitted whenever the set of marked paths changes.
    marks_changed = Signal()
    #: Emitted instead of thousands of dataChanged ranges when a mark rule changes check boxes
    #: all over the result: the view only has to repaint what it shows (check states never
    #: change a row's size), while a dataChanged over every group makes QTreeView revisit
    #: every row, a stall of tens of milliseconds per 10,000 groups.
    checks_reset = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._result = ScanResult()
        self._groups: tuple[Group, ...] = ()
        self._names: list[tuple[str, ...]] = []
        self._folders: list[tuple[str, ...]] = []
        self._order: list[int] = []
        self._row_of: list[int] = []
        self._member_order: list[tuple[int, ...] | None] = []
        self._haystacks: list[str] | None = None
        self._filter: tuple[str, ...] = ()
        self._sort: tuple[int, Qt.SortOrder] = (-1, Qt.SortOrder.AscendingOrder)
        self._marked: set[str] = set()
        self._marked_bytes = 0
        self._group_of: dict[str, int] = {}
        self._size_of: dict[str, int] = {}
        self._protected: frozenset[str] = frozenset()
        self._totals = (0, 0, 0)
        self._protect: Callable[[Member], bool] | None = None
        self._bold = QFont()
        self._bold.setBold(True)

    # --- loading -----------------------------------------------------------------------

    def set_result(
        self,
        result: ScanResult,
        marks: Iterable[str] = (),
        protected: Callable[[Member], bool] | None = None,
    ) -> None:
        """Show a new result; ``protected`` members are never checkable (files in reference
        folders are always kept)."""
        self.set_prepared(prepare(result, protected), marks)

    def set_prepared(self, prepared: PreparedResult, marks: Iterable[str] = ()) -> None:
        """Show a result prepared off the GUI thread: the one model reset per scan."""
        self.beginResetModel()
        self._result = prepared.result
        self._groups = prepared.result.groups
        self._names = prepared.names
        self._folders = prepared.folders
        self._size_of = prepared.size_of
        self._protected = prepared.protected
        self._protect = prepared.protect
        self._totals = prepared.totals
        self._group_of = prepared.group_of
        self._replace_marks(marks)
        self._haystacks = None
        order, member_order = prepared.order, prepared.member_order
        sorted_here = prepared.sort == self._sort and not self._filter
        if order is not None and member_order is not None and sorted_here:
            self._set_order(order, member_order)
        else:
            self._apply_filter_and_sort()
        self.endResetModel()
        self.marks_changed.emit()

    def result(self) -> ScanResult:
        return self._result

    def set_protected(self, protected: Callable[[Member], bool] | None) -> None:
        """Change which members are locked (the reference folders changed)."""
        self.set_result(self._result, self._marked, protected)

    def protection(self) -> Callable[[Member], bool] | None:
        """The rule that locks members, to carry over to a changed result."""
        return self._protect

    def is_protected(self, path: str) -> bool:
        return path in self._protected

    # --- filter and sort ----------------------------------------------------------------

    def set_filter(self, text: str) -> None:
        """Show only groups where every word of ``text`` occurs in some member's path."""
        terms = tuple(text.casefold().split())
        if terms == self._filter:
            return
        self.beginResetModel()
        self._filter = terms
        self._apply_filter_and_sort()
        self.endResetModel()

    def filter_text(self) -> str:
        return " ".join(self._filter)

    def _visible_groups(self) -> list[int]:
        if not self._filter:
            return list(range(len(self._groups)))
        if self._haystacks is None:
            self._haystacks = [
                "\n".join(m.path for m in g.members).casefold() for g in self._groups
            ]
        haystacks = self._haystacks
        return [g for g, hay in enumerate(haystacks) if all(term in hay for term in self._filter)]

    def _apply_filter_and_sort(self) -> None:
        self._set_order(
            *sorted_order(
                self._groups, self._names, self._folders, self._visible_groups(), self._sort
            )
        )

    def _set_order(self, order: list[int], member_order: list[tuple[int, ...] | None]) -> None:
        self._order = order
        self._member_order = member_order
        self._row_of = [-1] * len(self._groups)
        for row, g in enumerate(order):
            self._row_of[g] = row

    def sort_state(self) -> SortState:
        """The column and direction the groups are sorted by (column -1: scan order)."""
        return self._sort

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Reorder in place (layoutChanged), keeping selection and current item."""
        if (column, order) == self._sort:
            return  # already in this order (QTreeView.sortByColumn asks twice)
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        # Remember what each persistent index points at, in source positions.
        targets = []
        for index in old:
            ident = index.internalId()
            if ident == 0:
                targets.append((self._order[index.row()], None, index.column()))
            else:
                g = ident - 1
                targets.append((g, self._source_member(g, index.row()), index.column()))
        self._sort = (column, order)
        self._apply_filter_and_sort()
        new = []
        for g, m, col in targets:
            if m is None:
                new.append(self.createIndex(self._row_of[g], col, 0))
            else:
                new.append(self.createIndex(self._member_row(g, m), col, g + 1))
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    def _source_member(self, g: int, row: int) -> int:
        order = self._member_order[g]
        return row if order is None else order[row]

    def _member_row(self, g: int, m: int) -> int:
        order = self._member_order[g]
        return m if order is None else order.index(m)

    # --- Qt model interface -------------------------------------------------------------

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return len(HEADERS)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008, N802
        if not parent.isValid():
            return len(self._order)
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        return len(self._groups[self._order[parent.row()]].members)

    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        # Bounds are checked here rather than with hasIndex(): the view calls this for every
        # row on each layout, and one Python call less per row is a third of the cost.
        if not 0 <= column < _COLUMNS or row < 0:
            return QModelIndex()
        if not parent.isValid():
            if row >= len(self._order):
                return QModelIndex()
            return self.createIndex(row, column, 0)
        if parent.internalId() != 0 or parent.column() != 0:
            return QModelIndex()
        g = self._order[parent.row()]
        if row >= len(self._groups[g].members):
            return QModelIndex()
        return self.createIndex(row, column, g + 1)

    def parent(self, index: AnyIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        ident = index.internalId()
        if ident == 0:
            return QModelIndex()
        return self.createIndex(self._row_of[ident - 1], 0, 0)

    def hasChildren(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008, N802
        if not parent.isValid():
            return bool(self._order)
        return parent.internalId() == 0 and parent.column() == 0

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(HEADERS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section in _NUMERIC:
            return int(_RIGHT)
        return None

    # No flags() override: Qt's default (enabled, selectable) is right for every row, and a
    # Python flags() costs the view two calls per group on every layout (about 45 ms with
    # 10,000 groups). Check boxes are ticked through is_checkable()/toggle_mark() by the
    # view's delegate instead of through Qt.ItemIsUserCheckable.

    def is_checkable(self, index: AnyIndex) -> bool:
        """True for the name cell of a member that may be marked (not in a reference folder)."""
        if not index.isValid() or index.internalId() == 0 or index.column() != _NAME_COLUMN:
            return False
        return self._member(index.internalId() - 1, index.row()).path not in self._protected

    def _member(self, g: int, row: int) -> Member:
        return self._groups[g].members[self._source_member(g, row)]

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        ident = index.internalId()
        column = index.column()
        if ident == 0:
            return self._group_data(self._order[index.row()], column, role)
        g = ident - 1
        m = self._source_member(g, index.row())
        member = self._groups[g].members[m]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._member_text(g, m, member, column)
        if role == Qt.ItemDataRole.CheckStateRole and column == Column.NAME:
            if member.path in self._protected:
                return None
            checked = member.path in self._marked
            return Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            if member.path in self._protected:
                return f"{member.path}\nIn a reference folder: always kept"
            return member.path + ("\nRepresentative of the group" if m == 0 else "")
        if role == Qt.ItemDataRole.TextAlignmentRole and column in _NUMERIC:
            return int(_RIGHT)
        if role == Qt.ItemDataRole.FontRole and m == 0 and column == Column.NAME:
            return self._bold
        if role == Qt.ItemDataRole.ForegroundRole and member.path in self._protected:
            return QApplication.palette().brush(QPalette.ColorRole.PlaceholderText)
        if role == MEMBER_ROLE:
            return member
        if role == GROUP_ROLE:
            return self._groups[g]
        return None

    def _member_text(self, g: int, m: int, member: Member, column: int) -> str:
        if column == Column.NAME:
            return self._names[g][m]
        if column == Column.FOLDER:
            return self._folders[g][m]
        if column == Column.SIZE:
            return format_size(member.size)
        if column == Column.MODIFIED:
            return _date(member.mtime_ns)
        if column == Column.DIMENSIONS:
            return f"{member.width} × {member.height}" if member.width and member.height else ""
        if column == Column.DISTANCE:
            if m == 0:
                return "representative"
            return f"{member.distance} bit" if member.distance == 1 else f"{member.distance} bits"
        if column == Column.SIMILARITY:
            return f"{member.similarity:.0%}"
        return ""

    def _group_data(self, g: int, column: int, role: int) -> Any:
        group = self._groups[g]
        if role == Qt.ItemDataRole.DisplayRole:
            if column == Column.NAME:
                return f"Group {g + 1} · {len(group.members)} {group.kind} files"
            if column == Column.FOLDER:
                return f"{format_size(group.reclaimable_bytes)} reclaimable"
            if column == Column.SIMILARITY:
                worst = max(m.distance for m in group.members)
                return "100%" if worst == 0 else f"≥ {1 - worst / 64:.0%}"
            return ""
        if role == Qt.ItemDataRole.FontRole:
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and column in _NUMERIC:
            return int(_RIGHT)
        if role == GROUP_ROLE:
            return group
        return None

    def setData(self, index: AnyIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if role != Qt.ItemDataRole.CheckStateRole or not index.isValid() or index.internalId() == 0:
            return False
        member = self._member(index.internalId() - 1, index.row())
        if member.path in self._protected:
            return False
        checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2)
        if checked and member.path not in self._marked:
            self._marked.add(member.path)
            self._marked_bytes += member.size
        elif not checked and member.path in self._marked:
            self._marked.discard(member.path)
            self._marked_bytes -= member.size
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        self.marks_changed.emit()
        return True

    # --- marks ----------------------------------------------------------------------------

    def marks(self) -> frozenset[str]:
        return frozenset(self._marked)

    def _replace_marks(self, paths: Iterable[str]) -> set[str]:
        """Mark exactly ``paths`` (those in the result and not protected); returns the change."""
        wanted = (set(paths) & self._size_of.keys()) - self._protected
        changed = wanted ^ self._marked
        self._marked = wanted
        self._marked_bytes = sum(map(self._size_of.__getitem__, wanted))
        return changed

    def set_marks(self, paths: Iterable[str]) -> None:
        """Replace every mark at once (a mark rule was applied); protected files are skipped."""
        changed = self._replace_marks(paths)
        if changed:
            self._announce_checks(changed)
        self.marks_changed.emit()

    def toggle_mark(self, index: QModelIndex) -> bool:
        """Flip the mark of a member row; False when the row cannot be marked."""
        if not index.isValid() or index.internalId() == 0:
            return False
        name_index = index.siblingAtColumn(Column.NAME)
        if not self.is_checkable(name_index):
            return False
        state = self.data(name_index, Qt.ItemDataRole.CheckStateRole)
        new = Qt.CheckState.Unchecked if state == Qt.CheckState.Checked else Qt.CheckState.Checked
        return self.setData(name_index, new, Qt.ItemDataRole.CheckStateRole)

    def _announce_checks(self, paths: set[str]) -> None:
        if len(paths) > 500:
            self.checks_reset.emit()
            return
        groups = {self._group_of[p] for p in paths}
        visible = [g for g in groups if self._row_of[g] >= 0]
        roles = [Qt.ItemDataRole.CheckStateRole]
        for g in visible:
            parent = self.createIndex(self._row_of[g], 0, 0)
            last = len(self._groups[g].members) - 1
            self.dataChanged.emit(self.index(0, 0, parent), self.index(last, 0, parent), roles)

    def marked_bytes(self) -> int:
        return self._marked_bytes

    # --- lookups for the window ------------------------------------------------------------

    def member_at(self, index: QModelIndex) -> Member | None:
        if not index.isValid() or index.internalId() == 0:
            return None
        return self._member(index.internalId() - 1, index.row())

    def group_at(self, index: QModelIndex) -> Group | None:
        if not index.isValid():
            return None
        ident = index.internalId()
        return self._groups[self._order[index.row()] if ident == 0 else ident - 1]

    def index_of_path(self, path: str) -> QModelIndex:
        """The row of a member by path (a linear search: used for single lookups only)."""
        for g, group in enumerate(self._groups):
            if self._row_of[g] < 0:
                continue
            for m, member in enumerate(group.members):
                if member.path == path:
                    parent = self.createIndex(self._row_of[g], 0, 0)
                    return self.index(self._member_row(g, m), 0, parent)
        return QModelIndex()

    def totals(self) -> tuple[int, int, int]:
        """Groups, files and reclaimable bytes over the whole result (not just the filter)."""
        return self._totals

    def visible_group_count(self) -> int:
        return len(self._order)

    def all_paths(self) -> Sequence[str]:
        return list(self._size_of)
