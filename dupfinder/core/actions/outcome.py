"""The fate of one file in an apply or an undo: a status and, when it was not done, why."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["FileOutcome", "FileStatus", "with_status"]


class FileStatus(enum.StrEnum):
    DONE = "done"  #: an apply acted on the file
    RESTORED = "restored"  #: an undo put the file back
    SKIPPED = "skipped"  #: left alone on purpose (changed, gone, not provably a copy)
    FAILED = "failed"  #: the operating system refused


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What happened to one file, why (when it was not done), and where it went."""

    path: str
    status: FileStatus
    reason: str | None = None
    dest: str | None = None
    size: int = 0


def with_status(outcomes: Iterable[FileOutcome], status: FileStatus) -> tuple[FileOutcome, ...]:
    """The outcomes of one status, in their order."""
    return tuple(o for o in outcomes if o.status is status)
