# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A fingerprint's picture hashes compiled ahead of time: every resize, DCT, median and bit.

Only :mod:`dupfinder.core.image.hashes` calls this module (through
:func:`dupfinder.core.jit.engine.load`). It computes what ``hashes.numpy_pdhashes`` computes
with numpy, one picture at a time and with no Python object per resize: the pdhash of each
working image handed in (the picture and its mirrored and turned forms), then the crop hash of
each part of the picture.

The resizes are Pillow's fixed-point ones, with the very weights of the ``resample.Resize``
plans handed in (one definition of them): sums of integer products in 32-bit integers (the
plans are checked to fit, as Pillow's own do), rounded and clipped to 8 bits after each pass,
the passes in the plan's order. These are exact, so they equal the numpy reference's.

A form that is an earlier one turned upside down or mirrored (a fingerprint's eight forms are
two such fours) is not resized again when the whole picture's weights read the same from
either end (checked at set-up, in integers): its grids are the earlier form's flipped, the
rounding included, and its DCT coefficients the earlier ones with the odd rows or columns
negated, which is exactly what the DCT below gives on the flipped grid.

The DCT is not exact: a float sum depends on its order, and numpy leaves it to BLAS, whose
order (blocking, FMA) is its own; this one folds the grid about its middle first (half the
products; the DCT's rows are even or odd about it to an ulp) and the AVX2 build fuses its
products and sums. Each is within ``2 gamma_32 sum |D| |G| |D| <= 7.2e-15 B`` of the exact
value (two passes), with ``B = max|D|**2 sum(G)`` (the folding's ulps add far less), so the two
coefficients differ by less than ``1.5e-14 B``, and the median and the threshold, order
statistics of them, move by no more: a coefficient farther than ``3e-14 B`` from the threshold
falls on the same side in both. The kernel asks for ``margin * B`` (1e-12 by default, thirty
times that) between every pHash coefficient and ``median + noise``; ``hashes``
answers None when one is closer, and the caller asks numpy. The reference's tie noise (1e-9 of
the largest coefficient, the DC one, which is ``B``) is what makes that rare: the coefficients
a symmetric picture makes exactly equal to the median (zero, whatever the order of the sums)
sit a thousand margins below the threshold, never at it. On a thousand real icons and the
mixed folder's wallpapers (``bench/bench_picture_hashes.py``) no picture was left to numpy.
"""

from libc.math cimport fabs
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcmp, memcpy

from dupfinder.core.image.quickselect cimport select_rank

import numpy as np


cdef extern from "popcount.h" nogil:
    int df_cpu_avx2()


def avx2():
    """Whether this CPU runs the build of these kernels for AVX2 (``hash_kernels_avx2``):
    twice the integers (the resizes) and doubles (the DCT) an instruction."""
    return df_cpu_avx2() != 0

#: Fractional bits of Pillow's fixed-point weights (``resample.PRECISION_BITS``).
DEF PRECISION = 22
DEF HALF = 1 << (PRECISION - 1)
DEF TOP = 256 << PRECISION
#: Columns a pass sums at once, in vector registers (two AVX2 or four SSE ones).
DEF BLOCK = 16
#: pHash: the DCT of a 32 x 32 grid, its 8 x 8 lowest frequencies, the first 4 rows kept.
DEF GRID = 32
DEF FOLD = GRID // 2
DEF LOW = 8
DEF CELLS = LOW * LOW
DEF PHASH_BITS = 32
#: dHash: a 9 x 8 grid, every other row of its 8 x 8 steps.
DEF STEP_ROWS = 8
DEF STEP_COLS = 9
#: Flips of a form: upside down, mirrored (left to right), both (turned half way).
DEF UPSIDE_DOWN = 1
DEF MIRRORED = 2
#: The widest row ``_flipped`` reverses in a buffer before comparing it.
DEF MIRROR_ROW = 256
#: How far (of the largest entry) the DCT's rows may be from even or odd about the middle.
DEF FOLD_TOLERANCE = 1e-14

ctypedef fused pixel_t:
    uint8_t
    double


cdef struct PassC:
    int n_out
    int width
    const int32_t *lo
    const int32_t *count
    const int32_t *weights


cdef class _Pass:
    """One pass of a resize: for each output, its first input and its run of integer weights
    (the zeros either side of the filter's support left out)."""

    cdef readonly int n_out, n_in
    cdef int32_t[::1] lo, count
    cdef int32_t[:, ::1] weights
    cdef PassC c

    def __init__(self, matrix):
        m = np.asarray(matrix, dtype=np.float64)
        if m.ndim != 2 or m.shape[0] < 1 or m.shape[1] < 1:
            raise ValueError(f"expected a 2-D weight matrix, got shape {m.shape}")
        whole = np.rint(m)
        if not np.array_equal(whole, m) or np.abs(whole).max() >= 2**31:
            raise ValueError("a resize's weights must be 32-bit whole numbers")
        whole = whole.astype(np.int64)
        if 255 * int(np.abs(whole).sum(axis=1).max()) + HALF >= 2**31:
            raise ValueError("a resize's weights are too large for 32-bit sums")
        self.n_out, self.n_in = m.shape
        lo = np.zeros(self.n_out, np.int32)
        count = np.zeros(self.n_out, np.int32)
        for i in range(self.n_out):
            used = np.flatnonzero(whole[i])
            if len(used):
                lo[i] = used[0]
                count[i] = used[len(used) - 1] - used[0] + 1
        weights = np.zeros((self.n_out, max(int(count.max()), 1)), np.int32)
        for i in range(self.n_out):
            weights[i, : count[i]] = whole[i, lo[i] : lo[i] + count[i]]
        self.lo, self.count, self.weights = lo, count, weights
        self.c.n_out = self.n_out
        self.c.width = weights.shape[1]
        self.c.lo = &self.lo[0]
        self.c.count = &self.count[0]
        self.c.weights = &self.weights[0, 0]

    def same(self, _Pass other):
        """Whether ``other`` computes the same pass (its output can be shared)."""
        return (
            self.n_in == other.n_in
            and np.array_equal(self.lo, other.lo)
            and np.array_equal(self.count, other.count)
            and np.array_equal(self.weights, other.weights)
        )


cdef class _Plan:
    """A ``resample.Resize``: ``k`` resizes of one image, each a first and a second pass; the
    first passes that are the same (crops sharing a side) computed once."""

    cdef readonly int k, height, width, out_height, out_width
    cdef readonly bint horizontal_first, mirror_down, mirror_across
    cdef list firsts, seconds
    cdef int32_t[::1] first_of

    def __init__(self, plan):
        columns = np.asarray(plan.columns, dtype=np.float64)  # (k, width, out width)
        rows = np.asarray(plan.rows, dtype=np.float64)  # (k, out height, height)
        if columns.ndim != 3 or rows.ndim != 3 or len(columns) != len(rows) or not len(rows):
            raise ValueError("a resize plan needs k column and k row matrices")
        self.k = len(rows)
        self.width, self.out_width = columns.shape[1:]
        self.out_height, self.height = rows.shape[1:]
        self.horizontal_first = bool(plan.horizontal_first)
        # Horizontal first: the columns' pass over the picture's columns, then the rows'. The
        # other order is the same over the transposed picture with the passes swapped.
        across = [_Pass(c.T) for c in columns]
        down = [_Pass(r) for r in rows]
        first, self.seconds = (across, down) if self.horizontal_first else (down, across)
        self.firsts = []
        first_of = np.zeros(self.k, np.int32)
        for i, candidate in enumerate(first):
            for j, kept in enumerate(self.firsts):
                if candidate.same(kept):
                    first_of[i] = j
                    break
            else:
                first_of[i] = len(self.firsts)
                self.firsts.append(candidate)
        self.first_of = first_of
        # One resize whose weights read the same from either end: a picture turned upside
        # down (mirrored) comes out turned (mirrored), the rounding included.
        self.mirror_down = self.k == 1 and np.array_equal(rows[0], rows[0][::-1, ::-1])
        self.mirror_across = self.k == 1 and np.array_equal(columns[0], columns[0][::-1, ::-1])

    cdef int scratch(self):
        """int32 values the passes need between them: the first pass's output."""
        cdef _Pass p
        cdef int most = 0
        for p in self.firsts:
            most = max(most, p.n_out * (self.height if self.horizontal_first else self.width))
        return most

    cdef int run(self, const int32_t *across, const int32_t *down, int32_t *acc,
                 int32_t *middle, int32_t *out) except -1:
        """Every resize of the picture, ``out[k][out height][out width]``; ``across`` holds
        the picture transposed (column by column), ``down`` row by row."""
        cdef int i, j, n_other, cells = self.out_height * self.out_width
        cdef PassC first, second
        cdef const int32_t *source = across if self.horizontal_first else down
        n_other = self.height if self.horizontal_first else self.width
        for j in range(len(self.firsts)):
            first = (<_Pass> self.firsts[j]).c
            _apply(first, source, n_other, acc, middle, True)
            for i in range(self.k):
                if self.first_of[i] != j:
                    continue
                second = (<_Pass> self.seconds[i]).c
                _apply(second, middle, first.n_out, acc, out + i * cells,
                       not self.horizontal_first)
        return 0


cdef inline int32_t _clip8(int32_t value) noexcept nogil:
    """Pillow's ``clip8`` of a sum that already holds the half: shift the fraction out
    (floor), clamp to 0..255."""
    if value <= 0:
        return 0
    if value >= TOP:
        return 255
    return value >> PRECISION


cdef void _apply(PassC p, const int32_t *source, int n_cols, int32_t *acc, int32_t *out,
                 bint transposed) noexcept nogil:
    """``out_j[i] = clip8(sum_t w[j][t] * source[lo[j] + t][i])`` for every output ``j`` of
    the pass and column ``i`` of ``source`` (rows x ``n_cols``), written as ``out[j][i]`` or,
    ``transposed``, ``out[i][j]``: one row of weights at a time over whole rows of the
    source, ``BLOCK`` columns at a time kept in vector registers across the taps."""
    cdef int j, t, i, start
    cdef int32_t w
    cdef int32_t block[BLOCK]
    cdef const int32_t *row
    cdef const int32_t *weights
    for j in range(p.n_out):
        weights = p.weights + j * p.width
        start = 0
        while start + BLOCK <= n_cols:
            for i in range(BLOCK):
                block[i] = HALF
            for t in range(p.count[j]):
                w = weights[t]
                row = source + (p.lo[j] + t) * n_cols + start
                for i in range(BLOCK):
                    block[i] += w * row[i]
            for i in range(BLOCK):
                acc[start + i] = block[i]
            start += BLOCK
        for i in range(start, n_cols):
            acc[i] = HALF
        for t in range(p.count[j]):
            w = weights[t]
            row = source + (p.lo[j] + t) * n_cols
            for i in range(start, n_cols):
                acc[i] += w * row[i]
        if transposed:
            for i in range(n_cols):
                out[i * p.n_out + j] = _clip8(acc[i])
        else:
            for i in range(n_cols):
                out[j * n_cols + i] = _clip8(acc[i])


cdef int _gather(const pixel_t[::1] values, uint8_t *out) except -1:
    """Grey levels as bytes; float ones must be whole levels 0..255, as a grey picture holds
    (checked without a branch a pixel, which the compiler turns into vector code)."""
    cdef Py_ssize_t i, count = values.shape[0]
    cdef double v, clamped
    cdef uint8_t level
    cdef bint bad = False
    if pixel_t is uint8_t:
        if count:
            memcpy(out, &values[0], count)
    else:
        for i in range(count):
            v = values[i]
            clamped = min(max(v, 0.0), 255.0)  # NaN becomes 0, so it fails the test below
            level = <uint8_t> clamped
            bad |= level != v
            out[i] = level
        if bad:
            wrong = [v for v in np.asarray(values) if not (0 <= v <= 255 and v == int(v))]
            raise ValueError(f"pixels must be whole grey levels 0..255, got {wrong[0]!r}")
    return 0


cdef void _load(const uint8_t *image, int height, int width, int32_t *across,
                int32_t *down) noexcept nogil:
    """The picture's grey levels row by row (``down``) and column by column (``across``),
    each unless NULL, as the passes read them."""
    cdef int y, x
    if down != NULL:
        for y in range(height * width):
            down[y] = image[y]
    if across != NULL:
        for y in range(height):
            for x in range(width):
                across[x * height + y] = image[y * width + x]


cdef int64_t _dct(const int32_t *grid, const double *dct, double *coefficients) noexcept nogil:
    """The 8 x 8 lowest frequencies of one 32 x 32 grid's DCT into ``coefficients``; returns
    the grid's sum. The grid is folded about its middle first (row ``k`` of the DCT is even or
    odd about it, as ``k``), which halves the products, and makes the coefficients of a grid
    turned upside down or mirrored exactly those of the grid with the odd ones negated."""
    cdef double folded[2 * FOLD * GRID]
    cdef double half[LOW * GRID]
    cdef double row[2 * FOLD]
    cdef int k, j, c, l
    cdef int64_t total = 0
    cdef int32_t a, b
    cdef double d, s
    cdef const double *source
    cdef const double *weights
    for j in range(FOLD):  # rows j and 31 - j: their sum (even rows) and difference (odd)
        for c in range(GRID):
            a = grid[j * GRID + c]
            b = grid[(GRID - 1 - j) * GRID + c]
            folded[j * GRID + c] = a + b
            folded[(FOLD + j) * GRID + c] = a - b
            total += a + b
    for j in range(LOW * GRID):
        half[j] = 0.0
    for k in range(LOW):
        source = folded + (k % 2) * FOLD * GRID
        for j in range(FOLD):
            d = dct[k * GRID + j]
            for c in range(GRID):
                half[k * GRID + c] += d * source[j * GRID + c]
    for k in range(LOW):
        for c in range(FOLD):
            row[c] = half[k * GRID + c] + half[k * GRID + GRID - 1 - c]
            row[FOLD + c] = half[k * GRID + c] - half[k * GRID + GRID - 1 - c]
        for l in range(LOW):
            s = 0.0
            source = row + (l % 2) * FOLD
            weights = dct + l * GRID
            for c in range(FOLD):
                s += source[c] * weights[c]
            coefficients[k * LOW + l] = s
    return total


cdef int _phash(const double *coefficients, int64_t total, double bound_scale, double tie,
                uint64_t *bits) noexcept nogil:
    """pHash's 32 bits of one grid's coefficients into ``bits`` (bits 63..32); 1 when a
    coefficient lies within ``bound_scale * total`` of the threshold (numpy's float sums might
    put it on the other side), else 0."""
    cdef double ordered[CELLS]
    cdef double median, upper, largest = 0.0, threshold, bound
    cdef int i
    for i in range(CELLS):
        ordered[i] = coefficients[i]
        largest = max(largest, fabs(coefficients[i]))
    median = select_rank(ordered, CELLS, CELLS // 2 - 1)
    upper = ordered[CELLS // 2]
    for i in range(CELLS // 2 + 1, CELLS):
        upper = min(upper, ordered[i])
    median = (median + upper) / 2.0
    threshold = median + tie * largest
    bound = bound_scale * <double> total
    bits[0] = 0
    for i in range(PHASH_BITS):
        if total > 0 and fabs(coefficients[i] - threshold) <= bound:
            return 1
        if coefficients[i] > threshold:
            bits[0] |= (<uint64_t> 1) << (63 - i)
    return 0


cdef bint _flipped(const uint8_t *form, const uint8_t *other, int height, int width,
                   int flip) noexcept nogil:
    """Whether ``form`` is ``other`` turned upside down and/or mirrored (``flip``)."""
    cdef int y, x
    cdef const uint8_t *row
    cdef const uint8_t *match
    cdef uint8_t mirrored[MIRROR_ROW]
    for y in range(height):
        row = form + y * width
        match = other + (height - 1 - y if flip & UPSIDE_DOWN else y) * width
        if flip & MIRRORED:
            if width > MIRROR_ROW:
                for x in range(width):
                    if row[x] != match[width - 1 - x]:
                        return False
                continue
            for x in range(width):  # a row reversed in vector code, then compared whole
                mirrored[x] = match[width - 1 - x]
            match = mirrored
        if memcmp(row, match, width) != 0:
            return False
    return True


cdef int _flip_of(const uint8_t *forms, int f, int height, int width, int allowed,
                  int32_t *base) noexcept nogil:
    """A flip (of ``allowed``) that turns an earlier form into form ``f`` (0: none), and
    that form in ``base``: the mirrored and turned forms of one picture come in fours."""
    cdef int g, flip, area = height * width
    for g in range(f):
        if base[g] != g:
            continue
        for flip in range(1, 4):
            if flip & ~allowed == 0 and _flipped(forms + f * area, forms + g * area, height,
                                                 width, flip):
                base[f] = g
                return flip
    base[f] = f
    return 0


cdef void _flip_coefficients(const double *source, double *out, int flip) noexcept nogil:
    """The coefficients of a grid turned upside down (odd rows negated) and/or mirrored (odd
    columns negated): exactly what ``_dct`` gives for the turned grid."""
    cdef int k, l
    cdef bint negate
    for k in range(LOW):
        for l in range(LOW):
            negate = ((flip & UPSIDE_DOWN) and k % 2) != ((flip & MIRRORED) and l % 2)
            out[k * LOW + l] = -source[k * LOW + l] if negate else source[k * LOW + l]


cdef void _flip_steps(const int32_t *source, int32_t *out, int flip) noexcept nogil:
    """dHash's grid turned upside down and/or mirrored."""
    cdef int r, c
    for r in range(STEP_ROWS):
        for c in range(STEP_COLS):
            out[r * STEP_COLS + c] = source[
                (STEP_ROWS - 1 - r if flip & UPSIDE_DOWN else r) * STEP_COLS
                + (STEP_COLS - 1 - c if flip & MIRRORED else c)
            ]


cdef uint64_t _dhash(const int32_t *grid) noexcept nogil:
    """dHash's 32 bits of one 9 x 8 grid (bits 31..0): rows 0, 2, 4 and 6, left < right."""
    cdef uint64_t bits = 0
    cdef int r, c
    cdef const int32_t *row
    for r in range(STEP_ROWS // 2):
        row = grid + 2 * r * STEP_COLS
        for c in range(STEP_COLS - 1):
            if row[c + 1] > row[c]:
                bits |= (<uint64_t> 1) << (31 - (8 * r + c))
    return bits


cdef class Hasher:
    """``hashes.numpy_pdhashes`` for the four resize plans and the DCT rows it uses.

    ``whole_grid`` and ``whole_steps`` resize a working image to pHash's 32 x 32 and dHash's
    9 x 8 (one resize each); ``crop_grid`` and ``crop_steps`` resize the parts of the picture
    to the same sizes (one resize a part); ``dct``: the 8 lowest rows of the 32-point DCT;
    ``tie``: the reference's tie noise; ``margin``: see the module's notes.
    """

    cdef _Plan whole_grid, whole_steps, crop_grid, crop_steps
    cdef double[:, ::1] dct
    cdef double bound_scale, tie
    cdef readonly int height, width
    cdef bint across, down
    cdef int room, middle_size
    cdef uint8_t[::1] levels
    cdef int32_t[::1] ints
    cdef double[::1] doubles
    cdef int64_t[::1] totals

    def __init__(self, whole_grid, whole_steps, crop_grid, crop_steps, dct, double tie,
                 double margin=1e-12):
        self.whole_grid, self.whole_steps = _Plan(whole_grid), _Plan(whole_steps)
        self.crop_grid, self.crop_steps = _Plan(crop_grid), _Plan(crop_steps)
        plans = (self.whole_grid, self.whole_steps, self.crop_grid, self.crop_steps)
        self.height, self.width = self.whole_grid.height, self.whole_grid.width
        self.across = any(p.horizontal_first for p in plans)
        self.down = not all(p.horizontal_first for p in plans)
        if any((p.height, p.width) != (self.height, self.width) for p in plans):
            raise ValueError("every resize plan must read pictures of one size")
        for p, size in zip(plans, [(GRID, GRID), (STEP_ROWS, STEP_COLS)] * 2):
            if (p.out_height, p.out_width) != size:
                raise ValueError(f"a resize plan makes {(p.out_height, p.out_width)}, not {size}")
        if self.whole_grid.k != 1 or self.whole_steps.k != 1:
            raise ValueError("the working image is resized once to each size")
        if self.crop_grid.k != self.crop_steps.k:
            raise ValueError("every part needs both sizes")
        self.dct = np.ascontiguousarray(dct, dtype=np.float64)
        if self.dct.shape[0] != LOW or self.dct.shape[1] != GRID:
            raise ValueError(f"expected the DCT's {LOW} x {GRID} lowest rows")
        dct_max = float(np.abs(self.dct).max())
        # the DCT's rows are even (k even) or odd about the middle, to a few ulps
        mirrored = self.dct[:, ::-1] * np.where(np.arange(LOW) % 2, -1.0, 1.0)[:, None]
        fold_error = float(np.abs(mirrored - self.dct).max())
        if fold_error > FOLD_TOLERANCE * dct_max:
            raise ValueError("the DCT rows are not even and odd about the middle")
        if not margin >= 0.0:
            raise ValueError("margin must be >= 0")
        self.tie = tie
        # sum |D| |G| |D| <= max|D|**2 sum(G) scales the rounding; folding moves a coefficient
        # by at most 2 * fold_error * max|D| * sum(G), twice that the threshold's distance
        self.bound_scale = margin * dct_max * dct_max + 4.0 * fold_error * dct_max
        self._scratch(8)  # a fingerprint's eight forms

    def hashes(self, forms, pixels):
        """The pdhash of each of ``forms`` (n, height, width), then the crop hash of each
        part of ``pixels`` (height, width), as ints; grey levels as uint8 or whole float64.
        None when a pHash bit cannot be told from numpy's with certainty (see the module)."""
        forms = np.asarray(forms)
        pixels = np.asarray(pixels)
        if forms.ndim != 3 or forms.shape[1:] != (self.height, self.width):
            raise ValueError(f"expected forms of shape (n, {self.height}, {self.width})")
        if pixels.shape != (self.height, self.width):
            raise ValueError(f"expected pixels of shape ({self.height}, {self.width})")
        forms = np.ascontiguousarray(forms, None if forms.dtype == np.uint8 else np.float64)
        pixels = np.ascontiguousarray(pixels, None if pixels.dtype == np.uint8 else np.float64)
        cdef int n = forms.shape[0]
        cdef int parts = self.crop_grid.k
        cdef int area = self.height * self.width
        cdef int middle_size = self.middle_size
        cdef int acc_size = max(self.height, self.width, GRID)
        cdef int grid_cells = GRID * GRID, step_cells = STEP_ROWS * STEP_COLS
        cdef int i, f, flip, allowed = 0
        cdef uint64_t bits
        cdef list found = []
        cdef int rows = max(n, parts)
        if n > self.room:  # the scratch grows for more forms than a fingerprint has
            self._scratch(n)
        cdef uint8_t *levels = &self.levels[0]
        cdef int32_t *across = &self.ints[0]
        cdef double *coefficients = &self.doubles[0]
        cdef int64_t *totals = &self.totals[0]
        cdef int32_t *down = across + area
        cdef int32_t *acc = down + area
        cdef int32_t *middle = acc + acc_size
        cdef int32_t *grids = middle + middle_size
        cdef int32_t *steps = grids + parts * grid_cells
        cdef int32_t *base = steps + rows * step_cells
        cdef const double *dct = &self.dct[0, 0]
        cdef int32_t *read_across = across if self.across else NULL
        cdef int32_t *read_down = down if self.down else NULL
        if self.whole_grid.mirror_down and self.whole_steps.mirror_down:
            allowed |= UPSIDE_DOWN
        if self.whole_grid.mirror_across and self.whole_steps.mirror_across:
            allowed |= MIRRORED
        for f, image in enumerate((forms, pixels)):
            if image.dtype == np.uint8:
                _gather[uint8_t](image.reshape(-1), levels + f * n * area)
            else:
                _gather[double](image.reshape(-1), levels + f * n * area)
        for f in range(n):
            flip = _flip_of(levels, f, self.height, self.width, allowed, base)
            if flip:  # a flip of an earlier form: its grids, flipped, without resizing
                totals[f] = totals[base[f]]
                _flip_coefficients(coefficients + base[f] * CELLS,
                                   coefficients + f * CELLS, flip)
                _flip_steps(steps + base[f] * step_cells, steps + f * step_cells, flip)
                continue
            _load(levels + f * area, self.height, self.width, read_across, read_down)
            self.whole_grid.run(across, down, acc, middle, grids)
            self.whole_steps.run(across, down, acc, middle, steps + f * step_cells)
            totals[f] = _dct(grids, dct, coefficients + f * CELLS)
        for f in range(n):
            if _phash(coefficients + f * CELLS, totals[f], self.bound_scale, self.tie,
                      &bits):
                return None
            found.append(bits | _dhash(steps + f * step_cells))
        _load(levels + n * area, self.height, self.width, read_across, read_down)
        self.crop_grid.run(across, down, acc, middle, grids)
        self.crop_steps.run(across, down, acc, middle, steps)
        for i in range(parts):
            totals[i] = _dct(grids + i * grid_cells, dct, coefficients)
            if _phash(coefficients, totals[i], self.bound_scale, self.tie, &bits):
                return None
            found.append(bits | _dhash(steps + i * step_cells))
        return found

    cdef _scratch(self, int n):
        """Room for ``n`` forms: every buffer ``hashes`` uses, allocated once (``hashes`` holds
        the GIL throughout, so no two calls share them at once)."""
        cdef int area = self.height * self.width
        cdef int rows = max(n, self.crop_grid.k)
        self.middle_size = max(self.whole_grid.scratch(), self.whole_steps.scratch(),
                               self.crop_grid.scratch(), self.crop_steps.scratch())
        self.levels = np.zeros((n + 1) * area, np.uint8)
        self.ints = np.zeros(
            2 * area + max(self.height, self.width, GRID) + self.middle_size
            + rows * (STEP_ROWS * STEP_COLS + 1) + self.crop_grid.k * GRID * GRID, np.int32)
        self.doubles = np.zeros(rows * CELLS, np.float64)
        self.totals = np.zeros(rows, np.int64)
        self.room = n
