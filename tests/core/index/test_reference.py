"""The permuted-table index must equal brute force exactly: every pair within k, once.

The oracle compares every pair with its own (SWAR) bit count, sharing no code with the
index. Data plant neighbours at every distance 0..k+2 around random bases, so pairs sit
right at, inside and just outside the radius; low-entropy data make long runs of equal keys.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_oracle import brute_pairs, brute_query, flip_bits, planted, swar_popcount

from dupfinder.core.index import reference as ix
from dupfinder.core.index.reference import (
    MAX_K,
    MAX_TABLES,
    PermutedIndex,
    all_pairs,
    all_pairs_with_distances,
    choose_blocks,
)

ONES = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def _numpy_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are the numpy reference's: AUTO keeps to it whatever the size (the compiled
    kernel, which AUTO takes from 1,000 fingerprints, has its own tests in test_compiled.py)."""
    monkeypatch.setenv(ix.ENGINE_VARIABLE, "numpy")


def assert_pairs_equal(x: np.ndarray, k: int, blocks: int | None = None) -> None:
    pairs, dist = all_pairs_with_distances(x, k, blocks=blocks)
    want_pairs, want_dist = brute_pairs(x, k)
    assert pairs.dtype == np.int64
    assert dist.dtype == np.int64
    assert pairs.shape == (want_pairs.shape[0], 2)
    np.testing.assert_array_equal(pairs, want_pairs)
    np.testing.assert_array_equal(dist, want_dist)


def legal_blocks(k: int) -> list[int]:
    return [m for m in range(k + 1, 65) if math.comb(m, k) <= MAX_TABLES]


# ----------------------------------------------------------------------------- all pairs


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 400),
    k=st.integers(0, 8),
    low_entropy=st.booleans(),
    pick=st.integers(0, 10_000),
    auto=st.booleans(),
)
def test_all_pairs_matches_brute_force(
    seed: int, n: int, k: int, low_entropy: bool, pick: int, auto: bool
) -> None:
    x = planted(seed, n, k, low_entropy=low_entropy)
    choices = legal_blocks(k)
    blocks = None if auto else choices[pick % min(len(choices), 6)]
    assert_pairs_equal(x, k, blocks=blocks)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1000, 4000), k=st.integers(0, 8))
def test_all_pairs_medium_sizes(seed: int, n: int, k: int) -> None:
    assert_pairs_equal(planted(seed, n, k), k)


@FAST
@given(
    values=st.lists(st.integers(0, 2**64 - 1), max_size=40),
    flips=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 63)), max_size=60),
    k=st.integers(0, 8),
)
def test_all_pairs_on_shrinkable_values(
    values: list[int], flips: list[tuple[int, int]], k: int
) -> None:
    """Hypothesis-built values (it can shrink a failure to a few ints) plus single-bit edits."""
    extra = [values[i % len(values)] ^ (1 << b) for i, b in flips] if values else []
    x = np.array(values + extra, dtype=np.uint64)
    assert_pairs_equal(x, k)
    assert_pairs_equal(x, k, blocks=k + 1)


@pytest.mark.parametrize(("seed", "k"), [(1, 3), (2, 8), (3, 0), (4, 1)])
def test_all_pairs_ten_thousand(seed: int, k: int) -> None:
    x = planted(seed, 10_000, k)
    assert_pairs_equal(x, k)


def test_all_pairs_ten_thousand_low_entropy() -> None:
    assert_pairs_equal(planted(7, 10_000, 4, low_entropy=True), 4)


@pytest.mark.parametrize("k", range(0, 9))
def test_every_legal_block_count(k: int) -> None:
    x = np.concatenate((planted(100 + k, 90, k), planted(200 + k, 30, k, low_entropy=True)))
    want_pairs, want_dist = brute_pairs(x, k)
    for m in legal_blocks(k):
        pairs, dist = all_pairs_with_distances(x, k, blocks=m)
        np.testing.assert_array_equal(pairs, want_pairs, err_msg=f"blocks={m}")
        np.testing.assert_array_equal(dist, want_dist, err_msg=f"blocks={m}")


@pytest.mark.parametrize("k", [12, 20, 32])
def test_large_radius(k: int) -> None:
    x = planted(k, 300, k)
    assert_pairs_equal(x, k)
    assert_pairs_equal(x, k, blocks=k + 1)


@pytest.mark.parametrize("n", [0, 1])
def test_too_few_fingerprints(n: int) -> None:
    pairs, dist = all_pairs_with_distances(np.zeros(n, np.uint64), 3)
    assert pairs.shape == (0, 2)
    assert pairs.dtype == np.int64
    assert dist.shape == (0,)


