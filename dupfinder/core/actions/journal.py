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
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from platformdirs import user_data_dir

from dupfinder.core.actions.fileops import FileStamp
from dupfinder.core.errors import JournalWriteError
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
    "SessionKind",
    "SessionStart",
    "SessionSummary",
    "default_journal_path",
]

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


def _encode(data: Mapping[str, Any]) -> str:
    """One JSON line; names that are not valid UTF-8 keep their bytes as \\udcXX escapes."""
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, ensure_ascii=True)
    return text + "\n"


class JournalSession:
    """One apply or undo run: every record it writes carries its session id.

    Every write is flushed and fsynced; a failure raises ``JournalWriteError`` and the caller
    must stop (a step that is not journalled could not be undone).
    """

    def __init__(self, journal: Journal, start: dict[str, Any]) -> None:
        self.id = f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        self.journal = journal
        try:
            journal.path.parent.mkdir(parents=True, exist_ok=True)
            self._out: TextIO = open(journal.path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise JournalWriteError(
                exc.errno, f"cannot open the journal: {os_error_reason(exc)}"
            ) from exc
        self.write(RecordType.SESSION, version=JOURNAL_VERSION, **start)

    def write(self, record_type: RecordType, *, durable: bool = True, **data: Any) -> None:
        """Append one line; ``durable`` fsyncs it, so it survives a crash right after.

        Only what must be on disk before a step runs (the session, each intent) pays for an
        fsync; an outcome lost in a crash reads as "interrupted", and undo then looks at the
        disk, so outcomes are only flushed (the next intent's fsync carries them).
        """
        line = _encode({"type": str(record_type), "session": self.id, "time": _now(), **data})
        try:
            self._out.write(line)
            self._out.flush()
            if durable:
                os.fsync(self._out.fileno())
        except OSError as exc:
            raise JournalWriteError(
                exc.errno, f"cannot write the journal: {os_error_reason(exc)}"
            ) from exc

    def intent(self, intent: Intent) -> None:
        self.write(RecordType.INTENT, **intent.fields())

    def outcome(self, state: FileState, seq: int, op: ActionKind, path: str, **data: Any) -> None:
        values = {k: v for k, v in data.items() if v is not None}
        self.write(RecordType(str(state)), durable=False, seq=seq, op=str(op), path=path, **values)

    def close(self, **summary: Any) -> None:
        """Write the end record if the journal still takes it; never raises."""
        if self._out.closed:
            return
        try:
            self.write(RecordType.END, **summary)
        except JournalWriteError:
            pass  # the end record is a courtesy: readers treat a missing one as interrupted
        finally:
            with contextlib.suppress(OSError):
                self._out.close()

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


class Journal:
    """The JSON-lines journal at ``path`` (default: the user data directory)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_journal_path()
        #: damaged lines met by the last read, as "line N: reason"
        self.problems: list[str] = []

    def session(self, kind: SessionKind, **info: Any) -> JournalSession:
        return JournalSession(self, {"kind": str(kind), **info})

    def records(self) -> list[Record]:
        """Every readable record; a damaged line is skipped and noted in ``problems``."""
        self.problems = []
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        records: list[Record] = []
        for number, line in enumerate(data.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(parse_record(json.loads(line.decode("utf-8", "surrogateescape"))))
            except (ValueError, RecursionError) as exc:
                reason = "cut short" if isinstance(exc, json.JSONDecodeError) else str(exc)
                self.problems.append(f"line {number}: {reason}; skipped")
        return records

    def sessions(self) -> list[SessionSummary]:
        """Sessions in the order they were written, each with the fate of its files."""
        records = self.records()
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

    def applies(self) -> list[SessionSummary]:
        return [s for s in self.sessions() if s.kind is SessionKind.APPLY]

    def find(self, session_id: str | None = None) -> SessionSummary | None:
        """A given apply session, or the last one (whatever is left to undo in it)."""
        applies = self.applies()
        if session_id is not None:
            return next((s for s in applies if s.id == session_id), None)
        return applies[-1] if applies else None
