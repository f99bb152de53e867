"""The permuted-table search compiled with numba: one table per call, no Python in the loops.

Only :mod:`dupfinder.core.index.compiled` imports this module (numba is imported here, at the
top, so importing it is the test of whether the compiled path is available). The functions
take plain arrays describing one table (see ``index_kernel.TableArrays``) and release the GIL,
so tables run in parallel on a thread pool.

An entry is the fingerprint with its bits permuted, the table's blocks first: the XOR of two
entries has the pair's distance as its bit count, so candidates are verified from the sorted
entries alone (no gather of values), and the canonical-table test works on permuted masks.
Row numbers travel beside the entries. Tables led by the same block are searched together:
one counting sort on that block's top bits puts the fingerprints in groups of a few thousand,
then, group by group while it is in cache, each table permutes the group and orders it by
counting sort on the rest of its key (no comparison sort). Candidates are found without
branches on the data: short runs of equal keys by a fixed window in which the loop over
entries vectorises, long runs diagonal by diagonal (every entry against the one w places on,
a vectorised reduction); only entries flagged as having a partner within k are visited pair
by pair. Hot loops start at 0 and index with unsigned numbers, and the loops that grow the
output live in functions of their own: numba's negative-index checks and the reference
counting of a growing array otherwise stop the compiler from vectorising.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import types
from numba.core.extending import intrinsic

from dupfinder.core.index.layout import BITS

_JIT: dict[str, Any] = {"nogil": True, "cache": True}
#: Buckets up to this size are compared pair by pair; larger ones are sorted first.
_SMALL_BUCKET = 12
#: Entries of a bucket compared at once with a flagged entry (one bit each of a mask).
_SPAN = 64
#: Most rows of output room made for a group's flagged entries without counting their pairs.
_ROOM = 1 << 20


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


@numba.njit(inline="always")
def _scatter_sub(
    entries: Any, lo: int, hi: int, local: Any, sub: Any, drop: np.uint64, mask: np.uint64
) -> None:
    """``entries[lo:hi]`` into ``local`` by counting sort on ``(e >> drop) & mask``:
    ``sub[b] : sub[b + 1]`` is then bucket b of ``local``."""
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
    for g in range(starts.size - 1):
        largest = max(largest, starts[g + 1] - starts[g])
    return largest


@numba.njit(inline="always")
def _near(x: np.uint64, k: int, key_drop: np.uint64) -> np.uint8:
    """1 when an XOR of two entries is within k and has no bit in the key (branch-free)."""
    return np.uint8(popcount(x) <= k) & np.uint8((x >> key_drop) == 0)


@numba.njit(inline="always")
def _flag_window(
    local: Any,
    size: int,
    k: int,
    key_drop: np.uint64,
    sort_drop: np.uint64,
    window: int,
    flags: Any,
) -> None:
    """``flags[i]``: bit 0 when one of the next ``window`` entries is a partner of entry i,
    bit 1 when entry i's run of equal sort bits reaches past that window.

    With ``window`` a constant the inner loop unrolls and the loop over i vectorises (many
    entries per instruction): no branch depends on the data.
    """
    body = size - window - 1
    for i in range(max(body, 0)):
        ei = local[i]
        hit = np.uint8(0)
        for w in range(1, window + 1):
            hit |= _near(ei ^ local[i + w], k, key_drop)
        flags[i] = hit | (np.uint8(((ei ^ local[i + window + 1]) >> sort_drop) == 0) << 1)
    for i in range(max(body, 0), size):
        ei = local[i]
        hit = np.uint8(0)
        for j in range(i + 1, min(i + window + 1, size)):
            hit |= _near(ei ^ local[j], k, key_drop)
        flags[i] = hit


@numba.njit(**_JIT)
def _flags_4(local: Any, size: int, k: int, key_drop: Any, sort_drop: Any, flags: Any) -> None:
    _flag_window(local, size, k, key_drop, sort_drop, 4, flags)


@numba.njit(**_JIT)
def _flags_8(local: Any, size: int, k: int, key_drop: Any, sort_drop: Any, flags: Any) -> None:
    _flag_window(local, size, k, key_drop, sort_drop, 8, flags)


@numba.njit(**_JIT)
def _flags_16(local: Any, size: int, k: int, key_drop: Any, sort_drop: Any, flags: Any) -> None:
    _flag_window(local, size, k, key_drop, sort_drop, 16, flags)


@numba.njit(**_JIT)
def _flag_long_runs(
    local: Any, size: int, k: int, key_drop: Any, sort_drop: Any, window: int, flags: Any
) -> None:
    """Bit 0 of ``flags`` for partners further than ``window`` apart, in the runs that bit 1
    marks: diagonal by diagonal (offset w, every i at once), so each step is a vectorised
    loop over contiguous entries however long the run."""
    i = 0
    while i < size:
        if not flags[i] & np.uint8(2):
            i += 1
            continue
        lo = i
        hi = i + window + 2
        while hi < size and ((local[hi] ^ local[lo]) >> sort_drop) == 0:
            hi += 1
        run, marks = local[lo:hi], flags[lo:hi]
        if sort_drop == key_drop:  # the run is one key: the distance alone decides
            for w in range(window + 1, hi - lo):
                ahead, ends = run[w:], marks[: hi - lo - w]
                for j in range(ends.size):
                    ends[j] |= np.uint8(popcount(run[j] ^ ahead[j]) <= k)
        else:
            for w in range(window + 1, hi - lo):
                ahead, ends = run[w:], marks[: hi - lo - w]
                for j in range(ends.size):
                    ends[j] |= _near(run[j] ^ ahead[j], k, key_drop)
        i = hi


@numba.njit(inline="always")
def _nearest(e: np.uint64, rest: Any) -> int:
    """The smallest distance from ``e`` to an entry of ``rest`` (64 when empty)."""
    m = 64
    for j in range(rest.size):
        m = min(m, popcount(e ^ rest[j]))
    return m


@numba.njit(**_JIT)
def _flag_buckets(local: Any, ends: Any, nsub: int, k: int, hits: Any) -> int:
    """Positions of the entries with a partner within k later in their bucket, where a bucket
    is one key (``ends[b]`` is where bucket b ends), into ``hits``; returns how many.

    Four entries at a time meet the rest of their bucket in one vectorised loop (a minimum of
    distances, no branch on the data): each later entry is loaded once for four comparisons.
    """
    lo = 0
    count = 0
    for b in range(nsub):
        hi = ends[b]
        run = local[lo:hi]
        i = 0
        while i + 4 <= run.size:
            e0, e1, e2, e3 = run[i], run[i + 1], run[i + 2], run[i + 3]
            m0 = min(popcount(e0 ^ e1), popcount(e0 ^ e2), popcount(e0 ^ e3))
            m1 = min(popcount(e1 ^ e2), popcount(e1 ^ e3))
            m2 = popcount(e2 ^ e3)
            m3 = 64
            rest = run[i + 4 :]
            for j in range(rest.size):
                r = rest[j]
                m0 = min(m0, popcount(e0 ^ r))
                m1 = min(m1, popcount(e1 ^ r))
                m2 = min(m2, popcount(e2 ^ r))
                m3 = min(m3, popcount(e3 ^ r))
            at = lo + i
            hits[count] = at
            count += m0 <= k
            hits[count] = at + 1
            count += m1 <= k
            hits[count] = at + 2
            count += m2 <= k
            hits[count] = at + 3
            count += m3 <= k
            i += 4
        for last in range(i, run.size):
            hits[count] = lo + last
            count += _nearest(run[last], run[last + 1 :]) <= k
        lo = hi
    return count


@numba.njit(**_JIT)
def _flagged(flags: Any, size: int, hits: Any) -> int:
    """Positions of the entries with bit 0 of ``flags`` into ``hits``; returns how many.
    (Kept apart from the loop that grows the output: a growing array in a loop costs
    reference counting on every turn.)"""
    count = 0
    for i in range(size):
        hits[count] = i
        count += flags[i] & np.uint8(1)
    return count


@numba.njit(inline="always")
def _partners(ei: np.uint64, block: Any, k: int) -> np.uint64:
    """Bit c set when ``block[c]`` is within k of ``ei``, for the :data:`_SPAN` entries of
    ``block``: a fixed-length loop without branches, so it vectorises (a bit mask, no
    reduction to a minimum and no walk to find where the partner was)."""
    found = np.uint64(0)
    for c in range(_SPAN):
        found |= np.uint64(popcount(ei ^ block[c]) <= k) << np.uint64(c)
    return found


@numba.njit(inline="always")
def _write_pairs(
    local: Any,
    local_rows: Any,
    ends: Any,
    hits: Any,
    count: int,
    k: int,
    key_drop: np.uint64,
    sort_drop: np.uint64,
    sub_mask: np.uint64,
    full: np.uint64,
    differ: Any,
    ndiffer: int,
    limit: int,
    out: Any,
    found: int,
) -> int:
    """Write to ``out`` from ``found`` on the pairs of the entries ``hits[:count]`` with the
    later entries of their bucket: within k, of equal key, canonical here, with a row below
    ``limit`` (room is made by the caller). Returns the new count.

    The rest of the bucket is read :data:`_SPAN` entries at a time as a mask of the entries
    within k (``local`` has that many entries of room past its end: bits past the bucket
    are dropped); only those are checked further (a flagged entry has one or two partners
    in a bucket of a hundred or more)."""
    one = np.uint64(1)
    for h in range(count):
        i = hits[h]
        ei = local[i]
        end = ends[(ei >> sort_drop) & sub_mask]
        for j in range(i + 1, end, _SPAN):
            near = _partners(ei, local[j : j + _SPAN], k)
            if end - j < _SPAN:
                near &= (one << np.uint64(end - j)) - one
            while near:
                jj = j + popcount((near & (~near + one)) - one)
                near &= near - one
                x = ei ^ local[jj]
                if (x >> key_drop) == 0 and _canonical(x, full, differ, ndiffer):
                    a, b = np.int64(local_rows[i]), np.int64(local_rows[jj])
                    if min(a, b) >= limit:
                        continue
                    out[found, 0] = min(a, b)
                    out[found, 1] = max(a, b)
                    out[found, 2] = popcount(x)
                    found += 1
    return found


@numba.njit(**_JIT)
def _emit_flagged(
    local: Any,
    local_rows: Any,
    ends: Any,
    hits: Any,
    count: int,
    k: int,
    key_drop: Any,
    sort_drop: Any,
    sub_mask: Any,
    full: Any,
    differ: Any,
    ndiffer: int,
    limit: int,
    out: Any,
    found: int,
) -> tuple[Any, int]:
    """Append to ``out`` (grown when full) the pairs (row, row, distance) of the entries
    ``hits[:count]`` with the later entries of their bucket (``ends[b]``: where bucket b of
    the second sort level ends). Room is made first (an array that may be replaced inside a
    loop costs reference counting on every turn of it): the rest of each bucket when that
    takes at most :data:`_ROOM` rows more, else an exact, vectorised count (a second pass)."""
    bound = 0  # every later entry of the bucket: enough room, usually
    for h in range(count):
        i = hits[h]
        bound += ends[(local[i] >> sort_drop) & sub_mask] - i - 1
    if found + bound > out.shape[0] and bound <= _ROOM:
        out = _grow(out, found + bound)
    elif found + bound > out.shape[0]:
        room = 0  # the bound would take too much memory (long runs): count exactly
        for h in range(count):
            i = hits[h]
            ei = local[i]
            rest = local[i + 1 : ends[(ei >> sort_drop) & sub_mask]]
            for j in range(rest.size):
                room += popcount(ei ^ rest[j]) <= k
        if found + room > out.shape[0]:
            out = _grow(out, found + room)
    found = _write_pairs(
        local,
        local_rows,
        ends,
        hits,
        count,
        k,
        key_drop,
        sort_drop,
        sub_mask,
        full,
        differ,
        ndiffer,
        limit,
        out,
        found,
    )
    return out, found


@numba.njit(inline="always")
def _group_starts(values: Any, shift: np.uint64, mask: np.uint64, top_bits: int) -> Any:
    """Where each group of values sharing ``(v >> shift) & mask`` starts (2^top_bits + 1)."""
    one = np.uint64(1)
    starts = np.zeros((1 << top_bits) + 1, np.int64)
    for i in range(values.size):
        starts[((values[i] >> shift) & mask) + one] += 1
    for g in range(1 << top_bits):
        starts[g + 1] += starts[g]
    return starts


@numba.njit(**_JIT)
def _scatter_groups(values: Any, shift: np.uint64, top_bits: int, entries: Any, rows: Any) -> Any:
    """Fingerprints (unpermuted, rows beside) grouped by the ``top_bits`` bits at ``shift``;
    returns the group starts. One counting pass and one stable scatter into at most
    2^top_bits places (few enough that every write stream stays in cache)."""
    n = values.size
    mask = np.uint64((1 << top_bits) - 1)
    shift = shift if top_bits else np.uint64(0)  # a shift by 64 is undefined
    one = np.uint64(1)
    starts = _group_starts(values, shift, mask, top_bits)
    fill = starts[:-1].copy()
    for i in range(n):
        v = values[i]
        b = (v >> shift) & mask
        p = np.uint64(fill[b])
        entries[p] = v
        rows[p] = i
        fill[b] = p + one
    return starts


@numba.njit(**_JIT)
def _sort_group(
    entries: Any,
    rows: Any,
    masks: Any,
    lshift: Any,
    rshift: Any,
    sort_drop: np.uint64,
    sub_bits: int,
    sub: Any,
    perm: Any,
    local: Any,
    local_rows: Any,
) -> None:
    """The fingerprints ``entries`` permuted into ``local`` (rows beside), ordered by counting
    sort on the ``sub_bits`` bits above ``sort_drop``.

    Each loop starts at 0 and indexes with unsigned numbers (numba then drops its negative
    index checks), and the permutation is computed once, in a loop of its own that
    vectorises: together three times faster than the plain loops.
    """
    nseg = masks.size
    nsub = 1 << sub_bits
    mask = np.uint64(nsub - 1)
    one = np.uint64(1)
    for i in range(entries.size):
        perm[i] = _pack(entries[i], masks, lshift, rshift, nseg)
    sub[: nsub + 1] = 0
    for i in range(entries.size):
        sub[((perm[i] >> sort_drop) & mask) + one] += 1
    for g in range(nsub):
        sub[g + 1] += sub[g]
    for i in range(entries.size):
        e = perm[i]
        b = (e >> sort_drop) & mask
        p = np.uint64(sub[b])
        local[p] = e
        local_rows[p] = rows[i]
        sub[b] = p + one


@numba.njit(**_JIT)
def tables_pairs(
    values: Any,
    k: int,
    group_shift: int,
    top_bits: int,
    masks: Any,
    lshift: Any,
    rshift: Any,
    key_bits: Any,
    sub_bits: Any,
    full: Any,
    differ: Any,
    ndiffer: Any,
    windows: Any,
    entries: Any,
    rows: Any,
    limit: int,
) -> Any:
    """Pairs ``(i, j, distance)``, i < j rows of ``values``, within k whose canonical table is
    one of the tables described (one line of each array per table): an int64 ``(P, 3)`` array.

    The tables share their first block, whose top ``top_bits`` bits (at ``group_shift`` in a
    fingerprint) group the fingerprints once for all of them. Then, group by group while it
    is in cache, each table permutes the group's fingerprints (``masks``/``lshift``/``rshift``:
    the key's ``key_bits`` on top; unused segments have mask 0) and orders them by counting
    sort on the next ``sub_bits`` bits. Candidates share the top ``top_bits + sub_bits`` bits;
    the rest of the key is checked with the distance. ``full``/``differ`` (the first
    ``ndiffer`` of each line) are the canonical-table masks, permuted like the entries.

    Within a group, a branch-free pass flags entries with a partner among the next
    ``windows[t]`` (4, 8 or 16) entries or a run longer than that; long runs are searched
    diagonal by diagonal. With ``windows[t]`` 0 (long runs, each one key) every bucket is
    searched four entries at a time and the entries with a partner are listed directly.
    Only those entries are visited pair by pair. Pairs of two rows from ``limit`` on are left
    out (a search of queries against known fingerprints skips the pairs among queries).
    """
    starts = _scatter_groups(values, np.uint64(group_shift), top_bits, entries, rows)
    largest = _largest(starts)
    local = np.empty(largest + _SPAN, np.uint64)  # room for a mask's reach past the end
    local_rows = np.empty(largest, rows.dtype)
    flags = np.zeros(largest, np.uint8)
    hits = np.empty(largest, np.int64)
    perm = np.empty(largest, np.uint64)
    most_sub = 0
    for t in range(masks.shape[0]):
        most_sub = max(most_sub, sub_bits[t])
    sub = np.empty((1 << most_sub) + 1, np.int64)
    out = np.empty((1024, 3), np.int64)
    found = 0
    for group in range(starts.size - 1):
        glo, ghi = starts[group], starts[group + 1]
        size = ghi - glo
        if size < 2:
            continue
        for t in range(masks.shape[0]):
            sort_drop = np.uint64(BITS - top_bits - sub_bits[t])
            key_drop = np.uint64(BITS - key_bits[t])
            _sort_group(
                entries[glo:ghi],
                rows[glo:ghi],
                masks[t],
                lshift[t],
                rshift[t],
                sort_drop,
                sub_bits[t],
                sub,
                perm,
                local,
                local_rows,
            )
            window = windows[t]
            if window == 0:
                count = _flag_buckets(local, sub, 1 << sub_bits[t], k, hits)
            else:
                if window == 4:
                    _flags_4(local, size, k, key_drop, sort_drop, flags)
                elif window == 8:
                    _flags_8(local, size, k, key_drop, sort_drop, flags)
                else:
                    _flags_16(local, size, k, key_drop, sort_drop, flags)
                _flag_long_runs(local, size, k, key_drop, sort_drop, window, flags)
                count = _flagged(flags, size, hits)
            if count == 0:
                continue
            out, found = _emit_flagged(
                local,
                local_rows,
                sub,
                hits,
                count,
                k,
                key_drop,
                sort_drop,
                np.uint64((1 << sub_bits[t]) - 1),
                full[t],
                differ[t],
                ndiffer[t],
                limit,
                out,
                found,
            )
    return out[:found].copy()


@numba.njit(**_JIT)
def sorted_entries(
    values: Any,
    high: Any,
    top_bits: int,
    sub_bits: int,
    entries: Any,
) -> None:
    """``np.sort((values & high) | row)`` into ``entries`` (``high`` leaves the row bits free):
    grouped by the top bits with the rows written in (no array of rows beside), then each
    group by counting sort on the next bits, then each bucket sorted."""
    mask = np.uint64((1 << top_bits) - 1)
    shift = np.uint64(BITS - top_bits) if top_bits else np.uint64(0)
    one = np.uint64(1)
    starts = _group_starts(values, shift, mask, top_bits)
    fill = starts[:-1].copy()
    for i in range(values.size):
        v = values[i]
        b = (v >> shift) & mask
        p = np.uint64(fill[b])
        entries[p] = (v & high[0]) | np.uint64(i)
        fill[b] = p + one
    largest = _largest(starts)
    local = np.empty(largest, np.uint64)
    sub = np.empty((1 << sub_bits) + 1, np.int64)
    sub_drop = np.uint64(BITS - top_bits - sub_bits)
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
    key_drop = np.uint64(BITS - key_bits)
    filter_drop = np.uint64(BITS - filter_bits)
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


@numba.njit(**_JIT)
def expand_packed(
    group_of: Any,
    group_rows: Any,
    group_start: Any,
    group_size: Any,
    keep: Any,
    a: Any,
    b: Any,
    d: Any,
    n: int,
) -> Any:
    """Pairs of distinct values (indices into ``keep``, the row standing for each value) as
    pairs of rows, with every copy: one int64 ``((i * n + j) << 7) | distance`` per pair,
    i < j, unsorted. ``group_of[u]`` is the copy group of distinct value u (-1: no copies);
    group g is ``group_rows[group_start[g] : group_start[g] + group_size[g]]``, ascending.
    Copies of one value pair up at distance 0."""
    total = 0
    for p in range(a.size):
        ga, gb = group_of[a[p]], group_of[b[p]]
        total += (group_size[ga] if ga >= 0 else 1) * (group_size[gb] if gb >= 0 else 1)
    for g in range(group_size.size):
        total += group_size[g] * (group_size[g] - 1) // 2
    out = np.empty(total, np.int64)
    w = 0
    for p in range(a.size):
        ga, gb = group_of[a[p]], group_of[b[p]]
        ca = group_size[ga] if ga >= 0 else 1
        cb = group_size[gb] if gb >= 0 else 1
        for x in range(ca):
            ra = group_rows[group_start[ga] + x] if ga >= 0 else keep[a[p]]
            for y in range(cb):
                rb = group_rows[group_start[gb] + y] if gb >= 0 else keep[b[p]]
                out[w] = ((min(ra, rb) * n + max(ra, rb)) << 7) | d[p]
                w += 1
    for g in range(group_size.size):
        members = group_rows[group_start[g] : group_start[g] + group_size[g]]
        for x in range(members.size):
            for y in range(x + 1, members.size):
                out[w] = (members[x] * n + members[y]) << 7
                w += 1
    return out


@numba.njit(**_JIT)
def pack_pairs(a: Any, b: Any, d: Any, n: int) -> Any:
    """``((i * n + j) << 7) | distance`` of each pair, i < j."""
    out = np.empty(a.size, np.int64)
    for p in range(a.size):
        out[p] = ((min(a[p], b[p]) * n + max(a[p], b[p])) << 7) | d[p]
    return out


@numba.njit(**_JIT)
def unpack_pairs(packed: Any, n: int) -> tuple[Any, Any]:
    """The ``(P, 2)`` pairs and the distances of sorted packed pairs: the first row only
    grows along the sorted array, so it is found by walking, not by a division per pair.
    The distances overwrite ``packed`` (returned as the distances): with a hundred million
    pairs, touching a fresh gigabyte costs more than the loop itself."""
    pairs = np.empty((packed.size, 2), np.int64)
    dist = packed
    i, base = 0, 0
    for p in range(packed.size):
        v = packed[p]
        ij = v >> 7
        while ij >= base + n:
            i += 1
            base += n
        pairs[p, 0] = i
        pairs[p, 1] = ij - base
        dist[p] = v & 127
    return pairs, dist
