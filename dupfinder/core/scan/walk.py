"""Find the files a scan compares: folders in, ``FileEntry`` values out.

A file is its (device, inode), never its path text: the walk remembers every folder and
every file it has listed by that pair, so a file reached by two paths (a symlinked root or
folder, roots spelt differently, a followed link into another root, a folder mounted twice,
hard links) is listed once, under the first path that reached it. Symlinks are not followed
unless asked, and a link loop is walked once. Where a folder's listing reports inode 0
(Windows, some network file systems) the file's own stat gives its identity. Folders it cannot read and special files with
a known suffix become ``ScanError`` values, never exceptions.

The byte-identical scan's walk (:func:`walk_by_size`) lists ordinary folders in compiled code
(``walk_kernels``) where it is built, and every other folder here, with the same answer.
"""

from __future__ import annotations

import operator
import os
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from dupfinder.core.filesystem import change_time_ns, file_key, is_trash_folder
from dupfinder.core.fingerprints.formats import kind_for_path, untold_may_be_text
from dupfinder.core.model import FileEntry, Kind, ScanError, ScanOptions
from dupfinder.core.scan.compiled import walk_kernels
from dupfinder.core.wording import describe_os_error

if TYPE_CHECKING:  # the columns import numpy, which a scan of identical files alone never needs
    from dupfinder.core.fingerprints.columns import FileColumns

__all__ = [
    "FileStat",
    "Sized",
    "WalkReport",
    "entry_from_stat",
    "normalise_roots",
    "walk",
    "walk_by_size",
    "walk_into",
    "walk_listed",
    "walk_stats",
]


@dataclass(slots=True)
class WalkReport:
    """What the walk saw besides the files it yields."""

    errors: list[ScanError] = field(default_factory=list)
    skipped_links: int = 0
    #: files not listed again because another path to the same (device, inode) was listed
    same_file_again: int = 0


#: A file the walk lists: its path, its stat and the kind it is compared as.
_Found = tuple[str, os.stat_result, Kind]


class FileStat(Protocol):
    """What :func:`walk_by_size` keeps of a file's stat: an ``os.stat_result``, or the
    compiled listing's record of the same fields (``walk_kernels.FileStat``)."""

    @property
    def st_mode(self) -> int: ...
    @property
    def st_ino(self) -> int: ...
    @property
    def st_dev(self) -> int: ...
    @property
    def st_nlink(self) -> int: ...
    @property
    def st_size(self) -> int: ...
    @property
    def st_mtime_ns(self) -> int: ...
    @property
    def st_ctime_ns(self) -> int: ...


#: Files by size as :func:`walk_by_size` lists them: (path, stat, kind) in walk order.
Sized = dict[int, list[tuple[str, FileStat, Kind]]]
#: A file's kind from its path, name and stat, or None when the walk passes it over.
_KindFor = Callable[[str, str, os.stat_result, ScanOptions, "WalkReport", "_Seen"], Kind | None]
#: A listing's entries are walked in name order.
_NAME = operator.attrgetter("name")
#: The walk tells its caller the count of files found at the first and then every this many.
_TELL_EVERY = 64


def normalise_roots(roots: tuple[Path, ...]) -> list[str]:
    """Absolute, de-duplicated roots; a root inside another root is dropped (walked once).

    Only the spelling is compared here (``.``, ``..``, ``//`` and relative paths collapse);
    the walk itself catches two spellings of one folder by (device, inode).
    """
    absolute = sorted({os.path.abspath(os.fspath(root)) for root in roots})
    kept: list[str] = []
    for root in absolute:
        if not any(root == k or root.startswith(k.rstrip(os.sep) + os.sep) for k in kept):
            kept.append(root)
    return kept


