"""Byte-identical files of any type: size first, then head and tail, then the whole content.

The way fclones and Czkawka find exact copies, so that most files are never read: files of
a size nobody else has cannot have a copy; of the rest, only those whose first and last
4 KiB agree are read whole. Contents are compared by their BLAKE3 digest (128 bits): a
cryptographic hash, so no two different files share one by accident or by design, which a
fast non-cryptographic hash (xxHash, CRC) cannot promise. Files up to 64 KiB are read whole
at once, where a second read would cost more than it saves.

A file is its (device, inode): two names of one inode (hard links) are one file and never
make a pair. Reads go through a thread pool (the work waits on the disk, and BLAKE3 releases
the GIL), in chunks of 1 MiB so memory stays bounded whatever the file size; ``cancel`` is
honoured between chunks. A file that changes size or identity between the walk and its
reads, or cannot be read, is reported and left out.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from dupfinder.core.fingerprints.digest import CHUNK, DIGEST_BYTES, digest_of, hasher
from dupfinder.core.jit import lazy
from dupfinder.core.scan.byte_reads import (
    PARTIAL_BYTES,
    SMALL_FILE,
    Cancelled,
    Changed,
    whole_digest,
)
from dupfinder.core.wording import describe_os_error

__all__ = [
    "DigestStore",
    "IdenticalReport",
    "IdenticalSet",
    "ReadProblem",
    "find_identical",
]

#: Flags of every open: read-only, and binary where the system tells the two apart.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)
#: Work handed to one thread at a time: files, and bytes of whole-file reads.
_BATCH_FILES = 64
_BATCH_BYTES = 32 << 20

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
else:
    np = lazy.module("numpy")  # a rescan given its last result touches no array
#: Digests looked up in, or written to, the store at once: a rescan of a million files held
#: every remembered digest in one dict (some 120 bytes a file) and every fresh one in another.
_STORE_ROWS = 20_000
#: Progress sink: files done, files to read so far, the last file read.
ProgressSink = Callable[[int, int, str | None], None]


@dataclass(frozen=True, slots=True)
class IdenticalSet:
    """Rows (indices into the caller's file list) of files with the same bytes."""

    rows: tuple[int, ...]
    size: int
    digest: bytes

    @property
    def content_hash(self) -> str:
        """The BLAKE3 digest (128 bits) as 32 hex digits."""
        return self.digest.hex()


@dataclass(frozen=True, slots=True)
class ReadProblem:
    """A file left out of the comparison, and why."""

    row: int
    error: str
    code: str


@dataclass(slots=True)
class IdenticalReport:
    sets: list[IdenticalSet] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)
    files_read: int = 0
    bytes_read: int = 0
    files_from_store: int = 0
    cancelled: bool = False


class DigestStore(Protocol):
    """Digests remembered from earlier scans, by row, for files unchanged since.

    ``whole`` False is the first read (head and tail of a large file, all of a small one),
    True the whole content of a large file."""

    def lookup(self, whole: bool, rows: list[int]) -> dict[int, bytes]: ...

    def store(self, whole: bool, digests: dict[int, bytes]) -> None: ...


@dataclass(frozen=True, slots=True)
class _Read:
    """What one read of a file found: its digest, whether it covers the whole file."""

    digest: bytes
    complete: bool
    dev: int
    ino: int
    bytes_read: int


