"""Turn verified near-duplicate pairs into groups: stars or components, and a representative.

Two ways to group (``Grouping``): *stars* give every member a direct, verified match with its
representative, so a chain of look-alikes (licences that share boilerplate, icons of one
theme, each close to the next) cannot grow into one group of unrelated files; *connected*
components join everything reachable through pairs, so the drafts of one document stay
together however far the first and last drift apart (an option: a member may then be far
from the representative).

The representative is the suggested keeper: among the members that match every other member
of the group directly (in a star at least its centre), the one with the smallest preference
key (the scan puts reference folders, original-looking names, shallow and old files first).

Clustering works on *nodes*: rows with identical fingerprints (and sketches) are one node, so
10,000 copies of one file are one node, not 50 million edges. The graph is held as compressed
rows (each node's neighbours, sorted, once); components come from the compiled union-find
(:mod:`dupfinder.core.grouping.components`, built with the package) or, without it, from
numpy: roots hooked under the smaller root of each edge, then pointer jumping, until no edge
joins two roots. Both label each node with the smallest node of its component.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dupfinder.core.index.distinct import sorted_unique
from dupfinder.core.jit.engine import Engine, Kernel, choose
from dupfinder.core.model import Grouping

__all__ = [
    "Cluster",
    "Graph",
    "cluster_nodes",
    "cluster_unique",
    "component_labels",
    "part_stars",
]

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Cluster:
    """Rows of one group, representative first, with each row's distance to it."""

    rows: tuple[int, ...]
    distances: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Graph:
    """An undirected graph in compressed rows: node v's neighbours are
    ``indices[indptr[v] : indptr[v + 1]]``, ascending, each once (a self-loop included)."""

    indptr: I64
    indices: I64

    @classmethod
    def of(cls, n: int, pairs: npt.ArrayLike) -> Graph:
        """The graph of ``n`` nodes with an edge each way for every pair of ``pairs`` (P, 2)."""
        edges = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        if edges.size and (edges.min() < 0 or edges.max() >= n):
            raise ValueError(f"a pair names a node outside 0..{n - 1}")
        keys = np.sort(
            np.concatenate([edges[:, 0] * n + edges[:, 1], edges[:, 1] * n + edges[:, 0]])
        )
        # distinct by one sort: numpy's hash-based unique is some 100x slower on millions
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if keys.size else keys
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(keys // max(n, 1), minlength=n), out=indptr[1:])
        return cls(indptr, keys % max(n, 1))

    @property
    def nodes(self) -> int:
        return int(self.indptr.size - 1)


def component_labels(n: int, pairs: npt.ArrayLike, engine: Engine = Engine.AUTO) -> I64:
    """Per node of ``0..n-1``, the smallest node of its connected component (edges: ``pairs``)."""
    edges = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    a, b = np.ascontiguousarray(edges[:, 0]), np.ascontiguousarray(edges[:, 1])
    kernels = choose(Kernel.COMPONENTS, engine)
    if kernels is not None:
        labels: I64 = kernels.smallest_labels(n, a, b)
        return labels
    if edges.size and (edges.min() < 0 or edges.max() >= n):
        raise ValueError("an edge names a node outside 0..n-1")
    parent = np.arange(n, dtype=np.int64)
    while True:
        ra, rb = parent[a], parent[b]  # roots: every node points at its root here
        joins = ra != rb
        if not joins.any():
            return parent
        low, high = np.minimum(ra[joins], rb[joins]), np.maximum(ra[joins], rb[joins])
        np.minimum.at(parent, high, low)  # each root joined goes under its smallest partner
        while True:  # pointer jumping: parents only ever point at smaller nodes
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand


def _popcount(values: np.ndarray) -> np.ndarray:
    counts: np.ndarray = np.bitwise_count(values).astype(np.int64)
    return counts


def cluster_unique(
    values: np.ndarray,
    pairs: np.ndarray,
    sort_keys: Sequence[Any],
    grouping: Grouping = Grouping.STAR,
) -> list[Cluster]:
    """Group rows whose fingerprints are linked by ``pairs`` (over ``np.unique(values)``).

    ``values`` holds one uint64 fingerprint per row (duplicates allowed); ``sort_keys`` (one
    per row, unique and comparable; smaller is the better keeper) chooses the representative
    and breaks every tie, so the output never depends on input order. Members follow the
    representative by distance, then key; groups come largest first.
    """
    values = np.asarray(values, dtype=np.uint64)
    if len(values) != len(sort_keys):
        raise ValueError("values and sort_keys must have the same length")
    if len(values) == 0:
        return []
    _, inverse = np.unique(values, return_inverse=True)
    clusters = []
    for rows in cluster_nodes(inverse, pairs, sort_keys, grouping):
        distances = _popcount(values[list(rows)] ^ values[rows[0]]).tolist()
        dist_of = dict(zip(rows, distances, strict=True))
        ordered = [rows[0], *sorted(rows[1:], key=lambda r: (dist_of[r], sort_keys[r]))]
        clusters.append(Cluster(tuple(ordered), tuple(int(dist_of[r]) for r in ordered)))
    return clusters


def cluster_nodes(
    inverse: np.ndarray,
    pairs: np.ndarray,
    sort_keys: Sequence[Any],
    grouping: Grouping = Grouping.STAR,
) -> list[tuple[int, ...]]:
    """Rows of each group, representative first, then by key; groups largest first.

    ``inverse`` gives each row's node (rows of one node are copies); ``pairs`` is a (P, 2)
    array of linked nodes (verified matches).
    """
    inverse = np.asarray(inverse, dtype=np.int64).reshape(-1)
    if len(inverse) != len(sort_keys):
        raise ValueError("inverse and sort_keys must have the same length")
    sort_keys = _Remembered(sort_keys)
    if len(inverse) == 0:
        return []
    n_nodes = int(inverse.max()) + 1
    counts = np.bincount(inverse, minlength=n_nodes)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    symmetric = Graph.of(n_nodes, pairs)
    # matches of a node: its own other copies plus every copy of each neighbour
    matches = counts.astype(np.int64) - 1
    np.add.at(matches, pairs[:, 0], counts[pairs[:, 1]])
    np.add.at(matches, pairs[:, 1], counts[pairs[:, 0]])
    if grouping is Grouping.STAR:
        labels = _star_labels(symmetric, matches, inverse, sort_keys)
    else:
        labels = component_labels(n_nodes, pairs)

    row_labels = labels[inverse]
    label_sizes = np.bincount(row_labels)
    grouped = np.flatnonzero(label_sizes[row_labels] >= 2)
    by_label: dict[int, list[int]] = {}
    for row in grouped.tolist():
        by_label.setdefault(int(row_labels[row]), []).append(row)

    star = grouping is Grouping.STAR
    marks = np.zeros(n_nodes, dtype=np.bool_)
    groups = []
    for rows in by_label.values():
        candidates = _universal_rows(rows, inverse, symmetric, marks) if star else rows
        representative = min(candidates, key=lambda r: sort_keys[r])
        rest = sorted((r for r in rows if r != representative), key=lambda r: sort_keys[r])
        groups.append((representative, *rest))
    groups.sort(key=lambda g: (-len(g), sort_keys[g[0]]))
    return groups


class _Remembered(Sequence[Any]):
    """``keys[row]`` computed once a row while one clustering asks (a keeper key reads a
    file's name and folder: the stars, the representative and the order each ask again)."""

    def __init__(self, keys: Sequence[Any]) -> None:
        self._keys = keys
        self._known: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, row: Any) -> Any:
        if row not in self._known:
            self._known[row] = self._keys[row]
        return self._known[row]


