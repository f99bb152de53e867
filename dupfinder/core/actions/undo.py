"""Undo: put back what one apply session changed, and only the very files it changed.

``undo()`` takes the last apply session (or a named one) and restores each file on its own,
reading only that session's journal records. Before anything moves, the file to put back is
proven to be the one the apply recorded: its (device, inode) where the file system keeps
them, and the content digest proven right before the apply acted (journals from before
digests were recorded: the identity, or size and date, as they always were). It goes back
only into the very folder it came from (opened without following a link, its identity
compared), never over an existing name:

- trashed files are renamed back from the trash entry the journal names (no search); on
  Windows and macOS, where the system's trash took them, from the entry found there
  (``recycle_bin``, ``mac_trash``) and proven to be the file trashed;
- moved files are moved back; a file edited at its destination since is left there and the
  report says so, unless the caller asks for edited files too (``restore_edited``: the file
  goes back with its edits, nothing is lost either way); another file at the destination is
  never taken. The folders the move made are removed again when they are left empty;
- a file replaced by a link gets its bytes back (a copy of the kept file, only when its
  SHA-256 equals the original's; or the original itself from the trash, when the link
  replaced different bytes) with its mode, owner and times.

Permanently deleted files cannot come back; undo says so instead of trying. When the last
session has nothing left to undo, undo says so and does not reach into older sessions: those
are undone by id (``undo(session_id)``).

``clear_leftovers`` removes what a killed run left behind (a temporary copy or link, a trash
reservation whose file never arrived), using the names its intents journalled first; the
journal's index then marks the run cleared, so later runs do not read it again.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dupfinder.core.actions import recycle_bin
from dupfinder.core.actions.fileops import FileStamp
from dupfinder.core.actions.folders import (
    CREATE_NEW,
    open_file_at,
    readlink_at,
    rename_at,
    set_times,
    stat_at,
    unlink_at,
)
from dupfinder.core.actions.journal import (
    FileLog,
    FileState,
    Intent,
    Journal,
    JournalSession,
    RecordType,
    SessionInfo,
    SessionKind,
    SessionSummary,
)
from dupfinder.core.actions.lock import hold_action_lock
from dupfinder.core.actions.mac_trash import find_trashed
from dupfinder.core.actions.outcome import FileOutcome, FileStatus, with_status
from dupfinder.core.actions.putback import (
    Edited,
    Expected,
    NotTheFile,
    check_open,
    exchange,
    open_folder,
    opened_in,
    put_back,
    remove_made_folders,
)
from dupfinder.core.actions.recycle_bin import find_recycled
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
    "UNTOUCHED",
    "UndoReport",
    "clear_leftovers",
    "iter_sessions",
    "undo",
]

#: Why a file is left alone because the apply never touched it (nothing to put back).
UNTOUCHED = "not changed (the apply stopped before it)"
_CHUNK = 1 << 20


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
    def left(self) -> tuple[FileOutcome, ...]:
        """Files left where they are on purpose (edited since), not by a failure."""
        return tuple(
            o
            for o in self.outcomes
            if o.status is FileStatus.SKIPPED and o.reason not in (UNTOUCHED, "cancelled")
        )

    @property
    def ok(self) -> bool:
        """Nothing failed or was left, and nothing by a cancel (untouched files are fine)."""
        return not self.failed and not self.left and not self.cancelled


class _UnchangedError(Exception):
    """The file was never touched (the apply stopped before its operation)."""


class _LeftError(Exception):
    """The file is there but left alone on purpose (edited since), for the reason given."""


def _is(st: os.stat_result, stamp: FileStamp) -> bool:
    """The same file as the stamp, with the same size and mtime (inode numbers are reused)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == (
        stamp.dev,
        stamp.ino,
        stamp.size,
        stamp.mtime_ns,
    )


def _still_same(path: str, stamp: FileStamp) -> bool:
    """Journals without digests: is the file at ``path`` the one the stamp describes (same
    inode, or same size and mtime)?"""
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


def _folder(intent: Intent) -> tuple[int, int] | None:
    """The recorded identity of the folder the file was in (None in older journals)."""
    if intent.parent_dev is None or intent.parent_ino is None:
        return None
    return intent.parent_dev, intent.parent_ino


def _expected(
    intent: Intent, *, edited_ok: bool = False, identity: tuple[int, int] | None = None
) -> Expected:
    """What the file to put back must be, as the apply proved it before acting (and, for a
    move, as it arrived: ``identity``)."""
    if intent.digest is None:
        return Expected()
    stamp = intent.stamp
    return Expected(identity or stamp.identity, stamp.size, intent.digest, edited_ok)


