"""Find the files a scan compares: folders in, ``FileEntry`` values out.

The walk never follows symlinks unless asked; when it does, it remembers every folder by
(device, inode) so a link loop is walked once. Folders it cannot read and special files
with a known suffix become ``ScanError`` values, never exceptions.
"""

from __future__ import annotations

import fnmatch
import os
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dupfinder.core.formats import kind_for_path
from dupfinder.core.model import FileEntry, ScanError, ScanOptions

__all__ = ["WalkReport", "describe_os_error", "normalise_roots", "walk"]


@dataclass(slots=True)
class WalkReport:
    """What the walk saw besides the files it yields."""

    errors: list[ScanError] = field(default_factory=list)
    skipped_links: int = 0


def describe_os_error(exc: OSError) -> str:
    """A short, user-facing reason for a failed file operation."""
    if isinstance(exc, FileNotFoundError):
        return "the file vanished during the scan"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, IsADirectoryError):
        return "is a folder"
    reason = exc.strerror or exc.__class__.__name__
    return reason[0].lower() + reason[1:] if reason else "cannot be read"


def normalise_roots(roots: tuple[Path, ...]) -> list[str]:
    """Absolute, de-duplicated roots; a root inside another root is dropped (walked once)."""
    absolute = sorted({os.path.abspath(os.fspath(root)) for root in roots})
    kept: list[str] = []
    for root in absolute:
        if not any(root == k or root.startswith(k.rstrip(os.sep) + os.sep) for k in kept):
            kept.append(root)
    return kept


def _matches(patterns: tuple[str, ...], name: str, path: str) -> bool:
    posix_path = path.replace(os.sep, "/")
    return any(fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(posix_path, p) for p in patterns)


def walk(
    options: ScanOptions,
    report: WalkReport | None = None,
    cancel: threading.Event | None = None,
    on_file: Callable[[int], None] | None = None,
) -> Iterator[FileEntry]:
    """Yield every file under ``options.roots`` that the scan should fingerprint."""
    report = report if report is not None else WalkReport()
    seen_dirs: set[tuple[int, int]] = set()
    found = 0
    for root in normalise_roots(options.roots):
        try:
            root_stat = os.stat(root)
        except OSError as exc:
            report.errors.append(ScanError(root, f"cannot open: {describe_os_error(exc)}"))
            continue
        if stat.S_ISREG(root_stat.st_mode):
            entry = _entry_for(root, os.path.basename(root), root_stat, options, report)
            if entry is not None:
                yield entry
            continue
        stack = [root]
        seen_dirs.add((root_stat.st_dev, root_stat.st_ino))
        while stack:
            if cancel is not None and cancel.is_set():
                return
            folder = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    children = sorted(listing, key=lambda e: e.name, reverse=True)
            except OSError as exc:
                report.errors.append(
                    ScanError(folder, f"cannot read folder: {describe_os_error(exc)}")
                )
                continue
            for child in children:
                entry = _visit(child, options, report, seen_dirs, stack)
                if entry is not None:
                    found += 1
                    if on_file is not None:
                        on_file(found)
                    yield entry


def _visit(
    child: os.DirEntry[str],
    options: ScanOptions,
    report: WalkReport,
    seen_dirs: set[tuple[int, int]],
    stack: list[str],
) -> FileEntry | None:
    name = child.name
    if not options.include_hidden and name.startswith("."):
        return None
    try:
        is_link = child.is_symlink()
        if is_link and not options.follow_symlinks:
            report.skipped_links += 1
            return None
        info = child.stat(follow_symlinks=True)
    except OSError as exc:
        if kind_for_path(name) is not None:
            report.errors.append(ScanError(child.path, describe_os_error(exc)))
        elif _listed_as_folder(child):  # its files would be missed without a word
            report.errors.append(
                ScanError(child.path, f"cannot read folder: {describe_os_error(exc)}")
            )
        return None
    if stat.S_ISDIR(info.st_mode):
        if options.exclude and _matches(options.exclude, name, child.path):
            return None
        key = (info.st_dev, info.st_ino)
        if key not in seen_dirs:  # a symlink loop or a second link to a walked folder
            seen_dirs.add(key)
            stack.append(child.path)
        return None
    return _entry_for(child.path, name, info, options, report)


def _listed_as_folder(child: os.DirEntry[str]) -> bool:
    """The folder's listing says this entry is a folder (no stat: it just failed)."""
    try:
        return child.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _entry_for(
    path: str, name: str, info: os.stat_result, options: ScanOptions, report: WalkReport
) -> FileEntry | None:
    kind = kind_for_path(name)
    if kind is None or kind not in options.kinds:
        return None
    if options.include and not _matches(options.include, name, path):
        return None
    if options.exclude and _matches(options.exclude, name, path):
        return None
    if not stat.S_ISREG(info.st_mode):
        report.errors.append(ScanError(path, "not a regular file", "unsupported"))
        return None
    if info.st_size < options.min_size:
        return None
    if options.max_size is not None and info.st_size > options.max_size:
        return None
    return FileEntry(path, info.st_size, info.st_mtime_ns, kind)