@pytest.mark.parametrize("value", [np.uint64(0), ONES, np.uint64(0x8000_0000_0000_0001)])
@pytest.mark.parametrize("k", [0, 3])
def test_all_identical(value: np.uint64, k: int) -> None:
    n = 700
    pairs, dist = all_pairs_with_distances(np.full(n, value, np.uint64), k)
    i, j = np.triu_indices(n, 1)
    np.testing.assert_array_equal(pairs, np.stack((i, j), axis=1))
    assert not dist.any()


def test_extremes_and_their_neighbours() -> None:
    rng = np.random.default_rng(9)
    zeros = np.zeros(5, np.uint64)
    ones = np.full(5, ONES)
    x = np.concatenate([zeros, ones] + [flip_bits(rng, zeros[:3], d) for d in range(6)])
    x = np.concatenate([x] + [flip_bits(rng, ones[:3], d) for d in range(6)])
    for k in range(0, 9):
        assert_pairs_equal(x, k)


def test_duplicates_mixed_with_neighbours() -> None:
    rng = np.random.default_rng(11)
    base = rng.integers(0, 2**64, 50, dtype=np.uint64)
    near = flip_bits(rng, base, 2)
    x = np.concatenate([base, base, near, base[:10], near[:20], near[:5]])
    rng.shuffle(x)
    for k in (0, 1, 2, 3, 5):
        assert_pairs_equal(x, k)
        assert_pairs_equal(x, k, blocks=k + 2)


def test_all_pairs_is_pairs_of_the_distances_variant() -> None:
    x = planted(5, 500, 3)
    np.testing.assert_array_equal(all_pairs(x, 3), all_pairs_with_distances(x, 3)[0])


def test_many_copies_cost_no_quadratic_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Copies are collapsed before the table search: its runs never see them."""
    seen = []
    original = ix._pairs_in_runs

    def spy(
        first: np.ndarray, length: np.ndarray, chunk: int = ix._CHUNK
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        seen.append(int(length.max(initial=0)))
        return original(first, length, chunk)

    monkeypatch.setattr(ix, "_pairs_in_runs", spy)
    rng = np.random.default_rng(3)
    x = np.concatenate([np.full(3000, 12345, np.uint64), rng.integers(0, 2**64, 3000, np.uint64)])
    pairs, dist = all_pairs_with_distances(x, 3, blocks=5)
    assert len(pairs) == 3000 * 2999 // 2
    assert not dist.any()
    # only the expansion of the copies (one run of 3000 rows) is that long
    assert max(seen) == 3000
    assert all(longest < 10 for longest in sorted(seen)[:-1])


@pytest.mark.parametrize(("copies", "collapsed"), [(1, False), (5, False), (400, True)])
def test_few_copies_searched_many_collapsed(
    copies: int, collapsed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few copies go through the tables as they are; many are collapsed first."""
    expanded = []
    original = ix._expand

    def spy(
        dups: ix._Duplicates, keep: np.ndarray, a: np.ndarray, b: np.ndarray, d: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        expanded.append(True)
        return original(dups, keep, a, b, d)

    monkeypatch.setattr(ix, "_expand", spy)
    rng = np.random.default_rng(copies)
    x = planted(copies, 3000, 3)
    x = np.unique(x)
    x = np.concatenate([x, x[rng.choice(x.size, copies, replace=False)]])
    rng.shuffle(x)
    assert_pairs_equal(x, 3)
    assert bool(expanded) == collapsed


def test_chunked_run_pairs_match_naive() -> None:
    first = np.array([0, 10, 40], np.int64)
    length = np.array([3, 25, 2], np.int64)
    want = {
        (f + a, f + b)
        for f, n in zip(first, length, strict=True)
        for a in range(n)
        for b in range(a + 1, n)
    }
    for chunk in (1, 7, 50, 10_000):
        got = [
            (int(a), int(b))
            for left, right in ix._pairs_in_runs(first, length, chunk)
            for a, b in zip(left, right, strict=True)
        ]
        assert len(got) == len(want)
        assert set(got) == want


def test_small_chunks_still_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ix, "_CHUNK", 64)
    monkeypatch.setattr(ix, "_QUERY_CHUNK", 7)
    x = planted(21, 800, 5, low_entropy=True)
    assert_pairs_equal(x, 5, blocks=7)
    index = PermutedIndex(x, 5)
    q = planted(22, 100, 5, low_entropy=True)
    for got, want in zip(index.query(q), brute_query(x, q, 5), strict=True):
        np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- index