def _trash_entry(item: FileLog, intent: Intent) -> TrashEntry | None:
    if item.outcome is not None and item.outcome.trash_entry:
        return TrashEntry.from_files(Path(item.outcome.trash_entry))
    if intent.trash_files and intent.trash_info:
        return TrashEntry(Path(intent.trash_files), Path(intent.trash_info))
    return None


def _in_trash(item: FileLog, intent: Intent) -> TrashEntry:
    """The trash entry the file went to, there and (for older journals) plausibly it."""
    entry = _trash_entry(item, intent)
    stamp = intent.stamp
    if entry is None:  # journals written before entries were recorded
        entry = find_trash_entry(item.path, stamp.dev, stamp.ino, stamp.size, stamp.mtime_ns)
    if entry is None or not os.path.lexists(entry.files):
        raise FileNotFoundError(errno.ENOENT, "not found in the trash (emptied?)")
    if intent.digest is None and not _still_same(str(entry.files), stamp):
        raise FileNotFoundError(errno.ENOENT, "not found in the trash (emptied?)")
    return entry


def _restore_trashed(item: FileLog, intent: Intent, restore_edited: bool) -> str | None:
    entry = _trash_entry(item, intent)
    try:
        _check_untouched(item.path, intent.stamp)
    except _UnchangedError:
        if entry is not None:
            discard_reservation(entry)
        raise
    if not NATIVE_TRASH:
        return _from_system_trash(item, intent)
    entry = _in_trash(item, intent)
    restore(entry, item.path, _expected(intent), folder=_folder(intent))
    return None


def _system_trash_places(item: FileLog, intent: Intent) -> tuple[str, list[Path]]:
    """macOS and Windows: where the system's trash may hold the file, best first."""
    stamp = intent.stamp
    if recycle_bin.IN_USE:
        return "the Recycle Bin", [r.data for r in find_recycled(item.path, stamp.size)]
    identity = stamp.identity if stamp.ino else None
    return "the trash", find_trashed(item.path, identity, stamp.size, stamp.mtime_ns)


def _proven_in_system_trash(item: FileLog, intent: Intent) -> Path:
    """The entry of the system's trash that is the file trashed: proven by its digest (in
    journals without one, by its size and mtime); else an error saying what was found."""
    where, places = _system_trash_places(item, intent)
    if not places:
        raise FileNotFoundError(errno.ENOENT, f"not found in {where} (emptied?)")
    expected = _expected(intent)
    for place in places:
        if intent.digest is None and not _still_same(str(place), intent.stamp):
            continue
        try:
            with open_folder(str(place.parent)) as files, opened_in(files, place.name) as fd:
                check_open(fd, str(place), expected)
        except (NotTheFile, Edited, FileNotFoundError):  # another file of its name and size
            continue
        return place
    raise OSError(
        errno.EEXIST, f"in {where}, but not with the bytes it was trashed with; left there"
    )


def _put_back_from_system_trash(place: Path, item: FileLog, intent: Intent) -> None:
    """Rename the proven entry back (proven again as it moves), never over a file."""
    put_back(str(place), item.path, _expected(intent), folder=_folder(intent))
    if recycle_bin.IN_USE:  # its record would list a file no longer there
        with contextlib.suppress(OSError):
            os.unlink(place.with_name("$I" + place.name[2:]))


def _from_system_trash(item: FileLog, intent: Intent) -> str | None:
    _put_back_from_system_trash(_proven_in_system_trash(item, intent), item, intent)
    return None


def _restore_moved(item: FileLog, intent: Intent, restore_edited: bool) -> str | None:
    _check_untouched(item.path, intent.stamp)
    dest = intent.dest
    if dest is None:
        raise OSError(errno.EINVAL, "the journal does not say where it was moved")
    if not os.path.lexists(dest):
        raise FileNotFoundError(errno.ENOENT, f"no longer at {dest}")
    if intent.digest is None and not _still_same(dest, intent.stamp):
        raise OSError(errno.EEXIST, f"the file at {dest} changed since it was moved")
    if os.path.lexists(item.path):
        raise FileExistsError(errno.EEXIST, "a file already exists at the original place")
    arrived = item.outcome.dest_identity if item.outcome is not None else None
    try:
        put_back(dest, item.path, _expected(intent, identity=arrived), folder=_folder(intent))
    except Edited:
        if not restore_edited:
            raise _LeftError(
                f"edited at {dest} since the move; left there (undo with --restore-edited "
                "moves it back as it is now)"
            ) from None
        expected = _expected(intent, edited_ok=True, identity=arrived)
        put_back(dest, item.path, expected, folder=_folder(intent))
        return f"moved back with the edits made at {dest}"
    return None


