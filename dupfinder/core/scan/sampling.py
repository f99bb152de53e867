"""Progress as a person can follow it: at most one sample per interval, every phase change.

A scan reports per batch of files; a window or a terminal redrawn for each would spend more
time drawing than the scan spends working. Shared by ``pipeline`` and ``exact_only``.
"""

from __future__ import annotations

import time

from dupfinder.core.model import Phase, Progress, ProgressCallback

__all__ = ["SAMPLE_SECONDS", "Sampler"]

#: The shortest time between two samples of one phase.
SAMPLE_SECONDS = 0.1


class Sampler:
    """Forwards at most one progress sample per interval, plus every phase change."""

    def __init__(self, sink: ProgressCallback) -> None:
        self._sink = sink
        self._last = 0.0
        self._phase: Phase | None = None

    def __call__(self, sample: Progress, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or sample.phase is not self._phase or now - self._last >= SAMPLE_SECONDS:
            self._phase = sample.phase
            self._last = now
            self._sink(sample)
