"""Distinct values and distinct pairs, found by one sort.

Since numpy 2.3, ``np.unique`` finds the distinct values through a hash table when only the
values are asked for. On the machines this project measures on, that took 4 to 30 times as
long as one sort: 628 ms against 22 ms for a million distinct int64, and 5 s against 0.05 s
for 3 million pair keys. ``np.unique(axis=0)`` is slower still, because it sorts rows as
records. Every large set of distinct values or pairs in the engine therefore comes from here.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["pairs_of_keys", "sorted_unique", "unique_pairs"]

I64 = npt.NDArray[np.int64]


def sorted_unique(values: npt.ArrayLike) -> np.ndarray:
    """``np.unique(values)`` for a one-dimensional array: its distinct values, sorted, in
    its dtype."""
    ordered = np.sort(np.asarray(values).reshape(-1))
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=np.bool_)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def unique_pairs(pairs: npt.ArrayLike, n: int) -> I64:
    """``np.unique(pairs, axis=0)`` for (P, 2) rows of indices from 0 to ``n`` - 1: the
    distinct rows, in lexicographic order, as int64. Each row becomes one key,
    ``first * n + second``."""
    rows = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if len(rows) == 0:
        return rows.reshape(0, 2)
    return pairs_of_keys(rows[:, 0] * np.int64(n) + rows[:, 1], n)


def pairs_of_keys(keys: I64, n: int) -> I64:
    """The distinct pairs of ``keys`` (``first * n + second``, both below ``n``), sorted, as
    (P, 2) rows."""
    distinct = sorted_unique(keys)
    return np.stack([distinct // n, distinct % n], axis=1)
