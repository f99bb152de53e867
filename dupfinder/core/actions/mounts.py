"""The mount table, read fresh: which mount holds a path, and whether its inodes name files.

A bind mount of a file system shows the same ``st_dev`` as the file system itself, yet a
rename between the two fails (``EXDEV``): only the mount table tells them apart. Linux lists
every mount in ``/proc/self/mountinfo`` (mount points with spaces and other bytes written as
octal escapes); elsewhere, the top of a file system is found by walking up while the device
stays the same. The table is read again on every call (a card plugged in while the app is
open is a new mount), and parsed again only when its text changed.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass

__all__ = ["Mount", "inodes_name_files", "mount_of", "mounts"]

_MOUNTINFO = "/proc/self/mountinfo"
_OCTAL = re.compile(rb"\\([0-7]{3})")

#: File systems whose inode numbers may change between lookups of one file (FAT, exFAT,
#: NTFS through FUSE, network shares): there a file is not known by its inode number alone.
UNSTABLE_INODES = frozenset(
    {
        "vfat",
        "msdos",
        "exfat",
        "fuseblk",
        "fuse.exfat",
        "fuse.exfat-fuse",
        "ntfs",
        "ntfs3",
        "fuse.ntfs-3g",
        "cifs",
        "smb3",
        "smbfs",
        "9p",
        "fuse.sshfs",
        "fuse.rclone",
        "vboxsf",
        "hfsplus",
    }
)


@dataclass(frozen=True, slots=True)
class Mount:
    """One mount: where it is, its file system type, and its device."""

    point: str
    fstype: str
    device: int | None = None


_parsed: tuple[bytes, tuple[Mount, ...]] = (b"", ())


def _unescape(field: bytes) -> str:
    return os.fsdecode(_OCTAL.sub(lambda m: bytes([int(m.group(1), 8)]), field))


def _device(text: bytes) -> int | None:
    major, _, minor = text.partition(b":")
    try:
        return os.makedev(int(major), int(minor))
    except ValueError:
        return None


def mounts() -> tuple[Mount, ...]:
    """Every mount, the last mounted first (it hides those under it); empty where the
    system has no mount table to read."""
    global _parsed
    try:
        with open(_MOUNTINFO, "rb") as handle:
            text = handle.read(1 << 22)
    except OSError:
        return ()
    if text == _parsed[0]:
        return _parsed[1]
    found: list[Mount] = []
    for line in text.splitlines():
        left, _, right = line.partition(b" - ")
        fields, rest = left.split(b" "), right.split(b" ")
        if len(fields) >= 5 and rest and rest[0]:
            found.append(Mount(_unescape(fields[4]), os.fsdecode(rest[0]), _device(fields[2])))
    table = tuple(reversed(found))
    _parsed = (text, table)
    return table


def _inside(path: str, point: str) -> bool:
    return path == point or path.startswith(point.rstrip("/") + "/")


def _walk_up(path: str) -> str:
    """The top folder of ``path``'s file system: parents while the device stays the same."""
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


def mount_of(path: str | os.PathLike[str]) -> Mount:
    """The mount holding ``path`` (which must exist): the deepest mount point above its
    real path, the latest mounted where several share a point."""
    real = os.path.realpath(path)
    best: Mount | None = None
    for mount in mounts():
        if _inside(real, mount.point) and (best is None or len(mount.point) > len(best.point)):
            best = mount
    if best is not None:
        return best
    return Mount(_walk_up(real), "", None)


def inodes_name_files(path: str | os.PathLike[str]) -> bool:
    """Whether the file system holding ``path`` keeps one inode number per file for good.
    Unknown (no mount table, or ``path`` unreachable): assume not."""
    with contextlib.suppress(OSError):
        mount = mount_of(path)
        return bool(mount.fstype) and mount.fstype not in UNSTABLE_INODES
    return False
