"""What the results list shows: columns, sort order, the filter, and group numbers.

A result is *prepared* once (names and folders split from the paths, sizes, which group each
path is in, the sort the view asked for), in any thread, so the GUI thread only swaps it in.
The :class:`Listing` then answers "which groups are shown, in which order" for the filter and
the sort; it is pure Python, and the Qt model is a thin adapter over it.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dupfinder.core.model import Group, Member, ScanResult

__all__ = [
    "Column",
    "Listing",
    "PreparedResult",
    "SortKey",
    "group_numbers",
    "prepare",
    "reclaimable",
    "sorted_order",
]


class Column(enum.IntEnum):
    """The list's columns, in their default order (similarity first, bits for experts last)."""

    NAME = 0
    SIMILARITY = 1
    SIZE = 2
    MODIFIED = 3
    DIMENSIONS = 4
    FOLDER = 5
    DIFFERENCE = 6


#: Columns whose text is a number (right-aligned).
NUMERIC = frozenset({Column.SIMILARITY, Column.SIZE, Column.DIFFERENCE})


@dataclass(frozen=True, slots=True)
class SortKey:
    """The column the groups are sorted by (None: scan order) and the direction."""

    column: Column | None = None
    descending: bool = False


def reclaimable(group: Group) -> int:
    """Bytes freed at most by keeping one member (the core's one definition)."""
    return group.reclaimable_bytes


def _pixels(member: Member) -> int:
    return (member.width or 0) * (member.height or 0)


def _member_value(column: Column) -> Callable[[Member], Any]:
    values: dict[Column, Callable[[Member], Any]] = {
        Column.SIZE: lambda m: m.size,
        Column.MODIFIED: lambda m: m.mtime_ns,
        Column.DIMENSIONS: _pixels,
        Column.DIFFERENCE: lambda m: m.distance,
        Column.SIMILARITY: lambda m: m.similarity,
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
        return (lambda g: reclaimable(groups[g])), member_key
    if column is Column.DIFFERENCE:
        return (lambda g: max(m.distance for m in groups[g].members)), member_key
    if column is Column.SIMILARITY:
        return (lambda g: min(m.similarity for m in groups[g].members)), member_key
    return (lambda g: member_key(g, 0)), member_key


def sorted_order(
    groups: Sequence[Group],
    names: Sequence[tuple[str, ...]],
    folders: Sequence[tuple[str, ...]],
    visible: list[int],
    sort: SortKey,
) -> tuple[list[int], list[tuple[int, ...] | None]]:
    """Groups in ``visible`` ordered by ``sort``, and each group's member order (the
    representative stays on top); None orders when no column is chosen.

    Size (the default) sorts the groups by what they free, and leaves each group's files
    in the result's order, most similar to the kept file first (identical copies first in
    files like one): a group read from the top shows the closest copies first."""
    member_order: list[tuple[int, ...] | None] = [None] * len(groups)
    if sort.column is None:
        return visible, member_order
    reverse = sort.descending
    group_key, member_key = _sort_keys(sort.column, groups, names, folders)
    order = sorted(visible, key=group_key, reverse=reverse)
    if sort.column is Column.SIZE:
        return order, member_order
    for g in order:
        count = len(groups[g].members)
        if count == 2:
            member_order[g] = (0, 1)
            continue
        keys = [member_key(g, i) for i in range(count)]
        rest = sorted(range(1, count), key=keys.__getitem__, reverse=reverse)
        member_order[g] = (0, *rest)
    return order, member_order


def group_numbers(result: ScanResult, previous: Mapping[str, int]) -> dict[str, int]:
    """A number per group (keyed by each member's path) that stays put between scans.

    A group takes the number most of its members had before (when still free); the others get
    numbers after the highest ever used, in the result's order. So rescanning a folder, or
    removing files from a group, keeps the numbers a person has been reading.
    """
    numbers: dict[str, int] = {}
    taken: set[int] = set()
    fresh: list[Group] = []
    for group in result.groups:
        votes: dict[int, int] = {}
        for member in group.members:
            old = previous.get(member.path)
            if old is not None:
                votes[old] = votes.get(old, 0) + 1
        choice = max(
            (n for n in votes if n not in taken), key=lambda n: (votes[n], -n), default=None
        )
        if choice is None:
            fresh.append(group)
            continue
        taken.add(choice)
        numbers.update((m.path, choice) for m in group.members)
    following = max((*previous.values(), *taken), default=0) + 1
    for group in fresh:
        numbers.update((m.path, following) for m in group.members)
        following += 1
    return numbers


@dataclass(frozen=True, slots=True)
class PreparedResult:
    """Everything the list precomputes for a result; built in any thread."""

    result: ScanResult
    names: list[tuple[str, ...]]
    folders: list[tuple[str, ...]]
    size_of: dict[str, int]
    group_of: dict[str, int]  # path -> position of its group in result.groups
    protected: frozenset[str]
    protect: Callable[[Member], bool] | None
    totals: tuple[int, int, int]  # groups, files, reclaimable bytes
    numbers: tuple[int, ...]  # the number shown for each group
    #: The unfiltered order for ``sort``, when it was asked for.
    sort: SortKey | None = None
    order: list[int] | None = None
    member_order: list[tuple[int, ...] | None] | None = None


def prepare(
    result: ScanResult,
    protect: Callable[[Member], bool] | None = None,
    sort: SortKey | None = None,
    numbers: Mapping[str, int] | None = None,
) -> PreparedResult:
    """Split paths into name and folder once, find the protected members and, given the
    view's sort, order the groups (sorting 100,000 groups on the GUI thread stalls it).
    ``numbers`` (from :func:`group_numbers`) name the groups; by default 1, 2, 3..."""
    names: list[tuple[str, ...]] = []
    folders: list[tuple[str, ...]] = []
    size_of: dict[str, int] = {}
    group_of: dict[str, int] = {}
    protected: set[str] = set()
    shown: list[int] = []
    for g, group in enumerate(result.groups):
        split = [os.path.split(m.path) for m in group.members]
        folders.append(tuple(folder for folder, _ in split))
        names.append(tuple(name for _, name in split))
        head = group.members[0].path
        shown.append(numbers.get(head, g + 1) if numbers is not None else g + 1)
        for member in group.members:
            size_of[member.path] = member.size
            group_of[member.path] = g
            if protect is not None and protect(member):
                protected.add(member.path)
    totals = (len(result.groups), len(size_of), sum(reclaimable(g) for g in result.groups))
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
        tuple(shown),
        sort,
        order,
        member_order,
    )


