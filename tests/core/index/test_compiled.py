"""The compiled kernel must give exactly the numpy reference's pairs, and brute force's.

Every comparison runs the kernel (``Engine.COMPILED``, whatever the size), the numpy
reference (``Engine.NUMPY``) and the brute-force oracle on the same data: planted
neighbours at every distance 0..k+2, copies, low-entropy values sharing most bits, for
k = 0..12 and sizes from 0 to tens of thousands.
"""

from __future__ import annotations

import logging
import math
import sys
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_oracle import brute_pairs, brute_query, flip_bits, planted

from dupfinder.core.index import compiled as index_kernel
from dupfinder.core.index.reference import all_pairs_with_distances, choose_blocks
from dupfinder.core.jit import engine as jit_engine
from dupfinder.core.jit.engine import Engine

pytestmark = pytest.mark.skipif(not index_kernel.available(), reason="the extension was not built")

MANY = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_three_agree(x: np.ndarray, k: int, blocks: int | None = None) -> None:
    """Kernel == numpy reference, and both == brute force when that takes under a second."""
    got = all_pairs_with_distances(x, k, blocks=blocks, engine=Engine.COMPILED)
    ref = all_pairs_with_distances(x, k, blocks=blocks, engine=Engine.NUMPY)
    for g, r in zip(got, ref, strict=True):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g, r)
    if x.size <= 12_000:
        for g, w in zip(got, brute_pairs(x, k), strict=True):
            np.testing.assert_array_equal(g, w)


@MANY
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 600),
    k=st.integers(0, 12),
    low_entropy=st.booleans(),
)
def test_kernel_matches_reference_and_brute_force(
    seed: int, n: int, k: int, low_entropy: bool
) -> None:
    assert_three_agree(planted(seed, n, k, low_entropy=low_entropy), k)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(300, 3000),
    k=st.integers(1, 12),
    extra=st.integers(1, 4),
)
def test_kernel_with_every_kind_of_layout(seed: int, n: int, k: int, extra: int) -> None:
    """Forced block counts: few tables with long runs, many tables with short keys."""
    assert_three_agree(planted(seed, n, k), k, blocks=k + extra)


@pytest.mark.parametrize("k", [0, 1, 3, 6, 8, 12])
def test_kernel_tens_of_thousands(k: int) -> None:
    assert_three_agree(planted(k, 10_000, k), k)
    assert_three_agree(planted(k, 60_000, k), k)


@pytest.mark.parametrize(("k", "n"), [(3, 20_000), (8, 3_000)])
def test_kernel_low_entropy(k: int, n: int) -> None:
    """Values sharing 48 of 64 bits: huge runs in every table, sorted inside the kernel (at
    k = 8 most pairs are within reach: 3,000 values already give ~500,000 pairs)."""
    assert_three_agree(planted(7, n, k, low_entropy=True), k)


def _modes(n: int, k: int, blocks: int) -> set[tuple[int, bool]]:
    """(window, whether the sort covers the whole key) of each table of a layout."""
    modes = set()
    for table in index_kernel.make_layout(k, blocks).tables:
        top = index_kernel._group_bits(n, table.first_width)
        sort_bits = top + index_kernel._sub_bits(n, top, table.key_bits)
        modes.add((index_kernel._window(n, sort_bits, table.key_bits), sort_bits == table.key_bits))
    return modes


