"""Exact Hamming-radius search over 64-bit fingerprints with permuted tables.

Manku, Jain and Das Sarma (WWW 2007): split the 64 bits into ``m > k`` blocks. Two
fingerprints within ``k`` bits of each other differ in at most ``k`` blocks, so they agree on
at least ``m - k`` of them (pigeonhole). One table per choice of ``m - k`` blocks keys every
fingerprint by those blocks; every near pair therefore shares a key in at least one table,
and only fingerprints sharing a key are ever compared. The answer is exact, never sampled.

Each table entry is one ``uint64``: the table key in the high bits and the fingerprint's row
in the low bits, so a plain (SIMD) ``np.sort`` orders a table without an ``argsort``. Keys
longer than the space left beside the row are truncated, which only adds candidates.

A pair is reported by exactly one table, its *canonical* one: the table whose blocks are the
``m - k`` lowest-numbered blocks on which the pair agrees. Checking that takes at most
``k + 1`` mask tests per verified pair, so no global set of seen pairs is needed.

All pairs run on the compiled kernel (:mod:`dupfinder.core.index.compiled`, built ahead of
time with the package) when it was built; the numpy implementation here is the reference it is
tested against and the fallback.
"""

from __future__ import annotations

import functools
import math
import numbers
import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from types import ModuleType

import numpy as np
import numpy.typing as npt

from dupfinder.core.index import cost, layout
from dupfinder.core.index.distinct import sorted_unique
from dupfinder.core.index.layout import (
    ALL_ONES,
    BITS,
    I64Array,
    U64Array,
    bit_runs,
    block_lows,
    block_widths,
)
from dupfinder.core.jit.engine import Engine, Kernel, effective, unavailable

__all__ = [
    "MAX_K",
    "MAX_TABLES",
    "PermutedIndex",
    "all_pairs",
    "all_pairs_with_distances",
    "choose_blocks",
]


#: Largest Hamming radius accepted; beyond half the bits "near" means nothing.
MAX_K = 32
#: Largest number of tables a layout may have, explicit or automatic.
MAX_TABLES = 10_000

_U64 = np.uint64
#: Candidate pairs verified per vectorised step: bounds temporary memory (~100 bytes a pair).
_CHUNK = 1 << 18
#: Queries processed per vectorised step.
_QUERY_CHUNK = 1 << 16
#: Smallest per-table delta worth keeping apart from the main sorted array.
_DELTA_MIN = 4096
#: Row-id bits of an index: room for twice its rows at (re)build and at least this many, so
#: adds rebuild only after the index has doubled.
_MIN_ID_BITS = 16


#: Fewest fingerprints for which AUTO uses the compiled kernel: it loads in about a
#: millisecond, and from here on it is as fast as numpy or faster (both under a millisecond
#: below; 1.0 against 1.6 ms at 1,000 and k = 3, 3 against 6 ms at k = 8).
COMPILED_MIN = 1_000


#: Environment variable that replaces AUTO: ``numpy`` (never load the extension) or
#: ``compiled`` (at every size).
ENGINE_VARIABLE = Kernel.INDEX.variable


def compiled_kernel(engine: Engine, n: int) -> ModuleType | None:
    """The kernel module for ``engine`` and n fingerprints, or None for the numpy path."""
    forced = effective(Kernel.INDEX, engine)
    if forced is not engine:
        engine, n = forced, max(n, COMPILED_MIN)
    if engine is Engine.NUMPY or (engine is Engine.AUTO and n < COMPILED_MIN):
        return None
    from dupfinder.core.index import compiled as index_kernel

    if index_kernel.available():
        return index_kernel
    if engine is Engine.COMPILED:
        raise unavailable(Kernel.INDEX)
    return None


_BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _popcount_bytes(x: U64Array) -> npt.NDArray[np.uint8]:
    """Bit count through a byte table, for numpy older than 2.0 (no ``bitwise_count``)."""
    as_bytes = np.ascontiguousarray(x, dtype=np.uint64).view(np.uint8).reshape(-1, 8)
    counts: npt.NDArray[np.uint8] = _BYTE_BITS[as_bytes].sum(axis=1, dtype=np.uint8)
    return counts


_HAS_BITWISE_COUNT = hasattr(np, "bitwise_count")


def _popcount(x: U64Array) -> npt.NDArray[np.uint8]:
    """Bits set in each element; numpy 2 has a SIMD instruction for it."""
    if _HAS_BITWISE_COUNT:
        return np.bitwise_count(x)
    return _popcount_bytes(x)


