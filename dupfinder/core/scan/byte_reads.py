"""Reading files to compare their bytes, without numpy: head and tail, then the whole.

The reads of ``exact_only``, a scan for byte-identical files alone, where importing numpy
would cost more than the comparison itself. Files come in sets of one size (``read_sets``).
Files up to ``SMALL_FILE`` are read whole on the first pass; larger ones by their first and
last ``PARTIAL_BYTES``, and whole on a second pass only where those agree with another
file's. Within a set of one size the first reads are compared as bytes (a dictionary keyed
by them: Python's own hash of the bytes and a memory compare cost about a third of a BLAKE3
digest of each file), and only a set of equal contents is hashed, once, with BLAKE3 (``fingerprints.digest``, the digest every
action re-checks with); where a size is shared by so many files that their first reads would
fill ``_HELD_BYTES``, its files are compared by that digest instead. Whole reads are hashed
as they stream in. Every read opens the file once and checks it is still the walk's file
(same size, device and inode).

Files in the page cache are read fastest, for the least CPU, in the calling thread: more
threads only hand the interpreter lock to and fro at every system call. From the first batch
that had to wait on a disk on, ``io_threads`` read at once, where the reads then overlap.
``cancel`` is honoured between files and, in a whole read, between chunks.

Where ``walk_kernels`` is built (POSIX), a batch of whole sets is read and compared there:
the same opens, checks and reads, the interpreter lock released, each set's first reads sorted
by their bytes, one Python object per set of equal files instead of several per file.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING

from dupfinder.core.fingerprints.digest import CHUNK, DIGEST_BYTES, digest_of, hasher
from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan.compiled import walk_kernels
from dupfinder.core.scan.walk import FileStat
from dupfinder.core.wording import describe_os_error

if TYPE_CHECKING:  # the pool is imported only when reads wait on a disk (10 ms at start-up)
    from concurrent.futures import Future

__all__ = [
    "PARTIAL_BYTES",
    "SMALL_FILE",
    "Alike",
    "Cancelled",
    "Changed",
    "Failed",
    "Reads",
    "Target",
    "io_threads",
    "read_sets",
    "whole_digest",
]

#: Bytes read from each end of a large file for its first comparison.
PARTIAL_BYTES = 4096
#: Files up to this size are read whole on the first pass.
SMALL_FILE = 64 * 1024
#: Flags of every open: read-only, and binary where the system tells the two apart.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)
#: Work handed to one thread at a time (whole sets of one size): files, and bytes of whole
#: reads.
_BATCH_FILES = 128
_BATCH_BYTES = 32 << 20
#: First reads of one size held for comparing as bytes; past this, compared by digest.
_HELD_BYTES = 4 << 20
#: A batch waited on the disk when it read blocks from one (Linux), or elsewhere when its
#: wall time passed both this many seconds and this many times its thread's CPU time.
_WAITED_MIN = 0.005
_WAITED_SHARE = 2.0

#: A file to read as the walk listed it: its path, its stat (size, device, inode: the file
#: it must still be) and its kind (not read here).
Target = tuple[str, FileStat, Kind]
#: Progress sink: files done, files to read, the last file read.
ProgressSink = Callable[[int, int, str | None], None]


@dataclass(frozen=True, slots=True)
class Failed:
    """A file that could not be compared, and why (``code``: changed or unreadable)."""

    error: str
    code: str


@dataclass(frozen=True, slots=True)
class Alike:
    """Files of one size whose reads agree, in the order they came; ``digest``: the BLAKE3
    digest of their whole content, None where only head and tail were read."""

    files: list[Target]
    digest: bytes | None


@dataclass(slots=True)
class Reads:
    """What a pass found: the sets of two or more files that agree, the files it could not
    read (in the order they came), and how many it read."""

    sets: list[Alike] = field(default_factory=list)
    failed: list[tuple[Target, Failed]] = field(default_factory=list)
    files_read: int = 0


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


def _check(now: os.stat_result, walked: FileStat) -> None:
    """``Changed`` unless the open file is still the walk's (same size, device and inode)."""
    if now.st_size != walked.st_size or now.st_ino != walked.st_ino or now.st_dev != walked.st_dev:
        raise Changed


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
    """All of a small file, or a large one's head and tail (the common case in few calls:
    this runs once for every file that shares its size)."""
    path, info, _ = target
    size = info.st_size
    fd = os.open(path, _OPEN_FLAGS)
    try:
        _check(os.fstat(fd), info)
        if size <= SMALL_FILE:
            data = os.read(fd, size)
            return data if len(data) == size else _rest(fd, data, size)
        head = os.read(fd, PARTIAL_BYTES)
        if len(head) != PARTIAL_BYTES:
            head = _rest(fd, head, PARTIAL_BYTES)
        return head + _tail(fd, size)
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
    path, info, _ = target
    fd = os.open(path, _OPEN_FLAGS)
    try:
        _check(os.fstat(fd), info)
        return whole_digest(fd, info.st_size, cancel)
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


