"""The action journal: typed records in an append-only JSON-lines file.

Every file operation is written *before* it runs (an ``intent``) and again *after* (``done``,
``failed`` or ``skipped``), each line flushed and fsynced. A crash mid-apply therefore leaves
a journal that says exactly which files were touched: a file with an intent and no outcome
is "interrupted", and undo inspects the disk to find out whether its operation happened.

Schema (``JOURNAL_VERSION``, written in each session record): one JSON object per line with
``type`` (``RecordType``), ``session`` and ``time``; the other keys belong to the record
classes below. Version 1 journals (no ``version`` key) read the same way; bump the version
when a key changes meaning, and keep reading the old one. File names that are not valid
UTF-8 are written as ``\\udcXX`` escapes and read back to the same bytes. A line that is cut
short or damaged (a key missing, a wrong type) is skipped with a message in
``Journal.problems``; the rest of the journal stays usable.

The history only grows, so nothing reads all of it to act: an index beside the journal
(``journal_index``) says where each session's records are, and apply, undo and the listing
read only the sessions they touch. Journals written before the index are indexed once, by
the first run that reads them. An intent for a move also names the folders the move is
about to make (``made_dirs``), so that undo removes them again when they are left empty.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import errno
import json
import logging
import os
import secrets
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from platformdirs import user_data_dir

from dupfinder.core.actions.fileops import FileStamp
from dupfinder.core.actions.folders import pread
from dupfinder.core.actions.journal_index import (
    Entry,
    NotRegular,
    SessionIndex,
    Tally,
    open_regular,
    read_lines,
)
from dupfinder.core.actions.putback import missing_folders
from dupfinder.core.errors import JournalReadError, JournalWriteError
from dupfinder.core.model import ActionKind
from dupfinder.core.wording import os_error_reason

__all__ = [
    "JOURNAL_VERSION",
    "FileLog",
    "FileState",
    "Intent",
    "Journal",
    "JournalSession",
    "OutcomeRecord",
    "RecordType",
    "Restore",
    "SessionEnd",
    "SessionInfo",
    "SessionKind",
    "SessionStart",
    "SessionSummary",
    "default_journal_path",
    "summarize",
]

_log = logging.getLogger(__name__)

JOURNAL_NAME = "journal.jsonl"
JOURNAL_VERSION = 2


class RecordType(enum.StrEnum):
    SESSION = "session"
    INTENT = "intent"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    END = "end"
    RESTORE_INTENT = "restore-intent"
    RESTORED = "restored"
    RESTORE_FAILED = "restore-failed"


class SessionKind(enum.StrEnum):
    APPLY = "apply"
    UNDO = "undo"


class FileState(enum.StrEnum):
    """The fate of one file of an apply session, as the journal tells it."""

    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    INTERRUPTED = "interrupted"  # an intent and no outcome: the run stopped right there


def default_journal_path() -> Path:
    """The journal in the user data directory (kept when the cache is cleared)."""
    return Path(user_data_dir("dupfinder", appauthor=False)) / JOURNAL_NAME


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


class _Damaged(ValueError):
    """A record that cannot be trusted; it is skipped with this reason."""


def _get(
    raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any = ...
) -> Any:
    value = raw.get(key)
    if value is None:
        if default is ...:
            raise _Damaged(f"{key} is missing")
        return default
    if isinstance(value, bool) and kind is not bool:
        raise _Damaged(f"{key} is not {getattr(kind, '__name__', kind)}")
    if not isinstance(value, kind):
        raise _Damaged(f"{key} is {type(value).__name__}, not {getattr(kind, '__name__', kind)}")
    return value


def _path(raw: Mapping[str, Any], key: str, default: Any = ...) -> Any:
    value = _get(raw, key, str, default)
    if value is not None and value is not default and (not value or "\0" in value):
        raise _Damaged(f"{key} is not a file path")
    return value


def _paths(raw: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = _get(raw, key, list, None)
    if value is None:
        return None
    if not all(isinstance(p, str) and p and "\0" not in p for p in value):
        raise _Damaged(f"{key} is not a list of file paths")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class SessionStart:
    session: str
    time: str
    kind: SessionKind
    action: str | None = None
    files: int = 0
    force_all: bool = False
    version: int = JOURNAL_VERSION
    of: str | None = None  # an undo: the apply session it undoes

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> SessionStart:
        try:
            kind = SessionKind(_get(raw, "kind", str, "apply"))
        except ValueError as exc:
            raise _Damaged(str(exc)) from None
        return cls(
            session=raw["session"],
            time=_get(raw, "time", str, ""),
            kind=kind,
            action=_get(raw, "action", str, None),
            files=_get(raw, "files", int, 0),
            force_all=_get(raw, "force_all", bool, False),
            version=_get(raw, "version", int, 1),
            of=_get(raw, "of", str, None),
        )


@dataclass(frozen=True, slots=True)
class Intent:
    """Written before a file is touched: what it was, and every name the step will use."""

    session: str
    time: str
    seq: int
    op: ActionKind
    path: str
    stamp: FileStamp
    group: int = 0
    dest: str | None = None  # a move: the name reserved for it
    tmp: str | None = None  # a temporary name this step may leave behind if killed
    kept: str | None = None  # a link: the kept file it points to
    kept_ino: int | None = None
    sha256: str | None = None  # a link: the replaced file's content, for undo
    identical: bool | None = None  # a link: the bytes equal the kept file's
    trash_files: str | None = None  # the trash entry reserved for it (or its original)
    trash_info: str | None = None
    #: the content digest proven right before acting (``fingerprints.digest``, hex): undo puts
    #: back only a file that still holds these bytes
    digest: str | None = None
    #: the folder holding the file, (device, inode): undo restores only into that very folder
    parent_dev: int | None = None
    parent_ino: int | None = None
    #: a delete or link: the private name in the same folder that holds the original while
    #: the step runs (a killed run leaves the file there; the next run gives its name back)
    claim: str | None = None
    #: a move: the folders it makes above its destination (undo removes them when empty)
    made_dirs: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Intent:
        try:
            op = ActionKind(_get(raw, "op", str))
        except ValueError as exc:
            raise _Damaged(str(exc)) from None
        size, mtime_ns = _get(raw, "size", int), _get(raw, "mtime_ns", int)
        stamp = FileStamp(
            dev=_get(raw, "dev", int),
            ino=_get(raw, "ino", int),
            size=size,
            mtime_ns=mtime_ns,
            ctime_ns=_get(raw, "ctime_ns", int, 0),
            mode=_get(raw, "mode", int, 0),
            uid=_get(raw, "uid", int, -1),
            gid=_get(raw, "gid", int, -1),
            atime_ns=_get(raw, "atime_ns", int, mtime_ns),
            links=_get(raw, "links", int, 1),
        )
        return cls(
            session=raw["session"],
            time=_get(raw, "time", str, ""),
            seq=_get(raw, "seq", int),
            op=op,
            path=_path(raw, "path"),
            stamp=stamp,
            group=_get(raw, "group", int, 0),
            dest=_path(raw, "dest", None),
            tmp=_path(raw, "tmp", None),
            kept=_path(raw, "kept", None),
            kept_ino=_get(raw, "kept_ino", int, None),
            sha256=_get(raw, "sha256", str, None),
            identical=_get(raw, "identical", bool, None),
            trash_files=_path(raw, "trash_files", None),
            trash_info=_path(raw, "trash_info", None),
            digest=_get(raw, "digest", str, None),
            parent_dev=_get(raw, "parent_dev", int, None),
            parent_ino=_get(raw, "parent_ino", int, None),
            claim=_path(raw, "claim", None),
            made_dirs=_paths(raw, "made_dirs"),
        )

    def fields(self) -> dict[str, Any]:
        stamp = self.stamp
        data: dict[str, Any] = {
            "seq": self.seq,
            "op": str(self.op),
            "path": self.path,
            "group": self.group,
            "dev": stamp.dev,
            "ino": stamp.ino,
            "size": stamp.size,
            "mtime_ns": stamp.mtime_ns,
            "ctime_ns": stamp.ctime_ns,
            "mode": stamp.mode,
            "uid": stamp.uid,
            "gid": stamp.gid,
            "atime_ns": stamp.atime_ns,
            "links": stamp.links,
        }
        for name in (
            "dest",
            "tmp",
            "kept",
            "kept_ino",
            "sha256",
            "identical",
            "trash_files",
            "trash_info",
            "digest",
            "parent_dev",
            "parent_ino",
            "claim",
        ):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        if self.made_dirs is not None:
            data["made_dirs"] = list(self.made_dirs)
        return data


@dataclass(frozen=True, slots=True)
class OutcomeRecord:
    """Written after a file's step (or instead of an intent, when it was skipped at once)."""

    session: str
    time: str
    seq: int
    state: FileState
    path: str
    op: ActionKind | None = None
    reason: str | None = None
    dest: str | None = None
    trash_entry: str | None = None  # where the file (or the original a link replaced) went
    #: a move: the (device, inode) found at the destination right after it (a move across
    #: file systems is a copy, with an identity of its own)
    dest_dev: int | None = None
    dest_ino: int | None = None

    @property
    def dest_identity(self) -> tuple[int, int] | None:
        if self.dest_dev is None or self.dest_ino is None:
            return None
        return self.dest_dev, self.dest_ino

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> OutcomeRecord:
        op_text = _get(raw, "op", str, None)
        try:
            op = ActionKind(op_text) if op_text else None
        except ValueError as exc:
            raise _Damaged(str(exc)) from None
        return cls(
            session=raw["session"],
            time=_get(raw, "time", str, ""),
            seq=_get(raw, "seq", int),
            state=FileState(raw["type"]),
            path=_path(raw, "path"),
            op=op,
            reason=_get(raw, "reason", str, None),
            dest=_path(raw, "dest", None),
            trash_entry=_path(raw, "trash_entry", None),
            dest_dev=_get(raw, "dest_dev", int, None),
            dest_ino=_get(raw, "dest_ino", int, None),
        )


