"""Read a results file back, trusting nothing in it.

A results file is often edited by hand or by scripts before ``apply`` acts on it, and apply
deletes files, so every field is checked for its type and range here and anything else is a
``ResultFormatError`` naming the place (``groups[3].members[1].size``), never a traceback.
Paths are normalised (``.``, ``..``, ``//``, relative paths) so that one file cannot hide
behind two spellings; apply still compares (device, inode) on the disk before it acts.
The file itself is read only when it is a regular file (never a FIFO, a device or a
folder: opening never blocks), and only up to ``MAX_RESULT_BYTES``.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Mapping
from typing import Any

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.model import (
    Edit,
    EditCode,
    Fingerprint,
    Group,
    KeepReason,
    Kind,
    MatchedSpan,
    MediaFacts,
    Member,
    ScanError,
    ScanResult,
    ScanStats,
    Side,
)

__all__ = [
    "FORMAT_VERSION",
    "MAX_RESULT_BYTES",
    "READABLE_VERSIONS",
    "parse_json",
    "read_result_text",
    "result_from_dict",
]

#: 2: music and videos (kinds ``audio`` and ``video``, a member's ``media`` facts and
#: ``match`` span) and the scan's ``notices``; a reader of version 1 would refuse the kinds.
FORMAT_VERSION = 2
#: Versions this reader reads (1 has no media fields and no notices).
READABLE_VERSIONS = frozenset({1, 2})
#: Far above any real result; keeps a hostile file from exhausting memory or the stack.
_MAX_DEPTH = 64
_INT64_MAX = (1 << 63) - 1
#: Longest media length a result may state (a year): a bound, not a real length.
_MAX_SECONDS = 366 * 86400.0
_UINT64_MAX = (1 << 64) - 1


#: Largest results file read: a scan of a million files writes a few hundred megabytes.
MAX_RESULT_BYTES = 1 << 30

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFDIR: "a folder",
    stat.S_IFSOCK: "a socket",
}


#: Read-only; on POSIX without waiting on a FIFO and closed in children (Windows has neither
#: flag: there a FIFO cannot be opened by path, and descriptors are not inherited).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_result_text(path: str | os.PathLike[str]) -> str:
    """The text of a results file: a regular file of at most ``MAX_RESULT_BYTES``, UTF-8.

    Raises ResultFormatError for anything else (a FIFO or a device is refused before a byte
    is read) and OSError when it cannot be opened or read.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except IsADirectoryError:
        raise ResultFormatError(f"{os.fspath(path)}: not a regular file (a folder)") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = _KINDS.get(stat.S_IFMT(st.st_mode), "not a file")
            raise ResultFormatError(f"{os.fspath(path)}: not a regular file ({what})")
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_RESULT_BYTES and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > MAX_RESULT_BYTES:
        raise ResultFormatError(
            f"{os.fspath(path)}: too large for a dupfinder result "
            f"(over {MAX_RESULT_BYTES >> 20:,} MiB)"
        )
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise ResultFormatError(
            f"{os.fspath(path)}: not a dupfinder result (not UTF-8 text)"
        ) from None


def parse_json(text: str, source: str) -> Any:
    """``json.loads`` that turns deep nesting and huge numbers into ResultFormatError."""
    depth = _nesting_depth(text)
    if depth > _MAX_DEPTH:
        raise ResultFormatError(f"{source}: not a dupfinder result (nested {depth} levels deep)")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ResultFormatError(f"{source}: not JSON ({exc})") from exc


def _reject_constant(name: str) -> Any:
    raise ResultFormatError(f"{name} is not a number a result can hold")


