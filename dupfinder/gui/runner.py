"""The app's job runner for the desktop: each job on its own ``QThread`` (see ``worker``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from dupfinder.app.jobs import JobFunction, ProgressSink
from dupfinder.gui.worker import Job

__all__ = ["ThreadRunner"]

T = TypeVar("T")


class ThreadRunner:
    """Runs one job at a time off the GUI thread; callbacks arrive on the GUI thread."""

    def __init__(self) -> None:
        self.job: Job | None = None

    def start(
        self,
        function: JobFunction[T],
        progress: ProgressSink,
        finished: Callable[[T], None],
        failed: Callable[[str], None],
        done: Callable[[], None],
    ) -> None:
        job = Job(function)
        job.progress.connect(progress)
        job.finished.connect(finished)
        job.failed.connect(failed)
        job.done.connect(self._forget)
        job.done.connect(done)
        self.job = job
        job.start()

    def _forget(self) -> None:
        self.job = None

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def stop(self) -> None:
        if self.job is not None:
            self.job.stop()
