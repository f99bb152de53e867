"""Putting one file back where it was, on open folders: the very file, the very folder, no overwrite.

Undo (and the trash's own restore) never trusts a name looked up twice. The file to put
back is opened without following a link and proven to be the one the journal describes (its
device and inode where the file system keeps them, its content digest where recorded); the
folder it goes back to must be the very folder the journal recorded (device and inode), so a
symbolic link or another folder put in its place leads nowhere. The rename is done between
the two open folders, never over an existing name (``renameat2`` with ``RENAME_NOREPLACE``,
else a hard link and an unlink), and the name that arrives is checked to be the file that
was proven; anything else goes straight back.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from dupfinder.core.actions.folders import (
    CREATE_NEW,
    NONBLOCK,
    exchange,
    open_dir,
    open_file_at,
    rename_noreplace,
    set_times,
    stat_at,
    unlink_at,
)
from dupfinder.core.filesystem import inodes_name_files
from dupfinder.core.fingerprints.digest import CHUNK, DIGEST_BYTES, hasher

__all__ = [
    "Edited",
    "Expected",
    "NotTheFile",
    "check_open",
    "exchange",
    "missing_folders",
    "open_folder",
    "opened_in",
    "put_back",
    "remove_made_folders",
    "rename_noreplace",
]


@contextlib.contextmanager
def open_folder(
    path: str, identity: tuple[int, int] | None = None, *, create: bool = False
) -> Iterator[int]:
    """The folder ``path``, opened as the system finds it (a folder reached through a link,
    as a scan may have reached it, is that folder).

    ``identity`` (device, inode): it must be that very folder, else ``OSError`` saying why
    (a symbolic link or another folder in its place). ``create``: a missing folder is made
    first (its nearest existing parent must not be a symbolic link), and then no identity is
    asked of it: the recorded folder is gone.
    """
    path = os.path.abspath(path)
    made = False
    try:
        fd = open_dir(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise OSError(errno.ELOOP, _replaced(path)) from None
        if not create:
            raise OSError(errno.ENOENT, f"its folder {path} no longer exists") from None
        _make_folders(path)
        fd = open_dir(path, nofollow=True)
        made = True
    except NotADirectoryError:
        raise OSError(errno.ENOTDIR, f"its folder {path} was replaced by a file") from None
    try:
        st = os.fstat(fd)
        if identity is not None and not made and (st.st_dev, st.st_ino) != identity:
            if os.path.islink(path):
                raise OSError(errno.ELOOP, _replaced(path))
            raise OSError(errno.EXDEV, f"the folder {path} is not the one it was in")
        yield fd
    finally:
        os.close(fd)


def _replaced(path: str) -> str:
    return f"its folder {path} was replaced by a symbolic link; nothing was put through it"


def missing_folders(path: str) -> tuple[str, ...]:
    """The folders above ``path`` that do not exist yet, outermost first (what creating
    ``path``'s folder would make)."""
    missing: list[str] = []
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(folder):
        missing.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return tuple(reversed(missing))


def _make_folders(path: str) -> None:
    missing = missing_folders(os.path.join(path, "x"))
    top = os.path.dirname(missing[0]) if missing else path
    if os.path.islink(top):
        raise OSError(errno.ELOOP, f"the folder {top} is a symbolic link; nothing was made in it")
    os.makedirs(path, exist_ok=True)


def remove_made_folders(folders: list[str]) -> list[str]:
    """Remove the folders a step made that are empty now, deepest first; returns those
    removed. A folder with anything in it (or a link in its place) stays."""
    removed = []
    for folder in sorted(set(folders), key=lambda f: (-f.count(os.sep), f)):
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                continue
            os.rmdir(folder)
        except OSError:
            continue
        removed.append(folder)
    return removed


@dataclass(frozen=True, slots=True)
class Expected:
    """What the file to put back must be: its identity, size and digest as journalled."""

    identity: tuple[int, int] | None = None
    size: int | None = None
    digest: str | None = None  # hex, ``fingerprints.digest``
    #: the file may carry other bytes now (a moved file edited since, put back as it is)
    edited_ok: bool = False


def _digest_at(folder: int, name: str) -> str:
    fd = open_file_at(folder, name, os.O_RDONLY)
    try:
        return _digest_of(fd)
    finally:
        os.close(fd)


def _digest_of(fd: int) -> str:
    state = hasher()
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, CHUNK):
        state.update(chunk)
    return state.digest(DIGEST_BYTES).hex()


class NotTheFile(OSError):
    """The file found is another file than the one the journal describes."""


