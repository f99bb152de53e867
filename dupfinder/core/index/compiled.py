"""The index's compiled kernel: all pairs table by table, on threads, with a numpy fallback.

The permuted tables of :mod:`dupfinder.core.index.reference` are searched here by code compiled
ahead of time (the Cython extension :mod:`dupfinder.core.index.kernels`, built with the
package): each table is built by a counting sort on its key bits, and candidates are
generated, stash-tested and verified in one pass. Tables are independent, so they run on a
thread pool (the compiled code releases the GIL).

The per-table function is public so that other drivers (a distributed all-pairs, say) can
split the work by table, or by key range inside a table: :func:`table_pairs` returns the
pairs of a set of fingerprints whose *canonical* table is ``t``, so the union over all
tables is every pair within k exactly once, whatever way the tables are shared out.

The extension is imported on first use, not with this module. When it was not built (an
install without a C compiler), :func:`available` is False, the index uses its numpy path,
and one warning says so.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import queue
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from types import ModuleType

import numpy as np
import numpy.typing as npt

from dupfinder.core.index import cost
from dupfinder.core.index.layout import (
    BITS,
    I64Array,
    U64Array,
    bit_runs,
    block_lows,
    block_widths,
    id_bits,
)
from dupfinder.core.jit.engine import Kernel, load, unavailable

__all__ = [
    "Layout",
    "Part",
    "ProbeIndex",
    "ProbePlan",
    "TableArrays",
    "Workspace",
    "all_pairs",
    "available",
    "choose_layout",
    "cross_pairs",
    "expand_sorted",
    "layout_cost",
    "make_design",
    "make_layout",
    "probe_plan",
    "sort_pairs",
    "sorted_by_value",
    "table_keys",
    "table_pairs",
]


_log = logging.getLogger(__name__)
#: Entries per first-level group of the counting sort: small enough to stay in cache.
_GROUP_BITS = 12
#: Longest branch-free window (runs longer than this are rare or long enough to vectorise).
_MAX_WINDOW = 12
#: Mean run length from which runs are searched diagonal by diagonal only.
_DIAGONAL_MEAN = 12.0
#: Most second-level bits: 2^14 counters (128 KiB) per group.
_MAX_SUB_BITS = 14


def available() -> bool:
    """Whether the compiled kernel was built with this install (imported on the first call)."""
    return load(Kernel.INDEX) is not None


@dataclass(frozen=True, slots=True)
class TableArrays:
    """One table as plain arrays for the compiled code.

    An entry is the fingerprint with its bits permuted: the table's blocks first (the key,
    ``key_bits`` bits), then every other block, so two entries differ in exactly as many
    bits as their fingerprints. The canonical-table masks are permuted the same way.
    """

    masks: U64Array  # bits of the fingerprint per segment
    lshift: U64Array  # each segment moves left by lshift, then right by rshift
    rshift: U64Array
    key_bits: int  # the key is the entry's top key_bits bits
    full: np.uint64  # every bit of the table's blocks (permuted)
    differ: U64Array  # earlier blocks the pair must differ on for this table to be canonical
    first_low: int  # the lowest bit of the table's first block in a fingerprint
    first_width: int  # and its width: the first block's bits lead every entry
    key_blocks: tuple[int, ...]  # the key's blocks (tables led by one block share a sort)

    @classmethod
    def of(
        cls, widths: list[int], chosen: tuple[int, ...], differ: list[tuple[int, ...]]
    ) -> TableArrays:
        """The table keyed by blocks ``chosen`` (of blocks ``widths`` wide, from the top bit
        down), reporting the pairs that differ somewhere in each set of blocks of ``differ``
        (those of the earlier tables' keys)."""
        m = len(widths)
        lows = block_lows(widths)
        order = [*chosen, *(b for b in range(m) if b not in chosen)]
        segments, top = [], BITS
        for low, width in bit_runs(order, widths, lows):
            segments.append((((1 << width) - 1) << low, top - width - low))
            top -= width

        def permuted(mask: int) -> np.uint64:
            out = 0
            for seg, shift in segments:
                out |= (mask & seg) << shift if shift >= 0 else (mask & seg) >> -shift
            return np.uint64(out)

        def bits(blocks: tuple[int, ...]) -> int:
            return sum(((1 << widths[b]) - 1) << lows[b] for b in blocks)

        full = bits(chosen)
        return cls(
            masks=np.array([mask for mask, _ in segments], np.uint64),
            lshift=np.array([max(s, 0) for _, s in segments], np.uint64),
            rshift=np.array([max(-s, 0) for _, s in segments], np.uint64),
            key_bits=sum(widths[b] for b in chosen),
            full=permuted(full),
            differ=np.array([permuted(bits(blocks)) for blocks in differ], np.uint64),
            first_low=lows[order[0]],
            first_width=widths[order[0]],
            key_blocks=chosen,
        )

    def segments_for(self, bits: int) -> int:
        """How many leading segments fill the entry's top ``bits`` bits."""
        filled = 0
        for count, mask in enumerate(self.masks.tolist(), start=1):
            filled += int(mask).bit_count()
            if filled >= bits:
                return count
        return int(self.masks.size)

    def entries(self, values: U64Array) -> U64Array:
        """The permuted fingerprints (numpy; the kernel computes them on the fly)."""
        values = np.asarray(values, dtype=np.uint64)
        packed = np.zeros(values.size, np.uint64)
        for mask, left, right in zip(self.masks, self.lshift, self.rshift, strict=True):
            packed |= ((values & mask) << left) >> right
        return packed


@dataclass(frozen=True, slots=True)
class Part:
    """``width`` consecutive bits expected to hold at most ``errors`` of a near pair's
    differing bits, cut into ``blocks`` blocks: its tables key on every choice of
    ``blocks - errors`` of them (Manku's scheme inside the part)."""

    width: int
    errors: int
    blocks: int

    @property
    def tables(self) -> int:
        return math.comb(self.blocks, self.errors)

    def widths(self) -> list[int]:
        q, r = divmod(self.width, self.blocks)
        return [q + 1 if i < r else q for i in range(self.blocks)]


@dataclass(frozen=True, slots=True)
class Layout:
    """The tables for radius ``k``: the bits cut into ``parts`` so that every pair within k
    has at most ``errors`` differing bits in some part (pigeonhole: the parts' ``errors + 1``
    add up to more than k), each part searched by Manku's tables over its own blocks.

    One part of 64 bits is Manku's layout: C(blocks, k) tables. Several parts need fewer
    tables for the same key length (a covering design): k = 8 as three parts of 21-22 bits,
    each with at most 2 differing bits and 5 blocks, is 30 tables of 12-14 key bits, where
    one part of 10 blocks is 45 tables of 12-14 bits. Tables are in order of the
    canonical-table rule: a pair is reported by the first table whose key it agrees on.
    """

    k: int
    parts: tuple[Part, ...]
    tables: tuple[TableArrays, ...]

    @property
    def blocks(self) -> int:
        return sum(part.blocks for part in self.parts)


@functools.cache
def make_design(k: int, parts: tuple[Part, ...]) -> Layout:
    """The tables of ``parts`` (their widths add up to 64) for radius ``k``.

    A pair is canonical for a table when no earlier table's key fits it: inside the table's
    own part (Manku's order) that is a difference in every skipped block before its last
    chosen one; in each earlier part, a difference in every key of that part.
    """
    if sum(part.width for part in parts) != BITS:
        raise ValueError(f"the parts must cover {BITS} bits, got {parts}")
    if not all(0 <= part.errors < part.blocks <= part.width for part in parts):
        raise ValueError(f"need 0 <= errors < blocks <= width in every part, got {parts}")
    if sum(part.errors + 1 for part in parts) <= k:
        raise ValueError(f"parts {parts} miss pairs at radius {k}")
    widths = [w for part in parts for w in part.widths()]
    tables: list[TableArrays] = []
    earlier: list[tuple[int, ...]] = []  # the keys of the earlier parts
    first = 0
    for part in parts:
        keys = list(combinations(range(first, first + part.blocks), part.blocks - part.errors))
        for key in keys:
            skipped = [(b,) for b in range(first, key[-1]) if b not in key]
            tables.append(TableArrays.of(widths, key, [*skipped, *earlier]))
        earlier += keys
        first += part.blocks
    return Layout(k, parts, tuple(tables))


#: Most tables of an automatic layout.
_MAX_TABLES = 2000
#: Most parts an automatic layout tries (more parts, shorter keys).
_MAX_PARTS = 4


def _part_cost(n: int, part: Part) -> float:
    """Nanoseconds of one part's tables on n fingerprints."""
    q, wide = divmod(part.width, part.blocks)
    chosen = part.blocks - part.errors
    # the mean run over the keys, n / 2^key_bits summed over every choice of blocks (j of
    # them one bit wider): the short keys weigh most
    runs = sum(
        math.comb(wide, j) * math.comb(part.blocks - wide, chosen - j) * n / 2.0 ** (q * chosen + j)
        for j in range(min(wide, chosen) + 1)
    )
    per_table = part.tables * (cost.KERNEL_TABLE + n * cost.KERNEL_ENTRY)
    return per_table + n * cost.KERNEL_RUN * runs + (part.errors + 1) * n * cost.KERNEL_GROUP


def _best_part(n: int, width: int, errors: int) -> tuple[float, Part]:
    """The cheapest cut into blocks of ``width`` bits holding at most ``errors`` differences."""
    best: tuple[float, Part] | None = None
    for blocks in range(errors + 1, width + 1):
        part = Part(width, errors, blocks)
        if part.tables > _MAX_TABLES:
            break
        cost = _part_cost(n, part)
        if best is None or cost < best[0]:
            best = (cost, part)
    if best is None:
        raise ValueError(f"no layout for {width} bits with {errors} errors")
    return best


def _error_budgets(total: int, parts: int, most: int) -> Iterator[tuple[int, ...]]:
    """Every way to share ``total`` errors among ``parts`` parts, non-increasing, each at most
    ``most``."""
    if parts == 1:
        if total <= most:
            yield (total,)
        return
    for first in range(min(total, most), -1, -1):
        if first * parts < total:
            break
        for rest in _error_budgets(total - first, parts - 1, first):
            yield (first, *rest)


@functools.cache
def choose_layout(n: int, k: int) -> Layout:
    """The cheapest layout by the kernel's cost model for n fingerprints at radius k: Manku's
    tables over all 64 bits, or the bits cut into 2-4 parts where some part holds at most its
    share of the differences (pigeonhole: the shares plus one per part exceed k)."""
    best: tuple[float, tuple[Part, ...]] | None = None
    for count in range(1, min(_MAX_PARTS, k + 1) + 1):
        widths = block_widths(count)
        for budget in _error_budgets(k + 1 - count, count, k):
            # the part that may hold most errors gets the widest bits
            choice = [_best_part(n, w, e) for w, e in zip(widths, budget, strict=True)]
            cost = sum(c for c, _ in choice)
            if best is None or cost < best[0]:
                best = (cost, tuple(part for _, part in choice))
    assert best is not None
    return make_design(k, best[1])


def layout_cost(n: int, layout: Layout) -> float:
    """The cost model's nanoseconds for all pairs among n fingerprints with ``layout``."""
    return sum(_part_cost(n, part) for part in layout.parts)


def make_layout(k: int, blocks: int) -> Layout:
    """Manku's tables for radius ``k`` with the 64 bits in ``blocks`` blocks (0 <= k < blocks):
    every choice of ``blocks - k`` blocks, in the order of ``itertools.combinations``."""
    if not 0 <= k < blocks <= BITS:
        raise ValueError(f"need 0 <= k < blocks <= 64, got k={k}, blocks={blocks}")
    return make_design(k, (Part(BITS, k, blocks),))


#: Most fingerprints one call of the kernel takes: rows travel as 32-bit numbers.
MAX_ROWS = (1 << 32) - 1


class Workspace:
    """Buffers for one table at a time (entries and their rows), reused from table to table:
    fresh pages cost more than the sort itself."""

    def __init__(self, size: int) -> None:
        if size > MAX_ROWS:
            raise ValueError(f"the compiled index takes at most {MAX_ROWS} fingerprints")
        self.entries: U64Array = np.empty(size, np.uint64)
        self.rows: npt.NDArray[np.uint32] = np.empty(size, np.uint32)

    def fit(self, size: int) -> tuple[U64Array, npt.NDArray[np.uint32]]:
        if self.entries.size < size:
            raise ValueError(f"the workspace holds {self.entries.size} entries, not {size}")
        return self.entries[:size], self.rows[:size]


def _sort_bits(n: int, key_bits: int) -> tuple[int, int]:
    """Bits of the two counting-sort levels: groups of about 2^12 entries (in cache), then
    about two buckets per entry, never more bits than the key (at least one at each level
    but the first)."""
    top = max(0, min(n.bit_length() - _GROUP_BITS, key_bits - 1, 11))
    sub = max(1, min(n.bit_length() + 1 - top, key_bits - top, _MAX_SUB_BITS))
    return top, sub


def _group_bits(n: int, lead_width: int) -> int:
    """Bits of the first level for tables whose keys start with the same blocks,
    ``lead_width`` bits: groups of about 2^12 entries, from those bits only (so every table
    they lead shares them)."""
    return max(0, min(n.bit_length() - _GROUP_BITS, lead_width, 11))


def _sub_bits(n: int, top: int, key_bits: int) -> int:
    """Second-level bits: about two buckets per entry of a group, within the key."""
    return max(0, min(n.bit_length() + 1 - top, key_bits - top, _MAX_SUB_BITS))


def _window(n: int, sort_bits: int, key_bits: int) -> int:
    """Entries each entry meets in the branch-free pass (4, 8 or 16): most runs of equal sort
    bits fit (their length is about Poisson with mean n / 2^sort_bits); longer ones are
    searched diagonal by diagonal. 0: runs are long and each is one key, so every run is
    searched diagonal by diagonal."""
    mean = n / 2.0**sort_bits
    if sort_bits == key_bits and mean >= _DIAGONAL_MEAN:
        return 0
    reach = mean + 2.0 * math.sqrt(mean)
    return 4 if reach <= 4 else 8 if reach <= 8 else 16


def _require() -> ModuleType:
    kernels = load(Kernel.INDEX)
    if kernels is None:
        raise unavailable(Kernel.INDEX)
    return kernels


def _tables_pairs(
    values: U64Array,
    layout: Layout,
    ts: list[int],
    workspace: Workspace | None,
    limit: int | None = None,
) -> I64Array:
    """Pairs ``(i, j, distance)`` whose canonical table is one of ``ts`` (tables whose keys
    start with the same block: they share the first level of the sort), i below ``limit``."""
    tables = [layout.tables[t] for t in ts]
    first = tables[0]
    if any(t.key_blocks[0] != first.key_blocks[0] for t in tables):
        raise ValueError("tables sharing a first level must start with the same block")
    n = values.size
    top = _group_bits(n, first.first_width)
    subs = [_sub_bits(n, top, t.key_bits) for t in tables]
    segments = max(t.masks.size for t in tables)
    differs = max(1, max(t.differ.size for t in tables))

    def stack(rows: list[U64Array], width: int) -> U64Array:
        out = np.zeros((len(rows), width), np.uint64)
        for line, row in zip(out, rows, strict=True):
            line[: row.size] = row
        return out

    entries, rows = (workspace or Workspace(n)).fit(n)
    found: I64Array = _require().tables_pairs(
        values,
        layout.k,
        first.first_low + first.first_width - top,
        top,
        stack([t.masks for t in tables], segments),
        stack([t.lshift for t in tables], segments),
        stack([t.rshift for t in tables], segments),
        np.array([t.key_bits for t in tables], np.int64),
        np.array(subs, np.int64),
        np.array([t.full for t in tables], np.uint64),
        stack([t.differ for t in tables], differs),
        np.array([t.differ.size for t in tables], np.int64),
        np.array(
            [_window(n, top + sub, t.key_bits) for t, sub in zip(tables, subs, strict=True)],
            np.int64,
        ),
        entries,
        rows,
        n if limit is None else limit,
    )
    return found


def table_pairs(
    values: U64Array, layout: Layout, t: int, *, workspace: Workspace | None = None
) -> tuple[I64Array, I64Array, I64Array]:
    """Pairs (i, j, distance), i < j positions in ``values``, within ``layout.k`` whose canonical
    table is ``t``: the union over every ``t`` is each pair within k exactly once.

    ``values`` may be any subset of the fingerprints: for example those whose key in table
    ``t`` (:func:`table_keys`) falls in one range, since the pairs table ``t`` reports share
    that key. A ``workspace`` of at least ``values.size`` saves allocating buffers per call.
    """
    values = np.ascontiguousarray(values, dtype=np.uint64)
    if values.size < 2:
        empty = np.empty(0, np.int64)
        return empty, empty.copy(), empty.copy()
    found = _tables_pairs(values, layout, [t], workspace)
    return found[:, 0], found[:, 1], found[:, 2]


def table_keys(values: U64Array, layout: Layout, t: int) -> U64Array:
    """Each fingerprint's key in table ``t`` (its ``key_bits`` bits, right-aligned)."""
    table = layout.tables[t]
    return table.entries(values) >> np.uint64(BITS - table.key_bits)


def sorted_by_value(values: U64Array) -> U64Array:
    """``np.sort((values & ~row_mask) | rows)``, by counting sort (finds identical values)."""
    values = np.ascontiguousarray(values, dtype=np.uint64)
    row_bits = id_bits(values.size)
    high = np.array([(1 << BITS) - (1 << row_bits)], np.uint64)
    entries = np.empty(values.size, np.uint64)
    top, sub = _sort_bits(values.size, BITS - row_bits)
    _require().sorted_entries(values, high, top, sub, entries)
    return entries


#: Most rows for which a pair packs into one int64 with its distance: (n^2) * 128 < 2^63.
PACKED_ROWS = 1 << 28


def sort_pairs(a: I64Array, b: I64Array, d: I64Array, n: int) -> tuple[I64Array, I64Array]:
    """Pairs of rows (any order inside a pair) as a sorted ``(P, 2)`` i < j array and their
    distances; one packed int64 per pair, one sort (n below :data:`PACKED_ROWS`; the
    packed pairs must be sorted before they are unpacked)."""
    kernels = _require()
    packed = kernels.pack_pairs(_i64(a), _i64(b), _i64(d), n)
    packed.sort()
    return kernels.unpack_pairs(packed, n)  # type: ignore[no-any-return]


def _i64(x: npt.ArrayLike) -> I64Array:
    """``x`` as a contiguous int64 array (the kernel's argument type)."""
    return np.ascontiguousarray(x, dtype=np.int64)


def expand_sorted(
    group_rows: I64Array,
    group_start: I64Array,
    group_size: I64Array,
    keep: I64Array,
    a: I64Array,
    b: I64Array,
    d: I64Array,
    n: int,
) -> tuple[I64Array, I64Array]:
    """Pairs of distinct values (``a``, ``b`` index ``keep``, the rows standing for the values)
    as sorted pairs of rows with every copy (groups of rows sharing a value, each group
    ascending) and their distances, like :func:`sort_pairs`: copies of one value are at
    distance 0. Without numpy temporaries: a search with millions of pairs among copies
    spends its time here."""
    leaders = np.searchsorted(keep, group_rows[group_start])
    group_of = np.full(keep.size, -1, np.int64)
    group_of[leaders] = np.arange(group_start.size)
    kernels = _require()
    packed = kernels.expand_packed(
        group_of, *map(_i64, (group_rows, group_start, group_size, keep, a, b, d)), n
    )
    packed.sort()
    return kernels.unpack_pairs(packed, n)  # type: ignore[no-any-return]


def cross_pairs(
    a: U64Array, b: U64Array, k: int, blocks: int, *, threads: int | None = None
) -> tuple[I64Array, I64Array, I64Array]:
    """Every pair (i of ``a``, j of ``b``, distance) within k, once, unsorted.

    Meant for a few new fingerprints ``a`` against many known ones ``b``: per table, ``a`` is
    sorted and ``b`` streamed through once (no table of ``b`` is built or kept).
    """
    layout = make_layout(k, blocks)
    a = np.ascontiguousarray(a, dtype=np.uint64)
    b = np.ascontiguousarray(b, dtype=np.uint64)
    if a.size == 0 or b.size == 0:
        empty = np.empty(0, np.int64)
        return empty, empty.copy(), empty.copy()
    kernels = _require()
    # a bitmap of 2^filter_bits bits (at most 512 KiB) sized to keep false hits rare
    filter_bits = max(1, min(22, a.size.bit_length() + 6))

    def one(table: TableArrays) -> I64Array:
        entries = table.entries(a)
        order = np.argsort(entries, kind="stable")
        bits = min(filter_bits, table.key_bits)
        return kernels.cross_pairs(  # type: ignore[no-any-return]
            entries[order],
            _i64(order),
            b,
            k,
            table.masks,
            table.lshift,
            table.rshift,
            table.key_bits,
            table.full,
            table.differ,
            bits,
        )

    workers = max(1, min(threads or os.cpu_count() or 1, len(layout.tables)))
    with ThreadPoolExecutor(workers, thread_name_prefix="dupfinder-index") as pool:
        found = np.concatenate(list(pool.map(one, layout.tables)))
    return found[:, 0], found[:, 1], found[:, 2]


#: Most key bits of a probe table (2^22 bucket starts: 32 MiB per table).
_MAX_PROBE_BITS = 22


@dataclass(frozen=True, slots=True)
class ProbePlan:
    """How a probe index splits the bits: ``blocks`` tables keyed by ``key_bits`` bits each,
    probed with up to ``errors`` flipped bits; ``cost_ns`` for building and the queries."""

    blocks: int
    key_bits: int
    errors: int
    cost_ns: float


def probe_plan(n: int, queries: int, k: int) -> ProbePlan:
    """The cheapest probe layout for ``queries`` queries against ``n`` fingerprints."""
    best = ProbePlan(1, 1, k, math.inf)
    for m in range(1, min(k + 1, BITS) + 1):
        errors = k // m
        key_bits = max(1, min(BITS // m, n.bit_length() + 1, _MAX_PROBE_BITS))
        probes = sum(math.comb(key_bits, e) for e in range(errors + 1))
        per_query = m * probes * (cost.PROBE + cost.PROBE_CANDIDATE * n / 2.0**key_bits)
        total = m * (n * cost.PROBE_BUILD + 8.0 * 2**key_bits) + queries * per_query
        if total < best.cost_ns:
            best = ProbePlan(m, key_bits, errors, total)
    return best


class ProbeIndex:
    """Known fingerprints in one table per block, for exact radius-k lookups of new ones.

    Pigeonhole: two fingerprints within k bits differ in at most k // blocks bits of some
    block, so probing each block's table with every key within that many flips finds every
    pair (each pair is reported by the first such table only). Building is one counting
    sort per block; a query costs its probes, not a pass over the known fingerprints.
    """

    def __init__(self, values: U64Array, k: int, plan: ProbePlan) -> None:
        self.values = np.ascontiguousarray(values, dtype=np.uint64)
        self.k = k
        self.plan = plan
        widths = block_widths(plan.blocks)
        lows = block_lows(widths)
        self.shifts = np.array(
            [low + width - plan.key_bits for low, width in zip(lows, widths, strict=True)],
            np.int64,
        )
        self.starts, self.ordered, self.rows = _require().probe_build(
            self.values, self.shifts, plan.key_bits
        )

    def query(self, queries: U64Array) -> tuple[I64Array, I64Array, I64Array]:
        """Every (query row, known row, distance) within k, once, unsorted."""
        found = _require().probe_query(
            np.ascontiguousarray(queries, dtype=np.uint64),
            self.starts,
            self.ordered,
            self.rows,
            self.shifts,
            self.plan.key_bits,
            self.plan.errors,
            self.k,
        )
        return found[:, 0], found[:, 1], found[:, 2]


def _bundles(layout: Layout) -> list[list[int]]:
    """Tables grouped by their first key block (they share the sort's first level), largest
    group first so that threads finish together. (Grouping by two blocks when the first is
    narrow sorts smaller groups, but each group of tables pays its own pass over every
    fingerprint: slower at k = 8, 1,000,000, with blocks of 4 bits.)"""
    by_first: dict[int, list[int]] = {}
    for t, table in enumerate(layout.tables):
        by_first.setdefault(table.key_blocks[0], []).append(t)
    return sorted(by_first.values(), key=len, reverse=True)


def all_pairs(
    values: U64Array, layout: Layout, *, threads: int | None = None, limit: int | None = None
) -> tuple[I64Array, I64Array, I64Array]:
    """Every pair of rows i < j within ``layout.k`` (unsorted, each once), tables shared among
    ``threads``; with a ``limit``, only the pairs with i below it (rows from ``limit`` on are
    queries: their pairs with the rows before are kept, those among them left out)."""
    values = np.ascontiguousarray(values, dtype=np.uint64)
    bundles = _bundles(layout)
    if values.size < 2:
        empty = np.empty(0, np.int64)
        return empty, empty.copy(), empty.copy()
    workers = max(1, min(threads or os.cpu_count() or 1, len(bundles)))
    todo: queue.SimpleQueue[list[int]] = queue.SimpleQueue()
    for bundle in bundles:
        todo.put(bundle)

    def work() -> list[I64Array]:
        """Bundles taken one by one (a busy core takes fewer), one buffer for all of them."""
        workspace = Workspace(values.size)
        found: list[I64Array] = []
        while True:
            try:
                ts = todo.get_nowait()
            except queue.Empty:
                return found
            found.append(_tables_pairs(values, layout, ts, workspace, limit))

    if workers == 1:
        parts = work()
    else:
        with ThreadPoolExecutor(workers, thread_name_prefix="dupfinder-index") as pool:
            shares = [pool.submit(work) for _ in range(workers)]
            parts = [part for share in shares for part in share.result()]
    found = np.concatenate(parts) if parts else np.empty((0, 3), np.int64)
    return found[:, 0], found[:, 1], found[:, 2]