def _our_link(folder: int, name: str, item: FileLog, intent: Intent) -> bool:
    """Whether ``name`` in the open folder is still the link the apply made."""
    try:
        st = stat_at(folder, name)
    except FileNotFoundError:
        return False
    if item.op is ActionKind.SYMLINK:
        kept = os.path.abspath(intent.kept or "")
        return stat.S_ISLNK(st.st_mode) and readlink_at(folder, name) == kept
    return stat.S_ISREG(st.st_mode) and st.st_ino == intent.kept_ino


def _put_back_attributes(fd: int, folder: int, name: str, stamp: FileStamp) -> None:
    """Mode, owner and times of the replaced file (owner only where the OS allows it)."""
    if stamp.mode and hasattr(os, "fchmod"):  # Windows: the mode is one read-only flag
        os.fchmod(fd, stamp.mode & 0o7777)
    if stamp.uid >= 0 and hasattr(os, "fchown"):
        with contextlib.suppress(PermissionError):
            os.fchown(fd, stamp.uid, stamp.gid)
    set_times(fd, folder, name, (stamp.atime_ns, stamp.mtime_ns))


def _copy_of_kept(kept: str, folder: int, temporary: str, stamp: FileStamp) -> str:
    """Copy the kept file under ``temporary`` in the open folder; returns its SHA-256."""
    digest = hashlib.sha256()
    with open(kept, "rb") as source:
        out = open_file_at(folder, temporary, CREATE_NEW, 0o600)
        try:
            for chunk in iter(lambda: source.read(_CHUNK), b""):
                digest.update(chunk)
                os.write(out, chunk)
            _put_back_attributes(out, folder, temporary, stamp)
            os.fsync(out)
        finally:
            os.close(out)
    return digest.hexdigest()


def _restore_linked(item: FileLog, intent: Intent, restore_edited: bool) -> str | None:
    if intent.tmp and ".dupfinder-" in os.path.basename(intent.tmp):
        with contextlib.suppress(OSError):
            os.unlink(intent.tmp)  # a temporary link a killed run left
    _check_untouched(item.path, intent.stamp)
    original = None if intent.identical is not False else _trash_entry(item, intent)
    name = os.path.basename(item.path)
    if intent.identical is False and original is None and not NATIVE_TRASH:
        # the link replaced different bytes: the original went to the system's trash
        place = _proven_in_system_trash(item, intent)
        _remove_our_link(os.path.dirname(item.path), item, intent)
        _put_back_from_system_trash(place, item, intent)
        return "the original put back from the trash"
    if original is not None and os.path.lexists(original.files):
        # the link replaced different bytes: the original itself waits in the trash
        expected = _expected(intent)
        with (
            open_folder(str(original.files.parent)) as files,
            opened_in(files, original.files.name) as fd,
        ):
            check_open(fd, str(original.files), expected)  # before the link goes
        _remove_our_link(os.path.dirname(item.path), item, intent)
        restore(original, item.path, expected, folder=_folder(intent))
        return "the original put back from the trash"
    if not intent.sha256 or intent.kept is None:
        raise OSError(errno.ENOTSUP, "cannot restore: the original content was not recorded")
    with open_folder(os.path.dirname(item.path), _folder(intent)) as folder:
        if not _our_link(folder, name, item, intent):
            if not os.path.lexists(item.path):
                raise FileNotFoundError(errno.ENOENT, "the link was removed since")
            raise OSError(errno.EEXIST, "the link was replaced since; nothing was overwritten")
        temporary = f".dupfinder-{secrets.token_hex(8)}.tmp"
        try:
            if _copy_of_kept(intent.kept, folder, temporary, intent.stamp) != intent.sha256:
                raise OSError(
                    errno.ENOTSUP,
                    "cannot restore: the original bytes no longer exist (the kept file differs)",
                )
            _replace_link(folder, temporary, name, item, intent)
        finally:
            with contextlib.suppress(FileNotFoundError):
                unlink_at(folder, temporary)
    return "restored as a copy of the kept file (same SHA-256)"