def _open_checked(path: str, size: int, identity: tuple[int, int] | None) -> tuple[int, int, int]:
    """Open ``path`` and check it is still the walk's file: (fd, dev, ino)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if info.st_size != size or (
            identity is not None and identity != (info.st_dev, info.st_ino)
        ):
            raise Changed
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_dev, info.st_ino


def _read_exactly(fd: int, count: int) -> bytes:
    first = os.read(fd, min(count, CHUNK))  # one call for all but the largest reads
    if len(first) == count:
        return first
    if not first:
        raise Changed
    parts = [first]
    count -= len(first)
    while count > 0:
        part = os.read(fd, min(count, CHUNK))
        if not part:
            raise Changed  # shorter than its size: truncated while we read
        parts.append(part)
        count -= len(part)
    return b"".join(parts)


def _first_read(path: str, size: int, identity: tuple[int, int] | None) -> _Read:
    """Head and tail of a large file, or the whole of a small one."""
    fd, dev, ino = _open_checked(path, size, identity)
    try:
        if size <= SMALL_FILE:
            data = _read_exactly(fd, size)
            return _Read(digest_of(data), True, dev, ino, size)
        state = hasher(_read_exactly(fd, PARTIAL_BYTES))
        os.lseek(fd, size - PARTIAL_BYTES, os.SEEK_SET)
        state.update(_read_exactly(fd, PARTIAL_BYTES))
        return _Read(state.digest(DIGEST_BYTES), False, dev, ino, 2 * PARTIAL_BYTES)
    finally:
        os.close(fd)


def _full_read(path: str, size: int, identity: tuple[int, int], cancel: threading.Event) -> _Read:
    """The digest of the whole file."""
    fd, dev, ino = _open_checked(path, size, identity)
    try:
        return _Read(whole_digest(fd, size, cancel), True, dev, ino, size)
    finally:
        os.close(fd)


@dataclass(slots=True)
class _Candidates:
    """Files still in the running, as columns; ``rows`` index the caller's file list."""

    rows: IntArray
    sizes: IntArray
    identified: bool = False  # devs and inos are the walk's (else the first read's)
    digests: npt.NDArray[np.uint8] = field(init=False)
    complete: npt.NDArray[np.bool_] = field(init=False)
    devs: npt.NDArray[np.uint64] = field(init=False)
    inos: npt.NDArray[np.uint64] = field(init=False)
    readable: npt.NDArray[np.bool_] = field(init=False)

    def __post_init__(self) -> None:
        count = len(self.rows)
        self.digests = np.zeros((count, DIGEST_BYTES), dtype=np.uint8)
        self.complete = np.zeros(count, dtype=np.bool_)
        self.devs = np.zeros(count, dtype=np.uint64)
        self.inos = np.zeros(count, dtype=np.uint64)
        self.readable = np.zeros(count, dtype=np.bool_)

    def put(self, positions: list[int], reads: list[_Read]) -> None:
        """Store a batch of reads at once (one numpy write per column, not per file)."""
        if not reads:
            return
        joined = b"".join(read.digest for read in reads)
        self.digests[positions] = np.frombuffer(joined, dtype=np.uint8).reshape(len(reads), -1)
        self.complete[positions] = [read.complete for read in reads]
        self.devs[positions] = [read.dev for read in reads]
        self.inos[positions] = [read.ino for read in reads]
        self.readable[positions] = True

    def take(self, positions: IntArray) -> _Candidates:
        taken = _Candidates(self.rows[positions], self.sizes[positions], True)
        taken.devs = self.devs[positions]
        taken.inos = self.inos[positions]
        return taken


def _same_size(rows: IntArray, sizes: npt.NDArray[np.int64]) -> _Candidates:
    """Non-empty files whose size at least one other file has, ordered by size then row."""
    file_sizes = sizes[rows]
    nonempty = file_sizes > 0
    rows, file_sizes = rows[nonempty], file_sizes[nonempty]
    order = np.lexsort((rows, file_sizes))
    rows, file_sizes = rows[order], file_sizes[order]
    _, counts = np.unique(file_sizes, return_counts=True)
    shared = np.repeat(counts >= 2, counts)
    return _Candidates(rows[shared], file_sizes[shared])


def _buckets(found: _Candidates) -> list[IntArray]:
    """Positions of readable files sharing size and digest, one name per inode, two or more.

    One sort of (size, digest) finds the runs; only files in a run of two or more are
    looked at again for names of one inode (a million files' ``np.unique`` of whole key
    rows held some 170 bytes a file of copies)."""
    readable = np.flatnonzero(found.readable)
    if len(readable) < 2:
        return []
    words = found.digests.view(np.uint64)  # (count, DIGEST_BYTES // 8), native order
    columns: list[npt.NDArray[np.integer]] = [
        words[:, column] for column in range(words.shape[1] - 1, -1, -1)
    ]
    columns.append(found.sizes)
    if len(readable) == len(found.rows):  # every file read: the columns sorted as they are
        order = np.lexsort(columns)  # by size, then the digest's words
    else:
        order = readable[np.lexsort([column[readable] for column in columns])]
    del columns, readable
    same = np.ones(len(order) - 1, dtype=np.bool_)
    for column in [found.sizes, *(words[:, c] for c in range(words.shape[1]))]:
        ordered = column[order]
        same &= ordered[1:] == ordered[:-1]
        del ordered
    # a run of equal keys: starts where the key changes; only runs of two or more stay
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    del same
    lengths = np.diff(np.append(starts, len(order)))
    runs = np.flatnonzero(lengths >= 2)
    if len(runs) == 0:
        return []
    bucket = np.repeat(np.arange(len(runs)), lengths[runs])
    members = order[np.repeat(lengths >= 2, lengths)]
    del order
    # a second name of an inode in the same bucket is the same file: keep its first name
    by_name = np.lexsort((members, found.inos[members], found.devs[members], bucket))
    members, bucket = members[by_name], bucket[by_name]
    devs, inos = found.devs[members], found.inos[members]
    first = np.ones(len(members), dtype=np.bool_)
    first[1:] = (bucket[1:] != bucket[:-1]) | (devs[1:] != devs[:-1]) | (inos[1:] != inos[:-1])
    members, bucket = members[first], bucket[first]
    shared = np.bincount(bucket)[bucket] >= 2
    members, bucket = members[shared], bucket[shared]
    order = np.lexsort((members, bucket))
    members, bucket = members[order], bucket[order]
    splits = np.flatnonzero(np.diff(bucket)) + 1
    return np.split(members, splits) if len(members) else []


