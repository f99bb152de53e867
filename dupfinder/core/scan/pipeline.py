"""The scan pipeline: walk → cache → fingerprint (process pool) → index → cluster.

``run`` is the one entry point the CLI and the GUI share. It reports progress by phase
through a callback (sampled, never per file) and stops between chunks when ``cancel`` is
set; a cancelled scan returns an empty, flagged result and keeps what it cached.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

from dupfinder.core.fingerprints import heap
from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns
from dupfinder.core.fingerprints.formats import content_kinds
from dupfinder.core.fingerprints.priority import beside_window
from dupfinder.core.fingerprints.quiet import silenced
from dupfinder.core.fingerprints.worker import (
    NOT_TEXT,
    PASSING_CODES,
    FingerprintOutcome,
    Task,
    algorithm_id,
    fingerprint_batch,
    reader_modules,
    worker_init,
)
from dupfinder.core.jit import lazy
from dupfinder.core.model import (
    FINGERPRINTED_KINDS,
    MEDIA_KINDS,
    Group,
    Kind,
    Phase,
    Progress,
    ProgressCallback,
    ScanError,
    ScanOptions,
    ScanResult,
    ScanStats,
    no_progress,
)
from dupfinder.core.scan import exact_only, last_result
from dupfinder.core.scan.byte_reads import io_threads
from dupfinder.core.scan.cache import FingerprintCache, default_cache_dir
from dupfinder.core.scan.identical import IdenticalReport, find_identical
from dupfinder.core.scan.identical_cache import CachedDigests
from dupfinder.core.scan.identical_groups import copies_of, merge
from dupfinder.core.scan.sampling import Sampler
from dupfinder.core.scan.walk import WalkReport, walk_into

if TYPE_CHECKING:
    import multiprocessing.context
    from concurrent.futures import Future, ProcessPoolExecutor

    import numpy as np
    import numpy.typing as npt

    from dupfinder.core.grouping.groups import CheckMemory, KindGroups, PairFinder

else:
    np = lazy.module("numpy")  # a rescan given its last result touches no array

__all__ = ["PairFinder", "fingerprint_files", "group_files", "run"]


def __getattr__(name: str) -> Any:
    """``PairFinder`` from the grouping, imported when first asked for: a scan of
    byte-identical files only never imports the grouping (scipy, the index, the picture
    check)."""
    if name == "PairFinder":
        from dupfinder.core.grouping import groups

        return getattr(groups, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_log = logging.getLogger(__name__)

#: Below this many files to fingerprint, worker start-up costs more than it saves.
_IN_PROCESS_LIMIT = 48
#: Files compared from which a scan beside a window groups in a worker process: below, the
#: grouping takes a fraction of a second and a process start would cost more than it saves.
_ISOLATED_MIN = 5_000


def run(
    options: ScanOptions,
    progress: ProgressCallback = no_progress,
    cancel: threading.Event | None = None,
) -> ScanResult:
    """Scan ``options.roots`` and return the groups of near-duplicate files."""
    if exact_only.serves(options):  # byte-identical files only, no cache: no numpy work
        return exact_only.find_exact(options, progress, cancel)
    started = time.monotonic()
    cancel = cancel if cancel is not None else threading.Event()
    heap.map_large_blocks()
    sample = Sampler(progress)
    walk_report = WalkReport()
    files = FileColumns()
    walk_into(
        files,
        options,
        walk_report,
        cancel,
        on_file=lambda found: sample(Progress(Phase.WALKING, found)),
    )
    # the walk's per-file objects (a stat, an identity key a file) are gone; a full collection
    # gives their memory back (measured: 300,000 files, 105 -> 73 MB; without it a million
    # files' scan held some 100 MB more through the fingerprinting)
    heap.give_back()
    sample(Progress(Phase.WALKING, len(files), len(files)), force=True)
    if cancel.is_set():
        return _cancelled(len(files), started)

    # one cache for the whole scan: a cache that fails is reported and turned off once
    with _opened_cache(options) as cache:
        walked = last_result.files_digest(files, options) if _keeps(cache) else None
        if _keeps(cache) and walked is not None:
            known = _settled_result(cache, options, walked, files, walk_report, started)
            if known is not None:
                sample(Progress(Phase.DONE, len(files), len(files)), force=True)
                return known
        outcomes, from_cache, identical = _read_all(files, options, sample, cancel, cache)
        if cancel.is_set():
            return _cancelled(len(files), started, from_cache)
        notices = _settle_media(files, outcomes) if options.near_duplicates else ()
        # as after the walk: the outcomes and reads of every file are in columns now
        heap.give_back()

        read_errors = [
            ScanError(files.paths[row], error, code or "unreadable")
            for row, (error, code) in outcomes.errors.items()
        ]
        inputs = (
            last_result.inputs_digest(files, outcomes, identical, options)
            if _keeps(cache)
            else None
        )
        formed = _given_or_formed(
            cache,
            options,
            inputs,
            functools.partial(_formed, files, outcomes, options, identical, sample, cancel),
        )
        settled = (
            last_result.Settled(
                inputs, tuple(read_errors), outcomes.fingerprinted(), _bytes_only(files, options)
            )
            if formed is not None
            and inputs is not None
            and _all_settled(read_errors, identical, notices)
            else None
        )
        if _keeps(cache) and walked is not None and settled is not None:
            last_result.remember_settled(cache, options, walked, settled)
    if formed is None:
        return _cancelled(len(files), started, from_cache)
    groups, pair_count = formed
    errors = [*walk_report.errors, *read_errors]
    reported = {e.path for e in errors}
    for problem in identical.problems:
        if files.paths[problem.row] not in reported:
            errors.append(ScanError(files.paths[problem.row], problem.error, problem.code))
    sample(Progress(Phase.DONE, len(files), len(files)), force=True)
    heap.give_back()  # the grouping's and the kept result's temporaries: before it is written
    stats = ScanStats(
        files_seen=len(files),
        files_fingerprinted=outcomes.fingerprinted(),
        files_from_cache=from_cache,
        files_bytes_only=_bytes_only(files, options),
        pairs=pair_count,
        seconds=time.monotonic() - started,
    )
    errors.sort(key=lambda e: e.path)
    return ScanResult(tuple(groups), tuple(errors), stats, notices)


def _keeps(cache: FingerprintCache | None) -> TypeGuard[FingerprintCache]:
    """Whether the scan's cache is there to keep and give results (not off, not failed)."""
    return cache is not None and cache.enabled


