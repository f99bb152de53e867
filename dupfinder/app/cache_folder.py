"""The cache folder: where it is, how much it holds, and clearing it.

The folder keeps what a rescan reuses: the fingerprint database (``cache.FingerprintCache``,
with its write-ahead log and any damaged copy set aside) and the pairs remembered from the
last scan (``library.Library``). Clearing removes exactly those files, never anything else a
user may have put in a folder they chose; every one of them is rebuilt by the next scan.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dupfinder.core.scan.cache import default_cache_dir

__all__ = ["CACHE_PATTERNS", "Cleared", "cache_bytes", "cache_files", "clear_cache", "folder_of"]

#: The files a scan writes in the cache folder (glob patterns, no sub-folders).
CACHE_PATTERNS = (
    "fingerprints.sqlite3",
    "fingerprints.sqlite3-wal",
    "fingerprints.sqlite3-shm",
    "fingerprints.sqlite3.corrupt-*",
    "library-v*.npz",
    ".library-*.npz",
)


@dataclass(frozen=True, slots=True)
class Cleared:
    """What clearing did: bytes freed, files removed, and the ones that could not be."""

    freed: int
    removed: int
    problems: tuple[str, ...] = ()


def folder_of(chosen: str) -> Path:
    """The cache folder for the setting ``chosen`` ("" means the user's cache folder)."""
    return Path(chosen) if chosen else default_cache_dir()


def cache_files(folder: Path) -> list[Path]:
    """The cache's files in ``folder`` (none when it does not exist)."""
    found: dict[Path, None] = {}
    for pattern in CACHE_PATTERNS:
        for path in sorted(folder.glob(pattern)):
            if path.is_file() and not path.is_symlink():
                found[path] = None
    return list(found)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def cache_bytes(folder: Path) -> int:
    """Bytes the cache takes in ``folder``."""
    return sum(_size(path) for path in cache_files(folder))


def clear_cache(folder: Path) -> Cleared:
    """Remove the cache's files; a file that cannot be removed is reported, not raised.

    A scan running elsewhere (the command line) that still has the database open keeps
    writing to its own open copy; the next scan starts a fresh one.
    """
    freed = removed = 0
    problems: list[str] = []
    for path in cache_files(folder):
        size = _size(path)
        try:
            os.unlink(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror or exc}")
            continue
        freed += size
        removed += 1
    return Cleared(freed, removed, tuple(problems))
