"""Fingerprint one file: the unit of work the scan sends to its worker processes.

Workers return plain ``FingerprintOutcome`` values (cheap to pickle) and never raise for a bad file:
every failure becomes a user-facing reason with a stable code.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

from dupfinder.core.errors import FileProblem, TooLittleContent, UnsupportedFile
from dupfinder.core.fingerprints.formats import kind_for_path
from dupfinder.core.fingerprints.heap import keep_heap_pad
from dupfinder.core.fingerprints.priority import run_in_background
from dupfinder.core.fingerprints.quiet import silence_process
from dupfinder.core.model import MEDIA_KINDS, Kind
from dupfinder.core.wording import describe_os_error

__all__ = [
    "FILE_TIME_LIMIT_SECONDS",
    "MEDIA_TIME_LIMIT_SECONDS",
    "NOT_TEXT",
    "PASSING_CODES",
    "FingerprintOutcome",
    "Task",
    "algorithm_id",
    "fingerprint_batch",
    "fingerprint_file",
    "reader_modules",
    "worker_init",
]

#: A file that takes longer than this to fingerprint is reported and skipped.
FILE_TIME_LIMIT_SECONDS = 60.0
#: Music and videos: decoding a long film takes longer than any document, so they have a
#: limit of their own, which the decoder enforces (it kills FFmpeg and says so).
MEDIA_TIME_LIMIT_SECONDS = 120.0
#: The worker's own alarm for a media file rings this much later, so the decoder's limit,
#: with its clearer message and its child process ended, always comes first.
_MEDIA_ALARM_MARGIN_SECONDS = 15.0
#: FingerprintOutcome code of a file without a telling suffix whose content is no document to compare
#: (a program, an archive, three words): it is compared by its bytes only, not reported.
NOT_TEXT = "not-text"


@dataclass(frozen=True, slots=True)
class Task:
    """One file to fingerprint; ``row`` is its position in the scan's entry list."""

    row: int
    path: str
    kind: Kind


#: Reasons a file was left unread that may pass by the next scan (vanished, permission, time
#: limit, a reader that crashed): neither the cache nor a settled folder keeps them.
PASSING_CODES = frozenset({"unreadable", "timeout", "crashed"})


@dataclass(frozen=True, slots=True)
class FingerprintOutcome:
    """A fingerprint (``value``) or a reason (``error``, ``code``) for one file."""

    row: int
    value: int | None = None
    width: int | None = None
    height: int | None = None
    variants: tuple[int, ...] = ()
    sketch: bytes | None = None  # second, independent estimate of content (see core.sketch)
    error: str | None = None
    code: str | None = None

    @property
    def cacheable(self) -> bool:
        """Transient failures (vanished, permission, time limit) are retried next scan."""
        return self.error is None or self.code not in PASSING_CODES


def algorithm_id(kind: Kind, *, image_invariance: bool = False) -> str:
    """Everything that changes a fingerprint, as one string: the cache keys on it."""
    if kind is Kind.AUDIO:
        from dupfinder.core.media import audio

        return f"audio/{audio.ALGORITHM_VERSION}"
    if kind is Kind.VIDEO:
        from dupfinder.core.image import perceptual
        from dupfinder.core.media import video

        # video frames are hashed with the picture code: its version changes them too
        return f"video/{video.ALGORITHM_VERSION}/{perceptual.ALGORITHM_VERSION}"
    if kind is Kind.TEXT:
        from dupfinder.core import extract
        from dupfinder.core.text import simhash as textsim
        from dupfinder.core.text import sketch

        return (
            f"text/{textsim.ALGORITHM_VERSION}/{extract.EXTRACTOR_VERSION}/{sketch.SKETCH_VERSION}"
        )
    from dupfinder.core.image import perceptual as imagesim

    return f"image/{imagesim.ALGORITHM_VERSION}/inv={int(image_invariance)}"


