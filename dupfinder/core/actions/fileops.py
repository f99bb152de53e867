"""File operations that never overwrite and never trust a path: shared by actions and undo.

``FileStamp`` is what a file was when a step was decided (identity, size, change stamps,
mode, owner); every destructive step compares the disk with it right before it acts.
Moves never replace an existing file; across devices the copy is made under a temporary
name the caller chose (and journalled), verified byte for byte, and only then is the
source removed.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import shutil
import stat
from dataclasses import dataclass
from typing import BinaryIO

from dupfinder.core.actions.folders import BINARY, CLOEXEC, NONBLOCK, rename_paths_noreplace
from dupfinder.core.filesystem import change_time_ns

__all__ = [
    "FileStamp",
    "fsync_file",
    "move_no_overwrite",
    "open_regular",
    "same_bytes",
    "sha256_file",
    "temporary_name",
]

_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class FileStamp:
    """A file's identity and state from one ``lstat``: enough to notice any rewrite."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int
    mode: int
    uid: int
    gid: int
    atime_ns: int
    links: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileStamp:
        return cls(
            dev=st.st_dev,
            ino=st.st_ino,
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            ctime_ns=change_time_ns(st),  # 0 where ctime is no change time (Windows)
            mode=st.st_mode,
            uid=st.st_uid,
            gid=st.st_gid,
            atime_ns=st.st_atime_ns,
            links=st.st_nlink,
        )

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> FileStamp:
        """The stamp of ``path`` itself (a symlink is not followed)."""
        return cls.of(os.lstat(path))

    @property
    def identity(self) -> tuple[int, int]:
        return self.dev, self.ino

    @property
    def regular(self) -> bool:
        return stat.S_ISREG(self.mode)

    def same_content_state(self, other: FileStamp) -> bool:
        """Same file, not rewritten: identity, size, mtime and ctime all equal."""
        return (self.identity, self.size, self.mtime_ns, self.ctime_ns) == (
            other.identity,
            other.size,
            other.mtime_ns,
            other.ctime_ns,
        )


def temporary_name(path: str) -> str:
    """A hidden name beside ``path`` that no other run will pick (journalled before use).

    It does not repeat the file's name: a name near the 255-byte limit must still have one."""
    folder = os.path.dirname(path)
    return os.path.join(folder, f".dupfinder-{secrets.token_hex(8)}.tmp")


def sha256_file(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular file for reading; anything else (a FIFO, a device, a folder) is an
    ``OSError`` at once, never a read that waits forever or never ends."""
    fd = os.open(path, os.O_RDONLY | NONBLOCK | CLOEXEC | BINARY)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
    return os.fdopen(fd, "rb")


def same_bytes(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """True when both files hold exactly the same bytes (compared, not hashed)."""
    with open_regular(first) as a, open_regular(second) as b:
        if os.fstat(a.fileno()).st_size != os.fstat(b.fileno()).st_size:
            return False
        while True:
            left, right = a.read(_CHUNK), b.read(_CHUNK)
            if left != right:
                return False
            if not left:
                return True


def fsync_file(path: str | os.PathLike[str]) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def move_no_overwrite(
    src: str | os.PathLike[str], dst: str | os.PathLike[str], tmp: str | None = None
) -> None:
    """Move ``src`` to ``dst``; raise FileExistsError rather than replace anything.

    On one device a hard link then an unlink makes the no-overwrite check atomic; across
    devices the copy is written under ``tmp`` (default: a fresh hidden name beside ``dst``),
    verified byte for byte, and only then is ``src`` removed, so a failure at any step
    leaves the original in place and no temporary file behind.
    """
    src, dst = os.fspath(src), os.fspath(dst)
    try:
        rename_paths_noreplace(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        _copy_move(src, dst, tmp or temporary_name(dst))


def _copy_move(src: str, dst: str, tmp: str) -> None:
    try:
        shutil.copy2(src, tmp)
        fsync_file(tmp)
        if not same_bytes(tmp, src):
            raise OSError(errno.EIO, "the copy does not match the original", dst)
        rename_paths_noreplace(tmp, dst)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    os.unlink(src)
