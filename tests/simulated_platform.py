"""Stat results as other systems report them, for tests that simulate Windows or macOS here."""

from __future__ import annotations

import os
from collections.abc import Iterator

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