def assert_index_exact(index: PermutedIndex, x: np.ndarray, q: np.ndarray, k: int) -> None:
    for got, want in zip(index.query(q), brute_query(x, q, k), strict=True):
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    for value in q[:25]:
        ids, dist = index.query_one(int(value))
        _, want_ids, want_dist = brute_query(x, np.array([value], np.uint64), k)
        np.testing.assert_array_equal(ids, want_ids)
        np.testing.assert_array_equal(dist, want_dist)


def queries_for(rng: np.random.Generator, x: np.ndarray, k: int, count: int = 60) -> np.ndarray:
    random = rng.integers(0, 2**64, count // 3, dtype=np.uint64)
    if x.size == 0:
        return random
    members = x[rng.integers(0, x.size, count)]
    near = [flip_bits(rng, members[d::5], d) for d in range(min(k + 3, 64))]
    return np.concatenate([members[: count // 3], random, *near])


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 500),
    k=st.integers(0, 8),
    low_entropy=st.booleans(),
    pick=st.integers(0, 10_000),
    auto=st.booleans(),
)
def test_query_matches_brute_force(
    seed: int, n: int, k: int, low_entropy: bool, pick: int, auto: bool
) -> None:
    x = planted(seed, n, k, low_entropy=low_entropy)
    choices = legal_blocks(k)
    blocks = None if auto else choices[pick % min(len(choices), 6)]
    index = PermutedIndex(x, k, blocks=blocks)
    assert len(index) == n
    assert_index_exact(index, x, queries_for(np.random.default_rng(seed), x, k), k)


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(0, 300), min_size=1, max_size=6),
    k=st.integers(0, 8),
)
def test_add_then_query_and_pairs(seed: int, sizes: list[int], k: int) -> None:
    x = planted(seed, sum(sizes), k, low_entropy=seed % 3 == 0)
    index = PermutedIndex(x[: sizes[0]], k)
    start = sizes[0]
    for size in sizes[1:]:
        ids = index.add(x[start : start + size])
        np.testing.assert_array_equal(ids, np.arange(start, start + size))
        start += size
    assert len(index) == x.size
    np.testing.assert_array_equal(index.values, x)
    assert_index_exact(index, x, queries_for(np.random.default_rng(seed + 1), x, k), k)
    pairs, dist = index.pairs_with_distances()
    want_pairs, want_dist = brute_pairs(x, k)
    np.testing.assert_array_equal(pairs, want_pairs)
    np.testing.assert_array_equal(dist, want_dist)
    np.testing.assert_array_equal(index.pairs(), want_pairs)


def test_add_merges_deltas_and_outgrows_row_bits() -> None:
    """Many small adds merge each delta into its table; 2^16 rows need more row bits."""
    k = 3
    x = planted(31, 70_000, k)
    index = PermutedIndex(x[:1000], k)
    row_bits = index._id_bits
    for start in range(1000, 12_200, 700):  # deltas pass _DELTA_MIN and merge
        index.add(x[start : start + 700])
    assert all(main.size > 1000 for main in index._main)  # deltas were merged
    index.add(x[12_200:])  # rows outgrow their bits: the index rebuilds
    assert index._id_bits > row_bits
    assert len(index) == x.size
    rng = np.random.default_rng(5)
    assert_index_exact(index, x, queries_for(rng, x, k, count=300), k)


def test_index_with_explicit_blocks_keeps_them_after_rebuild() -> None:
    x = planted(41, 2000, 2)
    index = PermutedIndex(np.empty(0, np.uint64), 2, blocks=6)
    for start in range(0, 2000, 250):
        index.add(x[start : start + 250])
    assert index.blocks == 6
    assert index.tables == math.comb(6, 2)
    assert_index_exact(index, x, queries_for(np.random.default_rng(1), x, 2), 2)


def test_empty_index() -> None:
    index = PermutedIndex(np.empty(0, np.uint64), 3)
    assert len(index) == 0
    rows, ids, dist = index.query(np.array([0, 5], np.uint64))
    assert rows.size == ids.size == dist.size == 0
    ids, dist = index.query_one(0)
    assert ids.size == dist.size == 0
    assert index.pairs().shape == (0, 2)
    assert index.add(np.empty(0, np.uint64)).size == 0


def test_values_view_is_read_only() -> None:
    index = PermutedIndex(np.arange(10, dtype=np.uint64), 1)
    with pytest.raises(ValueError, match="read-only"):
        index.values[0] = 1
    assert "n=10" in repr(index)