#: The modules a worker imports to read each kind (the format libraries a reader takes up
#: for some files only are left to the files that need them).
_READERS: dict[Kind, tuple[str, ...]] = {
    Kind.TEXT: (
        "dupfinder.core.extract",
        "dupfinder.core.text.simhash",
        "dupfinder.core.text.sketch",
    ),
    Kind.IMAGE: ("dupfinder.core.image.perceptual",),
    Kind.AUDIO: ("dupfinder.core.media.audio",),
    Kind.VIDEO: ("dupfinder.core.media.video", "dupfinder.core.image.perceptual"),
}


def reader_modules(kinds: Iterable[Kind]) -> list[str]:
    """This module and the readers of ``kinds``: a pool's fork server imports them once, so
    its workers start with them (each worker importing them again cost its own 0.2-0.3 s of
    CPU, on every core); then ``warm``, which has them make what their first file would."""
    wanted = [__name__]
    for kind in sorted(set(kinds) & _READERS.keys()):
        wanted.extend(name for name in _READERS[kind] if name not in wanted)
    if len(wanted) > 1:  # then what the readers make on their first file, made once
        wanted.append(_WARM)
    return wanted


#: Imported after the readers, it makes what each makes on its first file (``warm``).
_WARM = "dupfinder.core.fingerprints.warm"


class _FileTimeoutError(Exception):
    pass


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Interrupt Python code that runs too long on one file (main thread of a worker).

    POSIX: a SIGALRM timer. Elsewhere (Windows has no ``setitimer``): a watchdog thread
    that, at the limit, raises SIGINT at the main thread, whose handler for the file raises
    the time-out; a Ctrl-C meanwhile goes to the handler that was there before. Both stop
    Python code and waits that signals wake, neither a C call that holds the interpreter.
    """
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return
    if not hasattr(signal, "setitimer"):
        with _watchdog(seconds):
            yield
        return

    def _expire(signum: int, frame: object) -> None:
        raise _FileTimeoutError

    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Watchdog:
    """One thread per process that interrupts the main thread when a file's deadline passes
    (a thread per file would cost ~0.2 ms of CPU each)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._changed = threading.Condition()
        self._deadline: float | None = None
        self.fired = False  # the file now armed ran past its deadline
        threading.Thread(target=self._run, name="dupfinder-time-limit", daemon=True).start()

    def arm(self, seconds: float) -> None:
        with self._changed:
            self._deadline, self.fired = time.monotonic() + seconds, False
            self._changed.notify()

    def disarm(self) -> None:
        """After this, no interrupt for the file is still to come (one already raised is
        pending, and delivered before the next handler change)."""
        with self._changed:
            self._deadline = None

    def _run(self) -> None:
        with self._changed:
            while True:
                if self._deadline is None:
                    self._changed.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._changed.wait(left)
                    continue
                self._deadline, self.fired = None, True
                if sys.platform == "win32":  # raise() also wakes a sleep or wait of the main thread
                    signal.raise_signal(signal.SIGINT)
                else:
                    _thread.interrupt_main(signal.SIGINT)


#: This process's watchdog, started on first use (a forked worker starts its own).
_watchdogs: dict[int, _Watchdog] = {}


@contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    dog = _watchdogs.get(os.getpid()) or _watchdogs.setdefault(os.getpid(), _Watchdog())
    running = True

    def _interrupted(signum: int, frame: FrameType | None) -> None:
        if dog.fired:
            if running:  # a late one, after the file was done, is dropped
                raise _FileTimeoutError
        elif callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, _interrupted)
    dog.arm(seconds)
    try:
        yield
    finally:
        try:
            dog.disarm()
            running = False
        finally:  # runs a pending SIGINT first (dropped), then puts the old handler back
            signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


def _limit(kind: Kind) -> tuple[float, float]:
    """(seconds the file may take, seconds until the worker's alarm) for a kind."""
    if kind in MEDIA_KINDS:
        return MEDIA_TIME_LIMIT_SECONDS, MEDIA_TIME_LIMIT_SECONDS + _MEDIA_ALARM_MARGIN_SECONDS
    return FILE_TIME_LIMIT_SECONDS, FILE_TIME_LIMIT_SECONDS