def _all_settled(
    read_errors: list[ScanError], identical: IdenticalReport, notices: tuple[str, ...]
) -> bool:
    """Whether every file was read to an outcome that will not change while the file does
    not: no reason that may pass, no byte-identical read that failed, no reader missing."""
    return (
        not notices
        and not identical.problems
        and not identical.cancelled
        and all(error.code not in PASSING_CODES for error in read_errors)
    )


def _settled_result(
    cache: FingerprintCache,
    options: ScanOptions,
    walked: bytes,
    files: FileColumns,
    walk_report: WalkReport,
    started: float,
) -> ScanResult | None:
    """The last scan's result for the very files ``walked``, when it settled them all; None
    when it did not, or its entries cannot be read."""
    settled = last_result.recall_settled(cache, options, walked)
    if settled is None:
        return None
    recalled = last_result.recall(cache, options, settled.inputs)
    if recalled is None:
        return None
    groups, pair_count = recalled
    stats = ScanStats(
        files_seen=len(files),
        files_fingerprinted=settled.fingerprinted,
        files_from_cache=len(files) - settled.bytes_only,
        files_bytes_only=settled.bytes_only,
        pairs=pair_count,
        seconds=time.monotonic() - started,
    )
    errors = sorted([*walk_report.errors, *settled.errors], key=lambda e: e.path)
    return ScanResult(tuple(groups), tuple(errors), stats)


#: The groups a scan shows and its verified pair count.
_Formed = tuple[list[Group], int]


