"""Undo: put back what one apply session changed, reading only its journal records.

``undo()`` takes the last apply session (or a named one) and restores each file on its own:
trashed files are renamed back from the trash entry the journal names (no search, so the
cost per file does not grow with the trash), moved files are moved back, and a file replaced
by a link gets its bytes back (a copy of the kept file, only when its SHA-256 equals the
original's; or the original itself from the trash, when the link replaced different bytes)
with its mode, owner and times. Nothing is ever written over an existing file. Permanently
deleted files cannot come back; undo says so instead of trying. When the last session has
nothing left to undo, undo says so and does not reach into older sessions: those are undone
by id (``undo(session_id)``).

``clear_leftovers`` removes what a killed run left behind (a temporary copy or link, a trash
reservation whose file never arrived), using the names its intents journalled first.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dupfinder.core.actions.fileops import (
    FileStamp,
    fsync_file,
    move_no_overwrite,
    sha256_file,
    temporary_name,
)
from dupfinder.core.actions.journal import (
    FileLog,
    FileState,
    Intent,
    Journal,
    JournalSession,
    RecordType,
    SessionKind,
    SessionSummary,
)
from dupfinder.core.actions.lock import hold_action_lock
from dupfinder.core.actions.outcome import FileOutcome, FileStatus, with_status
from dupfinder.core.actions.trash import (
    NATIVE_TRASH,
    TrashEntry,
    discard_reservation,
    find_trash_entry,
    restore,
)
from dupfinder.core.errors import JournalWriteError
from dupfinder.core.model import ActionKind, Phase, Progress, ProgressCallback, no_progress
from dupfinder.core.wording import os_error_reason

__all__ = [
    "UndoReport",
    "clear_leftovers",
    "iter_sessions",
    "undo",
]


@dataclass(frozen=True, slots=True)
class UndoReport:
    session: str | None
    outcomes: tuple[FileOutcome, ...] = ()
    cancelled: bool = False
    #: why nothing was undone (no session, already undone, deleted permanently)
    nothing: str | None = None
    #: the journal could not record this undo (the files were still restored)
    journal_problem: str | None = None

    @property
    def restored(self) -> tuple[FileOutcome, ...]:
        return with_status(self.outcomes, FileStatus.RESTORED)

    @property
    def problems(self) -> tuple[FileOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status is not FileStatus.RESTORED)

    @property
    def failed(self) -> tuple[FileOutcome, ...]:
        return with_status(self.outcomes, FileStatus.FAILED)

    @property
    def ok(self) -> bool:
        """Nothing failed and nothing was left by a cancel (untouched files are fine)."""
        return not self.failed and not self.cancelled


class _UnchangedError(Exception):
    """The file was never touched (the apply stopped before its operation)."""


def _is(st: os.stat_result, stamp: FileStamp) -> bool:
    """The same file as the stamp, with the same size and mtime (inode numbers are reused)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == (
        stamp.dev,
        stamp.ino,
        stamp.size,
        stamp.mtime_ns,
    )


def _still_same(path: str, stamp: FileStamp) -> bool:
    """Is the file at ``path`` the one the stamp describes (same inode, or same size+mtime)?"""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    same_inode = (st.st_dev, st.st_ino) == stamp.identity
    return same_inode or (st.st_size, st.st_mtime_ns) == (stamp.size, stamp.mtime_ns)


def _check_untouched(path: str, stamp: FileStamp) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if _is(st, stamp):
        raise _UnchangedError


def _trash_entry(item: FileLog, intent: Intent) -> TrashEntry | None:
    if item.outcome is not None and item.outcome.trash_entry:
        return TrashEntry.from_files(Path(item.outcome.trash_entry))
    if intent.trash_files and intent.trash_info:
        return TrashEntry(Path(intent.trash_files), Path(intent.trash_info))
    return None


def _restore_trashed(item: FileLog, intent: Intent) -> str | None:
    stamp = intent.stamp
    entry = _trash_entry(item, intent)
    try:
        _check_untouched(item.path, stamp)
    except _UnchangedError:
        if entry is not None:
            discard_reservation(entry)
        raise
    if not NATIVE_TRASH:
        raise OSError(errno.ENOTSUP, "restore it from the system trash")
    if entry is None:  # journals written before entries were recorded
        entry = find_trash_entry(item.path, stamp.dev, stamp.ino, stamp.size, stamp.mtime_ns)
    if entry is None or not _still_same(str(entry.files), stamp):
        raise FileNotFoundError(errno.ENOENT, "not found in the trash (emptied?)")
    restore(entry, item.path)
    return None