@pytest.mark.parametrize(
    ("n", "k", "blocks", "mode"),
    [
        (6_000, 8, 9, (0, True)),  # long runs of one key: four entries at a time
        (10_000, 8, 10, (8, True)),
        (3_000, 8, 9, (16, True)),  # runs past the window, diagonal by diagonal
        (20_000, 3, 4, (4, True)),
        (10_000, 3, 5, (4, False)),  # keys longer than the sort: the key is checked too
    ],
)
@pytest.mark.parametrize("low_entropy", [False, True])
def test_every_way_of_searching_a_bucket(
    n: int, k: int, blocks: int, mode: tuple[int, bool], low_entropy: bool
) -> None:
    """Each search of a sorted group (fixed window of 4, 8 or 16, long runs, whole buckets)
    is reached by the layout and gives the reference's pairs; low-entropy values make runs
    far longer than the layout expects."""
    assert mode in _modes(n, k, blocks)
    assert_three_agree(
        planted(n + k, n, k, low_entropy=low_entropy)[: n // 4 if low_entropy else n], k, blocks
    )


@pytest.mark.parametrize(("k", "blocks", "n"), [(3, 4, 300), (8, 9, 6_000)])
def test_partners_anywhere_in_a_long_bucket(k: int, blocks: int, n: int) -> None:
    """Values sharing their top 24 bits fill one bucket in the tables keyed there, and the
    rest of a flagged entry's bucket is read 64 entries at a time: the first value's
    partners sit at every offset around those spans and at the bucket's end."""
    rng = np.random.default_rng(k)
    x = rng.integers(0, 1 << 40, n, dtype=np.uint64) | np.uint64(0xABCDEF << 40)
    for at in (1, 62, 63, 64, 65, 66, 127, 128, 129, 191, 192, n - 2, n - 1):
        x[at] = x[0] ^ (np.uint64(1) << np.uint64(at % 40))
    assert_three_agree(x, k, blocks)


@pytest.mark.parametrize("k", [0, 2, 8])
def test_kernel_identical_values(k: int) -> None:
    rng = np.random.default_rng(k)
    x = np.repeat(rng.integers(0, 2**64, 30, dtype=np.uint64), 40)  # 30 values, 40 copies
    x = np.concatenate([x, flip_bits(rng, x[:200], 1)])
    rng.shuffle(x)
    assert_three_agree(x, k)


def assert_each_table_reports_its_own_pairs(x: np.ndarray, layout: index_kernel.Layout) -> None:
    """The union of per-table results is every pair once, and table t's pairs share its key."""
    seen = []
    for t in range(len(layout.tables)):
        a, b, d = index_kernel.table_pairs(x, layout, t)
        keys = index_kernel.table_keys(x, layout, t)
        np.testing.assert_array_equal(keys[a], keys[b])
        seen.append(np.stack((a, b, d), axis=1))
    got = np.concatenate(seen)
    got = got[np.lexsort((got[:, 1], got[:, 0]))]
    pairs, dist = brute_pairs(x, layout.k)
    np.testing.assert_array_equal(got[:, :2], pairs)
    np.testing.assert_array_equal(got[:, 2], dist)


def test_every_table_reports_only_its_own_pairs() -> None:
    assert_each_table_reports_its_own_pairs(planted(11, 3000, 4), index_kernel.make_layout(4, 6))


def test_table_pairs_on_a_key_range_of_one_table() -> None:
    """Splitting one table by key range loses none of its pairs (how a cluster shares work)."""
    k, blocks, t = 3, 5, 2
    x = planted(5, 4000, k)
    layout = index_kernel.make_layout(k, blocks)
    a, b, _ = index_kernel.table_pairs(x, layout, t)
    whole = set(zip(a.tolist(), b.tolist(), strict=True))
    keys = index_kernel.table_keys(x, layout, t)
    middle = np.uint64(np.median(keys))
    parts: set[tuple[int, int]] = set()
    for rows in (np.flatnonzero(keys < middle), np.flatnonzero(keys >= middle)):
        pa, pb, _ = index_kernel.table_pairs(x[rows], layout, t)
        parts |= set(zip(rows[pa].tolist(), rows[pb].tolist(), strict=True))
    assert parts == whole
    assert whole  # planted neighbours give this table pairs to find


def test_threads_give_the_same_pairs() -> None:
    x = planted(3, 5000, 5)
    layout = index_kernel.make_layout(5, 8)
    one = index_kernel.all_pairs(x, layout, threads=1)
    two = index_kernel.all_pairs(x, layout, threads=2)
    order_one, order_two = np.lexsort(one[:2]), np.lexsort(two[:2])
    for u, v in zip(one, two, strict=True):
        np.testing.assert_array_equal(u[order_one], v[order_two])


@pytest.mark.parametrize("n", [0, 1, 2, 13, 5000, 70_000])
def test_sorted_by_value_is_a_full_sort(n: int) -> None:
    x = planted(n, n, 2)
    id_bits = max(1, n.bit_length())
    high = np.uint64(((1 << 64) - 1) ^ ((1 << id_bits) - 1))
    want = np.sort((x & high) | np.arange(n, dtype=np.uint64))
    np.testing.assert_array_equal(index_kernel.sorted_by_value(x), want)


def test_workspace_must_fit_and_layouts_be_legal() -> None:
    x = planted(1, 100, 2)
    layout = index_kernel.make_layout(2, 4)
    with pytest.raises(ValueError, match="workspace"):
        index_kernel.table_pairs(x, layout, 0, workspace=index_kernel.Workspace(10))
    with pytest.raises(ValueError, match="blocks"):
        index_kernel.make_layout(4, 4)


def test_entries_are_permutations_that_keep_distances() -> None:
    """Two entries differ in exactly the bits their fingerprints differ in, key on top."""
    rng = np.random.default_rng(4)
    x = rng.integers(0, 2**64, 500, dtype=np.uint64)
    y = flip_bits(rng, x, 5)
    for table in index_kernel.make_layout(5, 9).tables:
        ex, ey = table.entries(x), table.entries(y)
        np.testing.assert_array_equal(np.bitwise_count(ex ^ ey), np.bitwise_count(x ^ y))
        np.testing.assert_array_equal(np.bitwise_count(ex), np.bitwise_count(x))
        assert int(table.full) >> (64 - table.key_bits) == (1 << table.key_bits) - 1


def test_compiled_layouts_prefer_fewer_tables_at_large_k() -> None:
    """The kernel's cheaper candidates make fuller tables pay: never more tables than numpy's."""
    for n, k in ((1_000_000, 3), (1_000_000, 8), (10_000_000, 3)):
        assert choose_blocks(n, k, engine=Engine.COMPILED) <= choose_blocks(n, k)


def test_without_the_extension_the_index_falls_back_and_says_so_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "dupfinder.core.index.kernels", None)  # import fails
    jit_engine.load.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="dupfinder.core.index.compiled"):
            assert not index_kernel.available()
            assert not index_kernel.available()
            x = planted(2, 30_000, 3)
            pairs, _ = all_pairs_with_distances(x, 3)  # AUTO: numpy, no error
            ref, _ = all_pairs_with_distances(x, 3, engine=Engine.NUMPY)
            np.testing.assert_array_equal(pairs, ref)
            with pytest.raises(RuntimeError, match="not built"):
                all_pairs_with_distances(x, 3, engine=Engine.COMPILED)
        warnings = [r for r in caplog.records if "numpy" in r.getMessage()]
        assert len(warnings) == 1
    finally:
        monkeypatch.undo()
        jit_engine.load.cache_clear()
    assert index_kernel.available()


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 3000),
    queries=st.integers(0, 200),
    k=st.integers(0, 12),
    blocks=st.integers(1, 13),
)
def test_probe_index_finds_every_pair_once(
    seed: int, n: int, queries: int, k: int, blocks: int
) -> None:
    """New fingerprints against known ones, for every block count: brute force's pairs."""
    x = planted(seed, n, k)
    rng = np.random.default_rng(seed)
    near = flip_bits(rng, x[: queries // 2], k // 2) if n else np.empty(0, np.uint64)
    q = np.concatenate([near, rng.integers(0, 2**64, queries - near.size, dtype=np.uint64)])
    auto = index_kernel.probe_plan(n, q.size, k)
    errors = k // blocks
    key_bits = max(1, min(64 // blocks, 16))
    plan = index_kernel.ProbePlan(blocks, key_bits, errors, 0.0) if errors <= 3 else auto
    index = index_kernel.ProbeIndex(x, k, plan)
    qi, row, d = index.query(q)
    got = sorted(zip(qi.tolist(), row.tolist(), d.tolist(), strict=True))
    want_q, want_x, want_d = brute_query(x, q, k)
    assert got == sorted(zip(want_q.tolist(), want_x.tolist(), want_d.tolist(), strict=True))


@pytest.mark.parametrize(("setting", "loads"), [("compiled", True), ("numpy", False)])
def test_environment_chooses_the_engine(
    monkeypatch: pytest.MonkeyPatch, setting: str, loads: bool
) -> None:
    from dupfinder.core.index import reference as index

    monkeypatch.setenv(index.ENGINE_VARIABLE, setting)
    assert (index.compiled_kernel(Engine.AUTO, 10) is not None) is loads
    assert (index.compiled_kernel(Engine.AUTO, 10**6) is not None) is loads
    assert index.compiled_kernel(Engine.NUMPY, 10**6) is None  # an explicit engine wins


@pytest.mark.parametrize("n", [0, 1, 2, 5])
@pytest.mark.parametrize("k", [3, 8, 12])
def test_probe_index_with_more_errors_than_key_bits(n: int, k: int) -> None:
    """Tiny known sets give one- or two-bit keys: probes must stay inside the table."""
    rng = np.random.default_rng(n * 100 + k)
    x = rng.integers(0, 2**64, n, dtype=np.uint64)
    q = np.concatenate([flip_bits(rng, x, min(k, 2)), rng.integers(0, 2**64, 7, dtype=np.uint64)])
    want_q, want_x, want_d = brute_query(x, q, k)
    want = sorted(zip(want_q.tolist(), want_x.tolist(), want_d.tolist(), strict=True))
    # one block keyed by 1 or 2 bits probed with k flips: the case that read past the table
    for plan in (index_kernel.ProbePlan(1, 1, k, 0.0), index_kernel.ProbePlan(2, 2, k // 2, 0.0)):
        qi, row, d = index_kernel.ProbeIndex(x, k, plan).query(q)
        assert sorted(zip(qi.tolist(), row.tolist(), d.tolist(), strict=True)) == want


def test_pairs_are_packed_sorted_and_unpacked() -> None:
    """Pairs in any order (and either way round) come back sorted, i < j, with distances;
    the first row grows past several multiples of n in one step."""
    rng = np.random.default_rng(9)
    n = 1000
    a = rng.integers(0, n, 5000)
    b = rng.integers(0, n, 5000)
    a, b = a[a != b], b[a != b]
    a[:3], b[:3] = (0, 998, 500), (999, 999, 1)  # sparse first rows: the walk skips rows
    d = rng.integers(0, 65, a.size)
    pairs, dist = index_kernel.sort_pairs(a, b, d, n)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    order = np.lexsort((d, hi, lo))
    np.testing.assert_array_equal(pairs, np.stack((lo[order], hi[order]), axis=1))
    np.testing.assert_array_equal(dist, d[order])


# ----------------------------------------------------------------------------- designs

#: Layouts of several parts, each with at most its share of the differences: the designs the
#: cost model picks at k = 3..12 for sizes from 30,000 to 10,000,000, and uneven ones.
DESIGNS = [
    (3, ((32, 1, 3), (32, 1, 3))),
    (5, ((22, 1, 3), (21, 1, 3), (21, 1, 3))),
    (8, ((21, 2, 5), (21, 2, 5), (22, 2, 5))),
    (8, ((22, 2, 7), (21, 2, 7), (21, 2, 7))),
    (8, ((22, 3, 6), (21, 2, 5), (21, 1, 4))),
    (10, ((16, 2, 4), (16, 2, 4), (16, 2, 4), (16, 1, 2))),
    (12, ((22, 4, 8), (21, 3, 7), (21, 3, 7))),
    (6, ((40, 3, 5), (24, 3, 4))),  # more room than needed: shares adding up past k + 1
]


def design(k: int, parts: tuple[tuple[int, int, int], ...]) -> index_kernel.Layout:
    return index_kernel.make_design(k, tuple(index_kernel.Part(*p) for p in parts))


def design_pairs(x: np.ndarray, layout: index_kernel.Layout) -> tuple[np.ndarray, np.ndarray]:
    a, b, d = index_kernel.all_pairs(x, layout)
    return index_kernel.sort_pairs(a, b, d, x.size)


@pytest.mark.parametrize(("k", "parts"), DESIGNS)
def test_every_pattern_of_differences_leaves_some_key_whole(
    k: int, parts: tuple[tuple[int, int, int], ...]
) -> None:
    """The covering property, block by block: whichever k blocks (or fewer) hold the
    differences, some table's key lies in the others. (Each block with a difference needs
    one differing bit, so this is every pattern of k differing bits.)"""
    layout = design(k, parts)
    assert len(layout.tables) == sum(math.comb(b, e) for _, e, b in parts)
    widths = [w for p in layout.parts for w in p.widths()]
    lows = [64 - sum(widths[: i + 1]) for i in range(len(widths))]
    block_bits = [((1 << w) - 1) << low for w, low in zip(widths, lows, strict=True)]
    key_bits = [sum(block_bits[b] for b in t.key_blocks) for t in layout.tables]
    for touched in range(k + 1):
        for hit in combinations(range(len(widths)), touched):
            differ = sum(block_bits[b] for b in hit)
            assert any(key & differ == 0 for key in key_bits), hit


@pytest.mark.parametrize(("k", "parts"), DESIGNS)
@pytest.mark.parametrize("low_entropy", [False, True])
def test_designs_give_brute_force_pairs(
    k: int, parts: tuple[tuple[int, int, int], ...], low_entropy: bool
) -> None:
    """Planted neighbours at every distance, copies and values sharing most bits: every pair
    once, as brute force finds them."""
    x = planted(k * 7 + len(parts), 4000, k, low_entropy=low_entropy)
    for got, want in zip(design_pairs(x, design(k, parts)), brute_pairs(x, k), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("k", "parts"), DESIGNS[:5])
def test_designs_at_tens_of_thousands_match_the_reference(
    k: int, parts: tuple[tuple[int, int, int], ...]
) -> None:
    x = planted(k, 60_000, k)
    ref = all_pairs_with_distances(x, k, engine=Engine.NUMPY)
    for got, want in zip(design_pairs(x, design(k, parts)), ref, strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("k", [0, 2, 8])
def test_designs_with_identical_values(k: int) -> None:
    rng = np.random.default_rng(k + 50)
    x = np.repeat(rng.integers(0, 2**64, 30, dtype=np.uint64), 40)  # 30 values, 40 copies
    x = np.concatenate([x, flip_bits(rng, x[:200], 1)])
    rng.shuffle(x)
    layout = index_kernel.choose_layout(max(x.size, 1_000_000), k)
    for got, want in zip(design_pairs(x, layout), brute_pairs(x, k), strict=True):
        np.testing.assert_array_equal(got, want)


def test_each_pair_is_reported_by_one_table_of_a_design() -> None:
    """The canonical rule across parts: table by table, every pair once, each sharing the
    reporting table's key."""
    layout = design(8, ((21, 2, 5), (21, 2, 5), (22, 2, 5)))
    assert_each_table_reports_its_own_pairs(planted(3, 3000, 8), layout)


@pytest.mark.parametrize(
    "parts",
    [
        ((32, 1, 3), (30, 1, 3)),  # 62 bits
        ((32, 1, 3), (32, 3, 3)),  # as many errors as blocks
        ((32, 1, 3), (32, 0, 3)),  # shares add up to k: a pair may escape every part
    ],
)
def test_designs_that_would_miss_pairs_are_refused(parts: tuple[tuple[int, int, int], ...]) -> None:
    with pytest.raises(ValueError, match=r"parts|errors"):
        design(3, parts)


def test_the_cost_model_prefers_parts_at_large_k() -> None:
    """Several parts need fewer tables for the same key length: chosen from k = 5 on at a
    million fingerprints; at k = 3 one part (Manku's layout) stays."""
    assert len(index_kernel.choose_layout(1_000_000, 3).parts) == 1
    for k in (5, 8, 12):
        layout = index_kernel.choose_layout(1_000_000, k)
        assert len(layout.parts) > 1
        manku = min(
            (index_kernel.make_layout(k, m) for m in range(k + 1, k + 5)),
            key=lambda m: index_kernel.layout_cost(1_000_000, m),
        )
        assert len(layout.tables) < len(manku.tables)


@pytest.mark.parametrize("k", [2, 8])
def test_a_limit_leaves_out_the_pairs_among_the_rows_past_it(k: int) -> None:
    """Rows from the limit on are queries: their pairs with earlier rows stay, the pairs
    among them go (in every layout)."""
    x = planted(k + 20, 3000, k)
    limit = 1800
    pairs, dist = brute_pairs(x, k)
    keep = pairs[:, 0] < limit
    assert (~keep).any()
    assert keep.any()
    for layout in (index_kernel.make_layout(k, k + 2), index_kernel.choose_layout(10**6, k)):
        a, b, d = index_kernel.all_pairs(x, layout, limit=limit)
        got_pairs, got_dist = index_kernel.sort_pairs(a, b, d, x.size)
        np.testing.assert_array_equal(got_pairs, pairs[keep])
        np.testing.assert_array_equal(got_dist, dist[keep])


def test_both_builds_of_the_kernel_give_the_same_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The x86-64 baseline build and the AVX2 build (where the CPU runs it) agree exactly;
    whichever the loader took ran every test above."""
    import importlib

    baseline = importlib.import_module("dupfinder.core.index.kernels")
    if not baseline.avx2():
        pytest.skip("this CPU runs the baseline build only")
    wide = importlib.import_module("dupfinder.core.index.kernels_avx2")
    for k, n in ((3, 20_000), (8, 6_000), (12, 3_000)):
        x = planted(k, n, k)
        layout = index_kernel.choose_layout(n, k)
        results = []
        for module in (baseline, wide):
            monkeypatch.setattr(index_kernel, "_require", lambda module=module: module)
            a, b, d = index_kernel.all_pairs(x, layout, threads=1)
            results.append(index_kernel.sort_pairs(a, b, d, n))
        for u, v in zip(*results, strict=True):
            np.testing.assert_array_equal(u, v)