def _nesting_depth(text: str) -> int:
    """The deepest bracket nesting outside strings, in one pass."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > _MAX_DEPTH:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest


class _Reader:
    """Typed field access that names the place of a bad value."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, Mapping):
            raise ResultFormatError(f"{where or 'the result'} must be an object")
        self.data = data
        self.where = where

    def _place(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def raw(self, key: str) -> Any:
        if key not in self.data:
            raise ResultFormatError(f"{self._place(key)} is missing")
        return self.data[key]

    def integer(
        self, key: str, default: int | None = None, *, low: int = 0, high: int = _INT64_MAX
    ) -> int:
        value = self.data.get(key)
        if type(value) is int and low <= value <= high:  # nearly every number: checked at once
            return value
        if value is None:
            if default is None:
                raise ResultFormatError(f"{self._place(key)} is missing")
            return default
        if isinstance(value, float) and value.is_integer() and math.isfinite(value):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ResultFormatError(
                f"{self._place(key)} must be a whole number from {low} to {high}, got {value!r}"
            )
        return value

    def number(self, key: str, default: float) -> float:
        value = self.data.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise ResultFormatError(f"{self._place(key)} must be a finite number, got {value!r}")
        return float(value)

    def text(self, key: str, default: str | None = None) -> str:
        value = self.data.get(key, default)
        if not isinstance(value, str):
            raise ResultFormatError(f"{self._place(key)} must be text, got {value!r}")
        return value

    def optional_text(self, key: str, *, limit: int = 4096) -> str | None:
        if not self.has(key):
            return None
        value = self.text(key)
        if len(value) > limit:
            raise ResultFormatError(f"{self._place(key)} is longer than {limit} characters")
        return value

    def seconds(self, key: str) -> float:
        value = self.number(key, math.nan)
        if not 0.0 <= value <= _MAX_SECONDS:
            raise ResultFormatError(
                f"{self._place(key)} must be seconds from 0 to {_MAX_SECONDS:,}, got {value!r}"
            )
        return value

    def listing(self, key: str, default: list[Any] | None = None) -> list[Any]:
        value = self.data.get(key, default)
        if not isinstance(value, list):
            raise ResultFormatError(
                f"{self._place(key)} must be a list, got {type(value).__name__}"
            )
        return value


def _path(reader: _Reader, key: str) -> str:
    """An absolute path as a scan writes it. A ``.`` or ``..`` part (or a doubled separator)
    is refused, not tidied away: after a symbolic link ``..`` means the link target's parent,
    so text rules would name another file than the one the system opens."""
    text = reader.text(key)
    if not text or "\0" in text:
        raise ResultFormatError(f"{reader._place(key)} is not a file path: {text!r}")
    if not os.path.isabs(text) or os.path.normpath(text) != text:
        raise ResultFormatError(
            f"{reader._place(key)} is not an absolute path without . or .. parts: {text!r}"
        )
    return text


def _member(kind: Kind, raw: Any, where: str) -> Member:
    r = _Reader(raw, where)
    if r.has("mtime_ns"):
        mtime_ns = r.integer("mtime_ns", low=-_INT64_MAX)
    else:
        mtime_ns = (
            round(r.number("mtime", math.nan) * 1e9) if r.has("mtime") else r.integer("mtime_ns")
        )
    hex_value = r.data.get("fingerprint")
    try:
        fingerprint = Fingerprint.from_hex(kind, hex_value) if hex_value else Fingerprint(kind, 0)
    except (TypeError, ValueError) as exc:
        raise ResultFormatError(f"{where}.fingerprint: {exc}") from exc
    width = r.integer("width", 0, high=1 << 31) or None
    height = r.integer("height", 0, high=1 << 31) or None
    similarity = r.number("similarity", -1.0)  # absent in older results: from the bits
    if r.has("similarity") and not 0.0 <= similarity <= 1.0:
        raise ResultFormatError(f"{where}.similarity must be from 0 to 1, got {similarity!r}")
    return Member(
        path=_path(r, "path"),
        size=r.integer("size"),
        mtime_ns=mtime_ns,
        distance=r.integer("distance", 0, high=64),
        fingerprint=fingerprint,
        width=width if height else None,
        height=height if width else None,
        dev=r.integer("dev", 0, high=_UINT64_MAX),
        ino=r.integer("ino", 0, high=_UINT64_MAX),
        ctime_ns=r.integer("ctime_ns", 0, low=-_INT64_MAX),
        links=r.integer("links", 1, low=1),
        content_hash=_content_hash(r),
        similarity=similarity,
        media=_media(r.data.get("media"), f"{where}.media"),
        span=_span(r.data.get("match"), f"{where}.match"),
        edits=_edits(r.listing("edits", []), f"{where}.edits"),
    )


#: Largest picture side, share and quality an edit may state: bounds, not real figures.
_EDIT_SIDE = 1 << 31
#: Edits whose amount may pass 100 %: a copy's spread of grey levels can grow several times
#: over (every other amount is a share of an area or of the full scale).
_PERCENT_CAP = {EditCode.MORE_CONTRAST: 1_000_000}
_EDIT_CODES = {str(code): code for code in EditCode}
_SIDES = {str(side): side for side in Side}


def _edits(raw: list[Any], where: str) -> tuple[Edit, ...]:
    """What differs in a picture from its keeper (added to the contract without a new
    version: absent in older results); codes this version does not know are left out, not
    refused, and so are side names."""
    out: list[Edit] = []
    for index, item in enumerate(raw):
        r = _Reader(item, f"{where}[{index}]")
        code = _EDIT_CODES.get(r.text("code"))
        if code is None:
            continue
        sides = tuple(
            _SIDES[name]
            for name in r.listing("sides", [])
            if isinstance(name, str) and name in _SIDES
        )
        out.append(
            Edit(
                code,
                percent=r.integer("percent", 0, high=_PERCENT_CAP.get(code, 100)),
                sides=sides,
                width=r.integer("width", 0, high=_EDIT_SIDE),
                height=r.integer("height", 0, high=_EDIT_SIDE),
                of_width=r.integer("of_width", 0, high=_EDIT_SIDE),
                of_height=r.integer("of_height", 0, high=_EDIT_SIDE),
                format=r.optional_text("format", limit=16) or "",
                quality=r.integer("quality", 0, high=100),
            )
        )
    return tuple(out)


def _media(raw: Any, where: str) -> MediaFacts | None:
    """A music or video member's facts (version 2); absent for other kinds."""
    if raw is None:
        return None
    r = _Reader(raw, where)
    lossless = r.data.get("lossless", False)
    if not isinstance(lossless, bool):
        raise ResultFormatError(f"{where}.lossless must be true or false, got {lossless!r}")
    return MediaFacts(
        duration_s=r.seconds("duration") if r.has("duration") else None,
        bitrate=r.integer("bitrate", 0) or None,
        codec=r.optional_text("codec"),
        lossless=lossless,
        title=r.optional_text("title"),
        artist=r.optional_text("artist"),
        album=r.optional_text("album"),
    )


def _span(raw: Any, where: str) -> MatchedSpan | None:
    """The part of a media member that matched its keeper (version 2)."""
    if raw is None:
        return None
    r = _Reader(raw, where)
    start, end = r.seconds("start"), r.seconds("end")
    keeper_start, keeper_end = r.seconds("keeper_start"), r.seconds("keeper_end")
    if start > end or keeper_start > keeper_end:
        raise ResultFormatError(f"{where} must end after it starts")
    return MatchedSpan(start, end, keeper_start, keeper_end)


def _content_hash(reader: _Reader) -> str | None:
    if not reader.has("content_hash"):
        return None
    text = reader.text("content_hash")
    if not 0 < len(text) <= 128 or text.strip("0123456789abcdef"):
        raise ResultFormatError(f"{reader._place('content_hash')} must be lowercase hex: {text!r}")
    return text


def _group(raw: Any, where: str) -> Group:
    r = _Reader(raw, where)
    try:
        kind = Kind(r.text("kind"))
    except ValueError as exc:
        raise ResultFormatError(f"{where}.kind: {exc}") from exc
    raw_members = r.listing("members")
    members = tuple(_member(kind, m, f"{where}.members[{i}]") for i, m in enumerate(raw_members))
    paths = [m.path for m in members]
    if len(set(paths)) != len(paths):
        raise ResultFormatError(f"{where} lists one file twice")
    if len(members) < 2:
        raise ResultFormatError(f"{where} has fewer than two members")
    return Group(kind, members, _reasons(r))


def _reasons(reader: _Reader) -> tuple[KeepReason, ...]:
    """Why the keeper is kept (added to the contract without a new version: absent in older
    results); names this version does not know are left out, not refused."""
    names = reader.listing("keeper_reasons", [])
    return tuple(_REASONS[name] for name in names if isinstance(name, str) and name in _REASONS)


_REASONS = {str(reason): reason for reason in KeepReason}


def result_from_dict(data: Any) -> ScanResult:
    """Rebuild a result from the JSON contract; raises ResultFormatError when it is not one."""
    top = _Reader(data, "")
    version = top.data.get("version")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        readable = " or ".join(str(v) for v in sorted(READABLE_VERSIONS))
        raise ResultFormatError(
            f"not a dupfinder result of version {readable} (found version {version!r})"
        )
    groups = tuple(_group(g, f"groups[{i}]") for i, g in enumerate(top.listing("groups")))
    errors = []
    for i, raw in enumerate(top.listing("errors", [])):
        e = _Reader(raw, f"errors[{i}]")
        errors.append(ScanError(e.text("path"), e.text("error"), e.text("code", "unreadable")))
    s = _Reader(top.data.get("stats", {}), "stats")
    stats = ScanStats(
        files_seen=s.integer("files_seen", 0),
        files_fingerprinted=s.integer("files_fingerprinted", 0),
        files_from_cache=s.integer("files_from_cache", 0),
        files_bytes_only=s.integer("files_bytes_only", 0),
        pairs=s.integer("pairs", 0),
        seconds=s.number("seconds", 0.0),
        cancelled=bool(s.data.get("cancelled", False)),
    )
    notices = tuple(
        _notice(raw, f"notices[{i}]") for i, raw in enumerate(top.listing("notices", []))
    )
    return ScanResult(groups, tuple(errors), stats, notices)


def _notice(raw: Any, where: str) -> str:
    if not isinstance(raw, str):
        raise ResultFormatError(f"{where} must be text, got {raw!r}")
    return raw
