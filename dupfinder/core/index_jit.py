"""The permuted-table search compiled with numba: one table per call, no Python in the loops.

Only :mod:`dupfinder.core.index_kernel` imports this module (numba is imported here, at the
top, so importing it is the test of whether the compiled path is available). The functions
take plain arrays describing one table (see ``index_kernel.TableArrays``) and release the GIL,
so tables run in parallel on a thread pool.

A table is built by a counting sort on the top bits of its key (one counting pass and one
scatter, no comparison sort); buckets larger than a few entries are sorted in place so that
runs of equal keys stay linear to find even when fingerprints share many bits. Candidate
pairs, the stash test and the popcount verification happen in the same loop that walks the
runs, and only pairs whose canonical table is this one are written out.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import types
from numba.core.extending import intrinsic

_JIT: dict[str, Any] = {"nogil": True, "cache": True}
#: Buckets up to this size are compared pair by pair; larger ones are sorted first.
_SMALL_BUCKET = 12
_BITS = 64


def _ctpop(typingctx: Any, x: Any) -> Any:
    """The CPU's population count instruction (LLVM ctpop) on a uint64, as an int64."""
    if x != types.uint64:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


popcount: Any = intrinsic(_ctpop)


@numba.njit(inline="always")
def _pack(v: np.uint64, masks: Any, lshift: Any, rshift: Any, nseg: int) -> np.uint64:
    """Key and stash of one fingerprint, as ``_Table.pack`` writes them (row bits zero)."""
    e = np.uint64(0)
    for s in range(nseg):
        e |= ((v & masks[s]) << lshift[s]) >> rshift[s]
    return e


@numba.njit(inline="always")
def _canonical(x: np.uint64, full: np.uint64, differ: Any, ndiffer: int) -> bool:
    """Whether the pair with XOR ``x`` agrees on this table's blocks and no earlier table's."""
    if x & full:
        return False
    for j in range(ndiffer):  # noqa: SIM110 (numba compiles no generator expressions)
        if (x & differ[j]) == 0:
            return False
    return True


@numba.njit(**_JIT)
def _grow(arr: Any, size: int) -> Any:
    out = np.empty(max(16, 2 * arr.size, size), arr.dtype)
    out[: arr.size] = arr
    return out


@numba.njit(**_JIT)
def _scatter_top(
    values: Any, masks: Any, lshift: Any, rshift: Any, nseg: int, top_bits: int, entries: Any
) -> Any:
    """Entries ``key | stash | row`` grouped by their top ``top_bits`` bits, and group starts.

    One counting pass and one stable scatter into at most 2^top_bits places (few enough that
    every write stream stays in cache); entries are packed twice rather than stored between
    the passes (packing is a few instructions, memory is the scarce part). ``entries`` is a
    buffer of ``values.size`` reused from table to table (fresh pages cost more than the sort).
    """
    n = values.size
    drop = np.uint64(_BITS - top_bits)
    starts = np.zeros((1 << top_bits) + 1, np.int64)
    for i in range(n):
        e = _pack(values[i], masks, lshift, rshift, nseg)
        starts[np.int64(e >> drop) + 1 if top_bits else 1] += 1
    for g in range(1 << top_bits):
        starts[g + 1] += starts[g]
    fill = starts[:-1].copy()
    for i in range(n):
        e = _pack(values[i], masks, lshift, rshift, nseg)
        b = np.int64(e >> drop) if top_bits else np.int64(0)
        entries[fill[b]] = e | np.uint64(i)
        fill[b] += 1
    return starts


@numba.njit(inline="always")
def _scatter_sub(
    entries: Any, lo: int, hi: int, local: Any, sub: Any, drop: np.uint64, mask: np.uint64
) -> None:
    """``entries[lo:hi]`` into ``local[: hi - lo]`` by counting sort on the bits ``(e >> drop) & mask``;
    ``sub[b] : sub[b + 1]`` is then sub-bucket b of ``local``."""
    sub[:] = 0
    for i in range(lo, hi):
        sub[np.int64((entries[i] >> drop) & mask) + 1] += 1
    for g in range(sub.size - 1):
        sub[g + 1] += sub[g]
    for i in range(lo, hi):
        b = np.int64((entries[i] >> drop) & mask)
        local[sub[b]] = entries[i]
        sub[b] += 1
    # the scatter advanced each start to the next one's: shift back by one bucket
    for g in range(sub.size - 1, 0, -1):
        sub[g] = sub[g - 1]
    sub[0] = 0


@numba.njit(inline="always")
def _largest(starts: Any) -> int:
    largest = 0
    for b in range(starts.size - 1):
        largest = max(largest, starts[b + 1] - starts[b])
    return largest


