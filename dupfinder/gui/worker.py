"""Long jobs (scans, actions, previews) on a QThread, reporting back through signals.

The pattern: one ``Worker`` QObject per job is moved to a fresh ``QThread``; the job receives a
progress sink and the core's ``threading.Event`` for cancel. Cancel is set directly from the GUI
thread, because a queued slot on the worker would only run after the job had finished. Progress
from the core may come thousands of times a second; the worker forwards at most one sample per
``interval`` (plus every phase change), so the GUI's event queue never floods.
"""

from __future__ import annotations

import threading
import time
import traceback

from PySide6.QtCore import QObject, QThread, Signal, Slot

from dupfinder.app.jobs import JobFunction
from dupfinder.core.errors import DupfinderError
from dupfinder.core.model import Progress
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)

__all__ = ["Job", "Worker"]


#: Seconds between forwarded progress samples (about ten per second).
PROGRESS_INTERVAL = 0.1


class Worker(QObject):
    """Runs one job in its thread; never swallows an exception (it becomes ``failed``)."""

    progress = Signal(object)  # Progress
    finished = Signal(object)  # whatever the job returned
    failed = Signal(str)  # a message for the user

    def __init__(
        self, job: JobFunction[object], cancel: threading.Event, interval: float = PROGRESS_INTERVAL
    ) -> None:
        super().__init__()
        self._job = job
        self._cancel = cancel
        self._interval = interval
        self._last_emit = 0.0
        self._last_phase: object = None

    def _sample(self, sample: Progress) -> None:
        """Called from the job's thread(s); forwards a throttled subset of samples."""
        now = time.monotonic()
        if sample.phase != self._last_phase or now - self._last_emit >= self._interval:
            self._last_phase = sample.phase
            self._last_emit = now
            self.progress.emit(sample)

    @Slot()
    def run(self) -> None:
        try:
            result = self._job(self._sample, self._cancel)
        except (DupfinderError, OSError) as exc:  # expected: the message is for the user
            self.failed.emit(str(exc) or type(exc).__name__)
        except Exception as exc:  # a bug: the GUI must still hear about it
            traceback.print_exc()
            self.failed.emit(f"{type(exc).__name__}: {exc}")
        else:
            self.finished.emit(result)


class Job(QObject):
    """Owns one worker and its thread for the life of one job.

    ``done`` is emitted once, after ``finished`` or ``failed``, when the thread has stopped:
    the owner may then drop the Job.
    """

    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    done = Signal()

    def __init__(self, job: JobFunction[object], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cancel_event = threading.Event()
        self._thread = QThread()
        self._worker = Worker(job, self.cancel_event)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        # Relayed through this object, which lives in the GUI thread: slots run there.
        self._worker.progress.connect(self.progress)
        self._worker.finished.connect(self._on_finished)
        self._worker.failed.connect(self._on_failed)
        self._thread.finished.connect(self._on_thread_finished)
        self._running = False

    def start(self) -> None:
        self._running = True
        self._thread.start()

    def is_running(self) -> bool:
        return self._running

    def cancel(self) -> None:
        """Ask the job to stop; it returns early (a cancelled result) at its next check."""
        self.cancel_event.set()

    def stop(self, timeout_ms: int = 30_000) -> bool:
        """Cancel and wait for the thread: called on close, since a running thread at exit
        aborts the process. True when the thread has stopped."""
        self.cancel()
        self._thread.quit()
        return self._thread.wait(timeout_ms)

    @Slot(object)
    def _on_finished(self, result: object) -> None:
        self._thread.quit()
        self.finished.emit(result)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._thread.quit()
        self.failed.emit(message)

    @Slot()
    def _on_thread_finished(self) -> None:
        # ``finished`` comes from the thread just before it ends: wait for the very end, so
        # the owner may drop this object (and the QThread) as soon as ``done`` arrives.
        self._thread.wait()
        self._running = False
        self.done.emit()
