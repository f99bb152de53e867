"""The system trash as the freedesktop.org specification says, at a constant cost per file.

On Linux and the BSDs the ``.trashinfo`` file is created first with ``O_EXCL`` (which
reserves the name atomically), then the file is renamed into ``files/``, between open
folders and never over an existing name (a name in ``files/`` without its ``.trashinfo``
is an orphan: left as it is). The name is the file's own name or, when taken,
that name with a short random tag; a name too long for ``NAME.trashinfo`` to fit in 255
bytes is shortened (the info file keeps the whole original path). The entry is chosen first
and journalled, then claimed, so undo never searches. A failed rename removes its
reservation at once; a reservation left by a killed run is named in the journal's intent and
cleared by the next apply or undo (``discard_reservation``).

Which trash: the home trash for files on its own mount; otherwise the trash at the top of
the file's mount, where a rename reaches: ``$topdir/.Trash/$uid`` when ``$topdir/.Trash`` is
sticky and not a link, else ``$topdir/.Trash-$uid``. Either must be a folder of this user,
not a link, that no one else may write (made with mode 700); its ``files`` and ``info`` too.
A folder planted by another account is never used: the file stays, and the reason is "no
trash on that volume". A bind mount shows the home's device but a rename across it fails,
so the mount table decides, not the device; a rename that still fails across mounts falls
back to the trash of the file's own mount. Trashing is always a rename, never a copy.
Elsewhere (macOS, Windows) send2trash hands the file to the system, and undo finds it there
(``recycle_bin``, ``mac_trash``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from dupfinder.core.actions.folders import (
    CREATE_NEW,
    mkdir_at,
    open_dir,
    open_file_at,
    rename_noreplace,
    stat_at,
    unlink_at,
)
from dupfinder.core.actions.putback import Expected, open_folder, put_back
from dupfinder.core.filesystem import mount_of

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

_INFO_SUFFIX = ".trashinfo"
#: Longest entry name: ``NAME.trashinfo`` must fit in one 255-byte file name.
_NAME_MAX = 255 - len(_INFO_SUFFIX)
#: A suffix longer than this is part of the name, not a type (kept whole when shortening).
_SUFFIX_MAX = 16


class TrashUnavailable(OSError):
    """The file's filesystem has no trash this user may write."""


@dataclass(frozen=True, slots=True)
class TrashEntry:
    """Where one trashed file lives: its data and its ``.trashinfo``."""

    files: Path
    info: Path

    @classmethod
    def from_files(cls, files: Path) -> TrashEntry:
        return cls(files, files.parent.parent / "info" / f"{files.name}{_INFO_SUFFIX}")


@dataclass(frozen=True, slots=True)
class _TrashDir:
    root: Path
    topdir: str | None  # .trashinfo paths are relative to it; None: absolute (home trash)
    device: int  # the file system it is on


class _Unsafe(Exception):
    """A trash folder that must not be used, and why."""


def _uid() -> int:
    """This user's id, which names a trash at the top of a mount (POSIX only)."""
    return os.getuid() if hasattr(os, "getuid") else -1


def _home_trash() -> Path:
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(data_home) / "Trash"


def _existing(path: Path) -> Path:
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def _home_usable(home: Path) -> bool:
    try:
        for part in ("files", "info"):
            os.makedirs(home / part, mode=0o700, exist_ok=True)
    except OSError:
        return False
    return all(os.access(home / part, os.W_OK) for part in ("files", "info"))


def _private_folder(parent: int, name: str, uid: int, device: int) -> int:
    """Open ``name`` in the open folder ``parent``, a folder of ``uid`` on ``device``, not a
    link, that no one else may write: made (mode 700) when missing, tightened to 700 when it
    is this user's own. Returns the open folder; raises _Unsafe when it must not be used."""
    with contextlib.suppress(FileExistsError):
        mkdir_at(parent, name, 0o700)
    try:
        fd = _open_in(parent, name)
    except OSError as exc:
        raise _Unsafe(f"{name}: not a folder ({os.strerror(exc.errno or 0)})") from None
    try:
        st = os.fstat(fd)
        if st.st_uid != uid:
            raise _Unsafe(f"{name} belongs to another account")
        if st.st_dev != device:
            raise _Unsafe(f"{name} is on another file system")
        if st.st_mode & 0o077 and hasattr(os, "fchmod"):
            with contextlib.suppress(OSError):
                os.fchmod(fd, 0o700)
            if os.fstat(fd).st_mode & 0o022:
                raise _Unsafe(f"{name} may be written by other accounts")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _sticky_folder(parent: int, name: str, device: int) -> int:
    """Open the administrator's shared ``$topdir/.Trash``: sticky, not a link."""
    try:
        fd = _open_in(parent, name)
    except OSError as exc:
        raise _Unsafe(f"{name}: not a folder ({os.strerror(exc.errno or 0)})") from None
    st = os.fstat(fd)
    if not st.st_mode & stat.S_ISVTX or st.st_dev != device:
        os.close(fd)
        raise _Unsafe(f"{name} is not sticky")
    return fd


