"""The results tree: a thin Qt adapter over the app's listing and marks.

Two levels are encoded in the index's integer internal id: 0 for a group row, ``g + 1`` for a
member of the group stored at position ``g`` (its position in the result, which sorting and
filtering never change). Every cell is answered in O(1) from values the listing computed once
per result, so the view stays smooth with 100,000 groups; sorting reorders small integer lists
and keeps the selection through persistent indexes instead of resetting the model. Which
groups are shown, their order, the marks and the keepers live in ``dupfinder.app``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
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

from dupfinder.app.i18n import translate
from dupfinder.app.listing import (
    NUMERIC,
    Column,
    Listing,
    PreparedResult,
    SortKey,
    prepare,
    reclaimable,
)
from dupfinder.app.marks import MarkSet
from dupfinder.core.model import Group, Kind, Member, ScanResult
from dupfinder.core.wording import format_size, similarity_percent
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.thumbnails import Thumbnails

__all__ = [
    "GROUP_ROLE",
    "MEMBER_ROLE",
    "Column",
    "PreparedResult",
    "ResultsModel",
    "prepare",
    "sort_key",
]

AnyIndex = QModelIndex | QPersistentModelIndex

#: Role returning the Member of a member row (None for a group row).
MEMBER_ROLE = Qt.ItemDataRole.UserRole + 1
#: Role returning the Group of any row.
GROUP_ROLE = Qt.ItemDataRole.UserRole + 2

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_COLUMNS = len(Column)
_NAME_COLUMN = int(Column.NAME)  # a plain int: enum member lookups cost a call per row


def headers() -> tuple[str, ...]:
    return (
        translate("Results", "Name"),
        translate("Results", "Similarity"),
        translate("Results", "Size"),
        translate("Results", "Modified"),
        translate("Results", "Dimensions"),
        translate("Results", "Folder"),
        translate("Results", "Bits differing"),
    )


def sort_key(column: int, order: Qt.SortOrder) -> SortKey:
    """The listing's sort for a header click (a column outside the table: scan order)."""
    if not 0 <= column < _COLUMNS:
        return SortKey()
    return SortKey(Column(column), order == Qt.SortOrder.DescendingOrder)


def _date(mtime_ns: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(mtime_ns / 1e9))


