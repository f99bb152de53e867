"""Facts about file systems that decide what a name means: which names are one file, and
which folders are the system trash.

On most file systems a file is its (device, inode). FAT, exFAT, NTFS through FUSE and network
shares may give one file a new inode number for each spelling of its path (``DCIM/a.jpg``,
``dcim/A.JPG``); there, a file is its real path compared case-folded. The walk lists each
file once by :func:`file_key`, and an action proves two names are two files the same way.
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata

__all__ = ["file_key", "inodes_name_files", "is_trash_folder", "same_spelling", "spelling"]

#: File systems whose inode numbers may change between lookups of one file, or whose names
#: match case-insensitively: two spellings there can be one file with two inode numbers.
_UNSTABLE_INODES = frozenset(
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
_OCTAL = re.compile(r"\\([0-7]{3})")
_TRASH_FOLDER = re.compile(r"\.Trash(-\d+)?")


@functools.cache
def _mounts() -> tuple[tuple[str, str], ...]:
    """(mount point, file system type), longest mount point first (Linux mountinfo)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as lines:
            table = lines.read().splitlines()
    except OSError:
        return ()
    found: list[tuple[str, str]] = []
    for line in table:
        left, _, right = line.partition(" - ")
        parts, rest = left.split(), right.split()
        if len(parts) >= 5 and rest:
            # mountinfo writes space, tab, newline and backslash as octal escapes
            point = _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), parts[4])
            found.append((point, rest[0]))
    return tuple(sorted(found, key=lambda m: len(m[0]), reverse=True))


def inodes_name_files(path: str) -> bool:
    """Whether the file system holding ``path`` gives each file one inode number and tells
    names apart by case. Unknown (no mount table, another system): assume not."""
    mounts = _mounts()
    if not mounts:
        return False
    real = os.path.realpath(path)
    for point, kind in mounts:
        if real == point or real.startswith(point.rstrip("/") + "/"):
            return kind not in _UNSTABLE_INODES
    return False


def spelling(path: str) -> str:
    """The real path as a case-insensitive file system compares it."""
    return unicodedata.normalize("NFC", os.path.realpath(path)).casefold()


def same_spelling(a: str, b: str) -> bool:
    return spelling(a) == spelling(b)


def file_key(
    path: str, info: os.stat_result, by_device: dict[int, bool] | None = None
) -> tuple[int, int | str]:
    """What names one file: (device, inode), or (device, real path case-folded) where inode
    numbers do not name files. ``by_device`` remembers the answer per device for a caller
    that asks about many files (a walk: the real path of every file had cost 60 % of it)."""
    names_files = by_device.get(info.st_dev) if by_device is not None else None
    if names_files is None:
        names_files = inodes_name_files(path)
        if by_device is not None:
            by_device[info.st_dev] = names_files
    if names_files:
        return info.st_dev, info.st_ino
    return info.st_dev, spelling(path)


def _data_home() -> str:
    home = os.path.expanduser("~")
    try:
        import pwd

        home = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        pass
    return os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")


def is_trash_folder(path: str, name: str) -> bool:
    """Whether a folder is a trash (the home trash, a volume's ``.Trash-UID`` or ``.Trash``):
    its files are what the user already threw away, never copies to choose between."""
    if _TRASH_FOLDER.fullmatch(name):
        return True
    if name != "Trash":
        return False
    return os.path.realpath(path) == os.path.realpath(os.path.join(_data_home(), "Trash"))
