"""The index's compiled kernel: all pairs table by table, on threads, with a numpy fallback.

The permuted tables of :mod:`dupfinder.core.index` are searched here by numba-compiled code
(:mod:`dupfinder.core.index_jit`): each table is built by a counting sort on its key bits,
and candidates are generated, stash-tested and verified in one pass. Tables are independent,
so they run on a thread pool (the compiled code releases the GIL).

The per-table function is public so that other drivers (a distributed all-pairs, say) can
split the work by table, or by key range inside a table: :func:`table_pairs` returns the
pairs of a set of fingerprints whose *canonical* table is ``t``, so the union over all
tables is every pair within k exactly once, whatever way the tables are shared out.

numba is imported on first use, not with this module (process-pool workers that only
fingerprint never pay for it). When it cannot be imported, :func:`available` is False, the
index uses its numpy path, and one warning says so. Compiled code is cached in the user
cache folder (see :mod:`dupfinder.core.jit_cache`), so only the first run on a machine
compiles.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import queue
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import numpy.typing as npt
from platformdirs import user_cache_dir

from dupfinder.core.index import _id_bits, _make_tables, _Table

__all__ = [
    "Layout",
    "TableArrays",
    "all_pairs",
    "available",
    "make_layout",
    "sorted_by_value",
    "table_keys",
    "table_pairs",
]

U64Array = npt.NDArray[np.uint64]
I64Array = npt.NDArray[np.int64]

_log = logging.getLogger(__name__)
_BITS = 64
#: Entries per first-level group of the counting sort: small enough to stay in cache.
_GROUP_BITS = 12
#: Most second-level bits: 2^14 counters (128 KiB) per group.
_MAX_SUB_BITS = 14


@functools.cache
def _jit() -> ModuleType | None:
    """The compiled functions, or None (with one warning) when numba cannot be loaded."""
    os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(user_cache_dir("dupfinder"), "numba"))
    os.environ.setdefault("NUMBA_CACHE_LOCATOR_CLASSES", "dupfinder.core.jit_cache.AppCacheLocator")
    try:
        return importlib.import_module("dupfinder.core.index_jit")
    except (ImportError, OSError, RuntimeError) as exc:
        _log.warning("compiled index unavailable (%s); using the slower numpy index", exc)
        return None


def available() -> bool:
    """Whether the compiled kernel can run here (imports numba on the first call)."""
    return _jit() is not None


@dataclass(frozen=True, slots=True)
class TableArrays:
    """One table as plain arrays for the compiled code (see ``index._Table``)."""

    masks: U64Array  # bits of the fingerprint per segment
    lshift: U64Array  # each segment moves left by lshift, then right by rshift
    rshift: U64Array
    key_bits: int  # the key is the entry's top key_bits bits
    full: np.uint64  # every bit of the table's blocks
    differ: U64Array  # earlier blocks the pair must differ on for this table to be canonical

    @classmethod
    def of(cls, table: _Table) -> TableArrays:
        shifts = [shift for _, shift in table.segments]
        return cls(
            masks=np.array([mask for mask, _ in table.segments], np.uint64),
            lshift=np.array([max(s, 0) for s in shifts], np.uint64),
            rshift=np.array([max(-s, 0) for s in shifts], np.uint64),
            key_bits=table.key_bits,
            full=np.uint64(table.full_mask),
            differ=np.array(table.differ_masks, np.uint64),
        )


@dataclass(frozen=True, slots=True)
class Layout:
    """The tables for radius ``k`` with ``blocks`` blocks, for up to ``capacity`` rows."""

    k: int
    blocks: int
    id_bits: int
    tables: tuple[TableArrays, ...]

    @property
    def capacity(self) -> int:
        return (1 << self.id_bits) - 1


def make_layout(k: int, blocks: int, rows: int) -> Layout:
    """The C(blocks, k) tables for ``rows`` fingerprints at radius ``k`` (0 <= k < blocks)."""
    id_bits = _id_bits(rows)
    tables = tuple(TableArrays.of(t) for t in _make_tables(blocks, k, id_bits))
    return Layout(k, blocks, id_bits, tables)


def _sort_bits(n: int, key_bits: int) -> tuple[int, int]:
    """Bits of the two counting-sort levels: groups of about 2^12 entries, then buckets of
    about two entries, never more bits than the key (at least one bit at the second level)."""
    top = max(0, min(n.bit_length() - _GROUP_BITS, key_bits - 1, 11))
    sub = max(1, min(n.bit_length() - 1 - top, key_bits - top, _MAX_SUB_BITS))
    return top, sub


def _require() -> ModuleType:
    jit = _jit()
    if jit is None:
        raise RuntimeError("the compiled index needs numba, which could not be imported")
    return jit


def table_pairs(
    values: U64Array, layout: Layout, t: int, *, buffer: U64Array | None = None
) -> tuple[I64Array, I64Array, I64Array]:
    """Pairs (i, j, distance), i < j positions in ``values``, within ``layout.k`` whose canonical
    table is ``t``: the union over every ``t`` is each pair within k exactly once.

    ``values`` may be any subset of the fingerprints the layout was made for (at most
    ``layout.capacity``): for example, the fingerprints whose key in table ``t`` falls in one
    range (:func:`table_keys`), since pairs found by table ``t`` share that key. ``buffer``
    (``values.size`` uint64, reused from call to call) saves allocating the table's entries.
    """
    values = np.ascontiguousarray(values, dtype=np.uint64)
    if values.size > layout.capacity:
        raise ValueError(f"{values.size} fingerprints exceed the layout's {layout.capacity}")
    if values.size < 2:
        empty = np.empty(0, np.int64)
        return empty, empty.copy(), empty.copy()
    table = layout.tables[t]
    a, b, d = _require().table_pairs(
        values,
        layout.k,
        table.masks,
        table.lshift,
        table.rshift,
        table.masks.size,
        table.key_bits,
        table.full,
        table.differ,
        table.differ.size,
        layout.id_bits,
        *_sort_bits(values.size, table.key_bits),
        _buffer(buffer, values.size),
    )
    return a, b, d.astype(np.int64)


def table_keys(values: U64Array, layout: Layout, t: int) -> U64Array:
    """Each fingerprint's key in table ``t`` (its ``key_bits`` bits, right-aligned)."""
    table = layout.tables[t]
    values = np.asarray(values, dtype=np.uint64)
    packed = np.zeros(values.size, np.uint64)
    for mask, left, right in zip(table.masks, table.lshift, table.rshift, strict=True):
        packed |= ((values & mask) << left) >> right
    return packed >> np.uint64(_BITS - table.key_bits)


