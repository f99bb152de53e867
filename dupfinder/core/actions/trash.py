"""The system trash, at a constant cost per file however full it is.

On Linux and the BSDs this follows the freedesktop.org trash specification itself: the
``.trashinfo`` file is created first with ``O_EXCL`` (which reserves the name atomically),
then the file is renamed into ``files/``. The name is the file's own name or, when taken,
that name with a short random tag, so sending a file never lists or counts the trash. The
entry is chosen first and journalled, then claimed, so undo never searches either. A failed
rename removes its reservation at once; a reservation left by a killed run is named in the
journal's intent and cleared by the next apply or undo (``discard_reservation``).

Files on another filesystem go to that filesystem's ``$topdir/.Trash/$uid`` (when the
administrator made it, sticky and not a symlink) or ``$topdir/.Trash-$uid``, as the
specification says, so trashing is always a rename, never a copy. Elsewhere (macOS,
Windows) send2trash hands the file to the system, and undo points people to the system trash.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys
import urllib.parse
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from dupfinder.core.actions.fileops import move_no_overwrite

__all__ = [
    "NATIVE_TRASH",
    "TrashEntry",
    "TrashUnavailable",
    "discard_reservation",
    "find_trash_entry",
    "plan_entry",
    "restore",
    "send_to_trash",
]

#: True where this module writes the trash itself (and can find entries to restore).
NATIVE_TRASH = sys.platform not in ("win32", "darwin")


class TrashUnavailable(OSError):
    """The file's filesystem has no trash this user may write."""


@dataclass(frozen=True, slots=True)
class TrashEntry:
    """Where one trashed file lives: its data and its ``.trashinfo``."""

    files: Path
    info: Path

    @classmethod
    def from_files(cls, files: Path) -> TrashEntry:
        return cls(files, files.parent.parent / "info" / f"{files.name}.trashinfo")


@dataclass(frozen=True, slots=True)
class _TrashDir:
    root: Path
    topdir: str | None  # .trashinfo paths are relative to it; None: absolute (home trash)


def _home_trash() -> Path:
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(data_home) / "Trash"


def _mount_point(path: str) -> str:
    """The top folder of ``path``'s filesystem (parents while the device stays the same)."""
    path = os.path.realpath(path)
    device = os.lstat(path).st_dev
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return path
        try:
            if os.lstat(parent).st_dev != device:
                return path
        except OSError:
            return path
        path = parent


def _usable(folder: Path) -> bool:
    try:
        os.makedirs(folder / "files", mode=0o700, exist_ok=True)
        os.makedirs(folder / "info", mode=0o700, exist_ok=True)
    except OSError:
        return False
    return os.access(folder / "files", os.W_OK) and os.access(folder / "info", os.W_OK)


def _device(path: Path) -> int | None:
    try:
        return os.stat(path).st_dev
    except OSError:
        return None


def _trash_for(path: str) -> _TrashDir:
    """The trash a file on ``path``'s filesystem goes to, created if needed."""
    device = os.lstat(path).st_dev
    home = _home_trash()
    existing = home
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    home_device = _device(existing)
    if home_device == device and _usable(home):
        return _TrashDir(home, None)
    top = _mount_point(os.path.dirname(os.path.abspath(path)) or ".")
    uid = os.getuid()
    shared = Path(top) / ".Trash"
    with contextlib.suppress(OSError):
        st = os.lstat(shared)
        sticky = stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
        if sticky and _usable(shared / str(uid)):
            return _TrashDir(shared / str(uid), top)
    own = Path(top) / f".Trash-{uid}"
    if _usable(own):
        return _TrashDir(own, top)
    raise TrashUnavailable(errno.EACCES, "no trash on that volume", path)


def _info_text(path: str, topdir: str | None) -> bytes:
    stored = os.path.relpath(path, topdir) if topdir is not None else os.path.abspath(path)
    quoted = urllib.parse.quote(os.fsencode(stored), safe="/")
    when = datetime.now().strftime("%Y-%m-%dT%H:%M:%S")
    return f"[Trash Info]\nPath={quoted}\nDeletionDate={when}\n".encode()


