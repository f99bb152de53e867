"""Names inside an open folder, on every system: what the actions act through.

On Linux, the BSDs and macOS (``FOLDER_FDS``) a folder is opened once (``O_DIRECTORY``) and
every later step names a file relative to that descriptor (``dir_fd``), so a folder renamed
or swapped meanwhile changes nothing, and a file is opened without following a link
(``O_NOFOLLOW``). Windows has neither. There the folder is opened as a handle that others
may not delete or rename while it is held (it stays that very folder), each step finds its
path again from the handle and checks that the path still leads to it (same device and
inode) before it acts, and a file is opened as the link itself (never its target) with
sharing that still lets the action rename it; its identity is checked against the name
before and after the open. Renames never replace: ``renameat2(RENAME_NOREPLACE)`` on Linux,
a hard link and an unlink elsewhere, Windows' own rename (which refuses an existing name).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
import sys

__all__ = [
    "BINARY",
    "CLOEXEC",
    "CREATE_NEW",
    "FOLDER_FDS",
    "NOFOLLOW",
    "NONBLOCK",
    "exchange",
    "link_at",
    "link_into",
    "lock_file",
    "mkdir_at",
    "open_dir",
    "open_file_at",
    "pread",
    "readlink_at",
    "rename_at",
    "rename_noreplace",
    "rename_paths_noreplace",
    "set_times",
    "stat_at",
    "symlink_at",
    "unlink_at",
]

#: Flags that only some systems have, 0 where they do not.
NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
CLOEXEC: int = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOINHERIT", 0)
NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)
#: Windows opens descriptors in text mode unless told (CR LF would be read as LF).
BINARY: int = getattr(os, "O_BINARY", 0)
#: A new file, never through a link nor over an existing name.
CREATE_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC | BINARY

_AT = {os.open, os.stat, os.unlink, os.mkdir, os.rename, os.link}
#: Whether folders open as descriptors that name files relative to them (POSIX).
FOLDER_FDS: bool = hasattr(os, "O_DIRECTORY") and _AT.issubset(os.supports_dir_fd)
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | CLOEXEC

_NOREPLACE = 1  # RENAME_NOREPLACE
_EXCHANGE = 2  # RENAME_EXCHANGE
_LINK_UNSUPPORTED = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS}


def _renameat2() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = (
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    )
    function.restype = ctypes.c_int
    return function


_RENAMEAT2 = _renameat2()


# --- the platform's own way to pin a folder and open a file (Windows) -------------------

if sys.platform == "win32":
    import _winapi
    import msvcrt

    _BACKUP_SEMANTICS = 0x02000000  # lets CreateFile open a folder
    _OPEN_REPARSE_POINT = 0x00200000  # a link is opened itself, never followed
    _SHARE_READ_WRITE = 0x1 | 0x2  # no FILE_SHARE_DELETE: not renamed or removed while held
    _SHARE_ALL = 0x1 | 0x2 | 0x4

    def _open_pinned(path: str, nofollow: bool) -> int:
        """A descriptor on the folder ``path`` that keeps it from being renamed or removed."""
        flags = _BACKUP_SEMANTICS | (_OPEN_REPARSE_POINT if nofollow else 0)
        access = 0x80  # FILE_READ_ATTRIBUTES
        handle = _winapi.CreateFile(
            path, access, _SHARE_READ_WRITE, 0, _winapi.OPEN_EXISTING, flags, 0
        )
        return msvcrt.open_osfhandle(handle, os.O_RDONLY)

    def _open_shared(path: str, flags: int) -> int:
        """A file opened to read as the link itself, that the action may still rename."""
        access = _winapi.GENERIC_READ
        handle = _winapi.CreateFile(
            path, access, _SHARE_ALL, 0, _winapi.OPEN_EXISTING, _OPEN_REPARSE_POINT, 0
        )
        return msvcrt.open_osfhandle(handle, os.O_RDONLY | BINARY)

    def _path_of(fd: int) -> str:
        """The path an open folder has now (``GetFinalPathNameByHandleW``)."""
        kernel = ctypes.WinDLL("kernel32", use_last_error=True)
        buffer = ctypes.create_unicode_buffer(32768)
        handle = msvcrt.get_osfhandle(fd)
        if not kernel.GetFinalPathNameByHandleW(handle, buffer, len(buffer), 0):
            raise ctypes.WinError(ctypes.get_last_error())
        return buffer.value

    class _Overlapped(ctypes.Structure):
        _fields_ = [
            ("internal", ctypes.c_size_t),
            ("internal_high", ctypes.c_size_t),
            ("offset", ctypes.c_uint32),
            ("offset_high", ctypes.c_uint32),
            ("event", ctypes.c_void_p),
        ]

    def _lock(fd: int) -> bool:
        """``LockFileEx`` on one byte at the far end of the 64-bit range: runs of dupfinder
        exclude each other, and no program reading the file's bytes ever meets the lock."""
        kernel = ctypes.WinDLL("kernel32", use_last_error=True)
        where = _Overlapped(0, 0, 0xFFFFFFFE, 0x7FFFFFFF, None)
        flags = 0x2 | 0x1  # LOCKFILE_EXCLUSIVE_LOCK, LOCKFILE_FAIL_IMMEDIATELY
        handle = msvcrt.get_osfhandle(fd)
        if kernel.LockFileEx(handle, flags, 0, 1, 0, ctypes.byref(where)):
            return True
        code = ctypes.get_last_error()
        if code == 33:  # ERROR_LOCK_VIOLATION: another run holds it
            return False
        raise ctypes.WinError(code)

