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
import hashlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dupfinder.core.actions.fileops import FileStamp, move_no_overwrite, temporary_name
from dupfinder.core.actions.folders import (
    link_at,
    link_into,
    open_dir,
    rename_at,
    stat_at,
    symlink_at,
    unlink_at,
)
from dupfinder.core.actions.journal import FileState, Intent, Journal, JournalSession, SessionKind
from dupfinder.core.actions.lock import hold_action_lock
from dupfinder.core.actions.outcome import FileOutcome, FileStatus, with_status
from dupfinder.core.actions.plan import Action, GroupPlan, Plan, PlannedFile
from dupfinder.core.actions.proof import Claim, Evidence, Proof, Unproven, prove
from dupfinder.core.actions.trash import (
    NATIVE_TRASH,
    TrashEntry,
    TrashUnavailable,
    plan_entry,
    restore,
    send_to_trash,
)
from dupfinder.core.actions.undo import clear_leftovers
from dupfinder.core.errors import JournalWriteError
from dupfinder.core.fingerprints.digest import digest_stream
from dupfinder.core.fingerprints.worker import Task, fingerprint_file
from dupfinder.core.model import (
    ActionKind,
    Kind,
    Member,
    Phase,
    Progress,
    ProgressCallback,
    ScanOptions,
    no_progress,
)
from dupfinder.core.wording import os_error_reason

__all__ = ["ApplyReport", "apply", "free_name", "restore_claims"]

CHANGED = "changed since the scan"