def _given_or_formed(
    cache: FingerprintCache | None,
    options: ScanOptions,
    inputs: bytes | None,
    form: Callable[[], _Formed | None],
) -> _Formed | None:
    """``form()`` (None when cancelled), or with the scan's ``cache`` the groups the last scan
    of these folders formed from the very same ``inputs`` (the digest of its files,
    fingerprints, digests, options and code: ``last_result``): an unchanged folder's rescan
    forms nothing."""
    if cache is None or inputs is None:
        return form()
    recalled = last_result.recall(cache, options, inputs)
    if recalled is not None:
        return recalled
    formed = form()
    if formed is not None:
        heap.give_back()  # the grouping's temporaries, before the groups are written out
        last_result.remember(cache, options, inputs, *formed)
    return formed


def _formed(
    files: FileColumns,
    outcomes: OutcomeColumns,
    options: ScanOptions,
    identical: IdenticalReport,
    sample: Sampler,
    cancel: threading.Event,
) -> _Formed | None:
    """The groups of near and byte-identical copies and the verified pair count, formed;
    None when cancelled."""
    groups: list[Group] = []
    pair_count = 0
    if options.near_duplicates:
        from dupfinder.core.index.library import Library

        # with the cache on, near pairs come from the library of the last scan when fewer
        # changed
        remembered = (
            Library(options.cache_dir or default_cache_dir()) if options.use_cache else None
        )
        if remembered is not None:
            remembered.remember_roots(options.roots)
        groups, pair_count = _compare(
            files,
            outcomes,
            options,
            sample,
            remembered.pairs if remembered else None,
            cancel,
            remembered,
        )
        if cancel.is_set():
            return None
    if identical.sets:
        by_suffix = not options.near_duplicates
        copies = [copies_of(s, files, outcomes, by_suffix) for s in identical.sets]
        references = tuple(os.path.realpath(folder) for folder in options.references)
        groups = merge(groups, copies, references)
        groups.sort(key=_group_order)
    if options.near_duplicates and any(group.kind in MEDIA_KINDS for group in groups):
        # --exact-only reads no file but to compare bytes: no header either
        from dupfinder.core.grouping.media_facts import described

        groups = described(groups)
    return groups, pair_count


def _group_order(group: Group) -> tuple[int, str]:
    """Largest groups first, then by the representative's path (``groups.group_order``,
    which a scan of byte-identical files only does not import)."""
    return (-len(group.members), group.representative.path)


def _cancelled(seen: int, started: float, from_cache: int = 0) -> ScanResult:
    stats = ScanStats(
        files_seen=seen,
        files_from_cache=from_cache,
        seconds=time.monotonic() - started,
        cancelled=True,
    )
    return ScanResult(stats=stats)


def fingerprint_files(
    files: FileColumns,
    options: ScanOptions,
    progress: ProgressCallback = no_progress,
    cancel: threading.Event | None = None,
) -> tuple[OutcomeColumns, int]:
    """Fingerprint listed files as a scan does (cache, pool); also (outcomes, cache hits).
    Files sniffed for text that hold none become other files, as in a scan, and so do music
    and videos without FFmpeg."""
    cancel = cancel if cancel is not None else threading.Event()
    with _opened_cache(options) as cache:
        outcomes, cached = _fingerprint_all(files, options, Sampler(progress), cancel, cache)
    _settle_sniffed(files, outcomes)
    _settle_media(files, outcomes)
    return outcomes, _hits(files, cached)


def group_files(
    files: FileColumns,
    outcomes: OutcomeColumns,
    options: ScanOptions,
    pair_finder: PairFinder | None = None,
) -> tuple[list[Group], int]:
    """Groups and pair count of fingerprinted files, as a scan forms them."""
    return _compare(files, outcomes, options, Sampler(no_progress), pair_finder)


#: Rows looked up in the cache at once: bounds the keys and objects alive at any moment.
_LOOKUP_ROWS = 20_000