def _matches(
    patterns: tuple[str, ...], options: ScanOptions, path: str, is_dir: bool = False
) -> bool:
    """gitignore-style patterns, relative to the scanned folder (``core.patterns``: imported
    when a scan has patterns, since pathspec takes longer to import than a small scan runs)."""
    from dupfinder.core.scan.patterns import path_patterns

    return path_patterns(patterns, tuple(map(os.fspath, options.roots))).matches(path, is_dir)


def walk(
    options: ScanOptions,
    report: WalkReport | None = None,
    cancel: threading.Event | None = None,
    on_file: Callable[[int], None] | None = None,
) -> Iterator[FileEntry]:
    """Yield every file under ``options.roots`` that the scan should fingerprint, once each.

    Paths through followed symlinks are walked last, so a file reachable both ways is
    listed under its real path.
    """
    for path, info, kind in _found(options, report, cancel, on_file):
        yield entry_from_stat(path, info, kind)


def walk_into(
    files: FileColumns,
    options: ScanOptions,
    report: WalkReport | None = None,
    cancel: threading.Event | None = None,
    on_file: Callable[[int], None] | None = None,
) -> None:
    """:func:`walk`, each file appended to ``files`` straight from its stat (a scan of a
    million files builds no ``FileEntry`` per file)."""
    append = files.append_stat
    for path, info, kind in _found(options, report, cancel, on_file):
        append(path, info, kind)


def walk_stats(
    options: ScanOptions,
    report: WalkReport | None = None,
    cancel: threading.Event | None = None,
    on_file: Callable[[int], None] | None = None,
    named: bool = True,
) -> Iterator[tuple[str, os.stat_result, Kind]]:
    """:func:`walk` as (path, stat, kind) of each file, for a caller that keeps only a few
    of the stat's values (the byte-identical scan: sizes first, the rest for the few files
    that share one). ``named`` False: where the options compare every file by its bytes
    whatever its kind, no file's kind is looked up (``Kind.OTHER`` stands in): the caller
    names the few files it reports (``formats.kind_for_path``)."""
    return _found(options, report, cancel, on_file, named)


def walk_by_size(
    options: ScanOptions,
    report: WalkReport | None = None,
    cancel: threading.Event | None = None,
    on_file: Callable[[int], None] | None = None,
) -> Sized:
    """:func:`walk_stats` with ``named`` False, its files in lists by size, each list in walk
    order: the byte-identical scan's walk. Where the listing is compiled (POSIX, built) and
    the options leave every file's fate to its stat (no patterns, links not followed), each
    folder is listed there, files added to their lists without a Python step per file; a
    folder it hands back (anything unusual in it) is walked here, with everything below it,
    exactly as :func:`walk_stats` walks it."""
    sized: Sized = {}
    report = report if report is not None else WalkReport()
    walker: _Walker | None = None
    if walk_kernels is not None and _listed_compiled(options):
        walker = _SizedWalker(options, report, cancel, on_file, sized)
    for found in _found(options, report, cancel, on_file, named=False, walker=walker):
        same = sized.get(found[1].st_size)
        if same is None:
            sized[found[1].st_size] = [found]
        else:
            same.append(found)
    return sized


def _listed_compiled(options: ScanOptions) -> bool:
    """Whether the compiled listing answers as the walk would: every file compared by its
    bytes, no patterns to match, no link followed."""
    return (
        _names_no_kind(options)
        and not options.include
        and not options.exclude
        and not options.follow_symlinks
    )