else:

    def _open_pinned(path: str, nofollow: bool) -> int:
        raise OSError(errno.ENOTSUP, "folders open as descriptors on this system", path)

    def _open_shared(path: str, flags: int) -> int:
        raise OSError(errno.ENOTSUP, "files open with os.open on this system", path)

    def _path_of(fd: int) -> str:
        raise OSError(errno.ENOTSUP, "folders are named by descriptors on this system")

    def _lock(fd: int) -> bool:
        """``flock``: advisory, between processes of any user; released with the file."""
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


# --- folders ----------------------------------------------------------------------------


def open_dir(path: str, *, nofollow: bool = False) -> int:
    """Open the folder ``path`` (not through a link in its last part when ``nofollow``)."""
    if FOLDER_FDS:
        return os.open(path, _DIR | (NOFOLLOW if nofollow else 0))
    if nofollow and os.path.islink(path):
        raise OSError(errno.ELOOP, "a symbolic link, not a folder", path)
    fd = _open_pinned(path, nofollow)
    if not stat.S_ISDIR(os.fstat(fd).st_mode) or (nofollow and os.path.islink(path)):
        os.close(fd)
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", path)
    return fd


def _at(folder: int, name: str) -> str:
    """Where ``name`` in the open folder is now, once the folder's path is shown to still
    lead to that very folder (it is checked again by the next step)."""
    where = _path_of(folder)
    here, now = os.fstat(folder), os.stat(where)
    if (here.st_dev, here.st_ino) != (now.st_dev, now.st_ino):
        raise OSError(errno.EXDEV, "the folder was replaced while acting in it", where)
    return os.path.join(where, name)


def stat_at(folder: int, name: str, *, follow: bool = False) -> os.stat_result:
    """``lstat`` of ``name`` in the open folder (``stat`` when ``follow``)."""
    if FOLDER_FDS:
        return os.stat(name, dir_fd=folder, follow_symlinks=follow)
    return os.stat(_at(folder, name), follow_symlinks=follow)


def readlink_at(folder: int, name: str) -> str:
    if FOLDER_FDS:
        return os.readlink(name, dir_fd=folder)
    return os.readlink(_at(folder, name))


def symlink_at(target: str, folder: int, name: str) -> None:
    """A symbolic link ``name`` in the open folder, pointing at ``target``."""
    if FOLDER_FDS:
        os.symlink(target, name, dir_fd=folder)
    else:
        os.symlink(target, _at(folder, name))


def link_into(source: str, folder: int, name: str) -> None:
    """A hard link ``name`` in the open folder to the file ``source`` (a path) names."""
    if FOLDER_FDS:
        os.link(source, name, dst_dir_fd=folder, follow_symlinks=True)
    else:
        os.link(source, _at(folder, name))


