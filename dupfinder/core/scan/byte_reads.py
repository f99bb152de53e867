"""Reading files to compare their bytes, without numpy: head and tail, then the whole.

The reads of ``identical``'s passes, for a scan that looks for byte-identical files only
(``exact_only``), where importing numpy would cost more than the comparison itself. Every
read opens the file once, checks it is still the walk's file (same size, device and inode)
and hashes with BLAKE3 (``fingerprints.digest``, the digest every action re-checks with).
Files up to ``SMALL_FILE`` are hashed whole on the first read; larger ones by their first
and last ``PARTIAL_BYTES`` first, and whole only when those agree with another file's.

Reads run in a thread pool, a batch of files per task (a task per file cost more than the
file's system calls): one batch at a time while the files come from the page cache, where one
thread needs the least CPU, and ``io_threads`` at once from the first batch that had to wait on
a disk, where the reads then overlap. ``cancel`` is honoured between files and, in a whole
read, between chunks.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from dupfinder.core.fingerprints.digest import CHUNK, DIGEST_BYTES, hasher
from dupfinder.core.model import ScanOptions
from dupfinder.core.wording import describe_os_error

__all__ = [
    "PARTIAL_BYTES",
    "SMALL_FILE",
    "Cancelled",
    "Changed",
    "Failed",
    "Target",
    "io_threads",
    "read_digests",
    "whole_digest",
]

#: Bytes read from each end of a large file for its first digest.
PARTIAL_BYTES = 4096
#: Files up to this size are hashed whole on the first read.
SMALL_FILE = 64 * 1024
#: Flags of every open: read-only, and binary where the system tells the two apart.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)
#: Work handed to one thread at a time: files, and bytes of whole-file reads.
_BATCH_FILES = 128
_BATCH_BYTES = 32 << 20
#: A batch waited on the disk when it read blocks from one (Linux), or elsewhere when its
#: wall time passed both this many seconds and this many times its thread's CPU time.
_WAITED_MIN = 0.005
_WAITED_SHARE = 2.0

#: A file to read: its path, its size and identity (device, inode) as the walk saw them.
Target = tuple[str, int, int, int]
#: Progress sink: files done, files to read, the last file read.
ProgressSink = Callable[[int, int, str | None], None]


@dataclass(frozen=True, slots=True)
class Failed:
    """A file that could not be compared, and why (``code``: changed or unreadable)."""

    error: str
    code: str


try:
    import resource

    _THREAD_USAGE: Callable[[], resource.struct_rusage] | None = functools.partial(
        resource.getrusage, resource.RUSAGE_THREAD
    )
except (ImportError, AttributeError):  # Windows has no resource module, macOS no per thread
    _THREAD_USAGE = None

_CHANGED = Failed("changed during the scan", "changed")


class Changed(Exception):
    """The file is not the one the walk saw (other size, other inode)."""


class Cancelled(Exception):
    """The scan was cancelled while a file was read."""


def io_threads(options: ScanOptions) -> int:
    """Reads wait on the disk more than on the CPU: more threads than cores (from the disk,
    4 threads read twice as fast as 2 here, 8 another 10% faster; see the README)."""
    return min(8, max(4, 2 * options.jobs))


def _opened(path: str, size: int, dev: int, ino: int) -> int:
    """``path`` opened, checked to be still the walk's file."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if info.st_size != size or info.st_ino != ino or info.st_dev != dev:
            raise Changed
    except BaseException:
        os.close(fd)
        raise
    return fd


def _rest(fd: int, first: bytes, count: int) -> bytes:
    """``first`` and what follows it up to ``count`` bytes in all (a read may return less
    than asked); shorter: the file was truncated while read."""
    parts = [first]
    count -= len(first)
    while count > 0:
        part = os.read(fd, min(count, CHUNK))
        if not part:
            raise Changed
        parts.append(part)
        count -= len(part)
    return b"".join(parts)


def _first(target: Target) -> bytes:
    """The digest of a small file, or of a large one's head and tail (the common case in
    few calls: this runs once for every file that shares its size)."""
    path, size, dev, ino = target
    fd = _opened(path, size, dev, ino)
    try:
        if size <= SMALL_FILE:
            data = os.read(fd, size)
            return hasher(data if len(data) == size else _rest(fd, data, size)).digest(DIGEST_BYTES)
        head = os.read(fd, PARTIAL_BYTES)
        state = hasher(head if len(head) == PARTIAL_BYTES else _rest(fd, head, PARTIAL_BYTES))
        state.update(_tail(fd, size))
        return state.digest(DIGEST_BYTES)
    finally:
        os.close(fd)