_log = logging.getLogger(__name__)


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
    """Carries the state of one apply run (journal, checks, digests read) between files."""

    def __init__(self, plan: Plan, log: JournalSession, options: ScanOptions) -> None:
        self.plan = plan
        self.log = log
        self.kind = plan.action.kind
        self.options = options
        self.check = _Checker()
        #: digests read during this run, by (device, inode, size, mtime, ctime)
        self.digests: dict[tuple[int, int, int, int, int], bytes] = {}
        self.different = frozenset(plan.different) if plan.allow_different else frozenset()
        #: why the run must stop (the journal failed); set once, checked before every file
        self.stopped: str | None = None

    def run(self, seq: int, item: PlannedFile, group: GroupPlan) -> FileOutcome:
        member = item.member
        try:
            stamp = self.check.stamp(member)
            candidates = self._candidates(item, group, stamp)
            if not candidates:
                return self._run_unproven(seq, item, stamp)
            claim = Claim(group.group.kind, self._required(group.group.kind), self._evidence(item))
            with prove(member, candidates, claim, self.options, self.digests) as proof:
                intent = self._intent(seq, item, stamp, proof)
                if not self._journal(intent):
                    return FileOutcome(
                        member.path, FileStatus.SKIPPED, f"not touched: {self.stopped}"
                    )
                details = self._act(item, intent, proof)
        except Unproven as problem:
            return self._record_problem(seq, item, _SkipError(str(problem)))
        except (_SkipError, _FailError) as problem:
            return self._record_problem(seq, item, problem)
        return self._done(seq, item, details)

    def _run_unproven(self, seq: int, item: PlannedFile, stamp: FileStamp) -> FileOutcome:
        """Every member of the group goes, as the user forced: nothing is kept to prove
        against, so only the file's identity is checked (and links are never made)."""
        intent = self._intent(seq, item, stamp, None)
        if not self._journal(intent):
            return FileOutcome(item.path, FileStatus.SKIPPED, f"not touched: {self.stopped}")
        try:
            details = self._act(item, intent, None)
        except Unproven as problem:
            return self._record_problem(seq, item, _SkipError(str(problem)))
        except (_SkipError, _FailError) as problem:
            return self._record_problem(seq, item, problem)
        return self._done(seq, item, details)

    def _journal(self, intent: Intent) -> bool:
        try:
            self.log.intent(intent)
        except JournalWriteError as exc:
            self.stopped = str(exc)
            return False
        return True

    def _done(self, seq: int, item: PlannedFile, details: dict[str, str | None]) -> FileOutcome:
        member = item.member
        try:
            self.log.outcome(
                FileState.DONE, seq, self.kind, member.path, group=item.group, **details
            )
        except JournalWriteError as exc:  # done, and the intent says so: undo still finds it
            self.stopped = str(exc)
        return FileOutcome(member.path, FileStatus.DONE, None, details.get("dest"), member.size)

    def _required(self, kind: Kind) -> float:
        if kind in (Kind.AUDIO, Kind.VIDEO):  # the scan's figure, or the kind's own
            from dupfinder.core.grouping.media_check import media_check

            return media_check(kind, self.options).threshold
        if kind is Kind.IMAGE:
            return self.options.image_similarity
        return self.options.text_similarity

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

    def _candidates(self, item: PlannedFile, group: GroupPlan, stamp: FileStamp) -> list[Member]:
        """The kept members in place and unchanged since the scan, the planned target first;
        empty only when the user forced every member of the group to go."""
        reasons = []
        preferred = [item.kept] if item.kept is not None else []
        found: list[Member] = []
        for member in preferred + [m for m in group.keep if m is not item.kept]:
            try:
                kept = self.check.stamp(member)
            except (_SkipError, _FailError) as problem:
                reasons.append(f"{member.path}: {problem}")
                continue
            if kept.identity == stamp.identity:
                reasons.append(f"{member.path} is this same file under another path")
                continue
            found.append(member)
        if found or (self.plan.force_all and not self.kind.links):
            return found
        detail = "; ".join(reasons) if reasons else "the group has no kept file"
        raise _SkipError(f"no kept file of its group is in place ({detail})")

    def _evidence(self, item: PlannedFile) -> Evidence:
        """A link replaces only the same bytes, unless the user allowed this file to differ
        (its original then goes to the trash first)."""
        if not self.kind.links:
            return Evidence.CLAIMED
        return Evidence.ANOTHER_FILE if item.path in self.different else Evidence.SAME_BYTES

    def _intent(self, seq: int, item: PlannedFile, stamp: FileStamp, proof: Proof | None) -> Intent:
        """Every name the step will use, decided (and journalled) before anything changes."""
        intent = Intent(self.log.id, "", seq, self.kind, item.path, stamp, group=item.group)
        if proof is not None:
            folder = os.fstat(proof.target.folder)
            intent = dataclasses.replace(
                intent,
                digest=proof.digest.hex(),
                parent_dev=folder.st_dev,
                parent_ino=folder.st_ino,
            )
        if self.kind is ActionKind.MOVE:
            if item.dest is None:
                raise _FailError("no destination was planned")
            dest = free_name(item.dest)
            return dataclasses.replace(intent, dest=dest, tmp=temporary_name(dest))
        if self.kind is ActionKind.TRASH:
            return self._with_trash_names(intent)
        if self.kind is ActionKind.DELETE:
            return dataclasses.replace(intent, claim=temporary_name(item.path))
        if proof is None:
            raise _FailError("no kept file to link to")
        intent = dataclasses.replace(
            intent,
            kept=proof.kept.path,
            kept_ino=proof.kept.stat.st_ino,
            claim=temporary_name(item.path),
            sha256=_sha256_of(proof.target.fd),
            identical=proof.identical,
        )
        return intent if proof.identical else self._with_trash_names(intent)

    @staticmethod
    def _with_trash_names(intent: Intent) -> Intent:
        if not NATIVE_TRASH:
            return intent
        try:
            entry = plan_entry(intent.path)
        except OSError as exc:
            raise _FailError(_trash_reason(exc)) from exc
        return dataclasses.replace(intent, trash_files=str(entry.files), trash_info=str(entry.info))

    def _act(self, item: PlannedFile, intent: Intent, proof: Proof | None) -> dict[str, str | None]:
        path = item.path
        try:
            self.check.stamp(item.member)  # the last look, right before the change
            if self.kind is ActionKind.TRASH:
                return {"trash_entry": _trash(path, _reserved(intent), proof)}
            if self.kind is ActionKind.MOVE:
                return _move(path, intent, proof)
            if self.kind is ActionKind.DELETE:
                _delete(path, intent, proof)
                return {}
            if proof is None:
                raise _FailError("no kept file to link to")
            return _link(self.kind, intent, proof)
        except OSError as exc:
            raise _FailError(os_error_reason(exc)) from exc


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _sha256_of(fd: int) -> str:
    """The file's SHA-256 (what undo of a link checks a restored copy against)."""
    digest = hashlib.sha256()
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, 1 << 20):
        digest.update(chunk)
    return digest.hexdigest()


