"""What the app can undo: the journal's newest undoable session, and how the list looked
before it, so an undo puts the files back in the list as well as on disk."""

from __future__ import annotations

from dataclasses import dataclass

from dupfinder.core.actions import Action, ActionKind
from dupfinder.core.actions.journal import Journal, SessionSummary
from dupfinder.core.model import ScanResult

__all__ = ["History", "UndoEntry", "UndoOffer"]


@dataclass(frozen=True, slots=True)
class UndoEntry:
    """One action done from this window: the result and marks before it, the paths done."""

    session: str
    kind: ActionKind
    raw_before: ScanResult
    marks_before: frozenset[str]
    acted_on: frozenset[str]


@dataclass(frozen=True, slots=True)
class UndoOffer:
    """The action an undo would reverse: its kind, folder, file count and time."""

    session: str
    kind: ActionKind | None
    folder: str | None
    files: int
    time: str


def _offer(summary: SessionSummary) -> UndoOffer:
    kind: ActionKind | None
    folder = None
    try:
        action = Action.parse(summary.action or "")
        kind, folder = action.kind, action.folder
    except ValueError:
        kind = None
    return UndoOffer(summary.id, kind, folder, len(summary.restorable), summary.time)


class History:
    """The undo stack of this window, checked against the journal (the truth on disk)."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._entries: list[UndoEntry] = []
        self.offer: UndoOffer | None = None
        self.refresh()

    def refresh(self) -> UndoOffer | None:
        """Read the journal again: is there anything left to undo?"""
        try:
            summary = self.journal.find()
        except OSError:
            summary = None
        # only the last apply is offered: once it is undone, there is nothing to undo
        self.offer = _offer(summary) if summary is not None and summary.restorable else None
        return self.offer

    def push(self, entry: UndoEntry) -> None:
        self._entries.append(entry)

    def pop(self, session: str | None) -> UndoEntry | None:
        """The entry of ``session`` when it is the newest one (else None: the list stays)."""
        if self._entries and session is not None and self._entries[-1].session == session:
            return self._entries.pop()
        return None

    def clear(self) -> None:
        """A new result: earlier entries no longer describe the list (undo still works)."""
        self._entries.clear()