def _alike(
    files: Sequence[Target],
    whole: bool,
    cancel: threading.Event,
    failed: list[tuple[Target, Failed]],
    hashed: bool,
) -> tuple[dict[bytes, list[Target]], bool]:
    """``files`` (all of one size) by what their reads hold, in their order, and whether the
    keys are digests (``hashed``, a whole read's, or from the read on which the bytes held
    passed ``_HELD_BYTES``) rather than the bytes read; each file that cannot be read goes
    to ``failed``. ``Cancelled`` when ``cancel`` is set."""
    hashed = hashed or whole
    held = 0
    alike: dict[bytes, list[Target]] = {}
    for target, key in zip(files, _reads(files, whole, cancel), strict=True):
        if isinstance(key, Failed):
            failed.append((target, key))
            continue
        if hashed and not whole:
            key = digest_of(key)
        same = alike.get(key)
        if same is not None:
            same.append(target)
            continue
        alike[key] = [target]
        if not hashed:
            held += len(key)
            if held > _HELD_BYTES:  # too many of one size to hold: by digest from here on
                alike = {digest_of(data): same for data, same in alike.items()}
                hashed = True
    return alike, hashed


def _reads(files: Sequence[Target], whole: bool, cancel: threading.Event) -> list[bytes | Failed]:
    """Each file's first read (``whole``: its whole content's digest) or why it could not be
    read; ``Cancelled`` when ``cancel`` is set. First reads are compiled where they are built
    (``walk_kernels``: the same reads, checks and answers, for a run of files in one call)."""
    if walk_kernels is not None and not whole:
        if cancel.is_set():
            raise Cancelled
        listed = files if isinstance(files, list) else list(files)
        answers = walk_kernels.first_reads(listed, 0, len(listed), SMALL_FILE, PARTIAL_BYTES)
        return [_failure(answer) if answer.__class__ is int else answer for answer in answers]
    found: list[bytes | Failed] = []
    stopped = cancel.is_set
    for target in files:
        if stopped():
            raise Cancelled
        try:
            found.append(_whole(target, cancel) if whole else _first(target))
        except Changed:
            found.append(_CHANGED)
        except OSError as exc:
            found.append(Failed(describe_os_error(exc), "unreadable"))
    return found


def _failure(code: int) -> Failed:
    """Why the compiled read of a file failed: below 0 it changed, else the error number's
    reason, worded as for the ``OSError`` Python's own read raises."""
    if code < 0:
        return _CHANGED
    return Failed(describe_os_error(OSError(code, os.strerror(code))), "unreadable")


def _sets_of(alike: dict[bytes, list[Target]], hashed: bool, complete: bool) -> list[Alike]:
    """The sets of two or more files with one key; their digest where the key covers their
    whole content (``complete``)."""
    return [
        Alike(same, (key if hashed else digest_of(key)) if complete else None)
        for key, same in alike.items()
        if len(same) > 1
    ]


