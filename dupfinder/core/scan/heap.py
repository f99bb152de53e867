"""Memory the C allocator keeps for freed blocks, given back to the system between phases.

A scan of a million files builds and frees arrays of some megabytes again and again (the
byte-identical pass's sorts, the grouping's tables and bands). glibc's malloc serves a block
of that size from the heap once a freed mapped block has raised its threshold for mapping
(up to 32 MiB), and a heap hole it never returns unless asked: a million files' cold scan
held 130 MB of freed heap through its grouping and 200 MB while the result was written.
``map_large_blocks`` fixes the threshold, so each large block is a mapping of its own that
goes back to the system when freed, and ``give_back`` returns the heap's free pages after a
phase. Elsewhere (another C library, another system) both do nothing.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import sys

__all__ = ["give_back", "map_large_blocks"]

#: glibc's ``mallopt`` parameter for the size from which a block is mapped on its own.
_M_MMAP_THRESHOLD = -3
#: Blocks from this size are mapped on their own (glibc's own starting value is 128 KiB; a
#: little more keeps the many arrays of a few thousand rows in the heap, where they cost
#: no page faults).
_MAPPED_FROM = 256 << 10


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The process's C library when it is glibc (it alone has ``malloc_trim``)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (glibc's own symbol: musl has none)
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return libc


def map_large_blocks() -> None:
    """Blocks from 256 KiB on are mapped on their own for the rest of the process, and
    unmapped when freed (the threshold no longer rises with the blocks freed)."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(_M_MMAP_THRESHOLD, _MAPPED_FROM)


def give_back() -> None:
    """Collect unreachable objects, then return the C heap's free pages to the system."""
    gc.collect()
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
