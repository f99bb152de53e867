"""Turn near-duplicate pairs into groups: components or stars, a representative, distances.

Two ways to group (``Grouping``): *connected* components join everything reachable through
pairs, so a chain of small edits (drafts of one document) stays together however far its ends
drift apart; *stars* give every member a direct match with its representative, so a chain of
look-alikes (icons of one theme, each a few bits from the next) cannot grow into one huge group.

Identical fingerprints are collapsed before pairing, so clustering works on unique values
and expands to files at the end; 10,000 copies of one file are one node, not 50 million
edges. Components come from scipy's sparse graph routines (already installed with
imagehash), which are vectorised and exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components

from dupfinder.core.model import Grouping

__all__ = ["Cluster", "cluster_unique"]


@dataclass(frozen=True, slots=True)
class Cluster:
    """Rows of one group, representative first, with each row's distance to it."""

    rows: tuple[int, ...]
    distances: tuple[int, ...]


def _popcount(values: np.ndarray) -> np.ndarray:
    return np.bitwise_count(values).astype(np.int64)


def cluster_unique(
    values: np.ndarray,
    pairs: np.ndarray,
    sort_keys: Sequence[Any],
    grouping: Grouping = Grouping.CONNECTED,
) -> list[Cluster]:
    """Group rows whose fingerprints are linked by ``pairs`` (over the unique values).

    ``values`` holds one uint64 fingerprint per row (duplicates allowed); ``pairs`` is an
    (P, 2) array of indices into ``np.unique(values)``; ``sort_keys`` (one per row, unique and
    comparable, e.g. the path) breaks every tie so the output never depends on input order. The representative
    is the row with most matches (copies count as matches); groups come largest first. With
    ``Grouping.STAR`` every member is paired directly with its representative.
    """
    values = np.asarray(values, dtype=np.uint64)
    if len(values) != len(sort_keys):
        raise ValueError("values and sort_keys must have the same length")
    if len(values) == 0:
        return []
    unique, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    n_unique = len(unique)
    graph = coo_matrix(
        (np.ones(len(pairs), dtype=np.int8), (pairs[:, 0], pairs[:, 1])),
        shape=(n_unique, n_unique),
    )
    # matches of a unique value: its own copies plus every copy of each neighbour
    matches = counts.astype(np.int64) - 1
    np.add.at(matches, pairs[:, 0], counts[pairs[:, 1]])
    np.add.at(matches, pairs[:, 1], counts[pairs[:, 0]])
    if grouping is Grouping.STAR:
        labels = _star_labels(graph.tocsr(), matches, inverse, sort_keys)
    else:
        _, labels = connected_components(graph, directed=False)

    row_labels = labels[inverse]
    label_sizes = np.bincount(row_labels)
    grouped = np.flatnonzero(label_sizes[row_labels] >= 2)
    if len(grouped) == 0:
        return []
    by_label: dict[int, list[int]] = {}
    for row in grouped.tolist():
        by_label.setdefault(int(row_labels[row]), []).append(row)

    row_matches = matches[inverse]
    clusters = []
    for rows in by_label.values():
        representative = min(rows, key=lambda r: (-int(row_matches[r]), sort_keys[r]))
        rep_value = values[representative]
        distances = _popcount(values[rows] ^ rep_value).tolist()
        ordered = sorted(
            zip(rows, distances, strict=True),
            key=lambda item: (item[0] != representative, item[1], sort_keys[item[0]]),
        )
        clusters.append(Cluster(tuple(r for r, _ in ordered), tuple(int(d) for _, d in ordered)))
    clusters.sort(key=lambda c: (-len(c.rows), sort_keys[c.rows[0]]))
    return clusters


def _star_labels(
    graph: csr_matrix, matches: np.ndarray, inverse: np.ndarray, sort_keys: Sequence[Any]
) -> np.ndarray:
    """Greedy stars: the best-connected value not yet taken becomes a centre and takes every
    free neighbour. Centres go in the order the representative is chosen in (most matches,
    then the smallest sort key among the value's rows), so each centre is its group's
    representative and every member is within the threshold of it."""
    n = graph.shape[0]
    symmetric = (graph + graph.T).tocsr()
    degree = np.diff(symmetric.indptr)
    labels = np.arange(n)
    linked = np.flatnonzero(degree > 0)
    if len(linked) == 0:
        return labels
    best_key: dict[int, Any] = {}
    linked_set = set(linked.tolist())
    for row, value in enumerate(inverse.tolist()):
        if value in linked_set and (value not in best_key or sort_keys[row] < best_key[value]):
            best_key[value] = sort_keys[row]
    order = sorted(linked.tolist(), key=lambda v: (-int(matches[v]), best_key[v]))
    taken = np.zeros(n, dtype=np.bool_)
    indptr, indices = symmetric.indptr, symmetric.indices
    for centre in order:
        if taken[centre]:
            continue
        taken[centre] = True
        neighbours = indices[indptr[centre] : indptr[centre + 1]]
        free = neighbours[~taken[neighbours]]
        taken[free] = True
        labels[free] = centre
    return labels