class Edited(OSError):
    """The very file, but its bytes changed since it was put there."""


def check_open(fd: int, path: str, expected: Expected) -> os.stat_result:
    """Prove the open file is the expected one; raise NotTheFile or Edited otherwise."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise NotTheFile(errno.EEXIST, f"{path} is another file now (not a regular file)")
    # on another device: a copy made across file systems, or a volume plugged in again
    if (
        expected.identity is not None
        and (st.st_dev, st.st_ino) != expected.identity
        and st.st_dev == expected.identity[0]
        and inodes_name_files(path)
    ):
        raise NotTheFile(errno.EEXIST, f"{path} is another file now, not the one put there")
    if expected.edited_ok or expected.digest is None:
        return st
    if expected.size is not None and st.st_size != expected.size:
        raise Edited(errno.EEXIST, f"{path} holds other bytes than the file put there")
    if _digest_of(fd) != expected.digest:
        raise Edited(errno.EEXIST, f"{path} holds other bytes than the file put there")
    return st


@contextlib.contextmanager
def opened_in(folder: int, name: str) -> Iterator[int]:
    """A file in an open folder, opened without following a link (never blocks on a FIFO)."""
    try:
        fd = open_file_at(folder, name, os.O_RDONLY | NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, f"{name} is a symbolic link now; left alone") from None
        raise
    try:
        yield fd
    finally:
        os.close(fd)


def put_back(
    source: str,
    original: str,
    expected: Expected,
    *,
    folder: tuple[int, int] | None = None,
) -> None:
    """Move ``source`` back to ``original``: only the expected file, only into the very
    folder recorded (``folder``: device, inode), never over an existing name.

    A missing folder is made again (its recorded identity is then gone with it); a folder
    that is now a symbolic link, or another folder, is refused. Across file systems (a move
    that was a verified copy) the file is copied back from the proven handle, compared, put
    in place without replacing anything, and only then is ``source`` removed.
    """
    with contextlib.ExitStack() as stack:
        src_folder = stack.enter_context(open_folder(os.path.dirname(os.path.abspath(source))))
        src_name = os.path.basename(source)
        fd = stack.enter_context(opened_in(src_folder, src_name))
        proven = check_open(fd, source, expected)
        dst_folder = stack.enter_context(
            open_folder(os.path.dirname(os.path.abspath(original)), folder, create=True)
        )
        name = os.path.basename(original)
        try:
            stat_at(dst_folder, name)
        except FileNotFoundError:
            pass
        else:
            raise FileExistsError(errno.EEXIST, "a file already exists at the original place")
        if os.fstat(dst_folder).st_dev != proven.st_dev:
            _copy_back(fd, proven, (src_folder, src_name), (dst_folder, name))
            return
        rename_noreplace(src_folder, src_name, dst_folder, name)
        arrived = stat_at(dst_folder, name)
        if (arrived.st_dev, arrived.st_ino) != (proven.st_dev, proven.st_ino):
            # the name was swapped between the proof and the rename: give it back
            with contextlib.suppress(OSError):
                rename_noreplace(dst_folder, name, src_folder, src_name)
            raise NotTheFile(errno.EEXIST, f"{source} was replaced while being put back")


def _copy_back(
    fd: int, proven: os.stat_result, source: tuple[int, str], target: tuple[int, str]
) -> None:
    """Copy the proven open file into place on another file system, then remove it."""
    folder, name = target
    temporary = f".dupfinder-{secrets.token_hex(8)}.tmp"
    out = open_file_at(folder, temporary, CREATE_NEW, 0o600)
    try:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            state = hasher()
            while chunk := os.read(fd, CHUNK):
                state.update(chunk)
                os.write(out, chunk)
            if hasattr(os, "fchmod"):  # Windows: the mode is one read-only flag
                os.fchmod(out, stat.S_IMODE(proven.st_mode))
            if hasattr(os, "fchown"):
                with contextlib.suppress(PermissionError):
                    os.fchown(out, proven.st_uid, proven.st_gid)
            set_times(out, folder, temporary, (proven.st_atime_ns, proven.st_mtime_ns))
            os.fsync(out)
            if _digest_at(folder, temporary) != state.digest(DIGEST_BYTES).hex():
                raise OSError(errno.EIO, "the copy does not match the original")
        finally:
            os.close(out)
        rename_noreplace(folder, temporary, folder, name)
    finally:
        with contextlib.suppress(FileNotFoundError):
            unlink_at(folder, temporary)
    now = stat_at(*source)
    if (now.st_dev, now.st_ino) == (proven.st_dev, proven.st_ino):
        unlink_at(*source)