def _found(
    options: ScanOptions,
    report: WalkReport | None,
    cancel: threading.Event | None,
    on_file: Callable[[int], None] | None,
    named: bool = True,
    walker: _Walker | None = None,
) -> Iterator[_Found]:
    if walker is None:
        walker = _Walker(options, report if report is not None else WalkReport(), cancel, on_file)
    if not named and _names_no_kind(options):
        walker.kind_for = _listed_as
    # a root spelt without symlinks goes first, for the same reason
    roots = sorted(normalise_roots(options.roots), key=lambda r: os.path.realpath(r) != r)
    for root in roots:
        try:
            root_stat = os.stat(root)
        except OSError as exc:
            walker.report.errors.append(ScanError(root, f"cannot open: {_missing(root, exc)}"))
            continue
        if stat.S_ISREG(root_stat.st_mode):
            yield from walker.admit(root, os.path.basename(root), root_stat)
        elif is_trash_folder(root, os.path.basename(root)):
            walker.report.errors.append(
                ScanError(root, "a trash folder is never scanned: its files were thrown away")
            )
        elif walker.seen.first_visit(root, root_stat, walker.seen.dirs):
            yield from walker.tree(root)
        # else: the same folder as an earlier root, spelt another way
    while walker.linked and not walker.cancelled:
        path, name, info = walker.linked.pop(0)
        yield from walker.admit(path, name, info)