# ----------------------------------------------------------------------------- validation


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an int, got {type(k).__name__}")
    if not 0 <= int(k) <= MAX_K:
        raise ValueError(f"k must be from 0 to {MAX_K}, got {k}")
    return int(k)


def _check_blocks(blocks: object, k: int) -> int | None:
    if blocks is None:
        return None
    if isinstance(blocks, bool) or not isinstance(blocks, numbers.Integral):
        raise TypeError(f"blocks must be an int or None, got {type(blocks).__name__}")
    m = int(blocks)
    if not k < m <= BITS:
        raise ValueError(f"blocks must be more than k={k} and at most {BITS}, got {m}")
    if math.comb(m, k) > MAX_TABLES:
        raise ValueError(f"blocks={m} with k={k} needs {math.comb(m, k)} tables (max {MAX_TABLES})")
    return m


def _as_fingerprints(values: object, name: str = "fingerprints") -> U64Array:
    """Accept a 1-D integer array; signed input must be non-negative (no silent reinterpretation)."""
    if not isinstance(values, np.ndarray):
        raise TypeError(f"{name} must be a numpy array of uint64, got {type(values).__name__}")
    if values.dtype.kind not in "ui":
        raise TypeError(f"{name} must have an integer dtype, got {values.dtype}")
    if values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {values.shape}")
    if values.dtype.kind == "i" and values.size and int(values.min()) < 0:
        raise ValueError(f"{name} has negative values; view signed storage as uint64 first")
    if values.dtype == np.uint64:
        return values
    return values.astype(np.uint64)


def _check_value(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"a fingerprint must be an int, got {type(value).__name__}")
    v = int(value)
    if not 0 <= v <= ALL_ONES:
        raise ValueError(f"a fingerprint must be an unsigned 64-bit int, got {v}")
    return v


# ----------------------------------------------------------------------------- layout


@dataclass(frozen=True, slots=True)
class _Table:
    """One permutation: which bits of a fingerprint form an entry, and where they go.

    An entry is ``key | stash | row``. The key (the chosen blocks) decides the sort runs;
    the stash is more of the fingerprint's bits, below the key, so that most random
    candidates are rejected from the entries alone, before any gather of full values.
    """

    segments: tuple[tuple[int, int], ...]  # (mask in the fingerprint, left shift; < 0 is right)
    key_segments: int  # the first segments that make the key (the rest only fill the stash)
    key_bits: int  # the key fills the top key_bits bits of an entry
    full_mask: int  # every bit of the chosen blocks (before truncation)
    differ_masks: tuple[int, ...]  # skipped blocks that must differ for this to be canonical

    def pack(self, values: U64Array, out: U64Array, tmp: U64Array) -> U64Array:
        """Write each value's key and stash into ``out`` (row bits zero)."""
        for i, (mask, shift) in enumerate(self.segments):
            dst = out if i == 0 else tmp
            np.bitwise_and(values, _U64(mask), out=dst)
            if shift > 0:
                np.left_shift(dst, _U64(shift), out=dst)
            elif shift < 0:
                np.right_shift(dst, _U64(-shift), out=dst)
            if i:
                np.bitwise_or(out, tmp, out=out)
        return out

    def key_of(self, value: int) -> int:
        """The key of one fingerprint, in the entry's high bits (stash and row bits zero)."""
        key = 0
        for mask, shift in self.segments[: self.key_segments]:
            part = value & mask
            key |= (part << shift) if shift >= 0 else (part >> -shift)
        return key & (ALL_ONES ^ ((1 << (BITS - self.key_bits)) - 1))

    def canonical(self, xor: U64Array) -> npt.NDArray[np.bool_]:
        """True where this table is the first one (in order) whose blocks the pair agrees on."""
        keep: npt.NDArray[np.bool_] = (xor & _U64(self.full_mask)) == 0
        for mask in self.differ_masks:
            keep &= (xor & _U64(mask)) != 0
        return keep


