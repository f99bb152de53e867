"""The C heap of a scan's processes: pages kept where they are reused, given back where not.

glibc's malloc serves every numpy array, decoded picture and Python object of a scan, and how
it holds freed memory is worth two settings, one for each kind of process (elsewhere, under
another C library or system, nothing changes):

- **a worker** decodes one picture after another, each allocating and freeing buffers of a
  few to tens of MB. glibc gives the top of its heap back to the system as soon as a few
  hundred KB lie free there and takes it again for the next picture, every page faulted in
  and zeroed afresh: half the system time of a scan of pictures. ``keep_heap_pad`` keeps
  64 MB at the top (the mixed folder's pictures on one process: 3.0 -> 1.6 s of system CPU;
  peak memory +18 MB a process);
- **the scan itself** builds and frees arrays of some megabytes again and again (the
  byte-identical pass's sorts, the grouping's tables and bands). Once a freed mapped block
  has raised glibc's threshold for mapping (up to 32 MiB), blocks that size come from the
  heap, and a heap hole is never returned unless asked: a million files' cold scan held
  130 MB of freed heap through its grouping and 200 MB while the result was written.
  ``map_large_blocks`` fixes the threshold, so each large block is a mapping of its own that
  goes back to the system when freed, and ``give_back`` returns the heap's free pages after a
  phase.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import sys

__all__ = ["HEAP_PAD", "give_back", "keep_heap_pad", "map_large_blocks"]

#: Free memory a worker's heap keeps at its top (glibc's ``M_TOP_PAD``).
HEAP_PAD = 64 << 20
#: glibc's ``mallopt`` parameters (malloc.h): the top pad, the size from which a block is
#: mapped on its own.
_M_TOP_PAD = -2
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
        libc.mallopt.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


def keep_heap_pad() -> bool:
    """A worker's heap keeps ``HEAP_PAD`` at its top; whether the C library took it."""
    libc = _glibc()
    return libc is not None and bool(libc.mallopt(_M_TOP_PAD, HEAP_PAD))


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
