"""The journal's index: where each session's records start and end, and what they add up to.

The journal is one append-only file of every apply and undo ever made; reading all of it for
a one-file apply cost seconds and hundreds of megabytes once the history was long. Beside
it (``journal.jsonl.index``) one JSON line per event says where a session starts (byte
offset), where it ends and its counts, and when a killed run's leftovers were cleared. Apply,
undo and the listing read the index and then only the byte ranges of the sessions they
touch. The journal stays the truth: the index is checked against it (the journal's device
and inode in its first line, a session record at each offset used), caught up from the
journal's end when another program appended to it, and rebuilt from the journal in one pass
when it is missing, damaged or belongs to another journal. Files that are not regular files
(a FIFO, a device, a folder) are refused before anything is read from them, and no line is
read past ``MAX_LINE`` bytes.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dupfinder.core.actions.folders import BINARY, CLOEXEC, NONBLOCK, pread

__all__ = [
    "INDEX_VERSION",
    "MAX_LINE",
    "Entry",
    "NotRegular",
    "SessionIndex",
    "Tally",
    "open_regular",
    "read_lines",
]

_log = logging.getLogger(__name__)

INDEX_VERSION = 1
#: Longest journal line read; a longer one is damage, skipped like any damaged line.
MAX_LINE = 1 << 20
_CHUNK = 1 << 16

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFDIR: "a folder",
    stat.S_IFSOCK: "a socket",
}


class NotRegular(OSError):
    """The path names something that is not a regular file."""


def open_regular(path: Path, *, write: bool = False) -> int:
    """Open ``path`` (to append when ``write``) without ever blocking, and only when it is a
    regular file; raises ``NotRegular`` (a FIFO, a device, a folder) or the OSError met."""
    flags = CLOEXEC | NONBLOCK | BINARY
    flags |= os.O_WRONLY | os.O_APPEND | os.O_CREAT if write else os.O_RDONLY
    try:
        fd = os.open(path, flags, 0o600)
    except IsADirectoryError:
        raise NotRegular(errno.EISDIR, f"{path} is not a regular file (a folder)") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO with no reader, opened to write
            raise NotRegular(errno.ENXIO, f"{path} is not a regular file (a FIFO)") from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        what = _KINDS.get(stat.S_IFMT(st.st_mode), "not a file")
        raise NotRegular(errno.EINVAL, f"{path} is not a regular file ({what})")
    return fd


def read_lines(fd: int, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(offset, line) for every whole line from ``start`` up to ``stop`` (or the end); a
    line longer than MAX_LINE comes as ``b"\\0"`` (damaged); a last line cut short without
    its newline comes as it is."""
    offset = start
    buffer = b""
    skipping = False
    while stop is None or offset + len(buffer) < stop:
        want = _CHUNK if stop is None else min(_CHUNK, stop - offset - len(buffer))
        chunk = pread(fd, want, offset + len(buffer))
        if not chunk:
            break
        buffer += chunk
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                break
            line, buffer = buffer[:end], buffer[end + 1 :]
            if skipping:
                skipping = False
            else:
                yield offset, line
            offset += end + 1
        if len(buffer) > MAX_LINE:
            if not skipping:
                yield offset, b"\0"
            skipping = True
            offset += len(buffer)
            buffer = b""
    if buffer and not skipping:
        yield offset, buffer


@dataclass(slots=True)
class Tally:
    """What one session's records add up to, counted as they are written or read."""

    counts: dict[str, int] = field(default_factory=dict)
    open_intents: dict[int, str] = field(default_factory=dict)  # seq: op, no outcome yet
    undoable: int = 0  # done (or interrupted) and not permanently deleted
    restored: int = 0  # an undo: files it put back

    def see(self, kind: str, data: dict[str, Any]) -> None:
        seq = data.get("seq")
        if kind == "intent" and isinstance(seq, int):
            self.open_intents[seq] = str(data.get("op", ""))
        elif kind in ("done", "failed", "skipped") and isinstance(seq, int):
            op = self.open_intents.pop(seq, None) or str(data.get("op", ""))
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if kind == "done" and op != "delete":
                self.undoable += 1
        elif kind == "restored":
            self.restored += 1

    def finished(self) -> dict[str, Any]:
        """The end line's fields: counts with the interrupted files, what undo may restore."""
        counts = dict(self.counts)
        if self.open_intents:
            counts["interrupted"] = len(self.open_intents)
        open_undoable = sum(1 for op in self.open_intents.values() if op != "delete")
        return {
            "counts": counts,
            "undoable": self.undoable + open_undoable,
            "restored": self.restored,
        }


