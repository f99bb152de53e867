"""Windows' Recycle Bin, read in plain Python: where a trashed file went, to put it back.

Each volume keeps ``X:\\$Recycle.Bin\\<SID>\\`` per user. A recycled file becomes two entries
sharing one random tail: ``$R<tail>``, the file itself (renamed there: same volume, same file
index, same bytes), and ``$I<tail>``, its record: a little-endian header of version, original
size and deletion time (FILETIME), then the original path in UTF-16 (version 1, up to
Windows 8.1: 260 characters, zero-padded; version 2, since Windows 10: the path's length in
characters first). Undo reads the records of the original's volume for that path and size,
newest first; the caller then proves the data is the file that was trashed (its digest)
before moving it back, and removes the record once it is back (Explorer would otherwise list
a file that is no longer there). Folders of other users cannot be read and are passed over.
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

__all__ = [
    "IN_USE",
    "BadRecord",
    "Recycled",
    "RecycledInfo",
    "bin_of",
    "find_recycled",
    "parse_record",
]

#: Whether the system's trash is the Recycle Bin (Windows).
IN_USE = sys.platform == "win32"

_HEADER = struct.Struct("<qqq")  # version, original size, deletion time
_LENGTH = struct.Struct("<i")  # version 2: the path's length in characters, with its NUL
_V1_PATH_BYTES = 520  # version 1: MAX_PATH characters of UTF-16
_RECORD_MAX = 1 << 16  # a path of 32,767 characters fits
_FILETIME_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)
_LONG, _LONG_UNC = "\\\\?\\", "\\\\?\\UNC\\"  # Windows' long-path prefixes


class BadRecord(ValueError):
    """Bytes that are not a ``$I`` record of a version this module knows."""


@dataclass(frozen=True, slots=True)
class RecycledInfo:
    """What a ``$I`` record says: where the file was, its size, when it was recycled."""

    original: str
    size: int
    deleted: datetime


@dataclass(frozen=True, slots=True)
class Recycled:
    """One recycled file: its data (``$R``), its record (``$I``) and what the record says."""

    data: Path
    record: Path
    info: RecycledInfo


def parse_record(raw: bytes) -> RecycledInfo:
    """Read a ``$I`` record (version 1 or 2); ``BadRecord`` for anything else."""
    if len(raw) < _HEADER.size:
        raise BadRecord("too short for a Recycle Bin record")
    version, size, filetime = _HEADER.unpack_from(raw)
    if version == 1:
        text = raw[_HEADER.size : _HEADER.size + _V1_PATH_BYTES]
    elif version == 2:
        if len(raw) < _HEADER.size + _LENGTH.size:
            raise BadRecord("too short for a version 2 record")
        (length,) = _LENGTH.unpack_from(raw, _HEADER.size)
        start = _HEADER.size + _LENGTH.size
        if length <= 0 or start + 2 * length > len(raw):
            raise BadRecord("its path runs past the end of the record")
        text = raw[start : start + 2 * length]
    else:
        raise BadRecord(f"version {version} is not known")
    if size < 0:
        raise BadRecord("a negative size")
    original = text.decode("utf-16-le", "replace").split("\0", 1)[0]
    if not original:
        raise BadRecord("no original path")
    try:
        deleted = _FILETIME_EPOCH + timedelta(microseconds=filetime // 10)
    except OverflowError:
        raise BadRecord("a deletion time out of range") from None
    return RecycledInfo(original, size, deleted)


def bin_of(path: str) -> Path:
    """The Recycle Bin folder of the volume holding ``path`` (its drive or share)."""
    drive, _ = os.path.splitdrive(os.path.abspath(path))
    return Path(drive + os.sep) / "$Recycle.Bin"


def _plain(path: str) -> str:
    """A path without Windows' long-path prefix (a record may hold either spelling),
    normalised as the system compares it (``normcase`` lower-cases there)."""
    if path.startswith(_LONG_UNC):
        path = "\\\\" + path[len(_LONG_UNC) :]  # a share: two backslashes again
    elif path.startswith(_LONG):
        path = path[len(_LONG) :]
    return os.path.normcase(os.path.normpath(path))


def _same_path(a: str, b: str) -> bool:
    return _plain(a) == _plain(b)


def _records(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as listing:
            return [Path(e.path) for e in listing if e.name.upper().startswith("$I")]
    except OSError:  # another user's folder, or none
        return []


def _read(record: Path) -> RecycledInfo | None:
    try:
        with open(record, "rb") as handle:
            return parse_record(handle.read(_RECORD_MAX))
    except (OSError, BadRecord):
        return None


def find_recycled(
    original: str, size: int | None = None, root: Path | None = None
) -> list[Recycled]:
    """The recycled files that were ``original`` (of ``size`` when given), newest first.

    ``root``: the Recycle Bin folder to read (default: that of ``original``'s volume)."""
    root = root if root is not None else bin_of(original)
    try:
        with os.scandir(root) as listing:
            users = [Path(e.path) for e in listing if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    found: list[Recycled] = []
    for folder in users:
        for record in _records(folder):
            info = _read(record)
            if info is None or not _same_path(info.original, original):
                continue
            if size is not None and info.size != size:
                continue
            data = record.with_name("$R" + record.name[2:])
            with contextlib.suppress(OSError):
                if os.path.lexists(data):
                    found.append(Recycled(data, record, info))
    return sorted(found, key=lambda r: r.info.deleted, reverse=True)