def _restore_moved(item: FileLog, intent: Intent) -> str | None:
    _check_untouched(item.path, intent.stamp)
    dest = intent.dest
    if dest is None:
        raise OSError(errno.EINVAL, "the journal does not say where it was moved")
    if not os.path.lexists(dest):
        raise FileNotFoundError(errno.ENOENT, f"no longer at {dest}")
    if not _still_same(dest, intent.stamp):
        raise OSError(errno.EEXIST, f"the file at {dest} changed since it was moved")
    if os.path.lexists(item.path):
        raise FileExistsError(errno.EEXIST, "a file already exists at the original place")
    os.makedirs(os.path.dirname(item.path) or ".", exist_ok=True)
    move_no_overwrite(dest, item.path)
    return None


def _our_link(item: FileLog, intent: Intent) -> bool:
    kept = intent.kept or ""
    if item.op is ActionKind.SYMLINK:
        return os.path.islink(item.path) and os.readlink(item.path) == os.path.abspath(kept)
    return os.lstat(item.path).st_ino == intent.kept_ino


def _put_back_attributes(path: str, stamp: FileStamp) -> None:
    """Mode, owner and times of the replaced file (owner only where the OS allows it)."""
    if stamp.mode:
        os.chmod(path, stamp.mode & 0o7777)
    if stamp.uid >= 0 and hasattr(os, "chown"):
        with contextlib.suppress(PermissionError):
            os.chown(path, stamp.uid, stamp.gid)
    os.utime(path, ns=(stamp.atime_ns, stamp.mtime_ns))