def test_index_copies_its_input() -> None:
    x = np.arange(100, dtype=np.uint64)
    index = PermutedIndex(x, 0)
    x[:] = 7
    ids, _ = index.query_one(5)
    np.testing.assert_array_equal(ids, [5])


def test_query_one_extremes() -> None:
    x = np.array([0, 1, 3, int(ONES), int(ONES) - 1], np.uint64)
    index = PermutedIndex(x, 2)
    ids, dist = index.query_one(2**64 - 1)
    np.testing.assert_array_equal(ids, [3, 4])
    np.testing.assert_array_equal(dist, [0, 1])
    ids, dist = index.query_one(0)
    np.testing.assert_array_equal(ids, [0, 1, 2])
    np.testing.assert_array_equal(dist, [0, 1, 2])


# ----------------------------------------------------------------------------- layout


def test_choose_blocks_is_legal_and_sensible() -> None:
    for k in range(0, MAX_K + 1):
        for n in (0, 10, 10_000, 1_000_000, 100_000_000):
            for queries in (False, True):
                m = choose_blocks(n, k, queries=queries)
                assert m in legal_blocks(k) or (k == 0 and m == 1)
    assert choose_blocks(1_000_000, 3) == 5
    assert choose_blocks(10_000_000, 3) == 5


def test_tables_cover_every_block_choice() -> None:
    """Pigeonhole: every set of m-k agreeing blocks has exactly one canonical table."""
    for m, k in [(5, 3), (6, 2), (9, 8), (4, 0)]:
        tables = ix._make_tables(m, k, 20)
        assert len(tables) == math.comb(m, k)
        masks = [t.full_mask for t in tables]
        assert len(set(masks)) == len(masks)
        for t in tables:
            assert int(t.key_bits) <= 64 - 20


def test_popcount_fallback_agrees() -> None:
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.integers(0, 2**64, 1000, dtype=np.uint64), [np.uint64(0), ONES]])
    np.testing.assert_array_equal(ix._popcount_bytes(v), swar_popcount(v))
    np.testing.assert_array_equal(ix._popcount(v), swar_popcount(v))


# ----------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        (([1, 2, 3], 3), {}, TypeError),
        ((np.array([1.0, 2.0]), 3), {}, TypeError),
        ((np.array([True, False]), 3), {}, TypeError),
        ((np.zeros((2, 2), np.uint64), 3), {}, ValueError),
        ((np.array([-1, 2], np.int64), 3), {}, ValueError),
        ((np.zeros(3, np.uint64), -1), {}, ValueError),
        ((np.zeros(3, np.uint64), MAX_K + 1), {}, ValueError),
        ((np.zeros(3, np.uint64), True), {}, TypeError),
        ((np.zeros(3, np.uint64), 3.0), {}, TypeError),
        ((np.zeros(3, np.uint64), 3), {"blocks": 3}, ValueError),
        ((np.zeros(3, np.uint64), 3), {"blocks": 65}, ValueError),
        ((np.zeros(3, np.uint64), 8), {"blocks": 40}, ValueError),
        ((np.zeros(3, np.uint64), 3), {"blocks": 5.0}, TypeError),
    ],
)
def test_bad_arguments(
    args: tuple[Any, ...],  # Any: wrong on purpose, to reach the checks made at run time
    kwargs: dict[str, Any],
    error: type[Exception],
) -> None:
    with pytest.raises(error):
        all_pairs(*args, **kwargs)
    with pytest.raises(error):
        PermutedIndex(*args, **kwargs)


def test_other_integer_dtypes_are_accepted() -> None:
    x = np.array([0, 1, 3, 1000], np.int64)
    np.testing.assert_array_equal(all_pairs(x, 1), [[0, 1], [1, 2]])
    np.testing.assert_array_equal(all_pairs(x.astype(np.uint32), 1), [[0, 1], [1, 2]])


def test_bad_query_arguments() -> None:
    index = PermutedIndex(np.arange(5, dtype=np.uint64), 2)
    with pytest.raises(ValueError, match="64-bit"):
        index.query_one(2**64)
    with pytest.raises(ValueError, match="64-bit"):
        index.query_one(-1)
    with pytest.raises(TypeError):
        index.query_one(1.5)  # type: ignore[arg-type]  # refused at run time, as tested
    with pytest.raises(TypeError):
        index.query([1, 2])  # type: ignore[arg-type]  # a list, not an array: refused
    with pytest.raises(TypeError):
        index.add([1, 2])  # type: ignore[arg-type]  # a list, not an array: refused
    with pytest.raises(ValueError, match="non-negative"):
        choose_blocks(-1, 3)
