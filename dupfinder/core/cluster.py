"""Turn near-duplicate pairs into groups: connected components, a representative, distances.

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
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

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
) -> list[Cluster]:
    """Group rows whose fingerprints are linked by ``pairs`` (over the unique values).

    ``values`` holds one uint64 fingerprint per row (duplicates allowed); ``pairs`` is an
    (P, 2) array of indices into ``np.unique(values)``; ``sort_keys`` (one per row, unique and
    comparable, e.g. the path) breaks every tie so the output never depends on input order. The representative
    is the row with most matches (copies count as matches); groups come largest first.
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
    _, labels = connected_components(graph, directed=False)
    # matches of a unique value: its own copies plus every copy of each neighbour
    matches = counts.astype(np.int64) - 1
    np.add.at(matches, pairs[:, 0], counts[pairs[:, 1]])
    np.add.at(matches, pairs[:, 1], counts[pairs[:, 0]])

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