def _tail(fd: int, size: int) -> bytes:
    """The last ``PARTIAL_BYTES`` of the file, in one call where the system has ``pread``."""
    start = size - PARTIAL_BYTES
    if _PREAD is not None:
        tail = _PREAD(fd, PARTIAL_BYTES, start)
        if len(tail) == PARTIAL_BYTES:
            return tail
        os.lseek(fd, start + len(tail), os.SEEK_SET)  # the rest as a read would find it
    else:
        os.lseek(fd, start, os.SEEK_SET)
        tail = os.read(fd, PARTIAL_BYTES)
    return _rest(fd, tail, PARTIAL_BYTES)


_PREAD: Callable[[int, int, int], bytes] | None = getattr(os, "pread", None)  # not on Windows


_buffers = threading.local()


def _whole(target: Target, cancel: threading.Event) -> bytes:
    """The digest of the whole file."""
    path, size, dev, ino = target
    fd = _opened(path, size, dev, ino)
    try:
        return whole_digest(fd, size, cancel)
    finally:
        os.close(fd)


def whole_digest(fd: int, size: int, cancel: threading.Event) -> bytes:
    """The digest of an open file's ``size`` bytes, read in chunks into one buffer a thread
    keeps; ``Changed`` when it holds another number of bytes, ``Cancelled`` when ``cancel``
    is set between chunks."""
    buffer = getattr(_buffers, "chunk", None)
    if buffer is None:
        buffer = _buffers.chunk = bytearray(CHUNK)
    view = memoryview(buffer)
    state = hasher()
    total = 0
    with open(fd, "rb", buffering=0, closefd=False) as stream:
        while True:
            if cancel.is_set():
                raise Cancelled
            count = stream.readinto(buffer)
            if not count:
                break
            state.update(view[:count])
            total += count
    if total != size:
        raise Changed
    return state.digest(DIGEST_BYTES)


def _batches(targets: Sequence[Target], whole: bool) -> Iterator[range]:
    """Runs of positions handed to one thread: a few files, or a few MiB of whole reads."""
    start, count = 0, len(targets)
    while start < count:
        stop = start + 1
        budget = targets[start][1] if whole else 0
        while stop < count and stop - start < _BATCH_FILES:
            if whole:
                budget += targets[stop][1]
                if budget > _BATCH_BYTES:
                    break
            stop += 1
        yield range(start, stop)
        start = stop


def _read_batch(
    targets: Sequence[Target], batch: range, whole: bool, cancel: threading.Event
) -> tuple[list[bytes | Failed], bool]:
    """Each file's digest, or why it has none (shorter than ``batch`` when cancelled), and
    whether the batch waited on the disk (its wall time well above its CPU time)."""
    found: list[bytes | Failed] = []
    append = found.append
    blocks, wall, cpu = _blocks_read(), time.perf_counter(), time.thread_time()
    for position in batch:
        if cancel.is_set():
            break
        try:
            append(_whole(targets[position], cancel) if whole else _first(targets[position]))
        except Cancelled:
            break
        except Changed:
            append(_CHANGED)
        except OSError as exc:
            append(Failed(describe_os_error(exc), "unreadable"))
    if blocks is not None:
        return found, _blocks_read() != blocks
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    return found, wall > _WAITED_MIN and wall > _WAITED_SHARE * cpu


def _blocks_read() -> int | None:
    """Blocks this thread has read from a disk (Linux), None where the system does not say."""
    if _THREAD_USAGE is None:
        return None
    return int(_THREAD_USAGE().ru_inblock)


def read_digests(
    targets: Sequence[Target],
    whole: bool,
    threads: int,
    cancel: threading.Event,
    progress: ProgressSink,
) -> list[bytes | Failed] | None:
    """The digest of each target (its first read, or its whole content when ``whole``) or
    why it has none, in the targets' order; None when cancelled.

    One thread reads until a batch is seen to wait on the disk, then ``threads`` do: files
    in the page cache are read fastest, for the least CPU, by one thread (more only hand the
    interpreter lock to and fro at every system call), files on a disk by several."""
    found: list[bytes | Failed] = [_CHANGED] * len(targets)
    done, parallel = 0, 1
    progress(0, len(targets), None)
    batches = _batches(targets, whole)
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="dupfinder-read") as pool:
        inflight: dict[Future[tuple[list[bytes | Failed], bool]], range] = {}
        while True:
            while not cancel.is_set() and len(inflight) < parallel:
                batch = next(batches, None)
                if batch is None:
                    break
                inflight[pool.submit(_read_batch, targets, batch, whole, cancel)] = batch
            if not inflight:
                break
            finished, _ = wait(inflight, return_when=FIRST_COMPLETED)
            for future in finished:
                batch = inflight.pop(future)
                digests, waited = future.result()
                if waited:
                    parallel = 2 * threads
                stop = batch.start + len(digests)
                found[batch.start : stop] = digests
                done += len(digests)
                progress(done, len(targets), targets[stop - 1][0] if digests else None)
    return None if cancel.is_set() else found
