"""A worker asks the C library to keep the top of its heap between pictures, where it can."""

from __future__ import annotations

import ctypes
import platform
import signal
import sys

import pytest

from dupfinder.core.fingerprints import heap, worker


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="glibc's mallopt",
)
def test_glibc_takes_the_pad() -> None:
    assert heap.keep_heap_pad()


def test_elsewhere_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert not heap.keep_heap_pad()


def test_a_c_library_without_mallopt_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoMallopt:
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert not heap.keep_heap_pad()


def test_every_worker_asks_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[bool] = []

    def keep() -> bool:
        asked.append(True)
        return True

    monkeypatch.setattr(worker, "keep_heap_pad", keep)
    monkeypatch.setattr(worker, "silence_process", lambda: None)
    monkeypatch.setattr(signal, "signal", lambda *args: None)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # worker_init sets it where unset
    worker.worker_init()
    assert asked == [True]