#: Files ``start`` to ``stop`` of the set at ``position``: a set whole, or a part of one.
_Piece = tuple[int, int, int]
#: A part of a set read on its own, and its files by digest: (position, start, stop, files).
_Part = tuple[int, int, int, dict[bytes, list[Target]]]


def _batches(sizes: Sequence[Sequence[Target]], whole: bool) -> Iterator[list[_Piece]]:
    """Work handed to one thread: a run of sets, a few files or a few MiB of whole reads in
    all, or a part of a set too large for one (its parts compared by digest, so that several
    threads read it from a disk at once)."""
    position, count = 0, len(sizes)
    while position < count:
        files = len(sizes[position])
        most = _files_per_batch(sizes[position], whole)
        if files > most:
            for start in range(0, files, most):
                yield [(position, start, min(start + most, files))]
            position += 1
            continue
        batch: list[_Piece] = []
        held = budget = 0
        while position < count:
            files = len(sizes[position])
            cost = files * sizes[position][0][1].st_size if whole else 0
            if batch and (held + files > _BATCH_FILES or budget + cost > _BATCH_BYTES):
                break
            if files > _files_per_batch(sizes[position], whole):
                break  # read in parts of its own
            batch.append((position, 0, files))
            held, budget, position = held + files, budget + cost, position + 1
        yield batch