@dataclass(frozen=True, slots=True)
class Entry:
    """One session as the index knows it."""

    session: str
    kind: str
    time: str = ""
    action: str | None = None
    of: str | None = None  # an undo: the apply session it undoes
    at: int = 0  # byte offset of its session record
    stop: int | None = None  # byte offset after its end record; None: no end record
    counts: dict[str, int] | None = None  # per state; None: not known without reading it
    undoable: int = 0
    restored: int = 0
    cleared: bool = False  # a killed apply whose leftovers were cleared

    @property
    def interrupted(self) -> bool:
        return self.counts is None or bool(self.counts.get("interrupted"))


def _decode(line: bytes) -> Any:
    return json.loads(line.decode("utf-8", "surrogateescape"))


def _decode_line(offset: int, line: bytes) -> Any:
    try:
        return _decode(line)
    except ValueError:
        return None


def _start_fields(data: dict[str, Any], at: int) -> dict[str, Any]:
    return {
        "s": data["session"],
        "at": at,
        "kind": str(data.get("kind") or "apply"),
        "time": str(data.get("time") or ""),
        "action": data.get("action") if isinstance(data.get("action"), str) else None,
        "of": data.get("of") if isinstance(data.get("of"), str) else None,
    }


def _merge(entries: dict[str, Entry], line: dict[str, Any]) -> None:
    """Apply one index line to the entries (a start, an end or a clear)."""
    sid = line.get("s")
    if not isinstance(sid, str):
        raise ValueError("no session")
    if "at" in line:
        old = entries.get(sid)
        entry = Entry(
            sid,
            str(line["kind"]),
            str(line.get("time") or ""),
            line.get("action"),
            line.get("of"),
            int(line["at"]),
        )
        if old is not None and old.at == entry.at:
            entry = replace(old, kind=entry.kind, time=entry.time, action=entry.action)
        entries[sid] = entry
        return
    known = entries.get(sid)
    if known is None:
        raise ValueError(f"an end or clear for a session never started: {sid}")
    if "stop" in line:
        counts = line.get("counts")
        if not isinstance(counts, dict):
            raise ValueError("counts")
        entries[sid] = replace(
            known,
            stop=int(line["stop"]),
            counts={str(k): int(v) for k, v in counts.items()},
            undoable=int(line.get("undoable", 0)),
            restored=int(line.get("restored", 0)),
        )
    if line.get("cleared"):
        entries[sid] = replace(entries[sid], cleared=True)


