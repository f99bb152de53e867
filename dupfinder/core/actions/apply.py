"""Carry out a plan, one file at a time, trusting nothing the scan saw.

Right before each file is touched it is checked again, and so is its group:

- the file is the one the scan saw: same identity (device, inode) when known, same size and
  mtime, and, when its ctime moved, the same fingerprint when read again (a file rewritten
  with its old mtime put back is caught here);
- at least one kept member of its group is in place, unchanged by the same test, and is a
  *different* file: another path to the same (device, inode) is not a copy;
- a link replaces only a file with exactly the same bytes as its target, unless the user
  allowed different content for the files the plan names, and then the original goes to
  the trash first.

Anything else skips that file with the precise reason and the run goes on. Only one apply or
undo runs at a time per user (``dupfinder.core.actions.lock``). Every step is journalled
before and after it runs; when the journal cannot be written the run stops before the next
file and the report says exactly what was done (undo reads the records that were written).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dupfinder.core.actions.fileops import FileStamp, move_no_overwrite, sha256_file, temporary_name
from dupfinder.core.actions.journal import FileState, Intent, Journal, JournalSession, SessionKind
from dupfinder.core.actions.lock import hold_action_lock
from dupfinder.core.actions.outcome import FileOutcome, FileStatus, with_status
from dupfinder.core.actions.plan import Action, GroupPlan, Plan, PlannedFile
from dupfinder.core.actions.trash import (
    NATIVE_TRASH,
    TrashEntry,
    TrashUnavailable,
    plan_entry,
    send_to_trash,
)
from dupfinder.core.actions.undo import clear_leftovers
from dupfinder.core.errors import JournalWriteError
from dupfinder.core.fingerprints.digest import digest_stream
from dupfinder.core.fingerprints.worker import Task, fingerprint_file
from dupfinder.core.model import ActionKind, Member, Phase, Progress, ProgressCallback, no_progress
from dupfinder.core.wording import os_error_reason

__all__ = ["ApplyReport", "apply", "free_name"]

CHANGED = "changed since the scan"


@dataclass(frozen=True, slots=True)
class ApplyReport:
    session: str
    action: Action
    outcomes: tuple[FileOutcome, ...]
    cancelled: bool = False
    #: why the run stopped before the end (the journal could not be written); None otherwise
    stopped: str | None = None

    @property
    def done(self) -> tuple[FileOutcome, ...]:
        return with_status(self.outcomes, FileStatus.DONE)

    @property
    def skipped(self) -> tuple[FileOutcome, ...]:
        return with_status(self.outcomes, FileStatus.SKIPPED)

    @property
    def failed(self) -> tuple[FileOutcome, ...]:
        return with_status(self.outcomes, FileStatus.FAILED)

    @property
    def ok(self) -> bool:
        """True only when every planned file was acted on and verified."""
        return all(o.status is FileStatus.DONE for o in self.outcomes) and not self.cancelled

    @property
    def bytes_done(self) -> int:
        return sum(o.size for o in self.done)


class _SkipError(Exception):
    """Leave this file alone, for the reason given."""


class _FailError(Exception):
    """The operation did not happen (or could not be verified), for the reason given."""


def free_name(dest: str) -> str:
    """``dest``, or the first ``dest (N)`` not taken on the disk (what a move will use)."""
    if not os.path.lexists(dest):
        return dest
    stem, suffix = os.path.splitext(dest)
    number = 1
    while os.path.lexists(f"{stem} ({number}){suffix}"):
        number += 1
    return f"{stem} ({number}){suffix}"


def _trash_reason(exc: OSError) -> str:
    if isinstance(exc, TrashUnavailable) or exc.errno is None:
        return "no trash on that volume"
    return os_error_reason(exc)


class _Checker:
    """Is a file still what the scan saw? Cheap stat tests first; content read only when the
    ctime moved (renames, chmod and links move it too), then the fingerprint decides."""

    def __init__(self) -> None:
        self._reread: dict[str, int | str | None] = {}

    def stamp(self, member: Member, what: str = "") -> FileStamp:
        try:
            stamp = FileStamp.read(member.path)
        except FileNotFoundError:
            raise _SkipError(f"{what}vanished") from None
        except OSError as exc:
            raise _FailError(f"{what}{os_error_reason(exc)}") from exc
        if not stamp.regular:
            raise _SkipError(f"{what}{CHANGED} (no longer a regular file)")
        if (stamp.size, stamp.mtime_ns) != (member.size, member.mtime_ns):
            raise _SkipError(f"{what}{CHANGED}")
        if member.ino and stamp.identity != (member.dev, member.ino):
            raise _SkipError(f"{what}{CHANGED} (replaced by another file)")
        if member.ctime_ns and stamp.ctime_ns != member.ctime_ns and not self._same_content(member):
            raise _SkipError(f"{what}{CHANGED} (rewritten with its old date)")
        return stamp

    def _same_content(self, member: Member) -> bool:
        """Byte-identical members compare their content hash; others their fingerprint."""
        if member.path not in self._reread:
            if member.content_hash is not None:
                self._reread[member.path] = _content_hash(member.path)
            else:
                outcome = fingerprint_file(Task(0, member.path, member.fingerprint.kind))
                self._reread[member.path] = outcome.value
        expected = member.content_hash or member.fingerprint.value
        return self._reread[member.path] == expected


def _content_hash(path: str) -> str | None:
    """The whole file's digest as the scan writes it (``Member.content_hash``)."""
    try:
        with open(path, "rb") as handle:
            return digest_stream(handle).hex()
    except OSError:
        return None