def _make_tables(m: int, k: int, id_bits: int) -> list[_Table]:
    """Tables in the order of ``combinations``: the canonical-table test relies on it."""
    widths = block_widths(m)
    lows = block_lows(widths)
    block_masks = [((1 << w) - 1) << lo for w, lo in zip(widths, lows, strict=True)]
    tables = []
    for chosen in combinations(range(m), m - k):
        picked = set(chosen)
        segments: list[tuple[int, int]] = []
        top = BITS  # entry bits above ``top`` are filled
        for low, width in bit_runs(list(chosen), widths, lows):
            take = min(width, top - id_bits)  # truncate a key that leaves no room for the row
            if take <= 0:
                break
            low += width - take
            segments.append((((1 << take) - 1) << low, top - take - low))
            top -= take
        key_bits, key_segments = BITS - top, len(segments)
        spare = top - id_bits
        free = bit_runs([b for b in range(m) if b not in picked], widths, lows)
        if spare > 0 and free:
            # prefer the bits right below the key's last block: one shift moves both
            below = [r for r in free if r[0] + r[1] == lows[chosen[-1]]]
            low, width = below[0] if below else max(free, key=lambda r: r[1])
            take = min(width, spare)
            low += width - take
            mask, shift = ((1 << take) - 1) << low, top - take - low
            if below and segments[-1][1] == shift:
                segments[-1] = (segments[-1][0] | mask, shift)
            else:
                segments.append((mask, shift))
        full = sum(block_masks[b] for b in chosen)
        skipped = tuple(block_masks[b] for b in range(chosen[-1]) if b not in picked)
        tables.append(_Table(tuple(segments), key_segments, key_bits, full, skipped))
    return tables


def _mean_prefix_bits(m: int, k: int) -> float:
    return BITS * (m - k) / m


def _table_choices(k: int) -> Iterator[int]:
    if k == 0:
        yield 1
        return
    for m in range(k + 1, BITS + 1):
        if math.comb(m, k) > MAX_TABLES:
            return
        yield m


@functools.cache
def _ns_sort_per_entry_bit() -> float:
    """Nanoseconds np.sort spends per entry and per bit of log2(n) here (one 65,536-entry
    sort, best of three: a few milliseconds once per process)."""
    size = 1 << 16
    # scattered values by multiplicative hashing (numpy.random is not needed for that, and
    # stays out of the bundles)
    values = np.arange(1, size + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    best = math.inf
    for _ in range(3):
        work = values.copy()
        started = time.perf_counter()
        work.sort()
        best = min(best, time.perf_counter() - started)
    return max(best, 1e-9) * 1e9 / size / 16


def pairs_cost(n: int, k: int, m: int, compiled: bool = False) -> float:
    prefix = min(_mean_prefix_bits(m, k), BITS - layout.id_bits(n))
    candidates = n * (n - 1) / 2.0 / 2.0**prefix
    if compiled:
        per_table = (
            cost.KERNEL_TABLE_ESTIMATE
            + cost.KERNEL_ENTRY_ESTIMATE * n
            + cost.KERNEL_CANDIDATE_ESTIMATE * candidates
        )
        return float(math.comb(m, k) * per_table)
    per_entry = cost.NUMPY_ENTRY + _ns_sort_per_entry_bit() * math.log2(max(n, 2))
    return float(
        math.comb(m, k) * (cost.NUMPY_TABLE + per_entry * n + cost.NUMPY_CANDIDATE * candidates)
    )


def _query_cost(n: int, k: int, m: int) -> float:
    prefix = min(_mean_prefix_bits(m, k), BITS - layout.id_bits(2 * n))
    return float(
        math.comb(m, k) * (cost.NUMPY_PROBE + cost.NUMPY_QUERY_CANDIDATE * n / 2.0**prefix)
    )


def choose_blocks(n: int, k: int, *, queries: bool = False, engine: Engine = Engine.NUMPY) -> int:
    """Number of blocks m for n fingerprints at radius k, by a measured cost model.

    For all-pairs the cost is sorting every table plus verifying the expected random
    collisions (n^2 / 2^(p+1) per table), with the costs of ``engine`` (the compiled kernel
    sorts and verifies several times faster, so it can afford fewer, fuller tables); for
    queries it is one probe per table plus the expected n / 2^p candidates per probe. Fewer
    tables win ties (less memory).
    """
    k = _check_k(k)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"n must be a non-negative int, got {n!r}")
    compiled = compiled_kernel(engine, int(n)) is not None
    if queries:
        return min(_table_choices(k), key=lambda m: (_query_cost(int(n), k, m), math.comb(m, k)))
    return min(
        _table_choices(k),
        key=lambda m: (pairs_cost(int(n), k, m, compiled), math.comb(m, k)),
    )


# ----------------------------------------------------------------------------- run pairs