def link_at(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """A hard link between open folders; never over an existing name."""
    if FOLDER_FDS:
        os.link(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd, follow_symlinks=False)
    else:
        os.link(_at(src_fd, src), _at(dst_fd, dst), follow_symlinks=False)


def rename_at(src_fd: int, src: str, dst_fd: int, dst: str, *, replace: bool = False) -> None:
    """``os.rename`` (``os.replace`` when ``replace``) between open folders."""
    move = os.replace if replace else os.rename
    if FOLDER_FDS:
        move(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
    else:
        move(_at(src_fd, src), _at(dst_fd, dst))


def unlink_at(folder: int, name: str) -> None:
    if FOLDER_FDS:
        os.unlink(name, dir_fd=folder)
    else:
        os.unlink(_at(folder, name))


def mkdir_at(folder: int, name: str, mode: int) -> None:
    if FOLDER_FDS:
        os.mkdir(name, mode, dir_fd=folder)
    else:
        os.mkdir(_at(folder, name), mode)


def open_file_at(folder: int, name: str, flags: int, mode: int = 0o600) -> int:
    """Open ``name`` in the open folder, never through a symbolic link (``ELOOP``).

    ``flags`` as for ``os.open``; a new file is made only with ``O_EXCL`` (never through a
    link). Without descriptors for folders the file's identity is compared with its name's
    before and after the open: a link, or another file put there meanwhile, is refused.
    """
    if FOLDER_FDS:
        return os.open(name, flags | NOFOLLOW | CLOEXEC, mode, dir_fd=folder)
    path = _at(folder, name)
    if flags & os.O_CREAT:
        return os.open(path, flags | os.O_EXCL | CLOEXEC | BINARY, mode)
    before = os.lstat(path)
    if stat.S_ISLNK(before.st_mode):
        raise OSError(errno.ELOOP, "a symbolic link", path)
    if sys.platform == "win32":
        fd = _open_shared(path, flags)
    else:
        fd = os.open(path, flags | CLOEXEC)
    try:
        opened, after = os.fstat(fd), os.lstat(path)
        if {(opened.st_dev, opened.st_ino), (after.st_dev, after.st_ino)} != {
            (before.st_dev, before.st_ino)
        }:
            raise OSError(errno.ELOOP, "replaced while it was opened", path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def set_times(fd: int, folder: int, name: str, ns: tuple[int, int]) -> None:
    """Access and change times of the open file ``name`` in the open folder."""
    if os.utime in os.supports_fd:
        os.utime(fd, ns=ns)
    else:  # Windows sets times through the name
        os.utime(_at(folder, name), ns=ns, follow_symlinks=False)


# --- renames ----------------------------------------------------------------------------


def _call_renameat2(src_fd: int, src: str, dst_fd: int, dst: str, flags: int) -> bool:
    """True when done; False when this system or file system has no such rename."""
    if _RENAMEAT2 is None or not FOLDER_FDS:
        return False
    if _RENAMEAT2(src_fd, os.fsencode(src), dst_fd, os.fsencode(dst), flags) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), dst)


def rename_noreplace(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """Rename ``src`` (in the open folder ``src_fd``) to ``dst`` (in ``dst_fd``); raise
    FileExistsError rather than replace anything. Never copies: another file system is EXDEV."""
    if _call_renameat2(src_fd, src, dst_fd, dst, _NOREPLACE):
        return
    if not FOLDER_FDS:
        rename_paths_noreplace(_at(src_fd, src), _at(dst_fd, dst))
        return
    try:
        os.link(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in _LINK_UNSUPPORTED:
            raise
        # FAT and exFAT have neither: the check and the rename are as close as they can be
        with contextlib.suppress(FileNotFoundError):
            os.stat(dst, dir_fd=dst_fd, follow_symlinks=False)
            raise FileExistsError(errno.EEXIST, "a file already exists there", dst) from exc
        os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
        return
    os.unlink(src, dir_fd=src_fd)


def rename_paths_noreplace(src: str, dst: str) -> None:
    """The same between paths: a hard link and an unlink, Windows' rename (which refuses an
    existing name), or on FAT a check as close to the rename as it can be."""
    if os.name == "nt":
        os.rename(src, dst)
        return
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in _LINK_UNSUPPORTED:
            raise
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, "a file already exists there", dst) from exc
        os.rename(src, dst)
        return
    os.unlink(src)


def exchange(fd_a: int, a: str, fd_b: int, b: str) -> bool:
    """Swap two names atomically; False where the system cannot (nothing was changed)."""
    return _call_renameat2(fd_a, a, fd_b, b, _EXCHANGE)


def lock_file(fd: int) -> bool | None:
    """Take the lock two runs of dupfinder acting on one file take turns by: True when taken,
    False when another run holds it, None where the file system has no locks."""
    try:
        return _lock(fd)
    except OSError:
        return None


def pread(fd: int, size: int, offset: int) -> bytes:
    """Read ``size`` bytes at ``offset``; Windows has no ``pread`` (its position moves)."""
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, size)
