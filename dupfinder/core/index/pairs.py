"""Near-duplicate pairs among the unique fingerprints of one kind.

The scan clusters unique values (copies of one file are one node), so this asks the
permuted-table index for pairs of *unique* values, and, for mirror/rotation invariant
image matching, adds the pairs found by querying every image's variant hashes.

With the compiled index, the variants are searched in the same pass as the values: the
distinct variant hashes go after the values and the kernel leaves out the pairs among
variants, so every near (value, variant) pair costs what a pair of values costs (querying
seven variants per picture one by one in the numpy index took seconds to minutes at the
picture radius).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import numpy as np

from dupfinder.core.index.distinct import unique_pairs
from dupfinder.core.index.layout import I64Array
from dupfinder.core.index.reference import PermutedIndex, all_pairs, compiled_kernel
from dupfinder.core.jit.engine import Engine

__all__ = ["near_pairs"]


def near_pairs(
    values: np.ndarray,
    k: int,
    variants: Sequence[Sequence[int]] | None = None,
    *,
    engine: Engine = Engine.AUTO,
) -> np.ndarray:
    """(P, 2) int64 pairs i < j of indices into ``np.unique(values)`` within ``k`` bits.

    ``variants[row]`` are more hashes of row's file (mirrored, rotated): a file is also near
    another when one of its variants is within ``k`` of the other's value.
    """
    unique, inverse = np.unique(np.asarray(values, dtype=np.uint64), return_inverse=True)
    if not variants or not any(variants):
        return all_pairs(unique, k, engine=engine)
    owners = np.fromiter(
        (inverse[row] for row, extra in enumerate(variants) for _ in extra), dtype=np.int64
    )
    queries = np.fromiter((v for extra in variants for v in extra), dtype=np.uint64)
    kernel = compiled_kernel(engine, unique.size + queries.size)
    if kernel is not None:
        pairs, first, second = _with_variants_compiled(kernel, unique, owners, queries, k)
    else:
        pairs = all_pairs(unique, k, engine=Engine.NUMPY)
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
    return unique_pairs(combined, unique.size)


def _with_variants_compiled(
    kernel: ModuleType, unique: np.ndarray, owners: I64Array, queries: np.ndarray, k: int
) -> tuple[I64Array, I64Array, I64Array]:
    """Pairs among ``unique``, and (owner, near value) of the variants, in one pass of the
    compiled ``kernel``.

    The distinct variant hashes follow the values; a pair of a value and a variant hash
    stands for every owner of that hash.
    """
    hashes, which = np.unique(queries, return_inverse=True)
    n = unique.size
    layout = kernel.choose_layout(n + hashes.size, k)
    a, b, _ = kernel.all_pairs(np.concatenate([unique, hashes]), layout, limit=n)
    among = b < n
    pairs = np.stack((a[among], b[among]), axis=1)
    near, hash_row = a[~among], b[~among] - n  # a < n <= b
    # owners of each variant hash, grouped by hash
    by_hash = np.argsort(which, kind="stable")
    count = np.bincount(which, minlength=hashes.size)
    start = np.cumsum(count) - count
    times = count[hash_row]
    picks = np.repeat(start[hash_row], times) + (
        np.arange(int(times.sum())) - np.repeat(np.cumsum(times) - times, times)
    )
    first = owners[by_hash[picks]]
    second = np.repeat(near, times)
    return pairs, first, second
