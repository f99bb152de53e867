"""Facts about file systems that decide what a name means: the mount holding a path, which
names are one file, and which folders are the system trash.

On most file systems a file is its (device, inode). FAT, exFAT, NTFS through FUSE and network
shares may give one file a new inode number for each spelling of its path (``DCIM/a.jpg``,
``dcim/A.JPG``); there, a file is its real path compared case-folded. The walk lists each
file once by :func:`file_key`, and an action proves two names are two files the same way.

A bind mount of a file system shows the same ``st_dev`` as the file system itself, yet a
rename between the two fails (``EXDEV``): only the mount table tells them apart. Linux lists
every mount in ``/proc/self/mountinfo`` (mount points with spaces and other bytes written as
octal escapes); elsewhere the top of a file system is found by walking up while the device
stays the same. The table is read again on every call (a card plugged in while the app is
open is a new mount), and parsed again only when its text changed.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import unicodedata
from dataclasses import dataclass

__all__ = [
    "CTIME_IS_CHANGE_TIME",
    "NAMES_IGNORE_CASE",
    "UNSTABLE_INODES",
    "Mount",
    "casefolded",
    "change_time_ns",
    "file_key",
    "fold_name",
    "inodes_name_files",
    "is_trash_folder",
    "mount_of",
    "mounts",
    "same_spelling",
    "spelling",
]

_TRASH_FOLDER = re.compile(r"\.Trash(-\d+)?")

#: Linux's mount table; elsewhere none is read (the top of a mount is found by walking up).
_MOUNTINFO = "/proc/self/mountinfo" if sys.platform.startswith("linux") else ""
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


#: Whether ``st_ctime_ns`` is when the file last changed (POSIX: a rewrite moves it even with
#: the old mtime put back). On Windows it is when the file was created: a file rewritten in
#: place keeps it, so there size, mtime and the file index decide, never that time.
CTIME_IS_CHANGE_TIME = os.name != "nt"


def change_time_ns(info: os.stat_result) -> int:
    """The file's change time, or 0 ("not known") where the system reports none."""
    return info.st_ctime_ns if CTIME_IS_CHANGE_TIME else 0


#: Whether the system's own file systems find a name whatever its case (NTFS on Windows, APFS
#: and HFS+ on macOS, as they are set up by default): there ``Photos/A.JPG`` is ``photos/a.jpg``.
NAMES_IGNORE_CASE = sys.platform in ("win32", "darwin")


def fold_name(text: str) -> str:
    """A path or pattern as the system compares names: NFC and case-folded where names ignore
    case, unchanged where case tells two names apart."""
    return casefolded(text) if NAMES_IGNORE_CASE else text


def casefolded(text: str) -> str:
    """``text`` as a case-insensitive file system compares names (NFC, then case-folded)."""
    return unicodedata.normalize("NFC", text).casefold()


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
        if not _MOUNTINFO:
            return ()
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


def spelling(path: str) -> str:
    """The real path as a case-insensitive file system compares it."""
    return casefolded(os.path.realpath(path))


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
    except (ImportError, AttributeError, KeyError):  # Windows has neither
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
