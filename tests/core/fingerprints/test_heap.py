"""The C heap of a scan's processes: a worker keeps the top of its heap between pictures,
and memory freed by the scan's phases goes back to the system, not only to the allocator."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

import pytest

from dupfinder.core.fingerprints import heap, worker

glibc = pytest.mark.skipif(heap._glibc() is None, reason="the C library is not glibc")
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@glibc
def test_glibc_takes_the_pad() -> None:
    assert heap.keep_heap_pad()


def test_elsewhere_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    heap._glibc.cache_clear()
    try:
        assert not heap.keep_heap_pad()
        heap.map_large_blocks()  # no C library to ask: nothing happens
        heap.give_back()
    finally:
        heap._glibc.cache_clear()


def test_a_c_library_that_is_not_glibc_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    class Musl:
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(ctypes, "CDLL", Musl)
    heap._glibc.cache_clear()
    try:
        assert not heap.keep_heap_pad()
    finally:
        heap._glibc.cache_clear()


def test_every_worker_asks_for_the_pad(monkeypatch: pytest.MonkeyPatch) -> None:
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


def _resident() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE


@glibc
def test_freed_heap_blocks_go_back_to_the_system() -> None:
    heap.map_large_blocks()
    blocks, pins = [], []
    for _ in range(1000):  # 64 KiB blocks in the heap, each followed by one that stays
        block = bytearray(64 << 10)
        block[::_PAGE] = b"\1" * len(block[::_PAGE])  # every page written: resident
        blocks.append(block)
        pins.append(bytearray(600))
    del blocks
    before = _resident()
    heap.give_back()
    assert before - _resident() > 32 << 20
    assert len(pins) == 1000