def _remove_our_link(folder_path: str, item: FileLog, intent: Intent) -> None:
    """Remove the link the apply made, and only that link (gone already: nothing to do)."""
    name = os.path.basename(item.path)
    with open_folder(folder_path, _folder(intent)) as folder:
        if os.path.lexists(item.path):
            if not _our_link(folder, name, item, intent):
                raise OSError(errno.EEXIST, "the link was replaced since; nothing was overwritten")
            unlink_at(folder, name)


def _replace_link(folder: int, temporary: str, name: str, item: FileLog, intent: Intent) -> None:
    """Put the copy where the link is, and only where the link still is."""
    if exchange(folder, temporary, folder, name):
        if _our_link(folder, temporary, item, intent):
            unlink_at(folder, temporary)
            return
        exchange(folder, temporary, folder, name)  # another file took the name: give it back
        raise OSError(errno.EEXIST, "the link was replaced since; nothing was overwritten")
    if not _our_link(folder, name, item, intent):
        raise OSError(errno.EEXIST, "the link was replaced since; nothing was overwritten")
    rename_at(folder, temporary, folder, name, replace=True)


_RESTORERS: dict[ActionKind, Callable[[FileLog, Intent, bool], str | None]] = {
    ActionKind.TRASH: _restore_trashed,
    ActionKind.MOVE: _restore_moved,
    ActionKind.HARDLINK: _restore_linked,
    ActionKind.SYMLINK: _restore_linked,
}


def _undo_one(item: FileLog, restore_edited: bool) -> FileOutcome:
    restorer = _RESTORERS.get(item.op)
    if restorer is None or item.intent is None:
        return FileOutcome(
            item.path, FileStatus.FAILED, "permanently deleted files cannot be restored"
        )
    try:
        note = restorer(item, item.intent, restore_edited)
    except _UnchangedError:
        return FileOutcome(item.path, FileStatus.SKIPPED, UNTOUCHED)
    except _LeftError as left:
        return FileOutcome(item.path, FileStatus.SKIPPED, str(left))
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
    restore_edited: bool = False,
) -> UndoReport:
    """Undo one apply session (default: the last one), holding the per-user action lock.

    Each file is restored independently; problems are reported per file and the rest go on.
    Files restored by an earlier undo are left alone, so undo can be run again after a failure.
    ``restore_edited``: a moved file edited at its destination since goes back as it is now
    (by default it stays there, and the report says so). Raises ``JournalReadError`` when
    the journal cannot be read (nothing is changed then).
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
        return _undo_items(journal, summary, items, progress, cancel, restore_edited)


def _undo_items(
    journal: Journal,
    summary: SessionSummary,
    items: tuple[FileLog, ...],
    progress: ProgressCallback,
    cancel: threading.Event | None,
    restore_edited: bool,
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
            outcome = _undo_one(item, restore_edited)
            # a file never touched is settled like a restored one; a file left or failed is not
            settled = outcome.status is FileStatus.RESTORED or outcome.reason == UNTOUCHED
            kind = RecordType.RESTORED if settled else RecordType.RESTORE_FAILED
            record.write(kind, of=summary.id, seq=item.seq, path=item.path, reason=outcome.reason)
            outcomes.append(outcome)
        remove_made_folders(_made_folders(summary))
        progress(Progress(Phase.APPLYING, len(items), len(items)))
    finally:
        record.close()
    return UndoReport(summary.id, tuple(outcomes), cancelled, journal_problem=record.problem)


def _made_folders(summary: SessionSummary) -> list[str]:
    return [
        folder
        for item in summary.files
        if item.op is ActionKind.MOVE and item.intent is not None and item.intent.made_dirs
        for folder in item.intent.made_dirs
    ]


def clear_leftovers(journal: Journal) -> int:
    """Remove temporary files and trash reservations that killed runs left; returns how many.

    Reads only the apply sessions the journal's index says may have left something; each
    one found clear (its claimed names given back too) is marked so and not read again.
    Raises ``JournalReadError`` when the journal cannot be read.
    """
    cleared = 0
    for session in journal.unfinished():
        pending = False
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
            if intent.claim and os.path.lexists(intent.claim):
                pending = True  # a file still under its private name: the apply gives it back
        if not pending:
            journal.mark_cleared(session.id)
    return cleared


def iter_sessions(journal: Journal | None = None) -> Iterator[SessionInfo]:
    """Sessions newest first, for listing (from the journal's index: cheap)."""
    yield from reversed((journal or Journal()).listing())
