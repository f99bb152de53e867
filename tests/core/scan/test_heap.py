"""Memory freed by a scan's phases goes back to the system, not only to the allocator."""

from __future__ import annotations

import os

import pytest

from dupfinder.core.scan import heap

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _resident() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * _PAGE


@pytest.mark.skipif(heap._glibc() is None, reason="the C library is not glibc")
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
