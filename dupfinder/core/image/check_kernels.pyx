# cython: language_level=3
"""The picture check's block comparisons compiled ahead of time: the hot loop of a scan of icons.

Only :mod:`dupfinder.core.image.check` calls this module (through
:func:`dupfinder.core.jit.engine.load`). Both checks of a pair compare two thumbnails block by
block, each block of one against the other shifted by up to one pixel (edges repeated), keeping
each block's best shift; the detail check keeps the worst block, the layout check the mean of
the blocks, and either takes the worse of the two directions. numpy builds nine shifted copies
of every thumbnail for that (0.13 ms a pair of detail thumbnails); here each band of block rows
is summed down its columns in a scratch row, and nothing is allocated per pair. Results equal
the numpy reference (``check._worst_block`` and ``_block_difference``) to float32 rounding;
tests compare them.
"""

from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc

import numpy as np

ctypedef fused real:
    float
    double


cdef inline Py_ssize_t _clamp(Py_ssize_t i, Py_ssize_t side) noexcept nogil:
    return 0 if i < 0 else (side - 1 if i >= side else i)


cdef void _best_shifts(
    const real *a, const real *b, Py_ssize_t channels, Py_ssize_t side, real *padded,
    real *row, real *best, Py_ssize_t blocks, Py_ssize_t block,
) noexcept nogil:
    """``best[by * blocks + bx]``: the smallest summed absolute difference of ``a``'s block from
    ``b`` shifted by -1..1 pixels each way; ``padded`` and ``row`` are scratch."""
    cdef Py_ssize_t wide = side + 2, cut = blocks * block
    cdef Py_ssize_t channel, i, j, dy, dx, by, bx, t
    cdef const real *plane
    cdef const real *source
    cdef real *shifted
    cdef real total
    for channel in range(channels):  # b with its edges repeated one pixel outwards
        for i in range(wide):
            source = b + (channel * side + _clamp(i - 1, side)) * side
            for j in range(wide):
                padded[(channel * wide + i) * wide + j] = source[_clamp(j - 1, side)]
    for i in range(blocks * blocks):
        best[i] = INFINITY
    for dy in range(3):
        for dx in range(3):
            for by in range(blocks):
                for j in range(cut):  # the band of ``block`` rows, summed down its columns
                    row[j] = 0
                for channel in range(channels):
                    for i in range(by * block, (by + 1) * block):
                        plane = a + (channel * side + i) * side
                        shifted = padded + (channel * wide + i + dy) * wide + dx
                        for j in range(cut):
                            row[j] += abs(plane[j] - shifted[j])
                for bx in range(blocks):
                    total = row[bx * block]
                    for t in range(bx * block + 1, (bx + 1) * block):
                        total += row[t]
                    if total < best[by * blocks + bx]:
                        best[by * blocks + bx] = total


cdef object _compare(const real[:, :, :, ::1] x, const real[:, :, :, ::1] y, int block, bint worst):
    """Per pair of (P, channels, side, side) thumbnails, the worse direction's worst block
    (``worst``) or mean of blocks, as a mean absolute difference per value."""
    cdef Py_ssize_t pairs = x.shape[0], channels = x.shape[1], side = x.shape[2]
    cdef Py_ssize_t blocks, p, i, direction
    cdef double found, value
    cdef real *padded = NULL
    cdef real *row = NULL
    cdef real *best = NULL
    cdef const real *a
    cdef const real *b
    if (y.shape[0] != pairs or y.shape[1] != channels or y.shape[2] != side
            or x.shape[3] != side or y.shape[3] != side):
        raise ValueError("the thumbnails must be (P, channels, side, side) alike")
    if block < 1:
        raise ValueError("block must be at least 1")
    blocks = side // block
    result = np.empty(pairs, np.float64)
    if pairs == 0:
        return result
    cdef double[::1] out = result
    try:
        padded = <real *> malloc(channels * (side + 2) * (side + 2) * sizeof(real))
        row = <real *> malloc((side + 1) * sizeof(real))
        best = <real *> malloc((blocks * blocks + 1) * sizeof(real))
        if padded == NULL or row == NULL or best == NULL:
            raise MemoryError()
        with nogil:
            for p in range(pairs):
                found = 0.0
                for direction in range(2):
                    a = &x[p, 0, 0, 0] if direction == 0 else &y[p, 0, 0, 0]
                    b = &y[p, 0, 0, 0] if direction == 0 else &x[p, 0, 0, 0]
                    _best_shifts(a, b, channels, side, padded, row, best, blocks, block)
                    if worst:
                        value = -INFINITY
                        for i in range(blocks * blocks):
                            if best[i] > value:
                                value = best[i]
                    else:
                        value = 0.0
                        for i in range(blocks * blocks):
                            value += best[i]
                        value /= blocks * blocks
                    if value > found:
                        found = value
                out[p] = found / (channels * block * block)
    finally:
        free(padded)
        free(row)
        free(best)
    return result


def worst_blocks(const float[:, :, :, ::1] x, const float[:, :, :, ::1] y, int block):
    """The detail check's difference: the worse direction's worst block of ``block`` pixels
    (see ``check._worst_block``); (P, 3, side, side) float32 thumbnails."""
    return _compare(x, y, block, True)


def mean_blocks(const double[:, :, :, ::1] x, const double[:, :, :, ::1] y, int block):
    """The layout check's difference: the worse direction's mean over blocks of ``block``
    cells (see ``check._block_difference``); (P, 1, side, side) float64 thumbnails."""
    return _compare(x, y, block, False)