def _universal_rows(
    rows: list[int], inverse: np.ndarray, graph: Graph, marks: np.ndarray
) -> list[int]:
    """Rows whose node is linked directly to every other node of the group (``marks`` is a
    scratch array of False, left as it was found)."""
    nodes = sorted_unique(inverse[rows])
    marks[nodes] = True
    universal = set()
    for node in nodes.tolist():
        neighbours = graph.indices[graph.indptr[node] : graph.indptr[node + 1]]
        if int(np.count_nonzero(marks[neighbours])) >= len(nodes) - 1:
            universal.add(node)
    marks[nodes] = False
    return [r for r in rows if int(inverse[r]) in universal]


def _star_labels(
    graph: Graph, matches: np.ndarray, inverse: np.ndarray, sort_keys: Sequence[Any]
) -> np.ndarray:
    """Greedy stars: the best-connected node not yet taken becomes a centre and takes every
    free neighbour (ties: the node holding the smaller key), so every member is linked
    directly to its centre."""
    n = graph.nodes
    degree = np.diff(graph.indptr)
    labels = np.arange(n)
    linked = np.flatnonzero(degree > 0)
    if len(linked) == 0:
        return labels
    # each linked node's smallest key among its rows: only the rows of linked nodes are
    # visited (a million files' rows as Python numbers were some 40 MB)
    best_key: dict[int, Any] = {}
    rows = np.flatnonzero((degree > 0)[inverse])
    for row, value in zip(rows.tolist(), inverse[rows].tolist(), strict=True):
        if value not in best_key or sort_keys[row] < best_key[value]:
            best_key[value] = sort_keys[row]
    order = sorted(linked.tolist(), key=lambda v: (-int(matches[v]), best_key[v]))
    taken = np.zeros(n, dtype=np.bool_)
    indptr, indices = graph.indptr, graph.indices
    for centre in order:
        if taken[centre]:
            continue
        taken[centre] = True
        neighbours = indices[indptr[centre] : indptr[centre + 1]]
        free = neighbours[~taken[neighbours]]
        taken[free] = True
        labels[free] = centre
    return labels


def part_stars(
    rows: I64,
    node_of: I64,
    part_nodes: I64,
    passed: npt.NDArray[np.bool_],
    sort_keys: Sequence[Any],
) -> list[tuple[int, ...]]:
    """The rows of ``rows`` whose node is in ``part_nodes``, made stars from the pairs that
    passed among them (rows as given, representative first)."""
    local = {int(node): i for i, node in enumerate(part_nodes.tolist())}
    kept = [int(r) for r in rows.tolist() if int(node_of[r]) in local]
    inverse = np.array([local[int(node_of[r])] for r in kept], dtype=np.int64)
    a, b = np.nonzero(np.triu(passed, 1))
    pairs = np.stack([a, b], axis=1).astype(np.int64)
    keys = [sort_keys[r] for r in kept]
    return [
        tuple(kept[i] for i in group)
        for group in cluster_nodes(inverse, pairs, keys, Grouping.STAR)
    ]