def _read_all(
    files: FileColumns,
    options: ScanOptions,
    sample: Sampler,
    cancel: threading.Event,
    cache: FingerprintCache | None,
) -> tuple[OutcomeColumns, int, IdenticalReport]:
    """Fingerprints (with how many came from the cache), then byte-identical sets; the scan's
    one ``cache`` serves both."""
    if options.near_duplicates:
        outcomes, cached = _fingerprint_all(files, options, sample, cancel, cache)
    else:
        outcomes, cached = OutcomeColumns(len(files)), np.zeros(len(files), dtype=np.bool_)
    if cancel.is_set():
        return outcomes, _hits(files, cached), IdenticalReport(cancelled=True)
    _settle_sniffed(files, outcomes)
    return outcomes, _hits(files, cached), _identical(files, options, sample, cancel, cache)


@contextlib.contextmanager
def _opened_cache(options: ScanOptions) -> Iterator[FingerprintCache | None]:
    """The scan's cache (None when it is off), closed however the work ends."""
    cache = FingerprintCache(options.cache_dir) if options.use_cache else None
    try:
        yield cache
    finally:
        if cache is not None:
            cache.close()


def _fingerprint_all(
    files: FileColumns,
    options: ScanOptions,
    sample: Sampler,
    cancel: threading.Event,
    cache: FingerprintCache | None,
) -> tuple[OutcomeColumns, npt.NDArray[np.bool_]]:
    """Outcomes for every file: from the cache where it is fresh, else computed; also
    which rows the cache served."""
    outcomes = OutcomeColumns(len(files), files.rows_in(MEDIA_KINDS))
    cached = np.zeros(len(files), dtype=np.bool_)
    present = set(files.kinds_present())
    compared = content_kinds() if present & MEDIA_KINDS else FINGERPRINTED_KINDS - MEDIA_KINDS
    algorithms = {
        kind: algorithm_id(kind, image_invariance=options.image_invariance)
        for kind in present
        if kind in compared
    }
    wanted = np.zeros(len(files), dtype=np.bool_)
    wanted[files.rows_in(compared)] = True
    total = int(wanted.sum())
    from_cache = 0
    if cache is not None:
        for kind, algorithm in algorithms.items():
            rows = files.rows_of(kind)
            for start in range(0, len(rows), _LOOKUP_ROWS):
                chunk = rows[start : start + _LOOKUP_ROWS].tolist()
                found = cache.lookup(algorithm, [files.key(row) for row in chunk])
                for position, outcome in found.items():
                    outcomes.put(chunk[position], outcome)
                    cached[chunk[position]] = True
                from_cache += len(found)
    todo = np.flatnonzero(~outcomes.known & wanted)
    done = from_cache
    sample(Progress(Phase.FINGERPRINTING, done, total), force=True)
    for batch in _outcomes(_Tasks(files, todo), options, cancel):
        for outcome in batch:
            outcomes.put(outcome.row, outcome)
        done += len(batch)
        if cache is not None:
            for kind, algorithm in algorithms.items():
                cache.store(
                    algorithm,
                    ((files.key(o.row), o) for o in batch if files.kind(o.row) is kind),
                )
        last = files.paths[batch[-1].row] if batch else None
        sample(Progress(Phase.FINGERPRINTING, done, total, last))
    if not cancel.is_set():
        sample(Progress(Phase.FINGERPRINTING, done, total), force=True)
    return outcomes, cached


def _hits(files: FileColumns, cached: npt.NDArray[np.bool_]) -> int:
    """Cache hits among the files still to be fingerprinted: a file sniffed for text that
    holds none is served by the cache too, but then counts among the other files (counting
    it had made a rescan say "-58 read now")."""
    return int(np.count_nonzero(cached[files.rows_in(FINGERPRINTED_KINDS)]))


def _bytes_only(files: FileColumns, options: ScanOptions) -> int:
    """Files that were never to be fingerprinted: other files, or all without near duplicates."""
    if not options.near_duplicates:
        return len(files)
    return len(files) - len(files.rows_in(FINGERPRINTED_KINDS))


def _settle_media(files: FileColumns, outcomes: OutcomeColumns) -> tuple[str, ...]:
    """Music and videos left unread (no FFmpeg) are other files, compared by their bytes
    only; the scan says so once (its notice), not once per file."""
    unread = [row for row in files.rows_in(MEDIA_KINDS).tolist() if not outcomes.known[row]]
    for row in unread:
        files.set_kind(row, Kind.OTHER)
    if not unread:
        return ()
    from dupfinder.core.media.tools import MISSING_TOOLS_HINT

    return (MISSING_TOOLS_HINT,)