def _expect(proof: Proof | None, st: os.stat_result, undo: Callable[[], None]) -> None:
    """After a rename: the file moved must be the one proven (else it goes straight back),
    and the kept file must still hold the proven bytes (else the step is undone)."""
    if proof is None:
        return
    if _identity(st) != proof.target.identity:
        undo()
        raise _SkipError("another file took its name while acting; that file was put back")
    problem = proof.kept_intact()
    if problem is not None:
        undo()
        raise _FailError(f"{problem}; the file was put back")


def _trash(path: str, entry: TrashEntry | None, proof: Proof | None) -> str | None:
    """Into the trash through the folder that was opened for the proof: the file the path
    names for the system (a ``..`` after a link is not undone by text rules), recorded in the
    trash under its real path."""
    try:
        if proof is None:
            placed = send_to_trash(path, entry)
        else:
            folder = os.path.realpath(os.path.dirname(path) or ".")
            real = os.path.join(folder, proof.target.name)
            placed = send_to_trash(
                proof.target.name, entry, original=real, dir_fd=proof.target.folder
            )
    except FileExistsError as exc:
        raise _FailError("its name in the trash was taken meanwhile; try again") from exc
    except OSError as exc:
        raise _FailError(_trash_reason(exc)) from exc
    if _still_there(path, proof):
        raise _FailError("still in place after sending to the trash")
    if placed is None:  # the system's own trash (macOS, Windows): it cannot be looked into
        return None
    _expect(proof, os.lstat(placed.files), lambda: restore(placed, path))
    return str(placed.files)


def _still_there(path: str, proof: Proof | None) -> bool:
    """Whether the file acted on is still at its name (another file there does not count)."""
    try:
        now = os.lstat(path)
    except FileNotFoundError:
        return False
    return proof is None or _identity(now) == proof.target.identity


def _move(path: str, intent: Intent, proof: Proof | None) -> dict[str, str | None]:
    dest = str(intent.dest)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    try:
        move_no_overwrite(path, dest, intent.tmp)
    except FileExistsError as exc:
        raise _FailError(f"{dest} appeared during the move; nothing was overwritten") from exc
    moved = os.lstat(dest)
    if os.path.lexists(path) or moved.st_size != intent.stamp.size:
        raise _FailError("the move could not be verified")
    if proof is not None and _identity(moved) != proof.target.identity:
        # a copy to another device (verified byte for byte by the move): it must hold the
        # proven bytes, or another file was moved in place of the proven one
        with open(dest, "rb") as copy:
            if digest_stream(copy) == proof.digest:
                moved = proof.target.stat
    _expect(proof, moved, lambda: move_no_overwrite(dest, path))
    return {"dest": dest}


def _claim(folder: int, name: str, claim: str, proof: Proof | None) -> None:
    """Take the file away from its name under a private one in the same folder, and make
    sure the file taken is the one proven (a name swapped meanwhile is given back)."""
    rename_at(folder, name, folder, claim)
    taken = stat_at(folder, claim)
    if proof is not None and _identity(taken) != proof.target.identity:
        _unclaim(folder, name, claim)
        raise _SkipError("another file took its name while acting; that file was put back")


def _unclaim(folder: int, name: str, claim: str) -> None:
    """Give a claimed file its name back, never over another file."""
    try:
        link_at(folder, claim, folder, name)
    except FileExistsError:
        raise
    except OSError:  # no hard links on this file system (FAT, exFAT): rename to a free name
        if _exists_in(folder, name):
            raise FileExistsError(errno.EEXIST, "its name was taken meanwhile", name) from None
        rename_at(folder, claim, folder, name)
        return
    unlink_at(folder, claim)


def _exists_in(folder: int, name: str) -> bool:
    try:
        stat_at(folder, name)
    except FileNotFoundError:
        return False
    return True


def _delete(path: str, intent: Intent, proof: Proof | None) -> None:
    """Claim, re-check the kept file, then unlink the claimed name: a kept file that turned
    out to be this very file, or was rewritten meanwhile, gets the file back."""
    folder_path, name = os.path.split(path)
    claim = os.path.basename(str(intent.claim))
    folder = proof.target.folder if proof is not None else open_dir(folder_path or ".")
    try:
        _claim(folder, name, claim, proof)
        if proof is not None:
            problem = proof.kept_intact()
            if problem is not None:
                _unclaim(folder, name, claim)
                raise _FailError(f"{problem}; the file was put back")
        unlink_at(folder, claim)
    finally:
        if proof is None:
            os.close(folder)
    if os.path.lexists(path):
        raise _FailError("still in place after deleting")


