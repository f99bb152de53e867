"""A scan for byte-identical files only (``--exact-only``), as lean as jdupes or fclones.

``find_exact`` answers ``ScanOptions(near_duplicates=False, use_cache=False)`` (``serves``
says so) with the same progress, cancel and ``ScanResult`` as ``pipeline.run``, which hands
such scans to it, and the same answer, on a path of its own that imports no numpy (on a small
folder the import cost more than the whole comparison): the walk's files go straight into
lists by size, only files that share a size are read (``byte_reads``: head and tail, then the
whole content), and each set of identical files becomes a group whose keeper
``grouping.keeper`` chooses, as in every scan. With the cache on, the pipeline runs: it keeps
digests between scans.
"""

from __future__ import annotations

import os
import threading
import time

from dupfinder.core.filesystem import change_time_ns
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
from dupfinder.core.scan.byte_reads import SMALL_FILE, Failed, Target, io_threads, read_digests
from dupfinder.core.scan.sampling import Sampler
from dupfinder.core.scan.walk import WalkReport, walk_stats

__all__ = ["find_exact", "serves"]

#: A file as the walk found it: its path, its stat and the kind its name says.
_File = tuple[str, os.stat_result, Kind]


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
    started = time.monotonic()
    cancel = cancel if cancel is not None else threading.Event()
    sample = Sampler(progress)
    report = WalkReport()
    seen, by_size = _walked(options, report, cancel, sample)
    if cancel.is_set():
        return _cancelled(seen, started)
    reads = _Reads(options, sample, cancel)
    sets = reads.identical([f for same in by_size.values() if len(same) > 1 for f in same])
    if sets is None:
        return _cancelled(seen, started)
    references = tuple(os.path.realpath(folder) for folder in options.references)
    groups = sorted((_group(files, digest, references) for files, digest in sets), key=_group_order)
    errors = list(report.errors)
    reported = {error.path for error in errors}
    errors.extend(e for e in reads.problems if e.path not in reported)
    errors.sort(key=lambda e: e.path)
    sample(Progress(Phase.DONE, seen, seen), force=True)
    stats = ScanStats(files_seen=seen, files_bytes_only=seen, seconds=time.monotonic() - started)
    return ScanResult(tuple(groups), tuple(errors), stats)


def _walked(
    options: ScanOptions, report: WalkReport, cancel: threading.Event, sample: Sampler
) -> tuple[int, dict[int, list[_File]]]:
    """The count of files the walk found, and the non-empty ones by size, in walk order."""
    by_size: dict[int, list[_File]] = {}
    seen = 0
    for found in walk_stats(
        options, report, cancel, lambda count: sample(Progress(Phase.WALKING, count))
    ):
        seen += 1
        size = found[1].st_size
        if size:  # every empty file is alike: nothing is gained by removing one
            same = by_size.get(size)
            if same is None:
                by_size[size] = [found]
            else:
                same.append(found)
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

    def identical(self, files: list[_File]) -> list[tuple[list[_File], bytes]] | None:
        """Sets of files with the same bytes (walk order within a set) and their digest;
        None when cancelled."""
        self._sample(Progress(Phase.IDENTICAL, 0, None), force=True)
        first = self._alike(files, whole=False)
        if first is None:
            return None
        sets, partial = [], []
        for same, digest in first:
            if same[0][1].st_size <= SMALL_FILE:
                sets.append((same, digest))
            else:
                partial.extend(same)
        if partial:
            whole = self._alike(partial, whole=True)
            if whole is None:
                return None
            sets.extend(whole)
        self._sample(Progress(Phase.IDENTICAL, self.files_read, self.files_read), force=True)
        return sets

    def _alike(self, files: list[_File], whole: bool) -> list[tuple[list[_File], bytes]] | None:
        """Files of one size and digest (the first read's, or the whole content's), two or
        more, one name per (device, inode), in walk order; None when cancelled."""
        targets: list[Target] = [
            (path, info.st_size, info.st_dev, info.st_ino) for path, info, _ in files
        ]
        before, sample = self._before, self._sample

        def progress(done: int, total: int, current: str | None) -> None:
            sample(Progress(Phase.IDENTICAL, before + done, before + total, current))

        found = read_digests(targets, whole, self._threads, self._cancel, progress)
        if found is None:
            return None
        self._before += len(files)
        buckets: dict[tuple[int, bytes], list[_File]] = {}
        failed = 0
        for file, digest in zip(files, found, strict=True):
            if isinstance(digest, Failed):
                self.problems.append(ScanError(file[0], digest.error, digest.code))
                failed += 1
                continue
            key = (file[1].st_size, digest)
            same = buckets.get(key)
            if same is None:
                buckets[key] = [file]
            else:
                same.append(file)
        self.files_read += len(files) - failed
        return [
            (named, digest)
            for (_, digest), same in buckets.items()
            if len(same) > 1 and len(named := _one_name_each(same)) > 1
        ]


def _one_name_each(files: list[_File]) -> list[_File]:
    """A second name of one (device, inode) is the same file: only its first name stays."""
    names: dict[tuple[int, int], _File] = {}
    for file in files:
        names.setdefault((file[1].st_dev, file[1].st_ino), file)
    return list(names.values())


def _group(files: list[_File], digest: bytes, references: tuple[str, ...]) -> Group:
    """A group of identical files, its kind the one their names share (else other), the copy
    to keep first as ``grouping.keeper`` orders them."""
    kinds = {kind for _, _, kind in files}
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
            ctime_ns=change_time_ns(info),
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