def _batches(positions: IntArray, sizes: IntArray, whole: bool) -> Iterator[IntArray]:
    """Runs of positions handed to one thread: a few files, or a few MiB of whole reads."""
    start = 0
    while start < len(positions):
        stop = start + 1
        budget = int(sizes[positions[start]]) if whole else 0
        while stop < len(positions) and stop - start < _BATCH_FILES:
            if whole:
                budget += int(sizes[positions[stop]])
                if budget > _BATCH_BYTES:
                    break
            stop += 1
        yield positions[start:stop]
        start = stop


class _Reader:
    """Runs reads in a thread pool, a bounded number of batches in flight."""

    def __init__(
        self,
        paths: Sequence[str],
        threads: int,
        progress: ProgressSink,
        cancel: threading.Event,
        report: IdenticalReport,
        store: DigestStore | None,
    ) -> None:
        self._paths = paths
        self._threads = threads
        self._progress = progress
        self._cancel = cancel
        self._report = report
        self._store = store
        self._fresh: dict[int, bytes] = {}
        self._whole = False
        self.done = 0
        self.total = 0

    def run(self, found: _Candidates, positions: IntArray, whole: bool) -> None:
        """Read ``positions`` of ``found`` (first read, or whole when ``whole``) into it;
        digests the store remembers are taken from it instead, and new ones go back."""
        self.total += len(positions)
        if self._store is not None:
            positions = self._remembered(self._store, found, positions, whole)
        self._progress(self.done, self.total, None)
        self._fresh = {}
        self._whole = whole
        self._read(found, positions, whole)
        if not self._cancel.is_set():
            self._flush()

    def _flush(self) -> None:
        """Hand the fresh digests to the store (some are written while reading goes on)."""
        if self._store is not None and self._fresh:
            self._store.store(self._whole, self._fresh)
        self._fresh = {}

    def _remembered(
        self, store: DigestStore, found: _Candidates, positions: IntArray, whole: bool
    ) -> IntArray:
        """Fill in what the store knows, a few thousand files at a time; returns the
        positions still to read."""
        missing = np.ones(len(positions), dtype=np.bool_)
        for lo in range(0, len(positions), _STORE_ROWS):
            part = positions[lo : lo + _STORE_ROWS]
            rows = found.rows[part]
            known = store.lookup(whole, rows.tolist())
            if not known:
                continue
            hit = np.isin(rows, np.fromiter(known, dtype=np.int64, count=len(known)))
            cached = part[hit]
            digests = b"".join(known[row] for row in rows[hit].tolist())
            del known
            found.digests[cached] = np.frombuffer(digests, dtype=np.uint8).reshape(len(cached), -1)
            found.complete[cached] = whole | (found.sizes[cached] <= SMALL_FILE)
            found.readable[cached] = True
            missing[lo : lo + len(part)] = ~hit
            self.done += len(cached)
            self._report.files_from_store += len(cached)
        return positions[missing]

    def _read(self, found: _Candidates, positions: IntArray, whole: bool) -> None:
        batches = _batches(positions, found.sizes, whole)
        with ThreadPoolExecutor(max_workers=self._threads) as pool:
            inflight: dict[Future[list[tuple[int, _Read | ReadProblem]]], int] = {}
            while True:
                while not self._cancel.is_set() and len(inflight) < 2 * self._threads:
                    batch = next(batches, None)
                    if batch is None:
                        break
                    inflight[pool.submit(self._read_batch, found, batch, whole)] = len(batch)
                if not inflight:
                    break
                finished, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for future in finished:
                    del inflight[future]
                    self._collect(found, future.result())
        if self._cancel.is_set():
            self._report.cancelled = True

    def _collect(self, found: _Candidates, results: list[tuple[int, _Read | ReadProblem]]) -> None:
        positions, reads = [], []
        for position, outcome in results:
            if isinstance(outcome, ReadProblem):
                self._report.problems.append(outcome)
            else:
                positions.append(position)
                reads.append(outcome)
                self._report.bytes_read += outcome.bytes_read
                self._fresh[int(found.rows[position])] = outcome.digest
        found.put(positions, reads)
        if len(self._fresh) >= _STORE_ROWS:
            self._flush()
        self._report.files_read += len(reads)
        self.done += len(results)
        last = self._paths[int(found.rows[results[-1][0]])] if results else None
        self._progress(self.done, self.total, last)

    def _read_batch(
        self, found: _Candidates, batch: IntArray, whole: bool
    ) -> list[tuple[int, _Read | ReadProblem]]:
        results: list[tuple[int, _Read | ReadProblem]] = []
        columns = zip(
            batch.tolist(),
            found.rows[batch].tolist(),
            found.sizes[batch].tolist(),
            found.devs[batch].tolist(),
            found.inos[batch].tolist(),
            strict=True,
        )
        for position, row, size, dev, ino in columns:
            if self._cancel.is_set():
                break
            path = self._paths[row]
            identity = (dev, ino)
            try:
                if whole:
                    read = _full_read(path, size, identity, self._cancel)
                else:  # the walk's identity when it is known, else the one found here
                    read = _first_read(path, size, identity if found.identified else None)
            except Cancelled:
                break
            except Changed:
                results.append((position, ReadProblem(row, "changed during the scan", "changed")))
                continue
            except OSError as exc:
                results.append((position, ReadProblem(row, describe_os_error(exc), "unreadable")))
                continue
            results.append((position, read))
        return results