class SessionIndex:
    """The index file of one journal; ``entries`` read, checked and caught up."""

    def __init__(self, journal: Path, decode: Callable[[int, bytes], Any] | None = None) -> None:
        self.journal = journal
        self.path = journal.with_name(journal.name + ".index")
        #: how a journal line read to index it is decoded (and checked): None skips it
        self.decode = decode or _decode_line
        #: journal lines parsed to build or catch up the index (for the cost to be seen)
        self.lines_read = 0

    # --- reading ------------------------------------------------------------------------

    def entries(self, fd: int) -> dict[str, Entry]:
        """Every session of the journal open at ``fd``, in the order written."""
        st = os.fstat(fd)
        identity = {"index": INDEX_VERSION, "dev": st.st_dev, "ino": st.st_ino}
        entries = self._read(identity)
        if entries is None or not self._plausible(fd, entries, st.st_size):
            return self.rebuild(fd)
        last = next(reversed(entries.values()), None)
        start = 0 if last is None else last.stop if last.stop is not None else last.at
        if start >= st.st_size:
            return entries
        return self._catch_up(fd, entries, start, st.st_size)

    def _read(self, identity: dict[str, int]) -> dict[str, Entry] | None:
        try:
            fd = open_regular(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            _log.warning("journal index %s unreadable (%s); reading the journal", self.path, exc)
            return None
        entries: dict[str, Entry] = {}
        try:
            lines = read_lines(fd)
            first = next(lines, None)
            if first is None or _decode(first[1]) != identity:
                return None
            for _, line in lines:
                with contextlib.suppress(ValueError):  # a torn last line
                    _merge(entries, _decode(line))
        except (ValueError, KeyError, TypeError, OSError):
            return None
        finally:
            os.close(fd)
        return entries

    def _plausible(self, fd: int, entries: dict[str, Entry], size: int) -> bool:
        """The index fits this journal: its last session record is where it says."""
        last = next(reversed(entries.values()), None)
        if last is None:
            return True
        if last.at >= size or (last.stop is not None and last.stop > size):
            return False
        return self.starts_at(fd, last)

    def starts_at(self, fd: int, entry: Entry) -> bool:
        """Whether the journal has ``entry``'s session record at its offset."""
        line = next(read_lines(fd, entry.at, entry.at + MAX_LINE), None)
        if line is None:
            return False
        try:
            data = _decode(line[1])
        except ValueError:
            return False
        return (
            isinstance(data, dict)
            and data.get("type") == "session"
            and (data.get("session") == entry.session)
        )

    def _catch_up(
        self, fd: int, entries: dict[str, Entry], start: int, size: int
    ) -> dict[str, Entry]:
        """Read the journal from ``start`` and index the sessions found there."""
        tallies: dict[str, Tally] = {}
        ends: dict[str, int] = {}
        order: list[str] = []
        for offset, line in read_lines(fd, start, size):
            if not line.strip():
                continue
            self.lines_read += 1
            data = self.decode(offset, line)
            try:
                kind, sid = data["type"], data["session"]
            except (KeyError, TypeError):
                continue
            if not isinstance(sid, str) or not isinstance(kind, str):
                continue
            if kind == "session":
                fields = _start_fields(data, offset)
                known = entries.get(sid)
                if known is None or known.at != offset:
                    self._append(fields)
                    _merge(entries, fields)
                tallies[sid] = Tally()
                order.append(sid)
            elif sid in tallies:
                tallies[sid].see(kind, data)
                if kind == "end":
                    ends[sid] = offset + len(line) + 1
        # a session is closed by its end record, or by the next session (runs take turns)
        for position, sid in enumerate(order):
            followed = position + 1 < len(order)
            if sid not in ends and not followed:
                continue  # maybe still running: read it whole when it is asked for
            stop = ends.get(sid, entries[order[position + 1]].at if followed else size)
            fields = {"s": sid, "stop": stop, **tallies[sid].finished()}
            self._append(fields)
            _merge(entries, fields)
        return entries

    def rebuild(self, fd: int) -> dict[str, Entry]:
        """A new index from the whole journal (one pass)."""
        st = os.fstat(fd)
        self._write_new({"index": INDEX_VERSION, "dev": st.st_dev, "ino": st.st_ino})
        return self._catch_up(fd, {}, 0, st.st_size)

    # --- writing ------------------------------------------------------------------------

    def _write_new(self, identity: dict[str, int]) -> None:
        try:
            temporary = self.path.with_name(f".{self.path.name}.tmp")
            temporary.write_text(json.dumps(identity) + "\n", encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as exc:
            _log.warning("journal index %s not written (%s)", self.path, exc)

    def _append(self, fields: dict[str, Any]) -> None:
        """One line at the index's end; a failure only costs speed (the journal is the truth)."""
        line = (json.dumps(fields, ensure_ascii=True) + "\n").encode()
        try:
            fd = open_regular(self.path, write=True)
        except OSError:
            return
        try:
            if os.fstat(fd).st_size == 0:
                return  # never an index without its first line
            os.write(fd, line)
        except OSError as exc:
            _log.warning("journal index %s not written (%s)", self.path, exc)
        finally:
            os.close(fd)

    def started(self, data: dict[str, Any], at: int) -> None:
        """A session record was just written at ``at`` (the index was caught up before)."""
        self._append(_start_fields(data, at))

    def ended(self, session: str, stop: int, tally: Tally) -> None:
        self._append({"s": session, "stop": stop, **tally.finished()})

    def cleared(self, session: str) -> None:
        self._append({"s": session, "cleared": True})