def _runs_of_equal_keys(
    entries: U64Array, key_bits: int, tmp: U64Array
) -> tuple[I64Array, I64Array]:
    """Start and length of every run (length >= 2) of sorted entries sharing their top key_bits."""
    n = entries.size
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    diff = np.bitwise_xor(entries[1:], entries[:-1], out=tmp[: n - 1])
    same = np.flatnonzero(diff < _U64(1 << (BITS - key_bits)))
    if same.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    breaks = np.flatnonzero(np.diff(same) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [same.size]))
    return same[starts].astype(np.int64), (ends - starts + 1).astype(np.int64)


def _pairs_in_runs(
    first: I64Array, length: I64Array, chunk: int = _CHUNK
) -> Iterator[tuple[I64Array, I64Array]]:
    """Every (i, j), i < j, of positions inside the same run, in chunks of about ``chunk``.

    Work is linear in the pairs produced whatever the run lengths: each element is repeated
    once per later element of its run, so one huge run costs no more than many small ones.
    """
    if first.size == 0:
        return
    offsets = np.cumsum(length) - length
    pos = np.arange(int(length.sum()), dtype=np.int64)
    pos += np.repeat(first - offsets, length)
    partners = np.repeat(first + length, length) - pos - 1
    cum = np.cumsum(partners)
    start, total = 0, pos.size
    while start < total:
        base = int(cum[start - 1]) if start else 0
        stop = max(int(np.searchsorted(cum, base + chunk, side="right")), start + 1)
        count = partners[start:stop]
        size = int(count.sum())
        if size:
            left = np.repeat(pos[start:stop], count)
            right = np.arange(size, dtype=np.int64)
            right -= np.repeat(np.cumsum(count) - count, count)
            right += left + 1
            yield left, right
        start = stop


def _ordered(
    a: I64Array, b: I64Array, d: npt.NDArray[np.integer]
) -> tuple[I64Array, I64Array, I64Array]:
    return np.minimum(a, b), np.maximum(a, b), d.astype(np.int64)


# ----------------------------------------------------------------------------- all pairs


def _table_pairs(
    values: U64Array,
    k: int,
    m: int,
    entries: U64Array,
    ids: U64Array,
    tmp: U64Array,
    first_sorted: bool,
) -> list[tuple[I64Array, I64Array, I64Array]]:
    """Pairs of distinct values within k, one table at a time in the ``entries`` buffer."""
    id_bits = layout.id_bits(values.size)
    id_mask = _U64((1 << id_bits) - 1)
    high = ~id_mask
    found = []
    for t, table in enumerate(_make_tables(m, k, id_bits)):
        if not (t == 0 and first_sorted):
            table.pack(values, entries, tmp)
            np.bitwise_or(entries, ids, out=entries)
            entries.sort()
        first, length = _runs_of_equal_keys(entries, table.key_bits, tmp)
        if first.size == 0:
            continue
        # Runs of two dominate with random keys: their entry difference is already in tmp,
        # so the stash test needs one gather; keys are equal, so only stash bits count.
        two = length == 2
        left = first[two]
        left = left[_popcount(tmp[left] & high) <= k]
        found.extend(_verified(values, k, table, entries, id_mask, left, left + 1))
        # Each chunk of candidates is verified before the next is made, so memory stays at
        # one chunk however many candidates a table has.
        for left, right in _pairs_in_runs(first[~two], length[~two]):
            near = _popcount((entries[left] ^ entries[right]) & high) <= k
            found.extend(_verified(values, k, table, entries, id_mask, left[near], right[near]))
    return found


def _verified(
    values: U64Array,
    k: int,
    table: _Table,
    entries: U64Array,
    id_mask: np.uint64,
    left: I64Array,
    right: I64Array,
) -> list[tuple[I64Array, I64Array, I64Array]]:
    """The candidate pairs (positions in ``entries``) truly within k and canonical here."""
    if left.size == 0:
        return []
    a = (entries[left] & id_mask).astype(np.int64)
    b = (entries[right] & id_mask).astype(np.int64)
    xor = values[a] ^ values[b]
    dist = _popcount(xor)
    keep = np.flatnonzero(dist <= k)
    keep = keep[table.canonical(xor[keep])]
    return [_ordered(a[keep], b[keep], dist[keep])] if keep.size else []