def plan_entry(path: str) -> TrashEntry:
    """Where ``path`` will go in its trash: its own name, or that name with a short random
    tag when taken. Nothing is created; ``send_to_trash`` claims the name atomically."""
    trash = _trash_for(path)
    name = os.path.basename(path)
    stem, suffix = os.path.splitext(name)
    for attempt in range(20):
        candidate = name if attempt == 0 else f"{stem} {secrets.token_hex(4)}{suffix}"
        entry = TrashEntry(
            trash.root / "files" / candidate, trash.root / "info" / f"{candidate}.trashinfo"
        )
        if not os.path.lexists(entry.files) and not os.path.lexists(entry.info):
            return entry
    raise OSError(errno.EEXIST, "no free name in the trash", path)


def _claim(entry: TrashEntry, path: str) -> None:
    """Create the ``.trashinfo`` with O_EXCL: the specification's atomic name reservation."""
    trash = _trash_for(path)
    if entry.info.parent != trash.root / "info":
        raise OSError(errno.EXDEV, "the trash planned for it is not on its filesystem", path)
    fd = os.open(entry.info, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:  # no fsync: the journal's intent already names this entry if the system crashes
        os.write(fd, _info_text(path, trash.topdir))
    except OSError:
        os.close(fd)
        os.unlink(entry.info)
        raise
    os.close(fd)


def send_to_trash(path: str, entry: TrashEntry | None = None) -> TrashEntry | None:
    """Move ``path`` into the trash (into ``entry`` when planned and journalled beforehand).

    Returns the entry, or None where the system's own trash took it (macOS, Windows).
    Raises FileExistsError when the planned name was taken meanwhile (nothing moved).
    """
    if not NATIVE_TRASH:
        from send2trash import send2trash

        send2trash(path)
        return None
    entry = entry or plan_entry(path)
    _claim(entry, path)
    try:
        os.rename(path, entry.files)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(entry.info)
        raise
    return entry


def discard_reservation(entry: TrashEntry) -> bool:
    """Remove a ``.trashinfo`` whose file never arrived (a run killed in between)."""
    if os.path.lexists(entry.files):
        return False
    with contextlib.suppress(FileNotFoundError):
        os.unlink(entry.info)
        return True
    return False


def restore(entry: TrashEntry, original: str) -> None:
    """Put a trashed file back at ``original``, never over an existing file."""
    if os.path.lexists(original):
        raise FileExistsError(errno.EEXIST, "a file already exists at the original place")
    os.makedirs(os.path.dirname(original) or ".", exist_ok=True)
    move_no_overwrite(entry.files, original)
    with contextlib.suppress(OSError):
        os.unlink(entry.info)


def _info_points_to(info: Path, original: str, topdir: str | None) -> bool:
    try:
        text = info.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("Path="):
            stored = os.fsdecode(urllib.parse.unquote_to_bytes(line[5:]))
            if not os.path.isabs(stored) and topdir is not None:
                stored = os.path.join(topdir, stored)
            return os.path.normpath(stored) == os.path.normpath(original)
    return False


def find_trash_entry(
    original: str, dev: int, ino: int, size: int, mtime_ns: int
) -> TrashEntry | None:
    """Search the trash for what was ``original``: only for journals written before entries
    were recorded (this lists the whole trash, so apply and undo never call it otherwise)."""
    if not NATIVE_TRASH:
        return None
    home = _home_trash()
    candidates = [(home, str(home.parent))]
    with contextlib.suppress(OSError):
        top = _mount_point(os.path.dirname(original) or ".")
        uid = os.getuid()
        candidates += [(Path(top) / ".Trash" / str(uid), top), (Path(top) / f".Trash-{uid}", top)]
    fallback: TrashEntry | None = None
    for trash, topdir in candidates:
        try:
            listing = list(os.scandir(trash / "files"))
        except OSError:
            continue
        for item in listing:
            try:
                st = item.stat(follow_symlinks=False)
            except OSError:
                continue
            entry = TrashEntry.from_files(Path(item.path))
            if st.st_dev == dev and st.st_ino == ino and st.st_size == size:
                return entry
            if (
                fallback is None
                and st.st_size == size
                and st.st_mtime_ns == mtime_ns
                and _info_points_to(entry.info, original, topdir)
            ):
                fallback = entry
    return fallback