@dataclass(frozen=True, slots=True)
class SessionEnd:
    session: str
    time: str
    cancelled: bool = False
    interrupted: bool = False
    stopped: str | None = None  # why the run stopped early (e.g. the journal could not be written)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> SessionEnd:
        return cls(
            session=raw["session"],
            time=_get(raw, "time", str, ""),
            cancelled=_get(raw, "cancelled", bool, False),
            interrupted=_get(raw, "interrupted", bool, False),
            stopped=_get(raw, "stopped", str, None),
        )


@dataclass(frozen=True, slots=True)
class Restore:
    """An undo's step on one file of an earlier apply session (``of``, ``seq``)."""

    session: str
    time: str
    type: RecordType
    of: str
    seq: int
    path: str
    reason: str | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Restore:
        return cls(
            session=raw["session"],
            time=_get(raw, "time", str, ""),
            type=RecordType(raw["type"]),
            of=_get(raw, "of", str),
            seq=_get(raw, "seq", int),
            path=_path(raw, "path"),
            reason=_get(raw, "reason", str, None),
        )


Record = SessionStart | Intent | OutcomeRecord | SessionEnd | Restore

_PARSERS: dict[RecordType, Any] = {
    RecordType.SESSION: SessionStart.parse,
    RecordType.INTENT: Intent.parse,
    RecordType.DONE: OutcomeRecord.parse,
    RecordType.FAILED: OutcomeRecord.parse,
    RecordType.SKIPPED: OutcomeRecord.parse,
    RecordType.END: SessionEnd.parse,
    RecordType.RESTORE_INTENT: Restore.parse,
    RecordType.RESTORED: Restore.parse,
    RecordType.RESTORE_FAILED: Restore.parse,
}