def _restore_linked(item: FileLog, intent: Intent) -> str | None:
    if intent.tmp:
        with contextlib.suppress(OSError):
            os.unlink(intent.tmp)
    _check_untouched(item.path, intent.stamp)
    original = None if intent.identical is not False else _trash_entry(item, intent)
    if original is not None and os.path.lexists(original.files):
        # the link replaced different bytes: the original itself waits in the trash
        if os.path.lexists(item.path):
            if not _our_link(item, intent):
                raise OSError(errno.EEXIST, "the link was replaced since; nothing was overwritten")
            os.unlink(item.path)
        restore(original, item.path)
        return "the original put back from the trash"
    if not os.path.lexists(item.path):
        raise FileNotFoundError(errno.ENOENT, "the link was removed since")
    if not _our_link(item, intent):
        raise OSError(errno.EEXIST, "the link was replaced since; nothing was overwritten")
    digest = intent.sha256
    if not digest or intent.kept is None:
        raise OSError(errno.ENOTSUP, "cannot restore: the original content was not recorded")
    copy = temporary_name(item.path)
    try:
        shutil.copyfile(intent.kept, copy)
        if sha256_file(copy) != digest:
            raise OSError(
                errno.ENOTSUP,
                "cannot restore: the original bytes no longer exist (the kept file differs)",
            )
        _put_back_attributes(copy, intent.stamp)
        fsync_file(copy)
        os.replace(copy, item.path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(copy)
    return "restored as a copy of the kept file (same SHA-256)"


_RESTORERS: dict[ActionKind, Callable[[FileLog, Intent], str | None]] = {
    ActionKind.TRASH: _restore_trashed,
    ActionKind.MOVE: _restore_moved,
    ActionKind.HARDLINK: _restore_linked,
    ActionKind.SYMLINK: _restore_linked,
}


def _undo_one(item: FileLog) -> FileOutcome:
    restorer = _RESTORERS.get(item.op)
    if restorer is None or item.intent is None:
        return FileOutcome(
            item.path, FileStatus.FAILED, "permanently deleted files cannot be restored"
        )
    try:
        note = restorer(item, item.intent)
    except _UnchangedError:
        return FileOutcome(
            item.path, FileStatus.SKIPPED, "not changed (the apply stopped before it)"
        )
    except OSError as exc:
        # our own explanations carry no file name; system errors get the short stable reasons
        own = exc.filename is None and exc.strerror
        return FileOutcome(
            item.path, FileStatus.FAILED, exc.strerror if own else os_error_reason(exc)
        )
    return FileOutcome(item.path, FileStatus.RESTORED, note)


def _nothing_left(summary: SessionSummary) -> str:
    what = f"The last action ({summary.describe()})"
    if summary.deleted and not any(f.op is not ActionKind.DELETE for f in summary.files):
        return f"{what} deleted files permanently; they cannot be restored. Nothing to undo."
    if summary.undone_by:
        return f"{what} was already undone. Nothing to undo."
    return f"{what} changed no file. Nothing to undo."


class _Record:
    """Writes undo records while the journal takes them; a failure is noted, not raised:
    putting files back matters more than recording it (a second undo checks the disk)."""

    def __init__(self, journal: Journal, of: str) -> None:
        self.problem: str | None = None
        self.log: JournalSession | None = None
        try:
            self.log = journal.session(SessionKind.UNDO, of=of)
        except JournalWriteError as exc:
            self.problem = str(exc)

    def write(self, record: RecordType, **data: Any) -> None:
        if self.log is None:
            return
        try:
            # not fsynced: a restore lost in a crash is found again by the next undo, which
            # sees the file back in place (the end record's fsync carries them all)
            self.log.write(record, durable=False, **data)
        except JournalWriteError as exc:
            self.problem = str(exc)
            self.log.close()
            self.log = None

    def close(self) -> None:
        if self.log is not None:
            self.log.close()


def undo(
    session_id: str | None = None,
    *,
    journal: Journal | None = None,
    progress: ProgressCallback = no_progress,
    cancel: threading.Event | None = None,
    lock_path: str | os.PathLike[str] | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> UndoReport:
    """Undo one apply session (default: the last one), holding the per-user action lock.

    Each file is restored independently; problems are reported per file and the rest go on.
    Files restored by an earlier undo are left alone, so undo can be run again after a failure.
    """
    journal = journal or Journal()
    with hold_action_lock(lock_path, cancel=cancel, on_wait=on_wait):
        clear_leftovers(journal)
        summary = journal.find(session_id)
        if summary is None:
            return UndoReport(session_id, nothing="Nothing to undo.")
        items = summary.restorable
        if not items:
            return UndoReport(summary.id, nothing=_nothing_left(summary))
        return _undo_items(journal, summary, items, progress, cancel)


def _undo_items(
    journal: Journal,
    summary: SessionSummary,
    items: tuple[FileLog, ...],
    progress: ProgressCallback,
    cancel: threading.Event | None,
) -> UndoReport:
    outcomes: list[FileOutcome] = []
    cancelled = False
    record = _Record(journal, summary.id)
    try:
        for done, item in enumerate(items):
            if cancel is not None and cancel.is_set():
                outcomes.extend(
                    FileOutcome(i.path, FileStatus.SKIPPED, "cancelled") for i in items[done:]
                )
                cancelled = True
                break
            progress(Progress(Phase.APPLYING, done, len(items), item.path))
            record.write(RecordType.RESTORE_INTENT, of=summary.id, seq=item.seq, path=item.path)
            outcome = _undo_one(item)
            kind = (
                RecordType.RESTORE_FAILED
                if outcome.status is FileStatus.FAILED
                else RecordType.RESTORED
            )
            record.write(kind, of=summary.id, seq=item.seq, path=item.path, reason=outcome.reason)
            outcomes.append(outcome)
        progress(Progress(Phase.APPLYING, len(items), len(items)))
    finally:
        record.close()
    return UndoReport(summary.id, tuple(outcomes), cancelled, journal_problem=record.problem)


def clear_leftovers(journal: Journal) -> int:
    """Remove temporary files and trash reservations that killed runs left; returns how many."""
    cleared = 0
    for session in journal.applies():
        for item in session.files:
            if item.state is not FileState.INTERRUPTED or item.intent is None:
                continue
            intent = item.intent
            if intent.tmp and ".dupfinder-" in os.path.basename(intent.tmp):
                with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                    os.unlink(intent.tmp)
                    cleared += 1
            if intent.trash_files and intent.trash_info:
                entry = TrashEntry(Path(intent.trash_files), Path(intent.trash_info))
                with contextlib.suppress(OSError):
                    cleared += discard_reservation(entry)
    return cleared


def iter_sessions(journal: Journal | None = None) -> Iterator[SessionSummary]:
    """Sessions newest first, for listing."""
    yield from reversed((journal or Journal()).sessions())
