"""A long call in a worker process: its result and progress come back, a cancel kills it at
once, and any way it fails is an IsolatedFailure, never a hang. Beside a window, worker
processes run at a lower priority."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import pytest
from scan_helpers import counted_sum, dying, niceness, raising, sleeping

from dupfinder.core.fingerprints.priority import BACKGROUND_NICENESS
from dupfinder.core.fingerprints.worker import worker_init
from dupfinder.core.model import Phase, Progress
from dupfinder.core.scan import isolated
from dupfinder.core.scan.pipeline import _mp_context


@pytest.mark.parametrize("start", ["forkserver", "spawn"])  # spawn: the bundles, macOS, Windows
def test_the_result_and_the_progress_come_back(start: str) -> None:
    seen: list[Progress] = []
    context = multiprocessing.get_context(start)
    result = isolated.call(counted_sum, ([1, 2, 3],), context, seen.append, threading.Event())
    assert result == 6
    assert [p.done for p in seen] == [0, 1, 2]
    assert all(p.phase is Phase.COMPARING and p.total == 3 for p in seen)
    assert not multiprocessing.active_children()


def test_an_exception_in_the_call_is_reported() -> None:
    with pytest.raises(isolated.IsolatedFailure, match="ValueError: no such thing"):
        isolated.call(raising, ("no such thing",), _mp_context(), print, threading.Event())


def test_a_process_that_dies_is_reported() -> None:
    with pytest.raises(isolated.IsolatedFailure, match="exit code 7"):
        isolated.call(dying, (7,), _mp_context(), print, threading.Event())


def test_arguments_that_cannot_cross_are_reported() -> None:
    with pytest.raises(isolated.IsolatedFailure, match="could not start"):
        isolated.call(counted_sum, (lambda: None,), _mp_context(), print, threading.Event())


def test_a_cancel_kills_the_call_at_once() -> None:
    cancel = threading.Event()

    def on_progress(sample: Progress) -> None:
        cancel.set()  # the call has started and now sleeps

    began = time.monotonic()
    assert isolated.call(sleeping, (600.0,), _mp_context(), on_progress, cancel) is None
    assert time.monotonic() - began < 300  # it did not wait for the call's ten minutes
    assert not multiprocessing.active_children()


def test_a_background_call_yields_the_cpu_to_the_window() -> None:
    here = os.nice(0)
    expected = min(19, here + BACKGROUND_NICENESS)
    assert isolated.call(niceness, (), _mp_context(), print, threading.Event()) == here
    background = isolated.call(
        niceness, (), _mp_context(), print, threading.Event(), background=True
    )
    assert background == expected


def test_a_scans_workers_beside_a_window_yield_the_cpu_to_it() -> None:
    here = os.nice(0)
    for background, expected in ((False, here), (True, min(19, here + BACKGROUND_NICENESS))):
        with ProcessPoolExecutor(
            1, mp_context=_mp_context(), initializer=worker_init, initargs=(background,)
        ) as pool:
            assert pool.submit(os.nice, 0).result() == expected