def parse_record(raw: Any) -> Record:
    """One typed record from one decoded line; raises ValueError saying what is wrong."""
    if not isinstance(raw, dict):
        raise _Damaged("not an object")
    try:
        kind = RecordType(_get(raw, "type", str))
    except ValueError as exc:
        raise _Damaged(str(exc)) from None
    _get(raw, "session", str)
    record: Record = _PARSERS[kind](raw)
    return record


def _encode(data: Mapping[str, Any]) -> bytes:
    """One JSON line; names that are not valid UTF-8 keep their bytes as \\udcXX escapes."""
    text = json.dumps(data, ensure_ascii=False)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(data, ensure_ascii=True) + "\n").encode("ascii")


def _decode(line: bytes) -> Any:
    return json.loads(line.decode("utf-8", "surrogateescape"))


def _cannot(what: str, path: Path, exc: OSError) -> str:
    if isinstance(exc, NotRegular):
        return str(exc.strerror)
    return f"cannot {what} the journal {path}: {os_error_reason(exc)}"


class JournalSession:
    """One apply or undo run: every record it writes carries its session id.

    Every write is flushed (and fsynced when durable); a failure raises ``JournalWriteError``
    and the caller must stop (a step that is not journalled could not be undone). The index
    beside the journal learns where the session starts and, at ``close``, where it ends and
    what it adds up to.
    """

    def __init__(self, journal: Journal, start: dict[str, Any]) -> None:
        self.id = f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        self.journal = journal
        self._tally = Tally()
        try:
            journal.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd: int | None = open_regular(journal.path, write=True)
        except OSError as exc:
            raise JournalWriteError(exc.errno, _cannot("open", journal.path, exc)) from exc
        try:
            self._offset = journal.prepare_index(self._fd)
            data = {"version": JOURNAL_VERSION, **start}
            self.write(RecordType.SESSION, **data)
        except BaseException:
            self._release()
            raise
        journal.index.started({"session": self.id, **data}, self._at)

    def write(self, record_type: RecordType, *, durable: bool = True, **data: Any) -> None:
        """Append one line; ``durable`` fsyncs it, so it survives a crash right after.

        Only what must be on disk before a step runs (the session, each intent) pays for an
        fsync; an outcome lost in a crash reads as "interrupted", and undo then looks at the
        disk, so outcomes are only flushed (the next intent's fsync carries them).
        """
        if self._fd is None:
            raise JournalWriteError(errno.EBADF, "cannot write the journal: it is closed")
        line = _encode({"type": str(record_type), "session": self.id, "time": _now(), **data})
        try:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(errno.ENOSPC, "the line was written only in part")
            if durable:
                os.fsync(self._fd)
        except OSError as exc:
            raise JournalWriteError(exc.errno, _cannot("write", self.journal.path, exc)) from exc
        self._at = self._offset
        self._offset += len(line)
        self._tally.see(str(record_type), data)

    def intent(self, intent: Intent) -> None:
        if intent.op is ActionKind.MOVE and intent.dest and intent.made_dirs is None:
            # the folders the move is about to make: undo removes them again when empty
            intent = dataclasses.replace(intent, made_dirs=missing_folders(intent.dest))
        self.write(RecordType.INTENT, **intent.fields())

    def outcome(self, state: FileState, seq: int, op: ActionKind, path: str, **data: Any) -> None:
        values = {k: v for k, v in data.items() if v is not None}
        dest = values.get("dest")
        if op is ActionKind.MOVE and state is FileState.DONE and dest and "dest_ino" not in values:
            # the file as it arrived: undo moves back that very file (a copy across devices too)
            with contextlib.suppress(OSError):
                arrived = os.lstat(dest)
                values.update(dest_dev=arrived.st_dev, dest_ino=arrived.st_ino)
        self.write(RecordType(str(state)), durable=False, seq=seq, op=str(op), path=path, **values)

    def close(self, **summary: Any) -> None:
        """Write the end record if the journal still takes it; never raises."""
        if self._fd is None:
            return
        try:
            self.write(RecordType.END, **summary)
        except JournalWriteError:
            pass  # the end record is a courtesy: readers treat a missing one as interrupted
        else:
            self.journal.index.ended(self.id, self._offset, self._tally)
        finally:
            self._release()

    def _release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def __enter__(self) -> JournalSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(interrupted=exc[0] is not None)