def _settle_sniffed(files: FileColumns, outcomes: OutcomeColumns) -> None:
    """Files sniffed for text that hold none are other files, compared by bytes only."""
    for row in [row for row, (_, code) in outcomes.errors.items() if code == NOT_TEXT]:
        files.set_kind(row, Kind.OTHER)
        del outcomes.errors[row]


def _identical(
    files: FileColumns,
    options: ScanOptions,
    sample: Sampler,
    cancel: threading.Event,
    cache: FingerprintCache | None,
) -> IdenticalReport:
    """Byte-identical sets among the files of the kinds asked for."""
    if not options.identical:
        return IdenticalReport()
    sample(Progress(Phase.IDENTICAL, 0, None), force=True)
    found = find_identical(
        files.rows_in(options.kinds),
        files.paths,
        files.sizes,
        threads=io_threads(options),
        progress=lambda done, total, current: sample(
            Progress(Phase.IDENTICAL, done, total, current)
        ),
        cancel=cancel,
        identities=files.identities,
        store=CachedDigests(cache, files) if cache is not None else None,
    )
    sample(Progress(Phase.IDENTICAL, found.files_read, found.files_read), force=True)
    return found


#: Seconds of one worker's CPU per byte, by suffix, roughly (measured by
#: ``bench/bench_profile.py`` on a mixed folder): only the order of magnitude matters, to
#: start the costly files first and to cut chunks of about equal work.
_SECONDS_PER_BYTE = {
    ".md": 1 / 1.5e6,
    ".markdown": 1 / 1.5e6,
    ".rst": 1 / 1e6,
    ".html": 1 / 6e6,
    ".htm": 1 / 6e6,
    ".xhtml": 1 / 6e6,
    ".pdf": 1 / 3e6,
    ".docx": 1 / 3e6,
    ".odt": 1 / 3e6,
    ".epub": 1 / 3e6,
    ".rtf": 1 / 3e6,
    ".jpg": 1 / 60e6,
    ".jpeg": 1 / 60e6,
}
_TEXT_SECONDS_PER_BYTE = 1 / 15e6
_IMAGE_SECONDS_PER_BYTE = 1 / 15e6
#: What any file costs besides its bytes (open, read, a process round trip).
_SECONDS_PER_FILE = 0.002
#: Work per chunk: a worker's share of the whole over this many chunks (a few dozen
#: round trips per worker, and no chunk long enough to leave the others idle at the end).
_CHUNKS_PER_WORKER = 16
_MAX_CHUNK_FILES = 32