def _open_in(parent: int, name: str) -> int:
    """The folder ``name`` in the open folder ``parent``, not through a link."""
    fd = open_file_at(parent, name, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    if not stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", name)
    return fd


@contextlib.contextmanager
def _volume_folders(trash: _TrashDir) -> Iterator[tuple[int, int]]:
    """``files`` and ``info`` of a trash at the top of a mount, each folder on the way
    opened inside the one before and checked (the specification's rules)."""
    uid, device, top = _uid(), trash.device, trash.topdir or "/"
    parts = trash.root.relative_to(top).parts
    with contextlib.ExitStack() as stack:
        folder = open_dir(top)
        stack.callback(os.close, folder)
        if parts[0] == ".Trash":
            folder = _sticky_folder(folder, ".Trash", device)
            stack.callback(os.close, folder)
            parts = parts[1:]
        for name in parts:
            folder = _private_folder(folder, name, uid, device)
            stack.callback(os.close, folder)
        files = _private_folder(folder, "files", uid, device)
        stack.callback(os.close, files)
        info = _private_folder(folder, "info", uid, device)
        stack.callback(os.close, info)
        yield files, info


@contextlib.contextmanager
def _trash_folders(trash: _TrashDir) -> Iterator[tuple[int, int]]:
    """``files`` and ``info`` of a trash, opened without following a link (and checked)."""
    if trash.topdir is not None:
        with _volume_folders(trash) as folders:
            yield folders
        return
    with (
        open_folder(str(trash.root / "files")) as files,
        open_folder(str(trash.root / "info")) as info,
    ):
        yield files, info


def _volume_trash(top: str, device: int, path: str) -> _TrashDir:
    """The trash at the top of a mount, as the specification orders them; checked."""
    uid = _uid()
    candidates = (
        _TrashDir(Path(top) / ".Trash" / str(uid), top, device),
        _TrashDir(Path(top) / f".Trash-{uid}", top, device),
    )
    problem: Exception | None = None
    for trash in candidates:
        try:
            with _volume_folders(trash):
                return trash
        except (_Unsafe, OSError) as exc:
            problem = exc
    raise TrashUnavailable(errno.EACCES, "no trash on that volume", path) from problem


def _trash_for(path: str, *, volume_only: bool = False) -> _TrashDir:
    """The trash a file at ``path`` goes to by a rename, created if needed."""
    folder = os.path.dirname(os.path.abspath(path))
    device = os.stat(folder).st_dev
    mount = mount_of(folder)
    if not volume_only:
        home = _home_trash()
        near = _existing(home)
        with contextlib.suppress(OSError):
            if (
                os.stat(near).st_dev == device
                and mount_of(near).point == mount.point
                and _home_usable(home)
            ):
                return _TrashDir(home, None, device)
    return _volume_trash(mount.point, device, path)


def _info_text(original: str, topdir: str | None) -> bytes:
    original = os.path.abspath(original)
    stored = original
    if topdir is not None:
        relative = os.path.relpath(original, topdir)
        if not relative.startswith(os.pardir):
            stored = relative
    quoted = urllib.parse.quote(os.fsencode(stored), safe="/")
    when = datetime.now().strftime("%Y-%m-%dT%H:%M:%S")
    return f"[Trash Info]\nPath={quoted}\nDeletionDate={when}\n".encode()


def _cut(text: str, limit: int) -> str:
    """The longest start of ``text`` that fits in ``limit`` bytes, cut between characters."""
    raw = os.fsencode(text)
    if len(raw) <= limit:
        return text
    end = limit
    while end > 0 and raw[end] & 0xC0 == 0x80:  # never in the middle of a UTF-8 character
        end -= 1
    return os.fsdecode(raw[:end])


def _names(name: str) -> Iterator[str]:
    """Entry names for a file called ``name``: itself when it fits, then tagged ones."""
    stem, suffix = os.path.splitext(name)
    if len(os.fsencode(suffix)) > _SUFFIX_MAX:
        stem, suffix = name, ""
    if len(os.fsencode(name)) <= _NAME_MAX:
        yield name
    for _ in range(20):
        tag = f" {secrets.token_hex(4)}"
        room = _NAME_MAX - len(os.fsencode(tag + suffix))
        yield f"{_cut(stem, room)}{tag}{suffix}"


def plan_entry(path: str) -> TrashEntry:
    """Where ``path`` will go in its trash: its own name (shortened to fit), or that name
    with a short random tag when taken. Nothing is created; ``send_to_trash`` claims it."""
    trash = _trash_for(path)
    return _free_entry(trash, os.path.basename(path), path)


def _free_entry(trash: _TrashDir, name: str, path: str) -> TrashEntry:
    for candidate in _names(name):
        entry = TrashEntry(
            trash.root / "files" / candidate,
            trash.root / "info" / f"{candidate}{_INFO_SUFFIX}",
        )
        if not os.path.lexists(entry.files) and not os.path.lexists(entry.info):
            return entry
    raise OSError(errno.EEXIST, "no free name in the trash", path)


def _claim(trash: _TrashDir, entry: TrashEntry, info_fd: int, original: str) -> None:
    """Create the ``.trashinfo`` with O_EXCL: the specification's atomic name reservation."""
    if entry.info.parent != trash.root / "info" or entry.files.parent != trash.root / "files":
        raise OSError(errno.EXDEV, "the trash planned for it is not on its filesystem", original)
    fd = open_file_at(info_fd, entry.info.name, CREATE_NEW, 0o600)
    try:  # no fsync: the journal's intent already names this entry if the system crashes
        os.write(fd, _info_text(original, trash.topdir))
    except OSError:
        os.close(fd)
        unlink_at(info_fd, entry.info.name)
        raise
    os.close(fd)


def _into(trash: _TrashDir, entry: TrashEntry, source: tuple[int, str], original: str) -> None:
    """Reserve ``entry`` and rename the file into it; on failure the reservation goes."""
    with _trash_folders(trash) as (files_fd, info_fd):
        _claim(trash, entry, info_fd, original)
        try:
            rename_noreplace(source[0], source[1], files_fd, entry.files.name)
        except OSError:
            with contextlib.suppress(OSError):
                unlink_at(info_fd, entry.info.name)
            raise


def send_to_trash(
    path: str,
    entry: TrashEntry | None = None,
    *,
    original: str | None = None,
    dir_fd: int | None = None,
) -> TrashEntry | None:
    """Move ``path`` into the trash (into ``entry`` when planned and journalled beforehand).

    ``original``: the path the ``.trashinfo`` records and the trash is chosen for (default
    ``path``; give it when ``path`` is a name the file was claimed under meanwhile).
    ``dir_fd``: the open folder holding the file; ``path`` is then its name in it (the
    file's own folder is otherwise opened here). Returns the entry the file went to (another
    than ``entry`` only when a rename across a bind mount had to fall back to that mount's
    trash), or None where the system's own trash took it (macOS, Windows). Raises
    FileExistsError when the planned name was taken meanwhile (nothing moved) and
    ``TrashUnavailable`` where the volume has no trash this user may safely write.
    """
    original = os.path.abspath(original if original is not None else path)
    if not NATIVE_TRASH:
        from send2trash import send2trash

        if dir_fd is not None:  # the system's trash takes a path: it must name that file
            here, there = stat_at(dir_fd, path), os.lstat(original)
            if (here.st_dev, here.st_ino) != (there.st_dev, there.st_ino):
                raise OSError(errno.EXDEV, "its path now names another file", original)
        send2trash(path if dir_fd is None else original)
        return None
    trash = _trash_for(original)
    entry = entry or _free_entry(trash, os.path.basename(original), original)
    with contextlib.ExitStack() as stack:
        if dir_fd is None:
            folder = os.path.dirname(os.path.abspath(path))
            dir_fd = stack.enter_context(open_folder(folder))
            path = os.path.basename(path)
        try:
            _into(trash, entry, (dir_fd, path), original)
        except OSError as exc:
            if exc.errno != errno.EXDEV or trash.topdir is not None:
                raise
            # a bind mount the mount table did not show: the trash of the file's own mount
            volume = _trash_for(original, volume_only=True)
            entry = _free_entry(volume, os.path.basename(original), original)
            _into(volume, entry, (dir_fd, path), original)
    return entry


def discard_reservation(entry: TrashEntry) -> bool:
    """Remove a ``.trashinfo`` whose file never arrived (a run killed in between)."""
    if os.path.lexists(entry.files):
        return False
    with contextlib.suppress(FileNotFoundError):
        os.unlink(entry.info)
        return True
    return False


def restore(
    entry: TrashEntry,
    original: str,
    expected: Expected | None = None,
    *,
    folder: tuple[int, int] | None = None,
) -> None:
    """Put a trashed file back at ``original``, never over an existing file.

    ``expected``: what the file in the trash must be (identity, size, digest), else it stays;
    ``folder``: the (device, inode) of the folder it goes back to, which must be that very
    folder (a symbolic link in its place is refused). See ``putback.put_back``.
    """
    put_back(str(entry.files), original, expected or Expected(), folder=folder)
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
        top = mount_of(_existing(Path(os.path.dirname(original) or "."))).point
        uid = _uid()
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