@dataclass(frozen=True, slots=True)
class FileLog:
    """What the journal says about one file of an apply session."""

    seq: int
    op: ActionKind
    path: str
    state: FileState
    intent: Intent | None
    outcome: OutcomeRecord | None
    restored: bool = False

    @property
    def reason(self) -> str | None:
        return None if self.outcome is None else self.outcome.reason

    @property
    def restorable(self) -> bool:
        """Touched (or maybe touched), not yet put back, and not permanently deleted."""
        return (
            self.intent is not None
            and self.state in (FileState.DONE, FileState.INTERRUPTED)
            and not self.restored
            and self.op is not ActionKind.DELETE
        )


@dataclass(frozen=True, slots=True)
class SessionSummary:
    id: str
    kind: SessionKind
    time: str
    action: str | None
    files: tuple[FileLog, ...] = field(default=())
    ended: bool = False
    undone_by: tuple[str, ...] = ()

    def count(self, state: FileState | str) -> int:
        return sum(1 for f in self.files if f.state == state)

    @property
    def restorable(self) -> tuple[FileLog, ...]:
        return tuple(f for f in self.files if f.restorable)

    @property
    def deleted(self) -> int:
        """Files this session deleted permanently (nothing can bring them back)."""
        return sum(
            1
            for f in self.files
            if f.op is ActionKind.DELETE and f.state in (FileState.DONE, FileState.INTERRUPTED)
        )

    def describe(self) -> str:
        """One line for people: when, what, how many."""
        done = self.count(FileState.DONE)
        what = self.action or str(self.kind)
        return f"{what} of {done} file{'s' * (done != 1)} on {self.time.replace('T', ' ')[:19]}"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One session as the listing shows it, from the index (its records are not read)."""

    id: str
    kind: SessionKind
    time: str
    action: str | None
    counts: Mapping[str, int]
    #: an apply whose every undoable file was put back by later undos
    undone: bool = False
    undone_by: tuple[str, ...] = ()

    def count(self, state: FileState | str) -> int:
        return self.counts.get(str(state), 0)

    def describe(self) -> str:
        """One line for people: when, what, how many."""
        done = self.count(FileState.DONE)
        what = self.action or str(self.kind)
        return f"{what} of {done} file{'s' * (done != 1)} on {self.time.replace('T', ' ')[:19]}"


def summarize(records: list[Record]) -> list[SessionSummary]:
    """Sessions in the order they were written, each with the fate of its files."""
    order: list[str] = []
    heads: dict[str, SessionStart] = {}
    intents: dict[str, dict[int, Intent]] = {}
    outcomes: dict[str, dict[int, OutcomeRecord]] = {}
    restored: set[tuple[str, int]] = set()
    undone_by: dict[str, list[str]] = {}
    ended: set[str] = set()
    for r in records:
        if r.session not in heads and r.session not in intents and not isinstance(r, Restore):
            order.append(r.session)
        if isinstance(r, SessionStart):
            heads[r.session] = r
            if r.kind is SessionKind.UNDO and r.of:
                undone_by.setdefault(r.of, []).append(r.session)
            intents.setdefault(r.session, {})
        elif isinstance(r, SessionEnd):
            ended.add(r.session)
        elif isinstance(r, Intent):
            intents.setdefault(r.session, {})[r.seq] = r
        elif isinstance(r, OutcomeRecord):
            intents.setdefault(r.session, {})
            outcomes.setdefault(r.session, {})[r.seq] = r
        elif r.type is RecordType.RESTORED:
            restored.add((r.of, r.seq))
    result = []
    for sid in dict.fromkeys(order):
        head = heads.get(sid)
        files = []
        session_outcomes = outcomes.get(sid, {})
        for seq in sorted(set(intents.get(sid, {})) | set(session_outcomes)):
            intent = intents.get(sid, {}).get(seq)
            outcome = session_outcomes.get(seq)
            op = intent.op if intent else (outcome.op if outcome and outcome.op else None)
            if op is None:
                continue
            files.append(
                FileLog(
                    seq=seq,
                    op=op,
                    path=intent.path if intent else outcome.path,  # type: ignore[union-attr]
                    state=FileState.INTERRUPTED if outcome is None else outcome.state,
                    intent=intent,
                    outcome=outcome,
                    restored=(sid, seq) in restored,
                )
            )
        result.append(
            SessionSummary(
                id=sid,
                kind=head.kind if head else SessionKind.APPLY,
                time=head.time if head else "",
                action=head.action if head else None,
                files=tuple(files),
                ended=sid in ended,
                undone_by=tuple(undone_by.get(sid, ())),
            )
        )
    return result


class Journal:
    """The JSON-lines journal at ``path`` (default: the user data directory) and its index.

    ``find``, ``unfinished`` and ``listing`` read the index and the byte ranges of the
    sessions they need; ``records``, ``sessions`` and ``applies`` read everything (for
    tools and tests). Reading raises ``JournalReadError`` when the journal cannot be read
    or is not a regular file; a journal that does not exist yet is an empty one.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_journal_path()
        self.index = SessionIndex(self.path, self._checked_line)
        #: damaged lines met by the last read, as "line at byte N: reason"
        self.problems: list[str] = []
        self._parsed = 0

    @property
    def index_path(self) -> Path:
        return self.index.path

    @property
    def records_read(self) -> int:
        """Journal lines this object has parsed so far (the cost of what it was asked)."""
        return self._parsed + self.index.lines_read

    def session(self, kind: SessionKind, **info: Any) -> JournalSession:
        return JournalSession(self, {"kind": str(kind), **info})

    # --- reading ------------------------------------------------------------------------

    @contextlib.contextmanager
    def _reading(self) -> Iterator[int | None]:
        """The journal open for reading, or None when there is none yet."""
        try:
            fd = open_regular(self.path)
        except FileNotFoundError:
            yield None
            return
        except OSError as exc:
            raise JournalReadError(exc.errno, _cannot("read", self.path, exc)) from exc
        try:
            yield fd
        except OSError as exc:
            if isinstance(exc, JournalWriteError | JournalReadError):
                raise
            raise JournalReadError(exc.errno, _cannot("read", self.path, exc)) from exc
        finally:
            os.close(fd)

    def prepare_index(self, write_fd: int) -> int:
        """Before a session is written: end the journal with a newline (a line a crash cut
        short must not swallow the next record), catch the index up; returns the size."""
        size = os.fstat(write_fd).st_size
        try:
            read_fd = open_regular(self.path)
        except OSError as exc:
            _log.warning("journal %s unreadable (%s); not indexed", self.path, exc)
            return size
        try:
            if size and pread(read_fd, 1, size - 1) != b"\n":
                os.write(write_fd, b"\n")
                size += 1
            self.index.entries(read_fd)
        except OSError as exc:
            _log.warning("journal %s not indexed (%s)", self.path, exc)
        finally:
            os.close(read_fd)
        return size

    def _checked_line(self, offset: int, line: bytes) -> Any:
        """A line read to index the journal: its data, or None (and a problem) when damaged."""
        try:
            raw = _decode(line)
            parse_record(raw)
        except (ValueError, RecursionError) as exc:
            reason = "cut short" if isinstance(exc, json.JSONDecodeError) else str(exc)
            self.problems.append(f"line at byte {offset}: {reason}; skipped")
            return None
        return raw

    def _parse(self, lines: Iterable[tuple[int, bytes]], sessions: set[str] | None) -> list[Record]:
        records: list[Record] = []
        for offset, line in lines:
            if not line.strip():
                continue
            self._parsed += 1
            try:
                record = parse_record(_decode(line))
            except (ValueError, RecursionError) as exc:
                reason = "cut short" if isinstance(exc, json.JSONDecodeError) else str(exc)
                self.problems.append(f"line at byte {offset}: {reason}; skipped")
                continue
            if sessions is None or record.session in sessions:
                records.append(record)
        return records

    def records(self) -> list[Record]:
        """Every readable record; a damaged line is skipped and noted in ``problems``."""
        self.problems = []
        with self._reading() as fd:
            return [] if fd is None else self._parse(read_lines(fd), None)

    def sessions(self) -> list[SessionSummary]:
        """Every session in the order written (reads the whole journal)."""
        return summarize(self.records())

    def applies(self) -> list[SessionSummary]:
        return [s for s in self.sessions() if s.kind is SessionKind.APPLY]

    def _entries(self, fd: int) -> dict[str, Entry]:
        return self.index.entries(fd)

    def _slices(self, fd: int, entries: dict[str, Entry], chosen: list[Entry]) -> list[Record]:
        """The records of the chosen sessions, read from their byte ranges only."""
        starts = sorted(e.at for e in entries.values())
        size = os.fstat(fd).st_size
        records: list[Record] = []
        for entry in chosen:
            stop = entry.stop
            if stop is None:
                stop = next((at for at in starts if at > entry.at), size)
            records += self._parse(read_lines(fd, entry.at, stop), {entry.session})
        return records

    def _checked(self, fd: int, chosen: list[Entry]) -> dict[str, Entry] | None:
        """None when an entry's offset does not hold its session (the index is stale)."""
        for entry in chosen:
            if not self.index.starts_at(fd, entry):
                return None
        return {}

    def _summaries(self, fd: int, targets: list[Entry]) -> list[SessionSummary]:
        """Apply sessions with what later undos restored of them."""
        for attempt in range(2):
            entries = self._entries(fd) if attempt == 0 else self.index.rebuild(fd)
            wanted = [entries[t.session] for t in targets if t.session in entries]
            undos = [e for e in entries.values() if e.kind == "undo" and e.of]
            chosen = wanted + [u for u in undos if u.of in {w.session for w in wanted}]
            if self._checked(fd, chosen) is not None:
                summaries = summarize(self._slices(fd, entries, chosen))
                ids = {w.session for w in wanted}
                return [s for s in summaries if s.id in ids]
        return []

    def find(self, session_id: str | None = None) -> SessionSummary | None:
        """A given apply session, or the last one (whatever is left to undo in it)."""
        self.problems = []
        with self._reading() as fd:
            if fd is None:
                return None
            applies = [e for e in self._entries(fd).values() if e.kind == "apply"]
            if session_id is not None:
                applies = [e for e in applies if e.session == session_id]
            if not applies:
                return None
            found = self._summaries(fd, applies[-1:])
            return found[0] if found else None

    def unfinished(self) -> list[SessionSummary]:
        """Apply sessions that may have left something behind (a file with an intent and no
        outcome) and were not cleared since (``mark_cleared``)."""
        self.problems = []
        with self._reading() as fd:
            if fd is None:
                return []
            entries = self._entries(fd)
            targets = [
                e for e in entries.values() if e.kind == "apply" and e.interrupted and not e.cleared
            ]
            return self._summaries(fd, targets) if targets else []

    def mark_cleared(self, session_id: str) -> None:
        """What a killed apply left behind was cleared: ``unfinished`` no longer lists it."""
        self.index.cleared(session_id)

    def listing(self) -> list[SessionInfo]:
        """Every session in the order written, from the index; only a session the index has
        no counts for (a run still going, or killed last) is read."""
        self.problems = []
        with self._reading() as fd:
            if fd is None:
                return []
            entries = self._entries(fd)
            known = {sid: e for sid, e in entries.items() if e.counts is not None}
            last = next(reversed(entries), None)
            for sid, entry in entries.items():
                if entry.counts is None:
                    known[sid] = self._counted(fd, entries, entry, remember=sid != last)
        restored: dict[str, int] = {}
        undone_by: dict[str, list[str]] = {}
        for entry in known.values():
            if entry.kind == "undo" and entry.of:
                restored[entry.of] = restored.get(entry.of, 0) + entry.restored
                undone_by.setdefault(entry.of, []).append(entry.session)
        return [
            SessionInfo(
                id=e.session,
                kind=SessionKind(e.kind) if e.kind in ("apply", "undo") else SessionKind.APPLY,
                time=e.time,
                action=e.action,
                counts=e.counts or {},
                undone=bool(undone_by.get(e.session)) and restored.get(e.session, 0) >= e.undoable,
                undone_by=tuple(undone_by.get(e.session, ())),
            )
            for e in (known[sid] for sid in entries)
        ]

    def _counted(
        self, fd: int, entries: dict[str, Entry], entry: Entry, *, remember: bool
    ) -> Entry:
        """``entry`` with counts read from its records; ``remember``: a run that another one
        followed (so it is over): the index keeps its counts, and it is not read again."""
        tally = Tally()
        for record in self._slices(fd, entries, [entry]):
            data: dict[str, Any] = {}
            if isinstance(record, Intent | OutcomeRecord):
                data = {"seq": record.seq, "op": str(record.op) if record.op else ""}
            kind = record.type if isinstance(record, Restore) else _record_type(record)
            tally.see(str(kind), data)
        finished = tally.finished()
        if remember:
            stop = min((e.at for e in entries.values() if e.at > entry.at), default=None)
            if stop is not None:
                self.index.ended(entry.session, stop, tally)
        return dataclasses.replace(
            entry,
            counts=finished["counts"],
            undoable=finished["undoable"],
            restored=finished["restored"],
        )


def _record_type(record: Record) -> RecordType:
    if isinstance(record, SessionStart):
        return RecordType.SESSION
    if isinstance(record, Intent):
        return RecordType.INTENT
    if isinstance(record, OutcomeRecord):
        return RecordType(str(record.state))
    if isinstance(record, SessionEnd):
        return RecordType.END
    return record.type
