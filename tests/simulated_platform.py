"""What other systems do, played on Linux for tests that simulate Windows or macOS here: stat
results and folder listings as they report them, their system trashes as send2trash fills them."""

from __future__ import annotations

import os
import secrets
import struct
from collections.abc import Iterator
from pathlib import Path

_scandir = os.scandir  # the real one, kept for when a test puts the simulated one in its place

#: stat_result's fields past the first ten, given by name when one is built.
_EXTRA = ("st_atime_ns", "st_mtime_ns", "st_ctime_ns", "st_blksize", "st_blocks", "st_rdev")
_FIELDS = (
    "st_mode",
    "st_ino",
    "st_dev",
    "st_nlink",
    "st_uid",
    "st_gid",
    "st_size",
    "st_atime",
    "st_mtime",
    "st_ctime",
)


def with_stat(st: os.stat_result, **changes: int) -> os.stat_result:
    """``st`` with some fields changed (``st_ino=0``, ``st_ctime_ns=...``)."""
    values = [changes.get(name, getattr(st, name)) for name in _FIELDS]
    extra = {name: changes.get(name, getattr(st, name)) for name in _EXTRA if hasattr(st, name)}
    return os.stat_result(values, extra)


class ListedWithoutIdentity:
    """A folder listing's entry as Windows gives it: its stat reports inode and device 0."""

    def __init__(self, entry: os.DirEntry[str]) -> None:
        self._entry = entry
        self.name = entry.name
        self.path = entry.path

    def is_symlink(self) -> bool:
        return self._entry.is_symlink()

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return self._entry.is_dir(follow_symlinks=follow_symlinks)

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        return self._entry.is_file(follow_symlinks=follow_symlinks)

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        return with_stat(self._entry.stat(follow_symlinks=follow_symlinks), st_ino=0, st_dev=0)


class ListingWithoutIdentity:
    """``os.scandir`` as Windows answers it (a context manager over entries without identity)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self._listing = _scandir(folder)

    def __enter__(self) -> ListingWithoutIdentity:
        return self

    def __exit__(self, *exc: object) -> None:
        self._listing.close()

    def __iter__(self) -> Iterator[ListedWithoutIdentity]:
        return (ListedWithoutIdentity(entry) for entry in self._listing)


def recycle_record(original: str, size: int, filetime: int, version: int = 2) -> bytes:
    """A ``$I`` record as Windows writes it (version 1: Vista to 8.1; version 2: 10 and on)."""
    path = (original + "\0").encode("utf-16-le")
    header = struct.pack("<qqq", version, size, filetime)
    if version == 1:
        return header + path.ljust(520, b"\0")
    return header + struct.pack("<i", len(path) // 2) + path


class RecycleBin:
    """send2trash on Windows, played here: the file is renamed into the user's folder of the
    volume's ``$Recycle.Bin`` as ``$R<tail>`` beside its ``$I<tail>`` record."""

    def __init__(self, root: Path) -> None:
        self.root = root
        #: what the records put before the original path (Windows' long-path prefix, or none)
        self.prefix = ""
        self.user = root / "S-1-5-21-1004336348-1177238915-682003330-1001"
        self.user.mkdir(parents=True, exist_ok=True)
        self._clock = 133_000_000_000_000_000  # a FILETIME in 2022

    def send2trash(self, path: str) -> None:
        tail = secrets.token_hex(3).upper() + os.path.splitext(path)[1]
        size = os.lstat(path).st_size
        self._clock += 10_000_000
        (self.user / f"$I{tail}").write_bytes(recycle_record(self.prefix + path, size, self._clock))
        os.rename(path, self.user / f"$R{tail}")

    def items(self) -> list[Path]:
        return sorted(self.user.glob("$R*"))

    def records(self) -> list[Path]:
        return sorted(self.user.glob("$I*"))


class MacTrash:
    """send2trash on macOS, played here: the file is renamed into ``~/.Trash``, under a name
    the system makes up ("name 2.txt") when its own is taken."""

    def __init__(self, home: Path) -> None:
        self.folder = home / ".Trash"
        self.folder.mkdir(parents=True, exist_ok=True)

    def send2trash(self, path: str) -> None:
        stem, suffix = os.path.splitext(os.path.basename(path))
        name, number = stem + suffix, 1
        while (self.folder / name).exists():
            number += 1
            name = f"{stem} {number}{suffix}"
        os.rename(path, self.folder / name)
