"""The permuted tables of the distributed pass and the rule that reports each pair once.

The 64 bits are split into ``blocks`` blocks, as :mod:`dupfinder.core.index.reference` splits them;
table ``t`` keys every fingerprint by the ``t``-th choice of ``blocks - k`` blocks, in the
order of ``itertools.combinations``. Two fingerprints within ``k`` bits agree on at least
``blocks - k`` blocks, so they share a key in some table; the table that reports them is the
*canonical* one, whose blocks are the lowest-numbered blocks they agree on. A partition of
table ``t`` (all fingerprints sharing some keys of ``t``) holds both ends of every pair
canonical for ``t``, so the union over tables and partitions is every pair exactly once.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from dupfinder.core.index import compiled as index_kernel
from dupfinder.core.index import cost
from dupfinder.core.index.layout import BITS, I64Array, U64Array, block_masks
from dupfinder.core.index.reference import MAX_TABLES, all_pairs_with_distances

__all__ = ["TableLayout", "choose_blocks", "table_pairs"]


@dataclass(frozen=True, slots=True)
class TableLayout:
    """``tables`` permuted tables for radius ``k`` over ``blocks`` blocks, in the index's
    order, so that a compiled per-table kernel reports the same pairs per table."""

    k: int
    blocks: int
    key_masks: tuple[int, ...]  # the bits each table keys on
    differ_masks: tuple[tuple[int, ...], ...]  # earlier blocks a canonical pair differs on

    @classmethod
    def make(cls, k: int, blocks: int) -> TableLayout:
        if not 0 <= k < blocks <= BITS or math.comb(blocks, k) > MAX_TABLES:
            raise ValueError(f"no table layout with {blocks} blocks at radius {k}")
        masks = block_masks(blocks)
        keys, differ = [], []
        for chosen in combinations(range(blocks), blocks - k):
            keys.append(sum(masks[b] for b in chosen))
            differ.append(tuple(masks[b] for b in range(chosen[-1]) if b not in chosen))
        return cls(k, blocks, tuple(keys), tuple(differ))

    @property
    def tables(self) -> int:
        return len(self.key_masks)

    def keys(self, values: U64Array, t: int) -> U64Array:
        """Each fingerprint's key in table ``t`` (its chosen bits, in place)."""
        return np.bitwise_and(values, np.uint64(self.key_masks[t]))

    def canonical(self, xor: U64Array, t: int) -> npt.NDArray[np.bool_]:
        """True where table ``t`` is the one that reports a pair with this XOR."""
        keep: npt.NDArray[np.bool_] = (xor & np.uint64(self.key_masks[t])) == 0
        for mask in self.differ_masks[t]:
            keep &= (xor & np.uint64(mask)) != 0
        return keep


def choose_blocks(n: int, k: int) -> int:
    """Blocks for ``n`` fingerprints at radius ``k``: each table costs a shuffle (a fixed part
    and one per fingerprint), and its expected random collisions (n^2 / 2^(key bits + 1)) are
    verified."""
    if k == 0:
        return 1

    def table_cost(blocks: int) -> float:
        tables = math.comb(blocks, k)
        key_bits = BITS * (blocks - k) / blocks
        candidates = n * (n - 1) / 2.0 / 2.0**key_bits
        return tables * (
            cost.SHUFFLE_TABLE + n * cost.SHUFFLE_ENTRY + candidates * cost.SHUFFLE_CANDIDATE
        )

    choices = [b for b in range(k + 1, BITS + 1) if math.comb(b, k) <= MAX_TABLES]
    return min(choices, key=lambda b: (table_cost(b), math.comb(b, k)))


@functools.cache
def _kernel_layout(k: int, blocks: int) -> index_kernel.Layout | None:
    """The index's compiled per-table kernel's tables, when the compiled code loads here."""
    return index_kernel.make_layout(k, blocks) if index_kernel.available() else None


def table_pairs(
    values: U64Array, layout: TableLayout, t: int
) -> tuple[I64Array, I64Array, I64Array]:
    """Pairs (i, j, distance), i < j positions in ``values`` (distinct), within ``layout.k`` and
    canonical for table ``t``: the index's compiled kernel on this table's share when it
    loads, else the whole numpy search kept to the pairs this table reports."""
    kernel = _kernel_layout(layout.k, layout.blocks)
    if kernel is not None:
        return index_kernel.table_pairs(values, kernel, t)
    i, d = all_pairs_with_distances(values, layout.k)
    a, b = i[:, 0], i[:, 1]
    keep = layout.canonical(values[a] ^ values[b], t)
    return a[keep], b[keep], d[keep]