def _direct_pairs(values: U64Array, k: int) -> list[tuple[I64Array, I64Array, I64Array]]:
    """Compare every pair directly; cheaper than tables for tiny inputs or large k."""
    n = values.size
    step = max(1, _CHUNK // max(n, 1))
    found = []
    for lo in range(0, n - 1, step):
        hi = min(n - 1, lo + step)
        dist = _popcount(values[lo:hi, None] ^ values[None, lo + 1 :])
        # column c of row r is value lo + 1 + c; keep only the upper triangle
        upper = np.arange(n - lo - 1)[None, :] >= np.arange(hi - lo)[:, None]
        rows, cols = np.nonzero((dist <= k) & upper)
        if rows.size:
            found.append(
                (
                    rows.astype(np.int64) + lo,
                    cols.astype(np.int64) + lo + 1,
                    dist[rows, cols].astype(np.int64),
                )
            )
    return found


def _search(
    values: U64Array,
    k: int,
    blocks: int | None,
    entries: U64Array | None = None,
    kernel: ModuleType | None = None,
) -> tuple[I64Array, I64Array, I64Array]:
    """Pairs of values within k (k > 0); ``entries`` may hold table 0 already sorted (numpy
    path only); ``kernel`` is the compiled kernel module, or None for numpy.

    Identical values are found like any other near pair (at distance 0, by table 0 only),
    so a few copies need no special care; many copies are collapsed by the caller.
    """
    n = values.size
    found: list[tuple[I64Array, I64Array, I64Array]] = []
    if n >= 2 and k > 0:
        engine = Engine.NUMPY if kernel is None else Engine.COMPILED
        m = blocks if blocks is not None else choose_blocks(n, k, engine=engine)
        direct = n * (n - 1) / 2.0 * cost.NUMPY_DIRECT
        if blocks is None and direct < pairs_cost(n, k, m, kernel is not None):
            found = _direct_pairs(values, k)
        elif kernel is not None:
            layout = kernel.make_layout(k, m) if blocks else kernel.choose_layout(n, k)
            found = [kernel.all_pairs(values, layout)]
        else:
            ids = np.arange(n, dtype=np.uint64)
            tmp = np.empty(n, np.uint64)
            buffer = np.empty(n, np.uint64) if entries is None else entries
            found = _table_pairs(values, k, m, buffer, ids, tmp, entries is not None)
    if not found:
        empty = np.empty(0, np.int64)
        return empty, empty, empty
    cols = list(zip(*found, strict=True))
    return np.concatenate(cols[0]), np.concatenate(cols[1]), np.concatenate(cols[2])


@dataclass(frozen=True, slots=True)
class _Duplicates:
    """Groups of rows sharing one value; each group's lowest row stands for the value."""

    rows: I64Array  # the rows of every group, group after group, each group ascending
    start: I64Array  # group g is rows[start[g] : start[g] + size[g]]
    size: I64Array

    def distinct_rows(self, n: int) -> I64Array:
        """One row per distinct value, ascending: recomputed when needed to save memory."""
        kept = np.ones(n, dtype=bool)
        kept[self.rows] = False
        kept[self.rows[self.start]] = True
        return np.flatnonzero(kept)


def _find_duplicates(values: U64Array, entries: U64Array, tmp: U64Array) -> _Duplicates | None:
    """Identical values, from entries sorted by (high bits, row): only equal-high runs are checked."""
    id_bits = layout.id_bits(values.size)
    first, length = _runs_of_equal_keys(entries, BITS - id_bits, tmp)
    if first.size == 0:
        return None
    offsets = np.cumsum(length) - length
    pos = np.arange(int(length.sum()), dtype=np.int64) + np.repeat(first - offsets, length)
    rows = (entries[pos] & _U64((1 << id_bits) - 1)).astype(np.int64)
    vals = values[rows]
    order = np.lexsort((rows, vals))
    rows, vals = rows[order], vals[order]
    starts = np.flatnonzero(np.concatenate(([True], vals[1:] != vals[:-1])))
    sizes = np.diff(np.append(starts, rows.size))
    multi = sizes > 1
    if not multi.any():
        return None
    starts, sizes = starts[multi], sizes[multi]
    offsets = np.cumsum(sizes) - sizes
    grouped = rows[np.repeat(starts - offsets, sizes) + np.arange(int(sizes.sum()))]
    return _Duplicates(grouped, offsets, sizes)


def _expand(
    dups: _Duplicates, keep: I64Array, a: I64Array, b: I64Array, d: I64Array
) -> tuple[I64Array, I64Array, I64Array]:
    """Turn pairs of distinct values (indices into ``keep``) into pairs of rows, with copies."""
    leader = np.searchsorted(keep, dups.rows[dups.start])
    by_leader = np.argsort(leader)
    leader = leader[by_leader]

    def lookup(u: I64Array) -> tuple[I64Array, I64Array]:
        at = np.minimum(np.searchsorted(leader, u), leader.size - 1)
        g = np.where(leader[at] == u, by_leader[at], -1)
        return g, np.where(g >= 0, dups.size[g], 1)

    def row(u: I64Array, g: I64Array, nth: I64Array) -> I64Array:
        grouped = dups.rows[np.where(g >= 0, dups.start[g] + nth, 0)]
        return np.where(g >= 0, grouped, keep[u])

    ga, ca = lookup(a)
    gb, cb = lookup(b)
    count = ca * cb
    pick = np.repeat(np.arange(a.size), count)
    nth = np.arange(pick.size) - np.repeat(np.cumsum(count) - count, count)
    na, nb = np.divmod(nth, cb[pick])
    ra = row(a[pick], ga[pick], na)
    rb = row(b[pick], gb[pick], nb)
    parts = [_ordered(ra, rb, d[pick])]
    for left, right in _pairs_in_runs(dups.start, dups.size):
        parts.append((dups.rows[left], dups.rows[right], np.zeros(left.size, np.int64)))
    cols = list(zip(*parts, strict=True))
    return np.concatenate(cols[0]), np.concatenate(cols[1]), np.concatenate(cols[2])


def _sort_pairs(a: I64Array, b: I64Array, d: I64Array, n: int) -> tuple[I64Array, I64Array]:
    """Pairs ordered by (i, j) as a (P, 2) array; packs into one int64 sort when it fits."""
    if n < (1 << 28):
        packed = ((a * n + b) << 7) | d
        packed.sort()
        d = packed & 127
        a, b = np.divmod(packed >> 7, n)
    else:
        order = np.lexsort((b, a))
        a, b, d = a[order], b[order], d[order]
    return np.stack((a, b), axis=1), d


def all_pairs_with_distances(
    fingerprints: np.ndarray,
    k: int,
    *,
    blocks: int | None = None,
    engine: Engine = Engine.AUTO,
) -> tuple[I64Array, I64Array]:
    """Every pair of rows within Hamming distance k, once, sorted, with its distance.

    Returns ``(pairs, distances)``: ``pairs`` is an int64 ``(P, 2)`` array with
    ``pairs[:, 0] < pairs[:, 1]`` in lexicographic order, ``distances`` int64 ``(P,)``.
    When identical fingerprints are many, each value is searched once and its copies are
    expanded afterwards, so 10,000 copies of one value cost only the (inherent) output.
    ``blocks`` forces the number of blocks m; ``engine`` picks the implementation.
    """
    x = _as_fingerprints(fingerprints)
    k = _check_k(k)
    m = _check_blocks(blocks, k)
    n = x.size
    kernel = compiled_kernel(engine, n)
    if n < 2:
        return np.empty((0, 2), np.int64), np.empty(0, np.int64)
    id_bits = layout.id_bits(n)
    # One sort by (high bits, row) finds identical values and is table 0 when all are distinct
    if kernel is not None:
        entries = kernel.sorted_by_value(x)
    else:
        entries = np.arange(n, dtype=np.uint64)
        np.bitwise_or(entries, x & _U64(ALL_ONES ^ ((1 << id_bits) - 1)), out=entries)
        entries.sort()
    tmp = np.empty(n, np.uint64)
    dups = _find_duplicates(x, entries, tmp)
    del tmp
    engine = Engine.NUMPY if kernel is None else Engine.COMPILED
    packs = kernel is not None and n < kernel.PACKED_ROWS
    if dups is None or (k > 0 and _few_copies(dups, n, k, m, engine)):
        a, b, d = _search(x, k, m, None if kernel else entries, kernel)
        if packs:
            return kernel.sort_pairs(a, b, d, n)  # type: ignore[no-any-return, union-attr]
    else:
        del entries
        empty = np.empty(0, np.int64)
        keep = dups.distinct_rows(n)
        distinct = x[keep]
        found = _search(distinct, k, m, None, kernel) if k else (empty, empty, empty)
        if packs:
            return kernel.expand_sorted(  # type: ignore[no-any-return, union-attr]
                dups.rows, dups.start, dups.size, keep, *found, n
            )
        a, b, d = _expand(dups, keep, *found)
    return _sort_pairs(a, b, d, n)


def _few_copies(dups: _Duplicates, n: int, k: int, blocks: int | None, engine: Engine) -> bool:
    """Whether searching the copies as they are costs less than collapsing them.

    Each table verifies every pair of copies again (only table 0 reports them); collapsing
    costs about one more table sort. Copies in twos and threes are far below that.
    """
    copy_pairs = int((dups.size * (dups.size - 1) // 2).sum())
    m = blocks if blocks is not None else choose_blocks(n, k, engine=engine)
    return math.comb(m, k) * copy_pairs <= n // 4


def all_pairs(
    fingerprints: np.ndarray, k: int, *, blocks: int | None = None, engine: Engine = Engine.AUTO
) -> I64Array:
    """Every pair of rows within Hamming distance k, once: an int64 ``(P, 2)`` array, i < j, sorted."""
    return all_pairs_with_distances(fingerprints, k, blocks=blocks, engine=engine)[0]


# ----------------------------------------------------------------------------- the index


def _merge_sorted(a: U64Array, b: U64Array) -> U64Array:
    """Merge two sorted arrays of distinct entries in linear time (no re-sort)."""
    if a.size == 0:
        return b
    if b.size == 0:
        return a
    at = np.searchsorted(a, b) + np.arange(b.size)
    out = np.empty(a.size + b.size, np.uint64)
    rest = np.ones(out.size, dtype=bool)
    rest[at] = False
    out[at] = b
    out[rest] = a
    return out


class PermutedIndex:
    """Fingerprints in permuted sorted tables, for exact radius-k queries and incremental adds.

    Ids are row numbers in insertion order. Each table holds a main sorted array and a small
    sorted delta of recent additions, merged into the main array when it reaches 1/8 of it,
    so ``add`` never rebuilds from scratch (except when the rows outgrow the bits reserved
    for them, at which point the layout is also re-chosen for the new size).
    """

    def __init__(self, fingerprints: np.ndarray, k: int, *, blocks: int | None = None) -> None:
        x = _as_fingerprints(fingerprints)
        self._k = _check_k(k)
        self._blocks = _check_blocks(blocks, self._k)
        self._values = np.array(x, dtype=np.uint64)
        self._n = x.size
        self._build()

    def _build(self) -> None:
        n = self._n
        self._id_bits = max(_MIN_ID_BITS, layout.id_bits(2 * n))
        self._id_mask = (1 << self._id_bits) - 1
        if self._blocks is not None:
            self._m = self._blocks
        else:
            self._m = choose_blocks(n, self._k, queries=True)
        self._tables = _make_tables(self._m, self._k, self._id_bits)
        self._main = [self._entries(t, self._values[:n], 0) for t in self._tables]
        self._delta = [np.empty(0, np.uint64) for _ in self._tables]

    def _entries(self, table: _Table, values: U64Array, first_id: int) -> U64Array:
        out = np.empty(values.size, np.uint64)
        table.pack(values, out, np.empty(values.size, np.uint64))
        out |= np.arange(first_id, first_id + values.size, dtype=np.uint64)
        out.sort()
        return out

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return f"PermutedIndex(n={self._n}, k={self._k}, blocks={self._m}, tables={self.tables})"

    @property
    def k(self) -> int:
        return self._k

    @property
    def blocks(self) -> int:
        """Number of blocks m of the current layout."""
        return self._m

    @property
    def tables(self) -> int:
        return len(self._tables)

    @property
    def values(self) -> U64Array:
        """The indexed fingerprints by id (a read-only view)."""
        view = self._values[: self._n]
        view.flags.writeable = False
        return view

    def add(self, new: np.ndarray) -> I64Array:
        """Index more fingerprints; returns their ids (consecutive, after the existing ones)."""
        x = _as_fingerprints(new, "new")
        first = self._n
        ids = np.arange(first, first + x.size, dtype=np.int64)
        if x.size == 0:
            return ids
        if first + x.size > self._values.size:
            grown = np.empty(max(first + x.size, 2 * self._values.size), np.uint64)
            grown[:first] = self._values[:first]
            self._values = grown
        self._values[first : first + x.size] = x
        self._n += x.size
        if self._n >= self._id_mask:
            self._build()
            return ids
        for t, table in enumerate(self._tables):
            delta = _merge_sorted(self._delta[t], self._entries(table, x, first))
            if delta.size > max(_DELTA_MIN, self._main[t].size >> 3):
                self._main[t] = _merge_sorted(self._main[t], delta)
                delta = np.empty(0, np.uint64)
            self._delta[t] = delta
        return ids

    def query(self, many: np.ndarray) -> tuple[I64Array, I64Array, I64Array]:
        """Every (query row, id, distance) within k, sorted by query row then id."""
        q = _as_fingerprints(many, "many")
        parts: list[tuple[I64Array, I64Array, I64Array]] = []
        for lo in range(0, q.size, _QUERY_CHUNK):
            chunk = q[lo : lo + _QUERY_CHUNK]
            packed = np.empty(chunk.size, np.uint64)
            tmp = np.empty(chunk.size, np.uint64)
            for t, table in enumerate(self._tables):
                table.pack(chunk, packed, tmp)
                below = _U64((1 << (BITS - table.key_bits)) - 1)
                keys = packed & ~below
                bounds = np.concatenate((keys, keys | below))
                for entries in (self._main[t], self._delta[t]):
                    if entries.size:
                        found = self._probe(table, chunk, packed, entries, bounds)
                        if found is not None:
                            parts.append((found[0] + lo, found[1], found[2]))
        if not parts:
            empty = np.empty(0, np.int64)
            return empty, empty.copy(), empty.copy()
        cols = list(zip(*parts, strict=True))
        rows, ids, dist = (np.concatenate(c) for c in cols)
        if q.size * (self._n + 1) < (1 << 56):
            packed = ((rows * self._n + ids) << 7) | dist
            packed.sort()
            dist = packed & 127
            rows, ids = np.divmod(packed >> 7, self._n)
        else:
            order = np.lexsort((ids, rows))
            rows, ids, dist = rows[order], ids[order], dist[order]
        return rows, ids, dist

    def _probe(
        self, table: _Table, q: U64Array, packed: U64Array, entries: U64Array, bounds: U64Array
    ) -> tuple[I64Array, I64Array, I64Array] | None:
        """Candidates of one table for a chunk of queries, verified and kept if canonical."""
        at = np.searchsorted(entries, bounds).astype(np.int64)
        lo, count = at[: q.size], at[q.size :] - at[: q.size]
        hit = np.flatnonzero(count)
        if hit.size == 0:
            return None
        count = count[hit]
        rows = np.repeat(hit, count)
        pos = np.arange(rows.size, dtype=np.int64)
        pos += np.repeat(lo[hit] - (np.cumsum(count) - count), count)
        found = entries[pos]
        id_mask = _U64(self._id_mask)
        near = np.flatnonzero(_popcount((found ^ packed[rows]) & ~id_mask) <= self._k)
        rows = rows[near]
        ids = (found[near] & id_mask).astype(np.int64)
        xor = q[rows] ^ self._values[ids]
        dist = _popcount(xor)
        keep = np.flatnonzero(dist <= self._k)
        keep = keep[table.canonical(xor[keep])]
        return rows[keep], ids[keep], dist[keep].astype(np.int64)

    def query_one(self, value: int) -> tuple[I64Array, I64Array]:
        """Ids within k of one fingerprint and their distances, sorted by id."""
        v = _check_value(value)
        mask = self._id_mask
        found = []
        for t, table in enumerate(self._tables):
            key = table.key_of(v)
            bounds = np.array((key, key | ((1 << (BITS - table.key_bits)) - 1)), dtype=np.uint64)
            for entries in (self._main[t], self._delta[t]):
                if entries.size:
                    lo, hi = entries.searchsorted(bounds)
                    if hi > lo:
                        found.append(entries[lo:hi])
        if not found:
            empty = np.empty(0, np.int64)
            return empty, empty.copy()
        ids = sorted_unique(np.concatenate(found) & _U64(mask)).astype(np.int64)
        dist = _popcount(self._values[ids] ^ _U64(v))
        keep = dist <= self._k
        return ids[keep], dist[keep].astype(np.int64)

    def pairs_with_distances(self) -> tuple[I64Array, I64Array]:
        """All pairs of ids within k, as :func:`all_pairs_with_distances` over the contents."""
        return all_pairs_with_distances(self.values, self._k, blocks=self._blocks)

    def pairs(self) -> I64Array:
        """All pairs of ids within k, as :func:`all_pairs` over the contents."""
        return self.pairs_with_distances()[0]
