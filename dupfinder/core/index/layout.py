"""How 64 bits are cut into blocks: one split that every table, kernel and layout shares.

The index, its compiled kernel, the library and the distributed pass all key fingerprints by
blocks of bits. They must agree on the split bit for bit (a pair reported by one table of one
layout must be the pair another layout's table reports), so it is defined here once: ``m``
blocks from the most significant bit down, the first ``64 % m`` of them one bit wider.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from dupfinder.core.model import HASH_BITS

__all__ = [
    "ALL_ONES",
    "BITS",
    "I64Array",
    "U64Array",
    "bit_runs",
    "block_lows",
    "block_masks",
    "block_widths",
    "id_bits",
]

U64Array = npt.NDArray[np.uint64]
I64Array = npt.NDArray[np.int64]

#: Bits in a fingerprint.
BITS = HASH_BITS
ALL_ONES = (1 << BITS) - 1


def block_widths(m: int, bits: int = BITS) -> list[int]:
    """Widths of ``m`` blocks over ``bits`` bits: the first ``bits % m`` one bit wider."""
    q, r = divmod(bits, m)
    return [q + 1 if i < r else q for i in range(m)]


def block_lows(widths: list[int], top: int = BITS) -> list[int]:
    """The lowest bit of each block, blocks laid from bit ``top`` down."""
    return [top - sum(widths[: i + 1]) for i in range(len(widths))]


def block_masks(m: int) -> list[int]:
    """Each of ``m`` blocks as a mask of a fingerprint's bits, the most significant first."""
    widths = block_widths(m)
    return [((1 << w) - 1) << lo for w, lo in zip(widths, block_lows(widths), strict=True)]


def id_bits(n: int) -> int:
    """Bits for rows 0..n-1 plus one spare value, so ``key | id_mask`` is never an entry."""
    return max(1, n.bit_length())


def bit_runs(blocks: list[int], widths: list[int], lows: list[int]) -> list[tuple[int, int]]:
    """Adjacent blocks merged: (low bit, width) of each run, most significant first."""
    runs: list[tuple[int, int]] = []
    for b in blocks:
        if runs and runs[-1][0] == lows[b] + widths[b]:
            runs[-1] = (lows[b], runs[-1][1] + widths[b])
        else:
            runs.append((lows[b], widths[b]))
    return runs
