"""The permuted-table search compiled with numba: one table per call, no Python in the loops.

Only :mod:`dupfinder.core.index_kernel` imports this module (numba is imported here, at the
top, so importing it is the test of whether the compiled path is available). The functions
take plain arrays describing one table (see ``index_kernel.TableArrays``) and release the GIL,
so tables run in parallel on a thread pool.

An entry is the fingerprint with its bits permuted, the table's blocks first: the XOR of two
entries has the pair's distance as its bit count, so candidates are verified from the sorted
entries alone (no gather of values), and the canonical-table test works on permuted masks.
Row numbers travel beside the entries. A table is sorted by a two-level counting sort on
the top bits of its key: groups of a few thousand entries, then buckets inside each group
while it is in cache (no comparison sort). Inside a run of equal keys, a branch-free loop
counts each entry's partners within k (the compiler vectorises it; most entries have none)
and only entries with partners are looked at again, so large runs, when fingerprints share
many bits or at large k, cost a few instructions per candidate pair.
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
    out = np.empty((max(size, 2 * arr.shape[0]), arr.shape[1]), arr.dtype)
    out[: arr.shape[0]] = arr
    return out


@numba.njit(**_JIT)
def _scatter_top(
    values: Any,
    masks: Any,
    lshift: Any,
    rshift: Any,
    top_segments: int,
    top_bits: int,
    entries: Any,
    rows: Any,
) -> Any:
    """Fingerprints grouped by the top ``top_bits`` bits of their entries, rows beside them;
    returns the group starts.

    One counting pass and one stable scatter into at most 2^top_bits places (few enough that
    every write stream stays in cache). Only the first ``top_segments`` segments of the
    permutation reach the top bits, so only they are computed here; the fingerprints are
    permuted later, group by group, while the group is in cache. ``entries`` and ``rows`` are
    buffers reused from table to table (fresh pages cost more than the sort).
    """
    n = values.size
    drop = np.uint64(_BITS - top_bits)
    starts = np.zeros((1 << top_bits) + 1, np.int64)
    if top_bits == 0:
        starts[1] = n
        entries[:] = values
        for i in range(n):
            rows[i] = i
        return starts
    for i in range(n):
        e = _pack(values[i], masks, lshift, rshift, top_segments)
        starts[np.int64(e >> drop) + 1] += 1
    for g in range(1 << top_bits):
        starts[g + 1] += starts[g]
    fill = starts[:-1].copy()
    for i in range(n):
        v = values[i]
        b = np.int64(_pack(v, masks, lshift, rshift, top_segments) >> drop)
        entries[fill[b]] = v
        rows[fill[b]] = i
        fill[b] += 1
    return starts


@numba.njit(inline="always")
def _scatter_sub(
    entries: Any,
    rows: Any,
    lo: int,
    hi: int,
    masks: Any,
    lshift: Any,
    rshift: Any,
    local: Any,
    local_rows: Any,
    sub: Any,
    drop: np.uint64,
    mask: np.uint64,
) -> None:
    """The fingerprints ``entries[lo:hi]`` permuted into entries (in place), then into
    ``local`` (rows beside) by counting sort on ``(e >> drop) & mask``: ``sub[b] : sub[b + 1]``
    is then bucket b of ``local``."""
    nseg = masks.size
    sub[:] = 0
    for i in range(lo, hi):
        e = _pack(entries[i], masks, lshift, rshift, nseg)
        entries[i] = e
        sub[np.int64((e >> drop) & mask) + 1] += 1
    for g in range(sub.size - 1):
        sub[g + 1] += sub[g]
    for i in range(lo, hi):
        b = np.int64((entries[i] >> drop) & mask)
        local[sub[b]] = entries[i]
        local_rows[sub[b]] = rows[i]
        sub[b] += 1
    # the scatter advanced each start to the next one's: shift back by one bucket
    for g in range(sub.size - 1, 0, -1):
        sub[g] = sub[g - 1]
    sub[0] = 0


@numba.njit(inline="always")
def _largest(starts: Any) -> int:
    largest = 0
    for g in range(starts.size - 1):
        largest = max(largest, starts[g + 1] - starts[g])
    return largest


@numba.njit(inline="always")
def _emit(
    local: Any,
    local_rows: Any,
    i: int,
    j: int,
    k: int,
    key_drop: np.uint64,
    full: np.uint64,
    differ: Any,
    out: Any,
    found: int,
) -> int:
    """Append pair (i, j) of ``local`` to ``out`` (room is made by the caller) when within k,
    of equal key and canonical here; returns the new count."""
    x = local[i] ^ local[j]
    d = popcount(x)
    if d > k or (x >> key_drop) != 0 or not _canonical(x, full, differ, differ.size):
        return found
    a, b = np.int64(local_rows[i]), np.int64(local_rows[j])
    out[found, 0] = min(a, b)
    out[found, 1] = max(a, b)
    out[found, 2] = d
    return found + 1


@numba.njit(inline="always")
def _window(local: Any, i: int, size: int, k: int, drop: np.uint64, window: int) -> bool:
    """Whether one of the next ``window`` entries shares the sort bits of entry i and is
    within k of it: a loop of fixed length without branches (no mispredicted loop exits
    on runs of random length)."""
    ei = local[i]
    hit = False
    for w in range(1, window + 1):
        j = min(i + w, size - 1)
        x = ei ^ local[j]
        hit |= (i + w < size) & ((x >> drop) == 0) & (popcount(x) <= k)
    return hit


@numba.njit(inline="always")
def _count_near(local: Any, i: int, lo: int, hi: int, k: int) -> int:
    """Entries of ``local[lo:hi]`` within k of entry i (branch-free: vectorised)."""
    ei = local[i]
    count = 0
    for j in range(lo, hi):
        count += popcount(ei ^ local[j]) <= k
    return count


@numba.njit(inline="always")
def _run_end(local: Any, i: int, size: int, drop: np.uint64) -> int:
    end = i + 1
    while end < size and ((local[end] ^ local[i]) >> drop) == 0:
        end += 1
    return end


@numba.njit(**_JIT)
def table_pairs(
    values: Any,
    k: int,
    masks: Any,
    lshift: Any,
    rshift: Any,
    top_segments: int,
    key_bits: int,
    full: np.uint64,
    differ: Any,
    top_bits: int,
    sub_bits: int,
    window: int,
    entries: Any,
    rows: Any,
) -> Any:
    """Pairs ``(i, j, distance)``, i < j rows of ``values``, within k whose canonical table is
    the one described: an int64 ``(P, 3)`` array.

    ``masks``/``lshift``/``rshift`` permute a fingerprint's bits (the key's ``key_bits`` on
    top; the first ``top_segments`` cover the top ``top_bits``); ``full`` and ``differ`` are
    the canonical-table masks, permuted the same way. Entries are ordered by their top
    ``top_bits + sub_bits`` bits (at most ``key_bits``); pairs sharing those are candidates,
    and the rest of the key is checked with the distance.

    Each entry meets the next ``window`` entries in a fixed, branch-free loop; only where its run
    of equal sort bits is longer than the window (low-entropy fingerprints, or few key bits
    at large k) does a vectorised count look further, and only entries with a partner within
    k are visited pair by pair.
    """
    starts = _scatter_top(values, masks, lshift, rshift, top_segments, top_bits, entries, rows)
    largest = _largest(starts)
    local = np.empty(largest, np.uint64)
    local_rows = np.empty(largest, rows.dtype)
    sub = np.empty((1 << sub_bits) + 1, np.int64)
    sort_drop = np.uint64(_BITS - top_bits - sub_bits)
    sub_mask = np.uint64((1 << sub_bits) - 1)
    key_drop = np.uint64(_BITS - key_bits)
    out = np.empty((1024, 3), np.int64)
    found = 0
    for group in range(starts.size - 1):
        glo, ghi = starts[group], starts[group + 1]
        size = ghi - glo
        if size < 2:
            continue
        _scatter_sub(
            entries,
            rows,
            glo,
            ghi,
            masks,
            lshift,
            rshift,
            local,
            local_rows,
            sub,
            sort_drop,
            sub_mask,
        )
        run_end = 0
        for i in range(size - 1):
            if _window(local, i, size, k, sort_drop, window):
                for j in range(i + 1, min(i + window + 1, size)):
                    if ((local[i] ^ local[j]) >> sort_drop) == 0:
                        if found == out.shape[0]:
                            out = _grow(out, found + 1)
                        found = _emit(
                            local, local_rows, i, j, k, key_drop, full, differ, out, found
                        )
            far = i + window + 1
            if far >= size or ((local[i] ^ local[far]) >> sort_drop) != 0:
                continue
            if run_end <= i:
                run_end = _run_end(local, i, size, sort_drop)
            near = _count_near(local, i, far, run_end, k)
            if near == 0:
                continue
            if found + near > out.shape[0]:
                out = _grow(out, found + near)
            for j in range(far, run_end):
                if popcount(local[i] ^ local[j]) <= k:
                    found = _emit(local, local_rows, i, j, k, key_drop, full, differ, out, found)
    return out[:found].copy()


@numba.njit(**_JIT)
def sorted_entries(
    values: Any,
    high: Any,
    top_bits: int,
    sub_bits: int,
    entries: Any,
    rows: Any,
) -> None:
    """``np.sort((values & high) | row)`` into ``entries`` (``high`` leaves the row bits free)."""
    zero = np.zeros(1, np.uint64)
    everything = np.full(1, ~np.uint64(0), np.uint64)
    starts = _scatter_top(values, high, zero, zero, 1, top_bits, entries, rows)
    for i in range(values.size):
        entries[i] = (entries[i] & high[0]) | np.uint64(rows[i])
    largest = _largest(starts)
    local = np.empty(largest, np.uint64)
    local_rows = np.empty(largest, rows.dtype)
    sub = np.empty((1 << sub_bits) + 1, np.int64)
    sub_drop = np.uint64(_BITS - top_bits - sub_bits)
    sub_mask = np.uint64((1 << sub_bits) - 1)
    for group in range(starts.size - 1):
        glo, ghi = starts[group], starts[group + 1]
        if ghi - glo < 2:
            continue
        _scatter_sub(
            entries,
            rows,
            glo,
            ghi,
            everything,
            zero,
            zero,
            local,
            local_rows,
            sub,
            sub_drop,
            sub_mask,
        )
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


@numba.njit(**_JIT)
def cross_pairs(
    a_entries: Any,
    a_rows: Any,
    b_values: Any,
    k: int,
    masks: Any,
    lshift: Any,
    rshift: Any,
    key_bits: int,
    full: np.uint64,
    differ: Any,
    filter_bits: int,
) -> Any:
    """Pairs ``(row of a, row of b, distance)`` within k whose canonical table is this one,
    between a small set ``a`` (its entries sorted, rows beside) and any number of ``b``.

    Each fingerprint of ``b`` is permuted on the fly and looked up: a bitmap of the top
    ``filter_bits`` key bits of ``a`` (small enough for the cache) turns most of them away
    with one load, and the rest are found by binary search. Cost: one pass over ``b``.
    """
    na = a_entries.size
    key_drop = np.uint64(_BITS - key_bits)
    filter_drop = np.uint64(_BITS - filter_bits)
    bitmap = np.zeros((1 << filter_bits) // 64 + 1, np.uint64)
    for i in range(na):
        f = a_entries[i] >> filter_drop
        bitmap[f >> np.uint64(6)] |= np.uint64(1) << (f & np.uint64(63))
    nseg = masks.size
    out = np.empty((1024, 3), np.int64)
    found = 0
    for bi in range(b_values.size):
        e = _pack(b_values[bi], masks, lshift, rshift, nseg)
        f = e >> filter_drop
        if (bitmap[f >> np.uint64(6)] >> (f & np.uint64(63))) & np.uint64(1) == 0:
            continue
        key = e >> key_drop
        lo, hi = 0, na
        while lo < hi:
            mid = (lo + hi) >> 1
            if (a_entries[mid] >> key_drop) < key:
                lo = mid + 1
            else:
                hi = mid
        while lo < na and (a_entries[lo] >> key_drop) == key:
            x = a_entries[lo] ^ e
            d = popcount(x)
            if d <= k and _canonical(x, full, differ, differ.size):
                if found == out.shape[0]:
                    out = _grow(out, found + 1)
                out[found, 0] = np.int64(a_rows[lo])
                out[found, 1] = bi
                out[found, 2] = d
                found += 1
            lo += 1
    return out[:found].copy()


@numba.njit(**_JIT)
def probe_build(values: Any, shifts: Any, key_bits: int) -> tuple[Any, Any, Any]:
    """One table per block for probing: ``values`` (and their rows) ordered by counting sort on
    the ``key_bits`` bits at ``shifts[t]`` (the top bits of block t); returns (starts, sorted
    values, rows), one line per table. A bucket's values are contiguous: probing reads them
    in sequence instead of gathering from all over ``values``."""
    n = values.size
    tables = shifts.size
    size = 1 << key_bits
    mask = np.uint64(size - 1)
    starts = np.zeros((tables, size + 1), np.int64)
    rows = np.empty((tables, n), np.uint32)
    ordered = np.empty((tables, n), np.uint64)
    for t in range(tables):
        shift = np.uint64(shifts[t])
        for i in range(n):
            starts[t, np.int64((values[i] >> shift) & mask) + 1] += 1
        for g in range(size):
            starts[t, g + 1] += starts[t, g]
        fill = starts[t, :size].copy()
        for i in range(n):
            b = np.int64((values[i] >> shift) & mask)
            rows[t, fill[b]] = i
            ordered[t, fill[b]] = values[i]
            fill[b] += 1
    return starts, ordered, rows


@numba.njit(**_JIT)
def probe_query(
    queries: Any,
    starts: Any,
    ordered: Any,
    rows: Any,
    shifts: Any,
    key_bits: int,
    errors: int,
    k: int,
) -> Any:
    """Pairs ``(query, row of values, distance)`` within k, each once.

    Pigeonhole over the blocks: two fingerprints within k differ in at most ``errors`` =
    k // blocks bits of some block, hence of its top ``key_bits``. Each query probes, in each
    block's table, every key within ``errors`` flips of its own; a pair is reported by the
    first table where it is within ``errors`` (the others skip it).
    """
    tables = shifts.size
    mask = np.uint64((1 << key_bits) - 1)
    flips = np.empty(max(min(errors, key_bits), 1), np.int64)
    out = np.empty((1024, 3), np.int64)
    found = 0
    for qi in range(queries.size):
        q = queries[qi]
        for t in range(tables):
            key = (q >> np.uint64(shifts[t])) & mask
            # more flips than key bits would probe outside the table (every key is reached
            # with at most key_bits flips anyway)
            for e in range(min(errors, key_bits) + 1):
                # every set of e distinct bit positions, in increasing order
                for i in range(e):
                    flips[i] = i
                while True:
                    probe = key
                    for i in range(e):
                        probe ^= np.uint64(1) << np.uint64(flips[i])
                    b = np.int64(probe)
                    for at in range(starts[t, b], starts[t, b + 1]):
                        x = q ^ ordered[t, at]
                        d = popcount(x)
                        if d > k:
                            continue
                        first = True
                        for s in range(t):
                            if popcount((x >> np.uint64(shifts[s])) & mask) <= errors:
                                first = False
                                break
                        if not first:
                            continue
                        if found == out.shape[0]:
                            out = _grow(out, found + 1)
                        out[found, 0] = qi
                        out[found, 1] = np.int64(rows[t, at])
                        out[found, 2] = d
                        found += 1
                    # next combination
                    i = e - 1
                    while i >= 0 and flips[i] == key_bits - e + i:
                        i -= 1
                    if i < 0:
                        break
                    flips[i] += 1
                    for j in range(i + 1, e):
                        flips[j] = flips[j - 1] + 1
    return out[:found].copy()
