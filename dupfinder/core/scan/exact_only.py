"""A scan for byte-identical files only (``--exact-only``), as lean as jdupes or fclones.

``find_exact`` answers ``ScanOptions(near_duplicates=False, use_cache=False)`` (``serves``
says so) with the same progress, cancel and ``ScanResult`` as ``pipeline.run``, which hands
such scans to it, and the same answer, on a path of its own that imports no numpy (on a small
folder the import cost more than the whole comparison): the walk's files go straight into
lists by size, without their kinds; only files that share a size are read (``byte_reads``: a
small file whole, a large one's head and tail, then its whole content where those agree), and
each set of identical files becomes a group, its kind named from its files' names, whose
keeper ``grouping.keeper`` chooses, as in every scan. With the cache on, the pipeline runs: it
keeps digests between scans.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import time
from collections.abc import Iterator

from dupfinder.core.filesystem import CTIME_IS_CHANGE_TIME
from dupfinder.core.fingerprints.formats import kind_for_path
from dupfinder.core.grouping.keeper import suggested
from dupfinder.core.model import (
    Fingerprint,
    Group,
    Kind,
    Member,
    Phase,
    Progress,
    ProgressCallback,
    ScanError,
    ScanOptions,
    ScanResult,
    ScanStats,
    no_progress,
)
from dupfinder.core.scan.byte_reads import Alike, Reads, Target, io_threads, read_sets
from dupfinder.core.scan.sampling import Sampler
from dupfinder.core.scan.walk import WalkReport, walk_by_size

__all__ = ["find_exact", "serves"]


def serves(options: ScanOptions) -> bool:
    """Whether :func:`find_exact` answers these options: byte-identical files only, without
    the cache (with it, the pipeline keeps digests between scans)."""
    return not options.near_duplicates and not options.use_cache


def find_exact(
    options: ScanOptions,
    progress: ProgressCallback = no_progress,
    cancel: threading.Event | None = None,
) -> ScanResult:
    """Groups of byte-identical files under ``options.roots``, read without the cache."""
    if options.near_duplicates:
        raise ValueError("find_exact finds byte-identical files only: near_duplicates=False")
    with _collector_paused():
        return _find(options, progress, cancel)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cycle collector off while the scan runs: it makes a few small objects per file and
    no cycles, and the collector walked every one of them again and again (4 % of the CPU of
    a scan of 13,900 files)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _find(
    options: ScanOptions, progress: ProgressCallback, cancel: threading.Event | None
) -> ScanResult:
    started = time.monotonic()
    cancel = cancel if cancel is not None else threading.Event()
    sample = Sampler(progress)
    report = WalkReport()
    seen, by_size = _walked(options, report, cancel, sample)
    if cancel.is_set():
        return _cancelled(seen, started)
    reads = _Reads(options, sample, cancel)
    sets = reads.identical([same for same in by_size.values() if len(same) > 1])
    if sets is None:
        return _cancelled(seen, started)
    references = tuple(os.path.realpath(folder) for folder in options.references)
    groups = [_group(alike, references) for alike in sets]
    groups.sort(key=_group_order)
    errors = list(report.errors)
    reported = {error.path for error in errors}
    errors.extend(e for e in reads.problems if e.path not in reported)
    errors.sort(key=lambda e: e.path)
    sample(Progress(Phase.DONE, seen, seen), force=True)
    stats = ScanStats(files_seen=seen, files_bytes_only=seen, seconds=time.monotonic() - started)
    return ScanResult(tuple(groups), tuple(errors), stats)


def _walked(
    options: ScanOptions, report: WalkReport, cancel: threading.Event, sample: Sampler
) -> tuple[int, dict[int, list[Target]]]:
    """The count of files the walk found, and the non-empty ones by size, in walk order
    (one name per file: the walk lists each (device, inode) once), each as the walk gave it
    (a tuple made again per file and a look-up of its list in Python cost /usr's 148k files
    80 ms)."""
    by_size = walk_by_size(
        options, report, cancel, lambda count: sample(Progress(Phase.WALKING, count))
    )
    seen = sum(map(len, by_size.values()))
    by_size.pop(0, None)  # every empty file is alike: nothing is gained by removing one
    sample(Progress(Phase.WALKING, seen, seen), force=True)
    return seen, by_size


class _Reads:
    """The two passes over files that share a size: first reads, then whole contents."""

    def __init__(self, options: ScanOptions, sample: Sampler, cancel: threading.Event) -> None:
        self._threads = io_threads(options)
        self._sample = sample
        self._cancel = cancel
        self.problems: list[ScanError] = []
        self.files_read = 0
        self._before = 0  # files of earlier passes, so progress runs on across both

    def identical(self, sizes: list[list[Target]]) -> list[Alike] | None:
        """Sets of files with the same bytes (walk order within a set) and their digest;
        None when cancelled."""
        self._sample(Progress(Phase.IDENTICAL, 0, None), force=True)
        first = self._pass(sizes, whole=False)
        if first is None:
            return None
        sets = [alike for alike in first if alike.digest is not None]
        partial = [alike.files for alike in first if alike.digest is None]
        if partial:
            whole = self._pass(partial, whole=True)
            if whole is None:
                return None
            sets.extend(whole)
        self._sample(Progress(Phase.IDENTICAL, self.files_read, self.files_read), force=True)
        return sets

    def _pass(self, sizes: list[list[Target]], whole: bool) -> list[Alike] | None:
        """Sets of two or more files of one size whose first reads (``whole``: whole
        contents) agree; None when cancelled."""
        before, sample = self._before, self._sample

        def progress(done: int, total: int, current: str | None) -> None:
            sample(Progress(Phase.IDENTICAL, before + done, before + total, current))

        found: Reads | None = read_sets(sizes, whole, self._threads, self._cancel, progress)
        if found is None:
            return None
        self._before += sum(map(len, sizes))
        self.problems.extend(
            ScanError(path, why.error, why.code) for (path, *_), why in found.failed
        )
        self.files_read += found.files_read
        return found.sets


def _group(alike: Alike, references: tuple[str, ...]) -> Group:
    """A group of identical files, its kind the one their names share (else other), the copy
    to keep first as ``grouping.keeper`` orders them."""
    files, digest = alike.files, alike.digest
    assert digest is not None  # a set of whole contents
    kinds = {kind_for_path(path) or Kind.OTHER for path, *_ in files}
    kind = kinds.pop() if len(kinds) == 1 else Kind.OTHER
    fingerprint = Fingerprint(kind, int.from_bytes(digest[:8], "big"))
    content = digest.hex()
    members = tuple(
        Member(
            path,
            info.st_size,
            info.st_mtime_ns,
            0,
            fingerprint,
            dev=info.st_dev,
            ino=info.st_ino,
            ctime_ns=info.st_ctime_ns if CTIME_IS_CHANGE_TIME else 0,  # ``change_time_ns``
            links=info.st_nlink,
            content_hash=content,
        )
        for path, info, _ in files
    )
    return suggested(Group(kind, members), references)


def _group_order(group: Group) -> tuple[int, str]:
    """Largest groups first, then by the representative's path, as every scan orders them."""
    return (-len(group.members), group.representative.path)


def _cancelled(seen: int, started: float) -> ScanResult:
    stats = ScanStats(files_seen=seen, seconds=time.monotonic() - started, cancelled=True)
    return ScanResult(stats=stats)