@numba.njit(**_JIT)
def table_pairs(
    values: Any,
    k: int,
    masks: Any,
    lshift: Any,
    rshift: Any,
    nseg: int,
    key_bits: int,
    full: np.uint64,
    differ: Any,
    ndiffer: int,
    id_bits: int,
    top_bits: int,
    sub_bits: int,
    entries: Any,
) -> tuple[Any, Any, Any]:
    """Pairs (i < j, rows of ``values``) within k whose canonical table is the one described.

    Entries are grouped by their top ``top_bits`` key bits, then each group (small enough to
    stay in cache) by the next ``sub_bits``: a two-level counting sort. Entries of a sub-bucket
    that also share the remaining key bits are candidates; the candidate test looks at the
    entries alone (key equal, few differing stash bits) before reading the two values.
    """
    starts = _scatter_top(values, masks, lshift, rshift, nseg, top_bits, entries)
    local = np.empty(_largest(starts), np.uint64)
    sub = np.empty((1 << sub_bits) + 1, np.int64)
    sub_drop = np.uint64(_BITS - top_bits - sub_bits)
    sub_mask = np.uint64((1 << sub_bits) - 1)
    exact = top_bits + sub_bits >= key_bits
    id_mask = np.uint64((1 << id_bits) - 1)
    high = ~id_mask
    key_drop = np.uint64(_BITS - key_bits)
    sort_drop = np.uint64(_BITS - top_bits - sub_bits)
    out_a = np.empty(1024, np.int64)
    out_b = np.empty(1024, np.int64)
    out_d = np.empty(1024, np.uint8)
    found = 0
    for group in range(starts.size - 1):
        glo, ghi = starts[group], starts[group + 1]
        size = ghi - glo
        if size < 2:
            continue
        _scatter_sub(entries, glo, ghi, local, sub, sub_drop, sub_mask)
        # ``local`` is ordered by the sort bits; each entry meets the ones after it up to the
        # end of its run of equal sort bits, or of equal key where a long run was sorted
        sorted_end = 0
        for i in range(size - 1):
            ei = local[i]
            if i >= sorted_end and not exact and (i == 0 or (local[i - 1] ^ ei) >> sort_drop):
                end = i + 1
                while end < size and ((local[end] ^ ei) >> sort_drop) == 0:
                    end += 1
                if end - i > _SMALL_BUCKET:
                    local[i:end].sort()
                    ei = local[i]
                    sorted_end = end
            stop = key_drop if i < sorted_end or exact else sort_drop
            for j in range(i + 1, size):
                diff = ei ^ local[j]
                if diff >> stop:
                    break
                if (diff >> key_drop) != 0 or popcount(diff & high) > k:
                    continue
                ri = np.int64(ei & id_mask)
                rj = np.int64(local[j] & id_mask)
                x = values[ri] ^ values[rj]
                d = popcount(x)
                if d > k or not _canonical(x, full, differ, ndiffer):
                    continue
                if found == out_a.size:
                    out_a = _grow(out_a, found + 1)
                    out_b = _grow(out_b, found + 1)
                    out_d = _grow(out_d, found + 1)
                out_a[found] = min(ri, rj)
                out_b[found] = max(ri, rj)
                out_d[found] = d
                found += 1
    return out_a[:found].copy(), out_b[:found].copy(), out_d[:found].copy()


@numba.njit(**_JIT)
def sorted_entries(
    values: Any,
    masks: Any,
    lshift: Any,
    rshift: Any,
    nseg: int,
    top_bits: int,
    sub_bits: int,
    entries: Any,
) -> None:
    """One table's entries, fully sorted, into ``entries`` (``np.sort`` of the packed entries)."""
    starts = _scatter_top(values, masks, lshift, rshift, nseg, top_bits, entries)
    local = np.empty(_largest(starts), np.uint64)
    sub = np.empty((1 << sub_bits) + 1, np.int64)
    sub_drop = np.uint64(_BITS - top_bits - sub_bits)
    sub_mask = np.uint64((1 << sub_bits) - 1)
    for group in range(starts.size - 1):
        glo, ghi = starts[group], starts[group + 1]
        if ghi - glo < 2:
            continue
        _scatter_sub(entries, glo, ghi, local, sub, sub_drop, sub_mask)
        for bucket in range(sub.size - 1):
            lo, hi = sub[bucket], sub[bucket + 1]
            if hi - lo > _SMALL_BUCKET:
                local[lo:hi].sort()
            else:
                for i in range(lo + 1, hi):  # insertion sort
                    e = local[i]
                    j = i - 1
                    while j >= lo and local[j] > e:
                        local[j + 1] = local[j]
                        j -= 1
                    local[j + 1] = e
        entries[glo:ghi] = local[: ghi - glo]