def _link(kind: ActionKind, intent: Intent, proof: Proof) -> dict[str, str | None]:
    """Replace the file with a link to the very kept file that was compared.

    Identical bytes: the file is claimed, the link takes its free name, the kept file is
    checked again, then the claimed original goes. Allowed different content: the original
    goes to the trash first (undo brings it back), then the link takes its name."""
    folder, name = proof.target.folder, proof.target.name
    claim = os.path.basename(str(intent.claim))
    original: str | None = None
    if intent.identical:
        _claim(folder, name, claim, proof)
    else:
        original = _trash(proof.target.path, _reserved(intent), proof)
    try:
        if kind is ActionKind.HARDLINK:
            source = f"/proc/self/fd/{proof.kept.fd}"
            if not os.path.exists(source):  # no /proc: link the kept name, checked below
                source = proof.kept.path
            try:
                link_into(source, folder, name)
            except OSError as exc:
                if exc.errno == errno.EXDEV:
                    raise _FailError("the kept file is on another device") from exc
                raise
            made = stat_at(folder, name)
        else:
            symlink_at(os.path.abspath(proof.kept.path), folder, name)
            made = stat_at(folder, name, follow=True)
        problem = proof.kept_intact()
        if _identity(made) != proof.kept.identity:
            problem = "the link is not the kept file that was compared"
        if problem is not None:
            unlink_at(folder, name)
            raise _FailError(f"{problem}; the file was put back")
    except BaseException:
        if intent.identical:
            with contextlib.suppress(OSError):
                _unclaim(folder, name, claim)
        elif original is not None and intent.trash_files and intent.trash_info:
            with contextlib.suppress(OSError):
                restore(TrashEntry(Path(intent.trash_files), Path(intent.trash_info)), intent.path)
        raise
    if intent.identical:
        unlink_at(folder, claim)
    return {"trash_entry": original}


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
    options: ScanOptions | None = None,
) -> ApplyReport:
    """Carry out ``plan`` file by file; problems are collected per file, never raised.

    Holds the per-user action lock (``ActionBusy`` when a wait for it is cancelled).
    ``cancel`` is checked before each file: the rest are reported as skipped ("cancelled").
    ``options`` give the similarity a near-duplicate must still show against its kept file
    right before it is removed (the scan's settings; by default the product's defaults).
    """
    journal = journal or Journal()
    cancel = cancel if cancel is not None else threading.Event()
    with hold_action_lock(lock_path, cancel=cancel, on_wait=on_wait):
        restore_claims(journal)
        clear_leftovers(journal)
        settings = options if options is not None else ScanOptions(roots=())
        return _apply_locked(plan, journal, progress, cancel, settings)


def restore_claims(journal: Journal) -> int:
    """Give back their names to files a killed delete or link left under a private name;
    returns how many. A file is never removed here: when its name was taken meanwhile by
    the same bytes (the link was made) the private copy goes, otherwise it stays."""
    restored = 0
    for session in journal.unfinished():  # only what a killed run may have left
        for item in session.files:
            intent = item.intent
            if item.state is not FileState.INTERRUPTED or intent is None or not intent.claim:
                continue
            claim = intent.claim
            if not os.path.lexists(claim):
                continue
            try:
                if not os.path.lexists(intent.path):
                    move_no_overwrite(claim, intent.path)
                    restored += 1
                elif intent.digest and _same_digest(intent.path, claim):
                    os.unlink(claim)
            except OSError as exc:
                _log.warning("could not give %s its name back: %s", intent.path, exc)
    return restored


def _same_digest(a: str, b: str) -> bool:
    with open(a, "rb") as first, open(b, "rb") as second:
        return digest_stream(first) == digest_stream(second)


def _apply_locked(
    plan: Plan,
    journal: Journal,
    progress: ProgressCallback,
    cancel: threading.Event,
    options: ScanOptions,
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
        applier = _Applier(plan, log, options)
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
