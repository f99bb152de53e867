"""The action journal, and undo.

Every file operation is written to an append-only JSON-lines file *before* it runs (an
``intent`` record) and again *after* (``done``, ``failed`` or ``skipped``), each line flushed
and fsynced. A crash mid-apply therefore leaves a journal that says exactly which files were
touched: a file with an intent and no outcome is "interrupted", and undo inspects the disk to
find out whether its operation happened.

Undo restores moved files and files sent to the freedesktop trash (Linux, BSD) by moving them
back, never over an existing file. A file replaced by a link is restored by copying the kept
file back only when its SHA-256 equals the original's (recorded before the replacement);
permanently deleted files cannot be restored. The file operations shared with
``dupfinder.core.actions`` (moving without overwriting, finding a trash entry) live here so
that undo does not depend on the action code.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import shutil
import sys
import threading
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from platformdirs import user_data_dir

from dupfinder.core.model import Phase, Progress, ProgressCallback, no_progress

__all__ = [
    "FileEntryLog",
    "Journal",
    "JournalSession",
    "SessionSummary",
    "UndoOutcome",
    "UndoReport",
    "default_journal_path",
    "find_trash_entry",
    "iter_sessions",
    "move_no_overwrite",
    "os_error_reason",
    "sha256_file",
    "undo",
]

JOURNAL_NAME = "journal.jsonl"
#: Phase sent with apply and undo progress.
ACTING = Phase.APPLYING
_LINK_UNSUPPORTED = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS}


def default_journal_path() -> Path:
    """The journal in the user data directory (kept when the cache is cleared)."""
    return Path(user_data_dir("dupfinder", appauthor=False)) / JOURNAL_NAME


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


# ---------------------------------------------------------------- shared file operations


def os_error_reason(exc: OSError) -> str:
    """A short reason for people, stable enough to group problems by."""
    if isinstance(exc, FileNotFoundError) or exc.errno == errno.ENOENT:
        return "vanished"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "read-only filesystem"
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    return exc.strerror or str(exc)


def sha256_file(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _fsync_file(path: str | os.PathLike[str]) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def move_no_overwrite(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """Move ``src`` to ``dst``; raise FileExistsError rather than replace anything.

    On one device a hard link then an unlink makes the no-overwrite check atomic; across
    devices the copy is written under a temporary name, verified, and only then is ``src``
    removed, so a failure at any step leaves the original in place.
    """
    src, dst = os.fspath(src), os.fspath(dst)
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError as exc:
        if exc.errno == errno.EXDEV:
            _copy_move(src, dst)
            return
        if exc.errno not in _LINK_UNSUPPORTED:
            raise
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, "destination exists", dst) from exc
        os.rename(src, dst)
        return
    os.unlink(src)


def _copy_move(src: str, dst: str) -> None:
    tmp = os.path.join(os.path.dirname(dst), f".{os.path.basename(dst)}.{secrets.token_hex(4)}.tmp")
    try:
        shutil.copy2(src, tmp)
        _fsync_file(tmp)
        if os.path.getsize(tmp) != os.path.getsize(src) or sha256_file(tmp) != sha256_file(src):
            raise OSError(errno.EIO, "the copy does not match the original", dst)
        try:
            os.link(tmp, dst)
            os.unlink(tmp)
        except OSError as exc:
            if exc.errno not in _LINK_UNSUPPORTED:
                raise
            if os.path.lexists(dst):
                raise FileExistsError(errno.EEXIST, "destination exists", dst) from exc
            os.rename(tmp, dst)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    os.unlink(src)


def _mount_point(path: str) -> str:
    path = os.path.realpath(path)
    while not os.path.ismount(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def _home_trash() -> Path:
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(data_home) / "Trash"


def _trash_dirs(original: str) -> list[tuple[Path, str | None]]:
    """Freedesktop trash folders that may hold ``original``, each with the folder its
    ``.trashinfo`` paths are relative to (None: absolute only)."""
    home = _home_trash()
    top = _mount_point(os.path.dirname(original) or ".")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return [
        (home, str(home.parent)),
        (Path(top) / ".Trash" / str(uid), top),
        (Path(top) / f".Trash-{uid}", top),
    ]


def _info_path(trash: Path, entry: Path) -> Path:
    return trash / "info" / f"{entry.name}.trashinfo"


def _info_points_to(info: Path, original: str, topdir: str | None) -> bool:
    try:
        text = info.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("Path="):
            stored = urllib.parse.unquote(line[5:])
            if not os.path.isabs(stored) and topdir is not None:
                stored = os.path.join(topdir, stored)
            return os.path.normpath(stored) == os.path.normpath(original)
    return False


def find_trash_entry(original: str, dev: int, ino: int, size: int, mtime_ns: int) -> Path | None:
    """The freedesktop trash entry holding what was ``original``, or None.

    Matched by inode when the trash is on the same device (a rename keeps it); otherwise by
    the ``.trashinfo`` path plus size and mtime (a copy into the home trash keeps those).
    """
    if sys.platform in ("win32", "darwin"):
        return None
    fallback: Path | None = None
    for trash, topdir in _trash_dirs(original):
        files = trash / "files"
        try:
            entries = list(os.scandir(files))
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if st.st_dev == dev and st.st_ino == ino and st.st_size == size:
                return Path(entry.path)
            if (
                fallback is None
                and st.st_size == size
                and st.st_mtime_ns == mtime_ns
                and _info_points_to(_info_path(trash, Path(entry.path)), original, topdir)
            ):
                fallback = Path(entry.path)
    return fallback


# ---------------------------------------------------------------- writing and reading


class JournalSession:
    """One apply or undo run: every record it writes carries its session id."""

    def __init__(self, journal: Journal, kind: str, info: Mapping[str, Any]) -> None:
        self.id = f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        self.journal = journal
        journal.path.parent.mkdir(parents=True, exist_ok=True)
        self._out: TextIO = open(journal.path, "a", encoding="utf-8")  # noqa: SIM115
        self.write("session", kind=kind, **info)

    def write(self, record_type: str, **fields: Any) -> None:
        """Append one line and fsync it, so it survives a crash right after."""
        record = {"type": record_type, "session": self.id, "time": _now(), **fields}
        self._out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._out.flush()
        os.fsync(self._out.fileno())

    def close(self, **summary: Any) -> None:
        if not self._out.closed:
            self.write("end", **summary)
            self._out.close()

    def __enter__(self) -> JournalSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(interrupted=exc[0] is not None)


@dataclass(frozen=True, slots=True)
class FileEntryLog:
    """What the journal says about one file of an apply session."""

    seq: int
    op: str
    path: str
    state: str  # done | failed | skipped | interrupted
    intent: Mapping[str, Any]
    outcome: Mapping[str, Any] | None
    restored: bool = False

    @property
    def reason(self) -> str | None:
        return None if self.outcome is None else self.outcome.get("reason")


@dataclass(frozen=True, slots=True)
class SessionSummary:
    id: str
    kind: str
    time: str
    action: str | None
    files: tuple[FileEntryLog, ...] = field(default=())
    ended: bool = False

    def count(self, state: str) -> int:
        return sum(1 for f in self.files if f.state == state)

    @property
    def restorable(self) -> tuple[FileEntryLog, ...]:
        return tuple(f for f in self.files if f.state in ("done", "interrupted") and not f.restored)


class Journal:
    """The JSON-lines journal at ``path`` (default: the user data directory)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_journal_path()

    def session(self, kind: str, **info: Any) -> JournalSession:
        return JournalSession(self, kind, info)

    def records(self) -> list[dict[str, Any]]:
        """Every readable record; a line cut short by a crash is skipped."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        records = []
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and "type" in record and "session" in record:
                records.append(record)
        return records

    def sessions(self) -> list[SessionSummary]:
        """Sessions in the order they were written, each with the fate of its files."""
        records = self.records()
        restored = {(r["of"], r["seq"]) for r in records if r["type"] == "restored" and "seq" in r}
        order: list[str] = []
        heads: dict[str, dict[str, Any]] = {}
        intents: dict[str, dict[int, dict[str, Any]]] = {}
        outcomes: dict[str, dict[int, dict[str, Any]]] = {}
        ended: set[str] = set()
        for r in records:
            sid = r["session"]
            kind = r["type"]
            if kind == "session":
                order.append(sid)
                heads[sid] = r
            elif kind == "end":
                ended.add(sid)
            elif kind == "intent" and "seq" in r:
                intents.setdefault(sid, {})[r["seq"]] = r
            elif kind in ("done", "failed", "skipped") and "seq" in r:
                intents.setdefault(sid, {}).setdefault(r["seq"], r)
                outcomes.setdefault(sid, {})[r["seq"]] = r
        result = []
        for sid in order:
            head = heads[sid]
            files = []
            for seq, intent in sorted(intents.get(sid, {}).items()):
                outcome = outcomes.get(sid, {}).get(seq)
                state = "interrupted" if outcome is None else str(outcome["type"])
                files.append(
                    FileEntryLog(
                        seq=seq,
                        op=str(intent.get("op", "")),
                        path=str(intent.get("path", "")),
                        state=state,
                        intent=intent,
                        outcome=outcome,
                        restored=(sid, seq) in restored,
                    )
                )
            result.append(
                SessionSummary(
                    id=sid,
                    kind=str(head.get("kind", "apply")),
                    time=str(head.get("time", "")),
                    action=head.get("action"),
                    files=tuple(files),
                    ended=sid in ended,
                )
            )
        return result

    def find(self, session_id: str | None = None) -> SessionSummary | None:
        """A given apply session, or the newest one that still has something to undo."""
        applies = [s for s in self.sessions() if s.kind == "apply"]
        if session_id is not None:
            return next((s for s in applies if s.id == session_id), None)
        return next((s for s in reversed(applies) if s.restorable), None)


# ---------------------------------------------------------------- undo


@dataclass(frozen=True, slots=True)
class UndoOutcome:
    path: str
    status: str  # restored | skipped | failed
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class UndoReport:
    session: str | None
    outcomes: tuple[UndoOutcome, ...] = ()
    cancelled: bool = False

    def _with(self, status: str) -> tuple[UndoOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status == status)

    @property
    def restored(self) -> tuple[UndoOutcome, ...]:
        return self._with("restored")

    @property
    def problems(self) -> tuple[UndoOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status != "restored")

    @property
    def failed(self) -> tuple[UndoOutcome, ...]:
        return self._with("failed")

    @property
    def ok(self) -> bool:
        """Nothing failed and nothing was left by a cancel (untouched files are fine)."""
        return not self.failed and not self.cancelled


class _UnchangedError(Exception):
    """The file was never touched (the apply stopped before its operation)."""


def _same_file(st: os.stat_result, intent: Mapping[str, Any]) -> bool:
    return st.st_dev == intent.get("dev") and st.st_ino == intent.get("ino")


def _still_same(path: str, intent: Mapping[str, Any]) -> bool:
    """Is the file at ``path`` the one the intent describes (same inode, or same size+mtime)?"""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return _same_file(st, intent) or (
        st.st_size == intent.get("size") and st.st_mtime_ns == intent.get("mtime_ns")
    )


def _check_untouched(path: str, intent: Mapping[str, Any]) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    # inode numbers are reused, so the size and mtime must match too
    if (
        _same_file(st, intent)
        and st.st_size == intent.get("size")
        and st.st_mtime_ns == intent.get("mtime_ns")
    ):
        raise _UnchangedError


def _put_back(src: Path, original: str) -> None:
    if os.path.lexists(original):
        raise FileExistsError(errno.EEXIST, "a file already exists at the original place")
    os.makedirs(os.path.dirname(original) or ".", exist_ok=True)
    move_no_overwrite(src, original)


def _restore_trashed(item: FileEntryLog) -> str | None:
    intent = item.intent
    if sys.platform in ("win32", "darwin"):
        raise OSError(errno.ENOTSUP, "not supported: restore it from the system trash")
    _check_untouched(item.path, intent)
    recorded = item.outcome.get("trash_entry") if item.outcome else None
    entry = Path(recorded) if recorded and _still_same(recorded, intent) else None
    if entry is None:
        entry = find_trash_entry(
            item.path, intent["dev"], intent["ino"], intent["size"], intent["mtime_ns"]
        )
    if entry is None:
        raise FileNotFoundError(errno.ENOENT, "not found in the trash (emptied?)")
    _put_back(entry, item.path)
    with contextlib.suppress(OSError):
        os.unlink(_info_path(entry.parent.parent, entry))
    return None


def _restore_moved(item: FileEntryLog) -> str | None:
    intent = item.intent
    _check_untouched(item.path, intent)
    dest = str(intent["dest"])
    if not os.path.lexists(dest):
        raise FileNotFoundError(errno.ENOENT, f"no longer at {dest}")
    if not _still_same(dest, intent):
        raise OSError(errno.EEXIST, f"the file at {dest} changed since it was moved")
    _put_back(Path(dest), item.path)
    return None


def _restore_linked(item: FileEntryLog) -> str | None:
    intent = item.intent
    tmp = intent.get("tmp")
    if tmp:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _check_untouched(item.path, intent)
    digest = intent.get("sha256")
    kept = str(intent["kept"])
    if not digest:
        raise OSError(errno.ENOTSUP, "cannot restore: the original content was not recorded")
    if not os.path.lexists(item.path):
        raise FileNotFoundError(errno.ENOENT, "the link was removed since")
    if item.op == "symlink":
        ours = os.path.islink(item.path) and os.readlink(item.path) == os.path.abspath(kept)
    else:
        ours = os.lstat(item.path).st_ino == intent.get("kept_ino")
    if not ours:
        raise OSError(errno.EEXIST, "the link was replaced since; nothing was overwritten")
    folder = os.path.dirname(item.path)
    copy = os.path.join(folder, f".{os.path.basename(item.path)}.{secrets.token_hex(4)}.tmp")
    try:
        shutil.copyfile(kept, copy)
        if sha256_file(copy) != digest:
            raise OSError(
                errno.ENOTSUP,
                "cannot restore: the original bytes no longer exist (the kept file differs)",
            )
        os.utime(copy, ns=(intent["mtime_ns"], intent["mtime_ns"]))
        _fsync_file(copy)
        os.replace(copy, item.path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(copy)
    return "restored as a copy of the kept file (same SHA-256)"


_RESTORERS = {
    "trash": _restore_trashed,
    "move": _restore_moved,
    "hardlink": _restore_linked,
    "symlink": _restore_linked,
}


def _undo_one(item: FileEntryLog) -> UndoOutcome:
    restore = _RESTORERS.get(item.op)
    if restore is None:
        return UndoOutcome(item.path, "failed", "permanently deleted files cannot be restored")
    try:
        note = restore(item)
    except _UnchangedError:
        return UndoOutcome(item.path, "skipped", "not changed (the apply stopped before it)")
    except OSError as exc:
        # our own explanations carry no file name; system errors get the short stable reasons
        own = exc.filename is None and exc.strerror
        return UndoOutcome(item.path, "failed", exc.strerror if own else os_error_reason(exc))
    return UndoOutcome(item.path, "restored", note)


def undo(
    session_id: str | None = None,
    *,
    journal: Journal | None = None,
    progress: ProgressCallback = no_progress,
    cancel: threading.Event | None = None,
) -> UndoReport:
    """Undo one apply session (default: the newest with something left to undo).

    Each file is restored independently; problems are reported per file and the rest go on.
    Files restored by an earlier undo are left alone, so undo can be run again after a failure.
    """
    journal = journal or Journal()
    summary = journal.find(session_id)
    if summary is None:
        return UndoReport(session_id)
    items = summary.restorable
    outcomes: list[UndoOutcome] = []
    cancelled = False
    with journal.session("undo", of=summary.id) as log:
        for done, item in enumerate(items):
            if cancel is not None and cancel.is_set():
                outcomes.extend(UndoOutcome(i.path, "skipped", "cancelled") for i in items[done:])
                cancelled = True
                break
            progress(Progress(ACTING, done, len(items), item.path))
            log.write("restore-intent", of=summary.id, seq=item.seq, path=item.path)
            outcome = _undo_one(item)
            record = "restored" if outcome.status in ("restored", "skipped") else "restore-failed"
            log.write(record, of=summary.id, seq=item.seq, path=item.path, reason=outcome.reason)
            outcomes.append(outcome)
        progress(Progress(ACTING, len(items), len(items)))
    return UndoReport(summary.id, tuple(outcomes), cancelled)


def iter_sessions(journal: Journal | None = None) -> Iterator[SessionSummary]:
    """Sessions newest first, for listing."""
    yield from reversed((journal or Journal()).sessions())
