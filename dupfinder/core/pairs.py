"""Near-duplicate pairs among the unique fingerprints of one kind.

The scan clusters unique values (copies of one file are one node), so this asks the
permuted-table index for pairs of *unique* values, and, for mirror/rotation invariant
image matching, adds the pairs found by querying every image's variant hashes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dupfinder.core.index import PermutedIndex, all_pairs

__all__ = ["near_pairs"]


def near_pairs(
    values: np.ndarray,
    k: int,
    variants: Sequence[Sequence[int]] | None = None,
) -> np.ndarray:
    """(P, 2) int64 pairs i < j of indices into ``np.unique(values)`` within ``k`` bits."""
    unique, inverse = np.unique(np.asarray(values, dtype=np.uint64), return_inverse=True)
    pairs = all_pairs(unique, k)
    if not variants or not any(variants):
        return pairs
    owners = np.fromiter(
        (inverse[row] for row, extra in enumerate(variants) for _ in extra), dtype=np.int64
    )
    queries = np.fromiter((v for extra in variants for v in extra), dtype=np.uint64)
    index = PermutedIndex(unique, k)
    query_rows, ids, _ = index.query(queries)
    first = owners[np.asarray(query_rows, dtype=np.int64)]
    second = np.asarray(ids, dtype=np.int64)
    keep = first != second
    extra_pairs = np.stack(
        [np.minimum(first[keep], second[keep]), np.maximum(first[keep], second[keep])], axis=1
    )
    combined = np.concatenate([pairs.reshape(-1, 2), extra_pairs]).astype(np.int64)
    if len(combined) == 0:
        return combined.reshape(0, 2)
    return np.unique(combined, axis=0)