def _estimated_seconds(files: FileColumns, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
    """A rough CPU cost of fingerprinting each row, from its kind, suffix and size."""
    sizes = files.sizes[rows].astype(np.float64)
    rates = np.empty(len(rows), dtype=np.float64)
    for position, row in enumerate(rows.tolist()):
        path = files.paths[row]
        dot = path.rfind(".")
        suffix = path[dot:].lower() if dot > path.rfind("/") else ""
        default = (
            _TEXT_SECONDS_PER_BYTE if files.kind(row) is Kind.TEXT else _IMAGE_SECONDS_PER_BYTE
        )
        rates[position] = _SECONDS_PER_BYTE.get(suffix, default)
    return sizes * rates + _SECONDS_PER_FILE


def _balanced(
    files: FileColumns, rows: npt.NDArray[np.intp], jobs: int
) -> tuple[npt.NDArray[np.intp], list[tuple[int, int]]]:
    """The rows in the order to send them, and chunks of about equal work: files that cost
    more than half a chunk go first, costliest first (a long file started last keeps one
    worker busy while the others wait); the rest keep the walk's order (neighbours on the
    disk are read together)."""
    if len(rows) == 0:
        return rows, []
    cost = _estimated_seconds(files, rows)
    budget = float(cost.sum()) / (max(jobs, 1) * _CHUNKS_PER_WORKER)
    heavy = cost > budget / 2
    order = np.concatenate(
        (np.flatnonzero(heavy)[np.argsort(-cost[heavy], kind="stable")], np.flatnonzero(~heavy))
    )
    rows, cost = rows[order], cost[order]
    chunks: list[tuple[int, int]] = []
    start, work = 0, 0.0
    for position, seconds in enumerate(cost.tolist()):
        if position > start and (work + seconds > budget or position - start >= _MAX_CHUNK_FILES):
            chunks.append((start, position))
            start, work = position, 0.0
        work += seconds
    chunks.append((start, len(rows)))
    return rows, chunks


class _Tasks:
    """The files still to fingerprint, as Task objects made only when a chunk is sent."""

    def __init__(self, files: FileColumns, rows: np.ndarray) -> None:
        self._files = files
        self._rows = rows

    def balanced(self, jobs: int) -> list[tuple[int, int]]:
        """Reorder the files for ``jobs`` workers and return chunks of about equal work."""
        self._rows, chunks = _balanced(self._files, self._rows, jobs)
        return chunks

    def __len__(self) -> int:
        return len(self._rows)

    def kinds(self) -> list[Kind]:
        """The kinds of the files to read."""
        return self._files.kinds_present(self._rows)

    def slice(self, start: int, stop: int) -> list[Task]:
        files = self._files
        return [
            Task(row, files.paths[row], files.kind(row)) for row in self._rows[start:stop].tolist()
        ]


def _outcomes(
    tasks: _Tasks, options: ScanOptions, cancel: threading.Event
) -> Iterator[list[FingerprintOutcome]]:
    # Small scans skip the pool's start-up, but only on the main thread: the per-file time
    # limit is a SIGALRM timer, which exists there and in the pool's workers, not in the
    # desktop app's scan thread.
    small = len(tasks) <= _IN_PROCESS_LIMIT and not beside_window()
    if options.jobs <= 1 or small:
        for start in range(0, len(tasks), 8):
            if cancel.is_set():
                return
            with silenced():  # a library's output must not reach the command line's stdout
                batch = fingerprint_batch(tasks.slice(start, start + 8), options.image_invariance)
            yield batch
        return
    yield from _pool_outcomes(tasks, options, cancel)
    _stop_fork_server()


def _stop_fork_server() -> None:
    """On the command line, the fork server the pool's workers came from, once the pool is
    done: nothing else forks from it, and it held 14 MB to the end of the scan (the next
    pool starts another). Beside a window it lives on: grouping processes fork from it."""
    if beside_window() or _mp_context().get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)  # CPython's own, for its tests
    if callable(stop):
        with contextlib.suppress(OSError):
            stop()


#: Imported once by the desktop app's fork server (it lives as long as the app), so each
#: grouping process it forks starts with them loaded; and so do the workers, with the
#: readers of documents and pictures.
_PRELOADED = [
    "dupfinder.core.grouping.groups",
    *reader_modules((Kind.TEXT, Kind.IMAGE)),
]


def _mp_context(readers: Sequence[str] = ()) -> multiprocessing.context.BaseContext:
    """forkserver where it exists (safe beside GUI threads, cheap starts); spawn when frozen.

    The fork server imports before it forks: beside a window, the grouping and the readers
    of documents and pictures (a grouping process then starts in about 40 ms instead of
    270); on the command line, which starts a fork server per run, the ``readers`` of the
    kinds the run reads (its workers each imported them again)."""
    import multiprocessing

    if getattr(sys, "frozen", False) or sys.platform in ("win32", "darwin"):
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOADED if beside_window() else list(readers))
    return context