class Listing:
    """The groups shown, in order: the result filtered by words and sorted by a column."""

    def __init__(self) -> None:
        self.prepared = prepare(ScanResult())
        self.groups: tuple[Group, ...] = ()
        self.order: list[int] = []  # shown group positions, top to bottom
        self.row_of: list[int] = []  # group position -> row, or -1 when filtered out
        self.member_order: list[tuple[int, ...] | None] = []
        self.sort = SortKey()
        self.terms: tuple[str, ...] = ()
        self._haystacks: list[str] | None = None

    def load(self, prepared: PreparedResult) -> None:
        """Show a new result, keeping the filter and the sort."""
        self.prepared = prepared
        self.groups = prepared.result.groups
        self._haystacks = None
        order, member_order = prepared.order, prepared.member_order
        sorted_here = prepared.sort == self.sort and not self.terms
        if order is not None and member_order is not None and sorted_here:
            self._set_order(order, member_order)
            return
        self._refresh()

    def set_filter(self, text: str) -> bool:
        """Show only groups where every word of ``text`` occurs in some member's path;
        False when nothing changed."""
        terms = tuple(text.casefold().split())
        if terms == self.terms:
            return False
        self.terms = terms
        self._refresh()
        return True

    def set_sort(self, sort: SortKey) -> bool:
        if sort == self.sort:
            return False
        self.sort = sort
        self._refresh()
        return True

    def _visible(self) -> list[int]:
        if not self.terms:
            return list(range(len(self.groups)))
        if self._haystacks is None:
            self._haystacks = ["\n".join(m.path for m in g.members).casefold() for g in self.groups]
        terms = self.terms
        return [g for g, hay in enumerate(self._haystacks) if all(t in hay for t in terms)]

    def _refresh(self) -> None:
        p = self.prepared
        self._set_order(*sorted_order(self.groups, p.names, p.folders, self._visible(), self.sort))

    def _set_order(self, order: list[int], member_order: list[tuple[int, ...] | None]) -> None:
        self.order = order
        self.member_order = member_order
        self.row_of = [-1] * len(self.groups)
        for row, g in enumerate(order):
            self.row_of[g] = row

    # --- lookups ---------------------------------------------------------------------------

    def source_member(self, g: int, row: int) -> int:
        """The position in ``groups[g].members`` of the member shown at ``row``."""
        order = self.member_order[g]
        return row if order is None else order[row]

    def member_row(self, g: int, m: int) -> int:
        order = self.member_order[g]
        return m if order is None else order.index(m)

    def shown(self, g: int) -> bool:
        return self.row_of[g] >= 0

    def shown_groups(self) -> list[Group]:
        return [self.groups[g] for g in self.order]

    def hidden_paths(self) -> frozenset[str]:
        """Paths of members in groups the filter hides."""
        return frozenset(
            m.path
            for g, group in enumerate(self.groups)
            if not self.shown(g)
            for m in group.members
        )

    def filtered(self) -> bool:
        return len(self.order) != len(self.groups)