def _buffer(buffer: U64Array | None, size: int) -> U64Array:
    if buffer is None:
        return np.empty(size, np.uint64)
    if buffer.dtype != np.uint64 or buffer.size < size or not buffer.flags.c_contiguous:
        raise ValueError(f"buffer must be a contiguous uint64 array of at least {size}")
    return buffer[:size]


def sorted_by_value(values: U64Array) -> U64Array:
    """``np.sort((values & ~row_mask) | rows)``, by counting sort (finds identical values)."""
    values = np.ascontiguousarray(values, dtype=np.uint64)
    id_bits = _id_bits(values.size)
    mask = np.array([(1 << _BITS) - (1 << id_bits)], np.uint64)
    zero = np.zeros(1, np.uint64)
    entries = np.empty(values.size, np.uint64)
    top, sub = _sort_bits(values.size, _BITS - id_bits)
    _require().sorted_entries(values, mask, zero, zero, 1, top, sub, entries)
    return entries


def all_pairs(
    values: U64Array, k: int, blocks: int, *, threads: int | None = None
) -> tuple[I64Array, I64Array, I64Array]:
    """Every pair of rows within k (unsorted, each once), tables shared among ``threads``."""
    layout = make_layout(k, blocks, values.size)
    values = np.ascontiguousarray(values, dtype=np.uint64)
    workers = max(1, min(threads or os.cpu_count() or 1, len(layout.tables)))
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for t in range(len(layout.tables)):
        todo.put(t)

    def work() -> list[tuple[I64Array, I64Array, I64Array]]:
        """Tables taken one by one (a busy core takes fewer), one buffer for all of them."""
        buffer = np.empty(values.size, np.uint64)
        found: list[tuple[I64Array, I64Array, I64Array]] = []
        while True:
            try:
                t = todo.get_nowait()
            except queue.Empty:
                return found
            found.append(table_pairs(values, layout, t, buffer=buffer))

    if workers == 1:
        parts = work()
    else:
        with ThreadPoolExecutor(workers, thread_name_prefix="dupfinder-index") as pool:
            shares = [pool.submit(work) for _ in range(workers)]
            parts = [part for share in shares for part in share.result()]
    cols = list(zip(*parts, strict=True))
    return np.concatenate(cols[0]), np.concatenate(cols[1]), np.concatenate(cols[2])
