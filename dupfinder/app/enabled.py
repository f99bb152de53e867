"""What the user can do right now, computed in one place from the app's state and the
current row: every menu entry, button and shortcut is enabled from one :class:`Enabled`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from dupfinder.app.history import UndoOffer
from dupfinder.app.marks import MarkSet
from dupfinder.app.similar import SimilarMode, can_search
from dupfinder.core.model import Member

__all__ = ["AppState", "Current", "Enabled", "compute_enabled"]


class AppState(Protocol):
    """What the enabled state is computed from: the app, read only."""

    @property
    def marks(self) -> MarkSet: ...
    @property
    def similar(self) -> SimilarMode | None: ...
    @property
    def has_result(self) -> bool: ...
    def busy(self) -> bool: ...
    def totals(self) -> tuple[int, int, int]: ...
    def keeper(self, g: int) -> Member: ...
    def undo_offer(self) -> UndoOffer | None: ...


@dataclass(frozen=True, slots=True)
class Current:
    """The current row of the list: its group (position) and member, when there is one."""

    group: int | None = None
    member: Member | None = None
    selected_files: int = 0


@dataclass(frozen=True, slots=True)
class Enabled:
    mark: bool = False  # rules, mark all/none/invert, in this folder
    act: bool = False  # trash, move, links
    undo: bool = False
    not_pair: bool = False
    not_member: bool = False
    keep_this: bool = False
    remove: bool = False
    file: bool = False  # open, show in folder, copy path, toggle
    save: bool = False  # save, export
    open: bool = False
    cancel: bool = False
    decisions: bool = False
    similar: bool = False  # find files like the current one
    find_similar: bool = False  # find files like a file to choose
    back: bool = False  # from files like one file back to the scan's results


def compute_enabled(app: AppState, current: Current) -> Enabled:
    idle = not app.busy()
    groups = app.totals()[0] > 0
    member = current.member if current.group is not None else None
    keeper = app.keeper(current.group) if current.group is not None and groups else None
    other = member is not None and keeper is not None and member.path != keeper.path
    return Enabled(
        mark=idle and groups,
        act=idle and len(app.marks) > 0,
        undo=idle and app.undo_offer() is not None,
        not_pair=idle and other,
        not_member=idle and member is not None,
        keep_this=idle and member is not None and not app.marks.protected(member.path),
        remove=idle and (member is not None or current.selected_files > 0),
        file=member is not None,
        save=idle and app.has_result,
        open=idle,
        cancel=not idle,
        decisions=idle,
        similar=idle and can_search(member),
        find_similar=idle,
        back=idle and app.similar is not None,
    )
