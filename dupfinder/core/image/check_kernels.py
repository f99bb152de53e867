"""The picture check's block comparisons compiled with numba: the hot loop of a scan of icons.

Only :mod:`dupfinder.core.image.check` imports this module, lazily (numba is imported here, at
the top). Both checks of a pair compare two thumbnails block by block, each block of one
against the other shifted by up to one pixel (edges repeated), keeping each block's best
shift; the detail check keeps the worst block, the layout check the mean of the blocks, and
either takes the worse of the two directions. numpy builds nine shifted copies of every
thumbnail for that (0.13 ms a pair of detail thumbnails); here each band of block rows is
summed down its columns in a scratch row, a loop that vectorises, and nothing is allocated
per pair. Results equal the numpy reference (``imagecheck._worst_block`` and
``_block_difference``) to float32 rounding; tests compare them.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

_JIT: dict[str, Any] = {"nogil": True, "cache": True}


@numba.njit(inline="always")
def _best_shifts(a: Any, b: Any, padded: Any, row: Any, best: Any, block: int) -> None:
    """``best[by, bx]``: the smallest summed absolute difference of ``a``'s block from ``b``
    shifted by -1..1 pixels each way. ``padded`` and ``row`` are scratch arrays."""
    channels, side = a.shape[0], a.shape[1]
    blocks = best.shape[0]
    cut = blocks * block
    for channel in range(channels):  # b with its edges repeated one pixel outwards
        for i in range(side + 2):
            source = min(max(i - 1, 0), side - 1)
            for j in range(side + 2):
                padded[channel, i, j] = b[channel, source, min(max(j - 1, 0), side - 1)]
    best[:, :] = np.inf
    for dy in range(3):
        for dx in range(3):
            for by in range(blocks):
                row[:] = 0.0  # the band of ``block`` rows, summed down its columns
                for channel in range(channels):
                    for i in range(by * block, (by + 1) * block):
                        for j in range(cut):
                            row[j] += abs(a[channel, i, j] - padded[channel, i + dy, j + dx])
                for bx in range(blocks):
                    total = row[bx * block]
                    for t in range(bx * block + 1, (bx + 1) * block):
                        total += row[t]
                    best[by, bx] = min(best[by, bx], total)


@numba.njit(inline="always")
def _compare(x: Any, y: Any, block: int, worst: bool) -> Any:
    """Per pair of (P, channels, side, side) thumbnails, the worse direction's worst block
    (``worst``) or mean of blocks, as a mean absolute difference per value."""
    pairs, channels, side = x.shape[0], x.shape[1], x.shape[2]
    blocks = side // block
    padded = np.empty((channels, side + 2, side + 2), dtype=x.dtype)
    row = np.empty(side, dtype=x.dtype)
    best = np.empty((blocks, blocks), dtype=x.dtype)
    out = np.empty(pairs, dtype=np.float64)
    for p in range(pairs):
        found = 0.0
        for a, b in ((x[p], y[p]), (y[p], x[p])):
            _best_shifts(a, b, padded, row, best, block)
            found = max(found, float(best.max() if worst else best.mean()))
        out[p] = found / (channels * block * block)
    return out


@numba.njit(**_JIT)
def worst_blocks(x: Any, y: Any, block: int) -> Any:
    """The detail check's difference: the worse direction's worst block of ``block`` pixels
    (see ``imagecheck._worst_block``); (P, 3, side, side) float32 thumbnails."""
    return _compare(x, y, block, True)


@numba.njit(**_JIT)
def mean_blocks(x: Any, y: Any, block: int) -> Any:
    """The layout check's difference: the worse direction's mean over blocks of ``block``
    cells (see ``imagecheck._block_difference``); (P, 1, side, side) float64 thumbnails."""
    return _compare(x, y, block, False)