def find_identical(
    rows: npt.ArrayLike,
    paths: Sequence[str],
    sizes: npt.ArrayLike,
    *,
    threads: int = 4,
    progress: ProgressSink | None = None,
    cancel: threading.Event | None = None,
    identities: tuple[npt.ArrayLike, npt.ArrayLike] | None = None,
    store: DigestStore | None = None,
) -> IdenticalReport:
    """Sets of byte-identical files among ``rows`` (``paths`` and ``sizes`` are indexed by row).

    ``identities`` are the walk's (devices, inodes) by row: reads then check that each file
    is still the one the walk saw, and a ``store`` of earlier digests can be used (it needs
    them). Sets come in the order of their first row; rows within a set ascend. Empty files
    are left out (all empty files are alike and nothing is gained by removing them).
    """
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    if store is not None and identities is None:
        raise ValueError("a digest store needs the walk's identities")
    cancel = cancel if cancel is not None else threading.Event()
    report = IdenticalReport()
    reader = _Reader(paths, threads, progress or (lambda *_: None), cancel, report, store)
    found = _same_size(
        np.asarray(rows, dtype=np.int64).reshape(-1), np.asarray(sizes, dtype=np.int64)
    )
    if identities is not None:
        found.identified = True
        found.devs = np.asarray(identities[0], dtype=np.uint64)[found.rows]
        found.inos = np.asarray(identities[1], dtype=np.uint64)[found.rows]
    reader.run(found, np.arange(len(found.rows)), whole=False)
    if report.cancelled:
        return report
    sets: list[IdenticalSet] = []
    to_read: list[IntArray] = []
    for bucket in _buckets(found):
        if found.complete[bucket[0]]:
            sets.append(_set_of(found, bucket))
        else:
            to_read.append(bucket)
    if to_read:
        whole = found.take(np.concatenate(to_read))
        reader.run(whole, np.arange(len(whole.rows)), whole=True)
        if report.cancelled:
            return report
        sets.extend(_set_of(whole, bucket) for bucket in _buckets(whole))
    sets.sort(key=lambda s: s.rows[0])
    report.sets = sets
    return report


def _set_of(found: _Candidates, bucket: IntArray) -> IdenticalSet:
    rows = tuple(sorted(int(r) for r in found.rows[bucket]))
    return IdenticalSet(rows, int(found.sizes[bucket[0]]), found.digests[bucket[0]].tobytes())
