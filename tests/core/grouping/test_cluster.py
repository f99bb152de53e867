"""Groups are stars (or, as an option, connected components) of the pair graph, with a
deterministic layout and the best keeper as representative; components come alike from the
compiled union-find and from numpy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dupfinder.core.grouping.cluster import Graph, cluster_unique, component_labels
from dupfinder.core.jit import engine as jit_engine
from dupfinder.core.jit.engine import Engine
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


def _smallest_by_flood(n: int, edges: list[tuple[int, int]]) -> list[int]:
    """Reference: each node's component by a plain Python flood fill, labelled by its smallest."""
    neighbours: dict[int, set[int]] = {v: set() for v in range(n)}
    for a, b in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)
    label = list(range(n))
    for start in range(n):
        if label[start] != start:
            continue
        stack = [start]
        while stack:
            for other in neighbours[stack.pop()]:
                if label[other] == other and other > start:
                    label[other] = start
                    stack.append(other)
    return label


ENGINES = [Engine.NUMPY]
if jit_engine.available(jit_engine.Kernel.COMPONENTS):
    ENGINES.append(Engine.COMPILED)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 40),
    edges=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=80),
)
def test_component_labels_are_each_components_smallest_node(
    engine: Engine, n: int, edges: list[tuple[int, int]]
) -> None:
    edges = [(a % n, b % n) for a, b in edges]
    pairs = np.array(edges, dtype=np.int64).reshape(-1, 2)
    got = component_labels(n, pairs, engine)
    assert got.dtype == np.int64
    assert got.tolist() == _smallest_by_flood(n, edges)


@pytest.mark.parametrize("engine", ENGINES)
def test_component_labels_of_a_long_chain_and_a_star(engine: Engine) -> None:
    """A chain whose edges come in reverse (many hooking rounds for numpy) and a star."""
    n = 5000
    chain = np.stack([np.arange(n - 2, -1, -1), np.arange(n - 1, 0, -1)], axis=1)
    np.testing.assert_array_equal(component_labels(n, chain, engine), np.zeros(n, np.int64))
    star = np.stack([np.full(n - 1, n - 1), np.arange(n - 1)], axis=1)
    np.testing.assert_array_equal(component_labels(n, star, engine), np.zeros(n, np.int64))


@pytest.mark.parametrize("engine", ENGINES)
def test_component_labels_refuse_nodes_outside_the_graph(engine: Engine) -> None:
    with pytest.raises(ValueError, match="outside"):
        component_labels(3, np.array([[0, 3]]), engine)


def test_graph_lists_each_neighbour_once_in_order() -> None:
    graph = Graph.of(4, np.array([[2, 0], [0, 2], [1, 1], [3, 0]]))
    assert graph.indptr.tolist() == [0, 2, 3, 4, 5]
    assert graph.indices.tolist() == [2, 3, 1, 0, 0]
    assert graph.nodes == 4