def _files_per_batch(files: Sequence[Target], whole: bool) -> int:
    """The most of these files (all of one size) one batch reads."""
    if not whole:
        return _BATCH_FILES
    return max(1, min(_BATCH_FILES, _BATCH_BYTES // max(1, files[0][1].st_size)))


def _read_batch(
    sizes: Sequence[Sequence[Target]],
    batch: list[_Piece],
    whole: bool,
    cancel: threading.Event,
) -> tuple[Reads | None, list[_Part], bool]:
    """What the sets of ``batch`` hold (None when cancelled), its parts of larger sets, and
    whether it waited on the disk (read blocks from one, or its wall time well above its CPU
    time)."""
    found, parts = Reads(), []
    blocks, wall, cpu = _blocks_read(), time.perf_counter(), time.thread_time()
    try:
        if walk_kernels is not None and not whole and _whole_sets(sizes, batch):
            _compiled_sets(walk_kernels, sizes, batch, cancel, found)
            batch = []  # all read
        for position, start, stop in batch:
            files = sizes[position]
            part = stop - start < len(files)
            alike, hashed = _alike(files[start:stop], whole, cancel, found.failed, part)
            found.files_read += sum(map(len, alike.values()))
            if part:
                parts.append((position, start, stop, alike))
            else:
                found.sets.extend(_sets_of(alike, hashed, whole or _complete(files)))
    except Cancelled:
        return None, [], False
    if blocks is not None:
        return found, parts, _blocks_read() != blocks
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    return found, parts, wall > _WAITED_MIN and wall > _WAITED_SHARE * cpu


def _whole_sets(sizes: Sequence[Sequence[Target]], batch: list[_Piece]) -> bool:
    """Whether the batch holds whole sets (``_batches`` gives a part of a set a batch of its
    own)."""
    position, start, stop = batch[0]
    return stop - start == len(sizes[position])


def _compiled_sets(
    kernels: ModuleType,
    sizes: Sequence[Sequence[Target]],
    batch: list[_Piece],
    cancel: threading.Event,
    found: Reads,
) -> None:
    """A batch of whole sets' first reads, compared in compiled code (``walk_kernels``): the
    sets and failures ``_alike`` and ``_sets_of`` find, in the same order, without a step of
    the interpreter per file."""
    if cancel.is_set():
        raise Cancelled
    listed = sizes if isinstance(sizes, list) else list(sizes)
    pieces, read = kernels.batch_sets(listed, batch, SMALL_FILE, PARTIAL_BYTES)
    for position, sets, failed in pieces:
        files = listed[position]
        complete = _complete(files)
        for positions, data in sets:
            same = [files[index] for index in positions]
            found.sets.append(Alike(same, digest_of(data) if complete else None))
        found.failed.extend((files[index], _failure(code)) for index, code in failed)
    found.files_read += read


def _complete(files: Sequence[Target]) -> bool:
    """Whether a first read holds these files' whole content."""
    return files[0][1].st_size <= SMALL_FILE


def _blocks_read() -> int | None:
    """Blocks this thread has read from a disk (Linux), None where the system does not say."""
    if _THREAD_USAGE is None:
        return None
    return int(_THREAD_USAGE().ru_inblock)


class _Pass:
    """One pass over sets of files: reads their batches, adds up what they found."""

    def __init__(
        self,
        sizes: Sequence[Sequence[Target]],
        whole: bool,
        cancel: threading.Event,
        progress: ProgressSink,
    ) -> None:
        self.sizes, self.whole, self.cancel, self.progress = sizes, whole, cancel, progress
        self.found = Reads()
        self.total = sum(map(len, sizes))
        self.done = 0
        self._parts: dict[int, list[_Part]] = {}

    def add(self, batch: list[_Piece], found: Reads, parts: list[_Part]) -> None:
        self.found.sets.extend(found.sets)
        self.found.failed.extend(found.failed)
        self.found.files_read += found.files_read
        for part in parts:
            self._joined(part)
        self.done += sum(stop - start for _, start, stop in batch)
        position, _, stop = batch[-1]
        self.progress(self.done, self.total, self.sizes[position][stop - 1][0])

    def _joined(self, part: _Part) -> None:
        """A part of a large set; once all of its parts are in, its sets, each in the
        order its files came, whatever order the threads finished in."""
        position = part[0]
        parts = self._parts.setdefault(position, [])
        parts.append(part)
        files = self.sizes[position]
        if sum(stop - start for _, start, stop, _ in parts) < len(files):
            return
        alike: dict[bytes, list[Target]] = {}
        for *_, found in sorted(parts, key=lambda p: p[1]):
            for key, same in found.items():
                alike.setdefault(key, []).extend(same)
        del self._parts[position]
        self.found.sets.extend(_sets_of(alike, True, self.whole or _complete(files)))

    def here(self, batches: Iterator[list[_Piece]]) -> bool:
        """Read batches in this thread until one waits on a disk: True, the rest remain;
        False when all are read or the scan is cancelled."""
        for batch in batches:
            if self.cancel.is_set():
                return False
            found, parts, waited = _read_batch(self.sizes, batch, self.whole, self.cancel)
            if found is None:
                return False
            self.add(batch, found, parts)
            if waited:
                return True
        return False

    def pooled(self, batches: Iterator[list[_Piece]], threads: int) -> None:
        """The remaining batches, ``threads`` at a time."""
        from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="dupfinder-read") as pool:
            inflight: dict[Future[tuple[Reads | None, list[_Part], bool]], list[_Piece]] = {}
            while True:
                while not self.cancel.is_set() and len(inflight) < 2 * threads:
                    batch = next(batches, None)
                    if batch is None:
                        break
                    task = pool.submit(_read_batch, self.sizes, batch, self.whole, self.cancel)
                    inflight[task] = batch
                if not inflight:
                    return
                finished, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for task in finished:
                    batch = inflight.pop(task)
                    found, parts, _waited = task.result()
                    if found is not None:
                        self.add(batch, found, parts)


def read_sets(
    sizes: Sequence[Sequence[Target]],
    whole: bool,
    threads: int,
    cancel: threading.Event,
    progress: ProgressSink,
) -> Reads | None:
    """The sets of two or more files, each of one entry of ``sizes`` (files of one size, one
    name per file), whose first reads agree (``whole``: whose whole contents do), and the
    files that could not be read; None when cancelled.

    Batches are read in the calling thread until one is seen to wait on a disk, then
    ``threads`` at a time."""
    work = _Pass(sizes, whole, cancel, progress)
    progress(0, work.total, None)
    batches = _batches(sizes, whole)
    if work.here(batches) and not cancel.is_set():
        work.pooled(batches, threads)
    return None if cancel.is_set() else work.found