def fingerprint_file(task: Task, *, image_invariance: bool = False) -> FingerprintOutcome:
    """Fingerprint one file, turning every per-file failure into a reason."""
    allowed, alarm = _limit(task.kind)
    try:
        with _time_limit(alarm):
            if task.kind is Kind.TEXT:
                return _text_outcome(task)
            if task.kind is Kind.AUDIO:
                return _audio_outcome(task)
            if task.kind is Kind.VIDEO:
                return _video_outcome(task)
            return _image_outcome(task, image_invariance)
    except FileProblem as exc:
        return FingerprintOutcome(task.row, error=str(exc), code=exc.code)
    except _FileTimeoutError:
        return FingerprintOutcome(
            task.row,
            error=f"took longer than {allowed:.0f} s to read; skipped",
            code="timeout",
        )
    except MemoryError:
        return FingerprintOutcome(task.row, error="too large to read in memory", code="too-large")
    except OSError as exc:
        return FingerprintOutcome(task.row, error=describe_os_error(exc), code="unreadable")
    except Exception as exc:  # a library failed on a malformed file: report, keep scanning
        detail = str(exc).strip() or exc.__class__.__name__
        return FingerprintOutcome(task.row, error=f"cannot be read: {detail}", code="corrupt")


def _text_outcome(task: Task) -> FingerprintOutcome:
    from dupfinder.core.extract import extract_text
    from dupfinder.core.text import simhash as textsim

    try:
        value, sketch = textsim.text_fingerprint(extract_text(task.path))
    except (UnsupportedFile, TooLittleContent) as exc:
        if kind_for_path(task.path) is None:  # sniffed, not named a document: not a problem
            return FingerprintOutcome(task.row, error=str(exc), code=NOT_TEXT)
        raise
    return FingerprintOutcome(task.row, value=value, sketch=sketch)


def _image_outcome(task: Task, invariant: bool) -> FingerprintOutcome:
    from dupfinder.core.image.perceptual import image_fingerprint

    result = image_fingerprint(task.path, invariant=invariant)
    return FingerprintOutcome(
        task.row,
        value=result.value,
        width=result.width,
        height=result.height,
        # mirrored and turned hashes (when invariant), then those of crops: the index
        # proposes a copy near any of them
        variants=(*result.variants, *result.crops),
        sketch=result.descriptor,  # the second check (see core.imagecheck)
    )


def _audio_outcome(task: Task) -> FingerprintOutcome:
    """Music: the SimHash of the whole for the index, those of overlapping windows (so a clip
    meets its longer original) as variants, and the sequence the check aligns as the sketch."""
    from dupfinder.core.media.audio import audio_print

    found = audio_print(task.path, time_limit_s=MEDIA_TIME_LIMIT_SECONDS)
    return FingerprintOutcome(
        task.row, value=found.value, variants=tuple(found.windows), sketch=found.sequence
    )


def _video_outcome(task: Task) -> FingerprintOutcome:
    """Videos: as music, with the picture's size (the keeper prefers the sharper copy)."""
    from dupfinder.core.media.video import video_print

    found = video_print(task.path, time_limit_s=MEDIA_TIME_LIMIT_SECONDS)
    return FingerprintOutcome(
        task.row,
        value=found.value,
        width=found.width or None,
        height=found.height or None,
        variants=tuple(found.windows),
        sketch=found.sequence,
    )


def fingerprint_batch(
    tasks: list[Task], image_invariance: bool = False
) -> list[FingerprintOutcome]:
    """The pool's unit of work: a chunk of files, so process round-trips stay few."""
    return [fingerprint_file(task, image_invariance=image_invariance) for task in tasks]


def worker_init(background: bool = False) -> None:
    """Workers ignore Ctrl-C (the parent cancels them in order) and never write to the terminal;
    ``background`` workers (a scan beside a window) yield the CPU to it; their heap keeps its
    pages from one picture to the next (``heap``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    keep_heap_pad()
    if background:
        run_in_background()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    silence_process()