def _pool_outcomes(
    tasks: _Tasks, options: ScanOptions, cancel: threading.Event
) -> Iterator[list[FingerprintOutcome]]:
    """Fingerprint in a process pool; a file that kills its worker is isolated and reported.

    When a worker dies, every chunk in flight fails with it, so those files are retried one
    at a time with a single file in flight: the one that breaks the pool then is the culprit.
    (The pool's modules are imported here: a scan that starts no worker never loads them.)
    """
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    pending: deque[tuple[int, int]] = deque(tasks.balanced(options.jobs))  # (start, stop)
    readers = reader_modules(tasks.kinds())
    suspects: deque[Task] = deque()
    while pending or suspects:
        pool = ProcessPoolExecutor(
            max_workers=options.jobs,
            mp_context=_mp_context(readers),
            initializer=worker_init,
            initargs=(beside_window(),),
        )
        inflight: dict[Future[list[FingerprintOutcome]], list[Task]] = {}
        alone: Future[list[FingerprintOutcome]] | None = None  # a suspect, the only file in flight
        try:
            while pending or suspects or inflight:
                # a worker may die between two waits: the pool then refuses new work, which
                # waits for a fresh pool (what was in flight fails below and is retried)
                refused = False
                if suspects:
                    if not inflight:
                        lone = [suspects.popleft()]
                        try:
                            alone = pool.submit(fingerprint_batch, lone, options.image_invariance)
                        except BrokenProcessPool:
                            suspects.appendleft(lone[0])
                            break
                        inflight[alone] = lone
                else:
                    while pending and len(inflight) < options.jobs * 4:
                        span = pending.popleft()
                        chunk = tasks.slice(*span)
                        try:
                            future = pool.submit(fingerprint_batch, chunk, options.image_invariance)
                        except BrokenProcessPool:
                            pending.appendleft(span)
                            refused = True
                            break
                        inflight[future] = chunk
                if refused and not inflight:
                    break
                finished, _ = wait(inflight, timeout=0.1, return_when=FIRST_COMPLETED)
                if cancel.is_set():
                    return
                broken = False
                for future in finished:
                    chunk = inflight.pop(future)
                    try:
                        yield future.result()
                    except BrokenProcessPool:
                        broken = True
                        if future is alone:  # not a chunk that broke with another
                            yield [_crashed(chunk[0])]
                        else:
                            suspects.extend(chunk)
                if broken:
                    for chunk in inflight.values():
                        suspects.extend(chunk)
                    inflight.clear()
                    break
        finally:
            # A cancelled scan stops the workers where they stand: their chunks in flight
            # write nothing (the cache is written here), and waiting for them held a cancel
            # for up to a minute (a chunk of large PDFs), at exit too.
            if cancel.is_set():
                _stop_workers(pool)
            pool.shutdown(wait=not cancel.is_set(), cancel_futures=True)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate a pool's worker processes (they hold nothing that must be saved)."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.terminate()


def _crashed(task: Task) -> FingerprintOutcome:
    return FingerprintOutcome(
        task.row, error="the file crashed its reader; skipped", code="crashed"
    )


def _compare(
    files: FileColumns,
    outcomes: OutcomeColumns,
    options: ScanOptions,
    sample: Sampler,
    pair_finder: PairFinder | None = None,
    cancel: threading.Event | None = None,
    memory: CheckMemory | None = None,
) -> tuple[list[Group], int]:
    """The groups and verified pair count of fingerprinted files (nothing when cancelled).

    Beside a window (any thread but the main one) a large grouping runs in a worker
    process, so the window's thread never waits for the interpreter lock behind it, and a
    cancel stops it at once; if that process fails, the grouping runs here instead."""
    from dupfinder.core.grouping.groups import (
        compared_rows,
        group_rows,
        groups_from,
        picture_check,
    )
    from dupfinder.core.scan import isolated

    progress = functools.partial(sample, force=True)
    found: tuple[list[KindGroups], int] | None = None
    if cancel is not None and beside_window() and compared_rows(outcomes) >= _ISOLATED_MIN:
        try:
            found = isolated.call(
                group_rows,
                (files, outcomes, options, pair_finder, memory),
                _mp_context(),
                progress,
                cancel,
                background=True,
            )
        except isolated.IsolatedFailure as exc:
            _log.warning("grouping in a worker process failed (%s); grouping here", exc)
        else:
            if found is None:  # cancelled
                return [], 0
    if found is None:
        found = group_rows(files, outcomes, options, pair_finder, memory, progress)
    parts, pairs = found
    return groups_from(files, outcomes, parts, picture_check(options), memory), pairs