def walk_listed(
    paths: Iterable[str],
    options: ScanOptions,
    report: WalkReport | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[FileEntry]:
    """Like :func:`walk` over a list of files (and folders), read lazily: a list of millions of
    paths is never held, and each entry obeys the same filters and identity rule."""
    walker = _Walker(options, report if report is not None else WalkReport(), cancel, None)
    for listed in paths:
        if walker.cancelled:
            return
        path = os.path.abspath(listed)
        try:
            info = os.stat(path)
        except OSError as exc:
            walker.report.errors.append(ScanError(path, f"cannot open: {_missing(path, exc)}"))
            continue
        for found in walker.admit(path, os.path.basename(path), info):
            yield entry_from_stat(*found)
    while walker.linked and not walker.cancelled:
        path, name, info = walker.linked.pop(0)
        for found in walker.admit(path, name, info):
            yield entry_from_stat(*found)


class _Walker:
    """The state of one walk: what was seen, what waits behind a followed link."""

    def __init__(
        self,
        options: ScanOptions,
        report: WalkReport,
        cancel: threading.Event | None,
        on_file: Callable[[int], None] | None,
    ) -> None:
        self.options = options
        self.report = report
        self.cancel = cancel
        self.on_file = on_file
        self.seen = _Seen()
        self.found = 0
        self.linked: list[tuple[str, str, os.stat_result]] = []
        #: How a file's kind is told (or that it is passed over).
        self.kind_for: _KindFor = _kind_for

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def tree(self, root: str) -> Iterator[_Found]:
        stack = [root]
        # looked up once a walk, not once a file (a walk of /usr: 148k files, 16k folders)
        kind_for, options, report, seen = self.kind_for, self.options, self.report, self.seen
        while stack and not self.cancelled:
            folder = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    children = sorted(listing, key=_NAME)
            except OSError as exc:
                self.report.errors.append(
                    ScanError(folder, f"cannot read folder: {describe_os_error(exc)}")
                )
                continue
            folders = []
            for child in children:  # files in name order: the first name of an inode is listed
                info = self._stat(child)
                if info is None:
                    continue
                if child.is_symlink():  # followed, but only after every real path
                    self.linked.append((child.path, child.name, info))
                elif stat.S_ISDIR(info.st_mode):
                    if self._folder_wanted(child.name, child.path, info):
                        folders.append(child.path)
                else:  # what ``admit`` does for a file, without a generator per file
                    path = child.path
                    kind = kind_for(path, child.name, info, options, report, seen)
                    if kind is not None:
                        self._found_one()
                        yield path, info, kind
            stack.extend(reversed(folders))

    def _found_one(self) -> None:
        """Count a file; the caller hears of every ``_TELL_EVERY``-th (its progress is
        sampled anyway, and a call per file cost more than the file's stat)."""
        self.found += 1
        if self.on_file is not None and self.found % _TELL_EVERY == 1:
            self.on_file(self.found)

    def admit(self, path: str, name: str, info: os.stat_result) -> Iterator[_Found]:
        """A file is yielded (once per identity); a folder is walked (once per identity)."""
        if stat.S_ISDIR(info.st_mode):
            if self._folder_wanted(name, path, info):
                yield from self.tree(path)
            return
        kind = self.kind_for(path, name, info, self.options, self.report, self.seen)
        if kind is not None:
            self._found_one()
            yield path, info, kind

    def _folder_wanted(self, name: str, path: str, info: os.stat_result) -> bool:
        if self.options.exclude and _matches(self.options.exclude, self.options, path, is_dir=True):
            return False
        if is_trash_folder(path, name):  # what the user threw away is no copy to choose
            return False
        # not a link loop, a second link to a walked folder or a folder mounted twice
        return self.seen.first_visit(path, info, self.seen.dirs)

    def _stat(self, child: os.DirEntry[str]) -> os.stat_result | None:
        name = child.name
        if not self.options.include_hidden and name.startswith("."):
            return None
        try:
            if child.is_symlink() and not self.options.follow_symlinks:
                self.report.skipped_links += 1
                return None
            info = child.stat(follow_symlinks=True)
            if info.st_ino == 0:  # Windows' listing (some network file systems too) has no
                info = os.stat(child.path)  # identity: the file's own stat has it
            return info
        except OSError as exc:
            if _broken_link(child.path, exc):
                self.report.errors.append(ScanError(child.path, _missing(child.path, exc)))
            elif kind_for_path(name) is not None:  # listed a moment ago: it vanished
                self.report.errors.append(ScanError(child.path, describe_os_error(exc)))
            elif _listed_as_folder(child):  # its files would be missed without a word
                self.report.errors.append(
                    ScanError(child.path, f"cannot read folder: {describe_os_error(exc)}")
                )
            return None


class _SizedWalker(_Walker):
    """A walk whose folders the compiled listing lists where it can, each file added to
    ``sized`` there; the files of a folder it hands back come from the Python walk."""

    def __init__(
        self,
        options: ScanOptions,
        report: WalkReport,
        cancel: threading.Event | None,
        on_file: Callable[[int], None] | None,
        sized: Sized,
    ) -> None:
        super().__init__(options, report, cancel, on_file)
        self.sized = sized

    def tree(self, root: str) -> Iterator[_Found]:
        if walk_kernels is None:  # never made so: the Python walk would answer
            yield from super().tree(root)
            return
        listed = walk_kernels.folder_by_size
        options, report, seen = self.options, self.report, self.seen
        hidden, least = options.include_hidden, options.min_size
        most = -1 if options.max_size is None else options.max_size
        stack = [root]
        while stack and not self.cancelled:
            folder = stack.pop()
            found = listed(
                folder, hidden, least, most, seen.by_device, seen.files, self.sized, Kind.OTHER
            )
            if found is None:  # the Python walk answers for it (and everything below it)
                yield from super().tree(folder)
                continue
            folders, added, again, links = found
            report.same_file_again += again
            report.skipped_links += links
            self._found_many(added)
            wanted = [
                path
                for path, name, info in folders
                # the folder's identity is all ``_folder_wanted`` reads of its stat
                if self._folder_wanted(name, path, cast(os.stat_result, info))
            ]
            stack.extend(reversed(wanted))

    def _found_many(self, count: int) -> None:
        """Count ``count`` files at once; the caller hears as :meth:`_found_one` would tell
        it (once past every ``_TELL_EVERY``-th file)."""
        before, self.found = self.found, self.found + count
        if (
            self.on_file is not None
            and (before - 1) // _TELL_EVERY < (self.found - 1) // _TELL_EVERY
        ):
            self.on_file(self.found)


@dataclass(slots=True)
class _Seen:
    """Folders and files already listed, by what names one file (``core.filesystem``):
    (device, inode), or the real path case-folded where inode numbers do not name files, or
    the real path as the system compares names where a file reports no inode number (two
    files are never taken for one)."""

    dirs: set[tuple[int, int | str]] = field(default_factory=set)
    files: set[tuple[int, int | str]] = field(default_factory=set)
    by_device: dict[int, bool] = field(default_factory=dict)  # inode numbers name files

    def first_visit(
        self, path: str, info: os.stat_result, into: set[tuple[int, int | str]]
    ) -> bool:
        if info.st_ino == 0:  # no identity from the system at all: its path names it
            key: tuple[int, int | str] = (info.st_dev, os.path.normcase(os.path.realpath(path)))
        elif self.by_device.get(info.st_dev):  # known to name files: ``file_key``'s answer
            key = (info.st_dev, info.st_ino)
        else:
            key = file_key(path, info, self.by_device)
        if key in into:
            return False
        into.add(key)
        return True


def _broken_link(path: str, exc: OSError) -> bool:
    return isinstance(exc, FileNotFoundError) and os.path.islink(path)


def _missing(path: str, exc: OSError) -> str:
    """Why a listed path cannot be opened: a broken symbolic link, a path that does not
    exist (a name given, not a file that vanished), or the OS error."""
    if _broken_link(path, exc):
        try:
            target = os.readlink(path)
        except OSError:
            return "a broken symbolic link"
        return f"a broken symbolic link (to {target}, which does not exist)"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    return describe_os_error(exc)


def _listed_as_folder(child: os.DirEntry[str]) -> bool:
    """The folder's listing says this entry is a folder (no stat: it just failed)."""
    try:
        return child.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _kind_for(
    path: str,
    name: str,
    info: os.stat_result,
    options: ScanOptions,
    report: WalkReport,
    seen: _Seen,
) -> Kind | None:
    """The kind a file is listed as, or None when the scan passes it over (or has listed it
    already under another path)."""
    kind = kind_for_path(name)
    told = kind is not None
    if kind is None:  # text is decided by sniffing the content; the rest is compared as bytes
        sniff = options.near_duplicates and Kind.TEXT in options.kinds and untold_may_be_text(name)
        kind = Kind.TEXT if sniff else Kind.OTHER
    if kind not in options.kinds or (kind is Kind.OTHER and not options.identical):
        return None
    return _listed_as(path, name, info, options, report, seen, kind, told)


def _names_no_kind(options: ScanOptions) -> bool:
    """Whether a file's kind changes nothing about whether the walk lists it."""
    return options.identical and not options.near_duplicates and options.kinds >= _EVERY_KIND


_EVERY_KIND = frozenset(Kind)


def _listed_as(
    path: str,
    name: str,
    info: os.stat_result,
    options: ScanOptions,
    report: WalkReport,
    seen: _Seen,
    kind: Kind = Kind.OTHER,
    told: bool | None = None,
) -> Kind | None:
    """``kind`` where the walk lists a file of a kind the scan compares, else None: ``told``
    says whether its name names a kind. Called as it stands (a :func:`_kind_for` where every
    kind is compared by its bytes), no name is looked up but a special file's, and
    ``Kind.OTHER`` stands in for the kind."""
    if options.include and not _matches(options.include, options, path):
        return None
    if options.exclude and _matches(options.exclude, options, path):
        return None
    if not stat.S_ISREG(info.st_mode):
        if told or (told is None and kind_for_path(name) is not None):
            # sockets, pipes and devices without a document's name are passed over
            report.errors.append(ScanError(path, "not a regular file", "unsupported"))
        return None
    if info.st_size < options.min_size:
        return None
    if options.max_size is not None and info.st_size > options.max_size:
        return None
    if not seen.first_visit(path, info, seen.files):
        report.same_file_again += 1
        return None
    return kind


def entry_from_stat(path: str, info: os.stat_result, kind: Kind) -> FileEntry:
    """The walk's record of one file: its path, identity and change stamp."""
    return FileEntry(
        path,
        info.st_size,
        info.st_mtime_ns,
        kind,
        dev=info.st_dev,
        ino=info.st_ino,
        ctime_ns=change_time_ns(info),  # 0 on Windows: its ctime is the creation time
        links=info.st_nlink,
    )
