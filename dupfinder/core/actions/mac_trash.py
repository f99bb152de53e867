"""macOS's trash, read to put a file back: where the system put it and under which name.

The system (send2trash asks ``NSFileManager``) renames a trashed file into ``~/.Trash`` when
it is on the home's volume, else into ``<volume>/.Trashes/<uid>``. On one volume a rename
keeps the file's identity (device, inode); its name there is its own, or, when that is
taken, one the system made up from it ("name 2.txt", "name 10.21.33.txt", "name copy.txt").
So the trashed file is the entry with the journalled identity and size; lacking one (a
trash on another volume), an entry whose name begins with the original's stem and whose size
and mtime match. The caller proves what it finds (its digest) before moving it back.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from dupfinder.core.filesystem import mount_of

__all__ = ["find_trashed", "trash_folders"]


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else -1


def trash_folders(original: str) -> list[Path]:
    """Where the file at ``original`` was trashed: the home's trash, and its volume's."""
    home = Path(os.path.expanduser("~"))
    folders = [home / ".Trash"]
    with contextlib.suppress(OSError):
        volume = mount_of(_existing(os.path.dirname(os.path.abspath(original)))).point
        if os.stat(volume).st_dev != os.stat(home).st_dev:
            folders.append(Path(volume) / ".Trashes" / str(_uid()))
    return folders


def _existing(folder: str) -> str:
    """``folder`` or its nearest parent that exists (the folder may be gone since)."""
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return folder


def _named_after(name: str, original: str) -> bool:
    """The original's name, or one the system made from it (its stem, then more)."""
    stem, suffix = os.path.splitext(os.path.basename(original))
    return name.startswith(stem) and name.endswith(suffix)


def find_trashed(
    original: str,
    identity: tuple[int, int] | None,
    size: int,
    mtime_ns: int,
    folders: list[Path] | None = None,
) -> list[Path]:
    """The trash entries that may be ``original``: the one with its identity first, then
    those named after it with its size and mtime (``folders``: default ``trash_folders``)."""
    same: list[Path] = []
    alike: list[Path] = []
    for folder in folders if folders is not None else trash_folders(original):
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if st.st_size != size:
                continue
            if identity is not None and (st.st_dev, st.st_ino) == identity:
                same.append(Path(entry.path))
            elif st.st_mtime_ns == mtime_ns and _named_after(entry.name, original):
                alike.append(Path(entry.path))
    return same + sorted(alike)
