"""Cancelling a scan does not wait for the chunks its workers are busy with."""

from __future__ import annotations

import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from scan_helpers import essay, write

from dupfinder.core.model import Phase, Progress, ScanOptions
from dupfinder.core.scan import pipeline as scan


def test_a_cancelled_pool_is_shut_down_without_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(120):
        write(tmp_path / f"doc{i}.txt", essay(i))
    waits: list[bool] = []
    original = ProcessPoolExecutor.shutdown

    def recording(self: ProcessPoolExecutor, wait: bool = True, **kwargs: bool) -> None:
        waits.append(wait)
        original(self, wait=wait, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "shutdown", recording)
    cancel = threading.Event()

    def progress(sample: Progress) -> None:
        # at the phase's first sample, just before the pool takes its first chunks: waiting
        # for a sample with files done raced the pool, which can finish 120 files before the
        # next sample is due
        if sample.phase is Phase.FINGERPRINTING:
            cancel.set()

    options = ScanOptions(roots=(tmp_path,), jobs=2, use_cache=False)
    results = []
    # Off the main thread, as the desktop app runs it: the pool is used even for few files.
    worker = threading.Thread(target=lambda: results.append(scan.run(options, progress, cancel)))
    worker.start()
    worker.join(120)
    assert results[0].stats.cancelled
    assert waits == [False]
