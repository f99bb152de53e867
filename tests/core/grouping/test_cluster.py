"""Groups are stars (or, as an option, connected components) of the pair graph, with a
deterministic layout and the best keeper as representative."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dupfinder.core.grouping.cluster import cluster_unique
from dupfinder.core.model import Grouping


def _brute_pairs(unique: np.ndarray, k: int) -> np.ndarray:
    pairs = [
        (i, j)
        for i, j in itertools.combinations(range(len(unique)), 2)
        if int(unique[i] ^ unique[j]).bit_count() <= k
    ]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def _components(values: list[int], k: int) -> set[frozenset[int]]:
    """Reference: flood fill over rows with a plain Python loop."""
    n = len(values)
    seen: set[int] = set()
    out = set()
    for start in range(n):
        if start in seen:
            continue
        stack, comp = [start], {start}
        while stack:
            row = stack.pop()
            for other in range(n):
                if other not in comp and (values[row] ^ values[other]).bit_count() <= k:
                    comp.add(other)
                    stack.append(other)
        seen |= comp
        if len(comp) > 1:
            out.add(frozenset(comp))
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([0, 1, 3, 7, 0xFF, 0xF0F0, 2**63, 2**64 - 1]), max_size=25),
    st.integers(min_value=0, max_value=4),
)
def test_components_match_flood_fill(values: list[int], k: int) -> None:
    array = np.array(values, dtype=np.uint64)
    unique = np.unique(array)
    clusters = cluster_unique(
        array,
        _brute_pairs(unique, k),
        [f"/f{i:03d}" for i in range(len(values))],
        Grouping.CONNECTED,
    )
    assert {frozenset(c.rows) for c in clusters} == _components(values, k)
    for c in clusters:
        rep = values[c.rows[0]]
        assert list(c.distances) == [(rep ^ values[r]).bit_count() for r in c.rows]
        assert c.distances[0] == 0


def test_representative_is_the_best_keeper_that_matches_every_member() -> None:
    # a chain 0 - 1 - 3 (bits): only the middle value matches both ends directly
    values = np.array([0b11, 0b0, 0b1], dtype=np.uint64)
    unique = np.unique(values)
    (star,) = cluster_unique(values, _brute_pairs(unique, 1), ["/c", "/a", "/b"])
    assert star.rows[0] == 2  # "/a" is the better key but does not match "/c"
    # in a group where everyone matches everyone, the smallest key wins
    tight = np.array([0b0, 0b1, 0b10], dtype=np.uint64)
    (clique,) = cluster_unique(tight, _brute_pairs(np.unique(tight), 2), ["/c", "/b", "/a"])
    assert clique.rows[0] == 2
    ties = np.array([5, 5], dtype=np.uint64)
    (only,) = cluster_unique(ties, np.zeros((0, 2), dtype=np.int64), ["/z", "/y"])
    assert only.rows == (1, 0)


def test_identical_copies_are_one_node_and_order_is_by_size() -> None:
    values = np.array([9] * 1000 + [1, 1, 1], dtype=np.uint64)
    keys = [f"/{i:05d}" for i in range(len(values))]
    clusters = cluster_unique(values, np.zeros((0, 2), dtype=np.int64), keys)
    assert [len(c.rows) for c in clusters] == [1000, 3]


def test_empty_and_singletons() -> None:
    assert cluster_unique(np.array([], dtype=np.uint64), np.zeros((0, 2)), []) == []
    assert cluster_unique(np.array([1, 2], dtype=np.uint64), np.zeros((0, 2)), ["a", "b"]) == []


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from([0, 1, 3, 7, 15, 0xFF, 0xF0F0, 2**63, 2**64 - 1]), max_size=25),
    st.integers(min_value=0, max_value=4),
)
def test_stars_partition_components_with_direct_matches(values: list[int], k: int) -> None:
    """Every star member matches its representative directly; stars never cross components
    and never share rows; copies of one value always stay together."""
    array = np.array(values, dtype=np.uint64)
    unique = np.unique(array)
    keys = [f"/f{i:03d}" for i in range(len(values))]
    stars = cluster_unique(array, _brute_pairs(unique, k), keys, Grouping.STAR)
    components = _components(values, k)
    seen: set[int] = set()
    for star in stars:
        rows = set(star.rows)
        assert len(rows) >= 2
        assert not rows & seen
        seen |= rows
        assert any(rows <= comp for comp in components)
        assert all(d <= k for d in star.distances)
        rep = values[star.rows[0]]
        assert list(star.distances) == [(rep ^ values[r]).bit_count() for r in star.rows]
        for row in rows:
            copies = {i for i, v in enumerate(values) if v == values[row]}
            assert copies <= rows


def test_chain_splits_into_stars_around_the_best_connected() -> None:
    # 0 - 1 - 3 - 7 - 15 at k=1: a chain; the connected component holds all five.
    values = np.array([0, 1, 3, 7, 15], dtype=np.uint64)
    keys = ["/a", "/b", "/c", "/d", "/e"]
    pairs = _brute_pairs(np.unique(values), 1)
    (chain,) = cluster_unique(values, pairs, keys, Grouping.CONNECTED)
    assert sorted(chain.rows) == [0, 1, 2, 3, 4]
    stars = cluster_unique(values, pairs, keys, Grouping.STAR)
    # 1, 3 and 7 have two matches each; 1 wins on its path, takes 0 and 3; 7 takes 15.
    assert [(s.rows, s.distances) for s in stars] == [((1, 0, 2), (0, 1, 1)), ((3, 4), (0, 1))]


def test_star_grouping_keeps_a_tight_group_whole() -> None:
    values = np.array([0b0000, 0b0001, 0b0010, 0b0100, 0b1000], dtype=np.uint64)
    pairs = _brute_pairs(np.unique(values), 2)
    keys = ["/a", "/b", "/c", "/d", "/e"]
    connected = cluster_unique(values, pairs, keys, Grouping.CONNECTED)
    assert cluster_unique(values, pairs, keys, Grouping.STAR) == connected