class _Applier:
    """Carries the state of one apply run (journal, checks, cached digests) between files."""

    def __init__(self, plan: Plan, log: JournalSession) -> None:
        self.plan = plan
        self.log = log
        self.kind = plan.action.kind
        self.check = _Checker()
        self.digests: dict[str, str] = {}
        self.different = frozenset(plan.different) if plan.allow_different else frozenset()
        #: why the run must stop (the journal failed); set once, checked before every file
        self.stopped: str | None = None

    def run(self, seq: int, item: PlannedFile, group: GroupPlan) -> FileOutcome:
        member = item.member
        try:
            stamp = self.check.stamp(member)
            kept = self._kept(item, group, stamp)
            intent = self._intent(seq, item, stamp, kept)
        except (_SkipError, _FailError) as problem:
            return self._record_problem(seq, item, problem)
        try:
            self.log.intent(intent)
        except JournalWriteError as exc:
            self.stopped = str(exc)
            return FileOutcome(member.path, FileStatus.SKIPPED, f"not touched: {exc}")
        try:
            details = self._act(item, intent)
        except (_SkipError, _FailError) as problem:
            return self._record_problem(seq, item, problem)
        try:
            self.log.outcome(
                FileState.DONE, seq, self.kind, member.path, group=item.group, **details
            )
        except JournalWriteError as exc:  # done, and the intent says so: undo still finds it
            self.stopped = str(exc)
        return FileOutcome(member.path, FileStatus.DONE, None, details.get("dest"), member.size)

    def _record_problem(self, seq: int, item: PlannedFile, problem: Exception) -> FileOutcome:
        status = FileStatus.SKIPPED if isinstance(problem, _SkipError) else FileStatus.FAILED
        try:
            self.log.outcome(
                FileState(str(status)),
                seq,
                self.kind,
                item.path,
                group=item.group,
                reason=str(problem),
            )
        except JournalWriteError as exc:
            self.stopped = str(exc)
        return FileOutcome(item.path, status, str(problem))

    def _kept(
        self, item: PlannedFile, group: GroupPlan, stamp: FileStamp
    ) -> tuple[Member, FileStamp] | None:
        """The first kept member that is in place, unchanged, and not this very file."""
        reasons = []
        preferred = [item.kept] if item.kept is not None else []
        for member in preferred + [m for m in group.keep if m is not item.kept]:
            try:
                kept = self.check.stamp(member)
            except (_SkipError, _FailError) as problem:
                reasons.append(f"{member.path}: {problem}")
                continue
            if kept.identity == stamp.identity:
                reasons.append(f"{member.path} is this same file under another path")
                continue
            return member, kept
        if self.plan.force_all and not self.kind.links:
            return None
        detail = "; ".join(reasons) if reasons else "the group has no kept file"
        raise _SkipError(f"no kept file of its group is in place ({detail})")

    def _digest(self, path: str) -> str:
        if path not in self.digests:
            self.digests[path] = sha256_file(path)
        return self.digests[path]

    def _intent(
        self, seq: int, item: PlannedFile, stamp: FileStamp, kept: tuple[Member, FileStamp] | None
    ) -> Intent:
        """Every name the step will use, decided (and journalled) before anything changes."""
        intent = Intent(self.log.id, "", seq, self.kind, item.path, stamp, group=item.group)
        if self.kind is ActionKind.MOVE:
            if item.dest is None:
                raise _FailError("no destination was planned")
            dest = free_name(item.dest)
            return dataclasses.replace(intent, dest=dest, tmp=temporary_name(dest))
        if self.kind is ActionKind.TRASH:
            return self._with_trash_names(intent)
        if not self.kind.links:
            return intent
        if kept is None:
            raise _FailError("no kept file to link to")
        target, target_stamp = kept
        try:
            digest = self._digest(item.path)
            identical = digest == self._digest(target.path)
        except OSError as exc:
            raise _FailError(os_error_reason(exc)) from exc
        if not identical and item.path not in self.different:
            raise _SkipError(
                f"its bytes differ from the kept file {target.path}; "
                "allow different content to replace it anyway"
            )
        intent = dataclasses.replace(
            intent,
            kept=target.path,
            kept_ino=target_stamp.ino,
            tmp=temporary_name(item.path),
            sha256=digest,
            identical=identical,
        )
        return intent if identical else self._with_trash_names(intent)

    @staticmethod
    def _with_trash_names(intent: Intent) -> Intent:
        if not NATIVE_TRASH:
            return intent
        try:
            entry = plan_entry(intent.path)
        except OSError as exc:
            raise _FailError(_trash_reason(exc)) from exc
        return dataclasses.replace(intent, trash_files=str(entry.files), trash_info=str(entry.info))

    def _act(self, item: PlannedFile, intent: Intent) -> dict[str, str | None]:
        path = item.path
        try:
            self.check.stamp(item.member)  # the last look, right before the change
            if self.kind is ActionKind.TRASH:
                entry = _reserved(intent)
                return {"trash_entry": self._trash(path, entry)}
            if self.kind is ActionKind.MOVE:
                return self._move(path, intent)
            if self.kind.links:
                return self._link(item.member, intent)
            os.unlink(path)
        except OSError as exc:
            raise _FailError(os_error_reason(exc)) from exc
        if os.path.lexists(path):
            raise _FailError("still in place after deleting")
        return {}

    @staticmethod
    def _trash(path: str, entry: TrashEntry | None) -> str | None:
        try:
            placed = send_to_trash(path, entry)
        except FileExistsError as exc:
            raise _FailError("its name in the trash was taken meanwhile; try again") from exc
        except OSError as exc:
            raise _FailError(_trash_reason(exc)) from exc
        if os.path.lexists(path):
            raise _FailError("still in place after sending to the trash")
        return None if placed is None else str(placed.files)

    @staticmethod
    def _move(path: str, intent: Intent) -> dict[str, str | None]:
        dest = str(intent.dest)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        try:
            move_no_overwrite(path, dest, intent.tmp)
        except FileExistsError as exc:
            raise _FailError(f"{dest} appeared during the move; nothing was overwritten") from exc
        moved = os.lstat(dest)
        if os.path.lexists(path) or moved.st_size != intent.stamp.size:
            raise _FailError("the move could not be verified")
        return {"dest": dest}

    def _link(self, member: Member, intent: Intent) -> dict[str, str | None]:
        kept, tmp = str(intent.kept), str(intent.tmp)
        target = os.path.abspath(kept)
        original: str | None = None
        try:
            if self.kind is ActionKind.HARDLINK:
                try:
                    os.link(kept, tmp, follow_symlinks=False)
                except OSError as exc:
                    if exc.errno == errno.EXDEV:
                        raise _FailError("the kept file is on another device") from exc
                    raise
            else:
                os.symlink(target, tmp)
            self._verify_link(tmp, target, intent)
            self.check.stamp(member)
            if not intent.identical:  # allowed: the original goes to the trash, undo can restore it
                original = self._trash(member.path, _reserved(intent))
            os.replace(tmp, member.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        self._verify_link(member.path, target, intent)
        return {"trash_entry": original}

    def _verify_link(self, link: str, target: str, intent: Intent) -> None:
        kept = os.stat(target)
        if self.kind is ActionKind.SYMLINK:
            if os.readlink(link) != target or os.stat(link).st_ino != kept.st_ino:
                raise _FailError("the link does not point to the kept file")
        elif os.lstat(link).st_ino != kept.st_ino or kept.st_ino != intent.kept_ino:
            raise _FailError("the link is not the kept file")
        if not stat.S_ISREG(kept.st_mode):
            raise _FailError("the kept file is not a regular file")


def _reserved(intent: Intent) -> TrashEntry | None:
    if intent.trash_files and intent.trash_info:
        return TrashEntry(Path(intent.trash_files), Path(intent.trash_info))
    return None


def apply(
    plan: Plan,
    *,
    journal: Journal | None = None,
    progress: ProgressCallback = no_progress,
    cancel: threading.Event | None = None,
    lock_path: str | os.PathLike[str] | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> ApplyReport:
    """Carry out ``plan`` file by file; problems are collected per file, never raised.

    Holds the per-user action lock (``ActionBusy`` when a wait for it is cancelled).
    ``cancel`` is checked before each file: the rest are reported as skipped ("cancelled").
    """
    journal = journal or Journal()
    cancel = cancel if cancel is not None else threading.Event()
    with hold_action_lock(lock_path, cancel=cancel, on_wait=on_wait):
        clear_leftovers(journal)
        return _apply_locked(plan, journal, progress, cancel)


def _apply_locked(
    plan: Plan, journal: Journal, progress: ProgressCallback, cancel: threading.Event
) -> ApplyReport:
    items = plan.files
    info = {"action": str(plan.action), "files": len(items), "force_all": plan.force_all}
    try:
        log = journal.session(SessionKind.APPLY, **info)
    except JournalWriteError as exc:
        reason = f"not touched: {exc}"
        untouched = tuple(FileOutcome(f.path, FileStatus.SKIPPED, reason) for f in items)
        return ApplyReport("", plan.action, untouched, stopped=str(exc))
    outcomes: list[FileOutcome] = []
    cancelled = False
    with log:
        applier = _Applier(plan, log)
        seq = 0
        for group in plan.groups:
            for item in group.act:
                if applier.stopped is not None:
                    outcomes.append(
                        FileOutcome(
                            item.path, FileStatus.SKIPPED, f"not touched: {applier.stopped}"
                        )
                    )
                elif cancel.is_set():
                    cancelled = True
                    outcomes.append(FileOutcome(item.path, FileStatus.SKIPPED, "cancelled"))
                else:
                    progress(Progress(Phase.APPLYING, seq, len(items), item.path))
                    outcomes.append(applier.run(seq, item, group))
                seq += 1
        done = sum(o.status is FileStatus.DONE for o in outcomes)
        log.close(cancelled=cancelled, done=done, stopped=applier.stopped)
        progress(Progress(Phase.APPLYING, len(items), len(items)))
    return ApplyReport(log.id, plan.action, tuple(outcomes), cancelled, applier.stopped)