class ResultsModel(QAbstractItemModel):
    """Groups → members with check boxes for the files to act on (the "marks")."""

    #: Emitted whenever the set of marked paths changes.
    marks_changed = Signal()
    #: Emitted instead of thousands of dataChanged ranges when many check boxes change at
    #: once: the view only has to repaint what it shows (check states never change a row's
    #: size), while a dataChanged over every group makes QTreeView revisit every row.
    checks_reset = Signal()

    def __init__(
        self, parent: Any = None, listing: Listing | None = None, marks: MarkSet | None = None
    ) -> None:
        super().__init__(parent)
        self.listing = listing if listing is not None else Listing()
        self.markset = marks if marks is not None else MarkSet()
        self._headers = headers()
        self._identical = translate("Results", "Identical")
        self._measuring = translate("Results", "…")
        # why group ``g`` keeps its keeper (the window sets the app's; tests may leave it)
        self.keeper_reason: Callable[[int], str] = self._no_reason
        self.thumbnails = Thumbnails(self)
        self.thumbnails.ready.connect(self._thumbnail_ready)
        self._pictures = False
        self._bold = QFont()
        self._bold.setBold(True)

    # --- loading -----------------------------------------------------------------------

    def set_result(
        self,
        result: ScanResult,
        marks: Iterable[str] = (),
        protected: Callable[[Member], bool] | None = None,
    ) -> None:
        """Show a new result; ``protected`` members are never checkable."""
        self.set_prepared(prepare(result, protected), marks)

    def set_prepared(self, prepared: PreparedResult, marks: Iterable[str] = ()) -> None:
        """Show a result prepared off the GUI thread: the one model reset per scan."""
        self.beginResetModel()
        self.listing.load(prepared)
        self.markset.load(prepared.size_of, prepared.group_of, prepared.protected, marks)
        self._loaded()
        self.endResetModel()
        self.marks_changed.emit()

    def begin_load(self) -> None:
        """The app is about to swap the listing's result (see ``end_load``)."""
        self.beginResetModel()

    def end_load(self) -> None:
        self._loaded()
        self.endResetModel()
        self.marks_changed.emit()

    def _no_reason(self, _g: int) -> str:
        return translate("Results", "Kept (bold)")

    def _loaded(self) -> None:
        self._pictures = any(g.kind is Kind.IMAGE for g in self.listing.groups)
        self.thumbnails.forget_requests()  # rows of the old result are not painted again

    def has_pictures(self) -> bool:
        """Whether the result holds picture groups (their rows show thumbnails)."""
        return self._pictures

    def _thumbnail_ready(self, path: str) -> None:
        """Repaint the rows showing ``path``: its own, and its group's when it leads it."""
        index = self.index_of_path(path)
        if not index.isValid():
            return
        roles = [Qt.ItemDataRole.DecorationRole]
        self.dataChanged.emit(index, index, roles)
        if self.listing.groups[index.internalId() - 1].members[0].path == path:
            group = index.parent()
            self.dataChanged.emit(group, group, roles)

    def result(self) -> ScanResult:
        return self.listing.prepared.result

    def protection(self) -> Callable[[Member], bool] | None:
        return self.listing.prepared.protect

    def is_protected(self, path: str) -> bool:
        return self.markset.protected(path)

    # --- filter and sort ----------------------------------------------------------------

    def set_filter(self, text: str) -> None:
        """Show only groups where every word of ``text`` occurs in some member's path."""
        if tuple(text.casefold().split()) == self.listing.terms:
            return
        self.beginResetModel()
        self.listing.set_filter(text)
        self.endResetModel()

    def filter_text(self) -> str:
        return " ".join(self.listing.terms)

    def sort_state(self) -> SortKey:
        """The column and direction the groups are sorted by."""
        return self.listing.sort

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Reorder in place (layoutChanged), keeping selection and current item."""
        key = sort_key(column, order)
        if key == self.listing.sort:
            return  # already in this order (QTreeView.sortByColumn asks twice)
        listing = self.listing
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        targets: list[tuple[int, int | None, int]] = []
        for index in old:
            ident = index.internalId()
            if ident == 0:
                targets.append((listing.order[index.row()], None, index.column()))
            else:
                g = ident - 1
                targets.append((g, listing.source_member(g, index.row()), index.column()))
        listing.set_sort(key)
        new = []
        for g, m, col in targets:
            if m is None:
                new.append(self.createIndex(listing.row_of[g], col, 0))
            else:
                new.append(self.createIndex(listing.member_row(g, m), col, g + 1))
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    # --- Qt model interface -------------------------------------------------------------

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return _COLUMNS

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008, N802
        if not parent.isValid():
            return len(self.listing.order)
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        listing = self.listing
        return len(listing.groups[listing.order[parent.row()]].members)

    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        # Bounds are checked here rather than with hasIndex(): the view calls this for every
        # row on each layout, and one Python call less per row is a third of the cost.
        if not 0 <= column < _COLUMNS or row < 0:
            return QModelIndex()
        listing = self.listing
        if not parent.isValid():
            if row >= len(listing.order):
                return QModelIndex()
            return self.createIndex(row, column, 0)
        if parent.internalId() != 0 or parent.column() != 0:
            return QModelIndex()
        g = listing.order[parent.row()]
        if row >= len(listing.groups[g].members):
            return QModelIndex()
        return self.createIndex(row, column, g + 1)

    def parent(self, index: AnyIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        ident = index.internalId()
        if ident == 0:
            return QModelIndex()
        return self.createIndex(self.listing.row_of[ident - 1], 0, 0)

    def hasChildren(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008, N802
        if not parent.isValid():
            return bool(self.listing.order)
        return parent.internalId() == 0 and parent.column() == 0

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < _COLUMNS:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self._headers[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section in NUMERIC:
            return int(_RIGHT)
        if role == Qt.ItemDataRole.ToolTipRole and section == Column.DIFFERENCE:
            return translate(
                "Results", "How many of the 64 fingerprint bits differ from the group's first file"
            )
        return None

    # No flags() override: Qt's default (enabled, selectable) is right for every row, and a
    # Python flags() costs the view two calls per group on every layout (about 45 ms with
    # 10,000 groups). Check boxes are ticked through is_checkable()/toggle_mark() by the
    # view's delegate instead of through Qt.ItemIsUserCheckable.

    def is_checkable(self, index: AnyIndex) -> bool:
        """True for the name cell of a member that may be marked (not in a reference folder)."""
        if not index.isValid() or index.internalId() == 0 or index.column() != _NAME_COLUMN:
            return False
        return not self.markset.protected(self._member(index.internalId() - 1, index.row()).path)

    def _member(self, g: int, row: int) -> Member:
        return self.listing.groups[g].members[self.listing.source_member(g, row)]

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        ident = index.internalId()
        column = index.column()
        listing = self.listing
        if ident == 0:
            return self._group_data(listing.order[index.row()], column, role)
        g = ident - 1
        m = listing.source_member(g, index.row())
        member = listing.groups[g].members[m]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._member_text(g, m, member, column)
        if role == Qt.ItemDataRole.CheckStateRole and column == _NAME_COLUMN:
            if self.markset.protected(member.path):
                return None
            checked = member.path in self.markset
            return Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.FontRole and column == _NAME_COLUMN:
            if self.markset.keeper(g, listing.groups[g]) is member:
                return self._bold
            return None
        if role == Qt.ItemDataRole.DecorationRole:
            if column != _NAME_COLUMN or not self._pictures:
                return None
            if listing.groups[g].kind is Kind.IMAGE:
                return self.thumbnails.icon(member)
            return self.thumbnails.blank()
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._member_tip(g, member)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in NUMERIC:
            return int(_RIGHT)
        if role == Qt.ItemDataRole.ForegroundRole and self.markset.protected(member.path):
            return QApplication.palette().brush(QPalette.ColorRole.PlaceholderText)
        if role == MEMBER_ROLE:
            return member
        if role == GROUP_ROLE:
            return listing.groups[g]
        return None

    def _member_tip(self, g: int, member: Member) -> str:
        lines = [member.path]
        problem = self.thumbnails.problem(member)
        if problem is not None:
            lines.append(
                translate("Results", "Cannot read this picture: {problem}").format(problem=problem)
            )
        others = member.links - 1
        if others > 0:
            lines.append(
                translate(
                    "Results",
                    "Has %Ln other name(s) (hard links): removing this one frees no space",
                    None,
                    others,
                )
            )
        if member.content_hash is not None:
            twins = [
                os.path.basename(m.path)
                for m in self.listing.groups[g].members
                if m is not member and m.content_hash == member.content_hash
            ]
            lines.append(
                translate("Results", "Byte-identical to {names}").format(names=", ".join(twins))
            )
        if self.markset.protected(member.path):
            lines.append(translate("Results", "In a reference folder: always kept"))
        elif self.markset.keeper(g, self.listing.groups[g]) is member:
            lines.append(self.keeper_reason(g))
            lines.append(translate("Results", "Right-click another file to keep it instead"))
        return "\n".join(lines)

    def _member_text(self, g: int, m: int, member: Member, column: int) -> str:
        prepared = self.listing.prepared
        if column == Column.NAME:
            return prepared.names[g][m]
        if column == Column.FOLDER:
            return prepared.folders[g][m]
        if column == Column.SIZE:
            return format_size(member.size)
        if column == Column.MODIFIED:
            return _date(member.mtime_ns)
        if column == Column.DIMENSIONS:
            return f"{member.width} × {member.height}" if member.width and member.height else ""
        if column == Column.DIFFERENCE:
            return str(member.distance)
        if column == Column.SIMILARITY:
            return self._similarity(g, member)
        return ""

    def _similarity(self, g: int, member: Member) -> str:
        """The member's similarity to the file its group keeps: as the scan measured it
        against the suggested keeper, or measured again against another kept file."""
        group = self.listing.groups[g]
        keeper = self.markset.keeper(g, group)
        if keeper is group.members[0]:
            same = group.same_bytes_as_keeper(member)
            if same and member.content_hash is not None:
                return self._identical  # the same bytes as the group's first file
            return similarity_percent(member.similarity, same)
        if member is keeper:
            same = keeper.content_hash is not None and any(
                m is not keeper and m.content_hash == keeper.content_hash for m in group.members
            )
            return self._identical if same else similarity_percent(1.0, same_bytes=True)
        measured = self.markset.measured(g, member.path)
        if measured is None:
            return self._measuring if self.markset.measuring(g) else ""
        if measured.identical:
            return self._identical
        return similarity_percent(measured.similarity, same_bytes=False)

    def _group_data(self, g: int, column: int, role: int) -> Any:
        group = self.listing.groups[g]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._group_text(g, group, column)
        if role == Qt.ItemDataRole.FontRole:
            return self._bold
        if role == Qt.ItemDataRole.DecorationRole:
            if column != _NAME_COLUMN or not self._pictures:
                return None
            if group.kind is Kind.IMAGE:
                return self.thumbnails.icon(group.members[0])
            return self.thumbnails.blank()
        if role == Qt.ItemDataRole.TextAlignmentRole and column in NUMERIC:
            return int(_RIGHT)
        if role == Qt.ItemDataRole.ToolTipRole and column == Column.SIZE:
            return translate(
                "Results", "Freed at most by keeping only the smallest file of the group"
            )
        if role == Qt.ItemDataRole.ToolTipRole and column == _NAME_COLUMN:
            keeper = os.path.basename(self.markset.keeper(g, group).path)
            return f"{keeper}: {self.keeper_reason(g)}"
        if role == GROUP_ROLE:
            return group
        return None

    def _group_text(self, g: int, group: Group, column: int) -> str:
        if column == Column.NAME:
            number = self.listing.prepared.numbers[g]
            amount = len(group.members)
            if group.identical:
                text = translate("Results", "Group {number} · %n identical file(s)", None, amount)
            elif group.kind == "image":
                text = translate("Results", "Group {number} · %n picture(s)", None, amount)
            elif group.kind == "audio":
                text = translate("Results", "Group {number} · %n recording(s)", None, amount)
            elif group.kind == "video":
                text = translate("Results", "Group {number} · %n video(s)", None, amount)
            else:
                text = translate("Results", "Group {number} · %n document(s)", None, amount)
            return text.format(number=number)
        if column == Column.SIZE:
            return format_size(reclaimable(group))
        if column == Column.SIMILARITY:
            if group.identical:
                return self._identical
            keeper = self.markset.keeper(g, group)
            if keeper is group.members[0]:
                lowest = min(m.similarity for m in group.members[1:])
            else:
                measures = [self.markset.measured(g, m.path) for m in group.members]
                figures = [m.similarity for m in measures if m is not None]
                if len(figures) < len(group.members) - 1:
                    return self._measuring if self.markset.measuring(g) else ""
                lowest = min(figures)
            return "≥ " + similarity_percent(lowest, same_bytes=False)
        return ""

    def setData(self, index: AnyIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if role != Qt.ItemDataRole.CheckStateRole or not index.isValid() or index.internalId() == 0:
            return False
        member = self._member(index.internalId() - 1, index.row())
        checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2)
        if not self.markset.set_mark(member.path, checked):
            return False
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        self.marks_changed.emit()
        return True

    # --- marks ----------------------------------------------------------------------------

    def marks(self) -> frozenset[str]:
        return self.markset.paths()

    def set_marks(self, paths: Iterable[str]) -> None:
        """Replace every mark at once; protected files are skipped."""
        self.announce(self.markset.replace(paths))

    def announce(self, changed: set[str]) -> None:
        """Repaint rows whose marks (or keeper) changed, then say the marks changed."""
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
        group_of = self.listing.prepared.group_of
        groups = {group_of[p] for p in paths if p in group_of}
        row_of = self.listing.row_of
        # a new keeper changes the bold, the tooltips and the similarities against it too
        roles = [
            Qt.ItemDataRole.CheckStateRole,
            Qt.ItemDataRole.FontRole,
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
        ]
        last_column = _COLUMNS - 1
        for g in groups:
            if row_of[g] < 0:
                continue
            parent = self.createIndex(row_of[g], 0, 0)
            last = len(self.listing.groups[g].members) - 1
            self.dataChanged.emit(
                self.index(0, 0, parent), self.index(last, last_column, parent), roles
            )
            self.dataChanged.emit(parent, parent.siblingAtColumn(last_column), roles)

    def marked_bytes(self) -> int:
        return self.markset.bytes

    # --- lookups for the window ------------------------------------------------------------

    def member_at(self, index: QModelIndex | QPersistentModelIndex) -> Member | None:
        if not index.isValid() or index.internalId() == 0:
            return None
        return self._member(index.internalId() - 1, index.row())

    def group_position(self, index: QModelIndex | QPersistentModelIndex) -> int | None:
        """The position in the result of the group of any row."""
        if not index.isValid():
            return None
        ident = index.internalId()
        return self.listing.order[index.row()] if ident == 0 else ident - 1

    def group_at(self, index: QModelIndex | QPersistentModelIndex) -> Group | None:
        g = self.group_position(index)
        return None if g is None else self.listing.groups[g]

    def group_index(self, g: int) -> QModelIndex:
        row = self.listing.row_of[g] if 0 <= g < len(self.listing.row_of) else -1
        return self.createIndex(row, 0, 0) if row >= 0 else QModelIndex()

    def index_of_path(self, path: str) -> QModelIndex:
        """The row of a member by path."""
        g = self.listing.prepared.group_of.get(path)
        if g is None or self.listing.row_of[g] < 0:
            return QModelIndex()
        members = self.listing.groups[g].members
        m = next(i for i, member in enumerate(members) if member.path == path)
        return self.index(self.listing.member_row(g, m), 0, self.group_index(g))

    def totals(self) -> tuple[int, int, int]:
        """Groups, files and reclaimable bytes over the whole result (not just the filter)."""
        return self.listing.prepared.totals

    def visible_group_count(self) -> int:
        return len(self.listing.order)

    def all_paths(self) -> Sequence[str]:
        return list(self.listing.prepared.size_of)
