# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The picture check compiled ahead of time: the hot loop of every scan of pictures.

Only :mod:`dupfinder.core.image.check` calls this module (through
:func:`dupfinder.core.jit.engine.load`). It computes, pair by pair and with nothing allocated
per pair, what ``check.compare(...).similarity`` computes with numpy over arrays of pairs:
align (profiles on a grid of scales and offsets, then refined), resample the container's
region, fit a cubic tone curve both ways, then the layout, detail (graphics) and colour
figures; the module's notes in ``check.py`` say why. The grid and the refinement steps are
handed in by ``check`` so both engines try the very same alignments; results equal the
numpy reference to rounding (tests compare them).
"""

from libc.math cimport INFINITY, fabs, floor, fmax, fmin, sqrt

from dupfinder.core.image.quickselect cimport select_rank

import numpy as np

DEF SIDE = 32
DEF CELLS = 16
DEF CHROMA = 8
DEF HEADER = 8
DEF GREY_BYTES = 1024
DEF CHROMA_BYTES = 128
DEF ALPHA = 16
DEF ALPHA_BYTES = 256
DEF CHROMA_END = 1160
DEF WIDTH = 1416
DEF DETAIL_BLOCK = 4
DEF MOST_BLOCKS = 64  # (SIDE / DETAIL_BLOCK) squared: the detail's blocks at most
DEF COLOUR = 1
DEF GRAPHIC = 4
#: Added to the upper bound a pair that stopped early answers (``check.STOPPED``).
DEF STOPPED = -2.0


cdef struct Constants:
    double unrelated
    double detail_unrelated
    double colourless
    double one_hue
    double colour_weight
    double ridge
    double flat
    double min_scale
    double white
    double clipped
    double light_share
    double most_bounds
    double tint_strength
    double clear
    double opaque
    double tonal_hue
    double redrawn_ratio
    double edge_change
    double edge_least
    double edge_share
    double edge_solid
    # Whether the pair at hand is two graphics in colour of sides ``redrawn_ratio`` apart
    # (``check._redrawn``, set by ``_pair`` for each pair: a run's pairs are taken one after
    # another)
    bint redrawn
    # Where the grid's alignments sample a profile (the same for every pair: ``_grid_plan``),
    # (alignment, sample) in rows of SIDE: the lower index, the upper, the upper's weight.
    const int *grid_low
    const int *grid_high
    const double *grid_frac
    int grid_count
    # The same for the refinement's alignments, which follow from the grid's best one: the
    # far edge's (grid, steps) and the near edge's (grid, steps, steps) after it
    int steps
    const int *far_low
    const int *far_high
    const double *far_frac
    const int *near_low
    const int *near_high
    const double *near_frac


# What a pair's check needs of one picture that depends on that picture alone: worked out
# once a picture where one run compares it with many (``similarities_of``), else for each pair.
cdef struct Facts:
    const double *grey  # the grey thumbnail's levels (GREY_BYTES)
    const double *col  # its column profile (SIDE): the mean of each column
    const double *row  # its row profile (SIDE)
    const double *coarse  # its CELLS x CELLS cells
    # the profiles sampled at each grid alignment and standardised, (2, grid, SIDE): columns
    # then rows; NULL: sampled for each pair (``_profile_costs``)
    const double *grid
    const unsigned char *flat  # (2, grid): whether that sample is flat


cdef inline double _clip(double v, double lo, double hi) noexcept nogil:
    if v < lo:
        v = lo
    if v > hi:
        v = hi
    return v


cdef inline void _position(double scale, double offset, int j, int size, int *low, int *high,
                           double *frac) noexcept nogil:
    """As ``check._positions``: linear interpolation of sample ``j`` of ``size``."""
    cdef double centre = offset + scale * ((j + 0.5) / size)
    cdef double pos = _clip(centre * size - 0.5, 0.0, size - 1.0)
    cdef int lo = <int> floor(pos)
    low[0] = lo
    high[0] = lo + 1 if lo + 1 < size - 1 else size - 1
    frac[0] = pos - lo


cdef void _standardise(double *v, int n, double flat) noexcept nogil:
    cdef double mean = 0.0, var = 0.0
    cdef int i
    for i in range(n):
        mean += v[i]
    mean /= n
    for i in range(n):
        v[i] -= mean
        var += v[i] * v[i]
    var = sqrt(var / n)
    for i in range(n):
        v[i] = v[i] / var if var > flat else 0.0


#: Alignments whose profile costs are computed side by side (``_profile_costs``).
DEF LANES = 4
#: The most alignments one pass of ``_axis`` tries (the grid, or the refinement's steps).
DEF MOST_ALIGNMENTS = 128


cdef inline void _sample_at(double scale, double offset, int j, int *low, int *high,
                            double *frac) noexcept nogil:
    """Where sample ``j`` of a profile region (scale, offset) falls: its lower and upper
    index, and the upper's weight (``(j + 0.5) / SIDE`` is exact in binary: the same as the
    numpy reference computes)."""
    cdef double pos = _clip((offset + scale * ((2 * j + 1) * (0.5 / SIDE))) * SIDE - 0.5, 0.0,
                            SIDE - 1.0)
    cdef int lo = <int> pos  # pos >= 0: truncation is floor
    low[0] = lo
    high[0] = lo + 1 if lo + 1 < SIDE - 1 else SIDE - 1
    frac[0] = pos - lo


cdef void _grid_plan(const double[::1] scales, const double[::1] offsets, int[::1] low,
                     int[::1] high, double[::1] frac) noexcept nogil:
    """``_sample_at`` of every sample of every grid alignment, once a run."""
    cdef int g, j
    for g in range(scales.shape[0]):
        for j in range(SIDE):
            _sample_at(scales[g], offsets[g], j, &low[g * SIDE + j], &high[g * SIDE + j],
                       &frac[g * SIDE + j])


cdef void _profile_costs(const double *profile, const double *target, const double *scales,
                         const double *offsets, int count, double flat, double *out,
                         const int *plan_low, const int *plan_high, const double *plan_frac
                         ) noexcept nogil:
    """The mean absolute difference of ``profile`` sampled at each of ``count`` alignments
    (scale, offset) and standardised from ``target`` (standardised), into ``out``,
    ``LANES`` alignments at a time: each alignment's sums taken in the order one alignment
    alone would take them (the same numbers), the alignments' sums interleaved. Each sum is a chain of dependent additions, so one
    alignment at a time left the processor waiting on every addition; side by side, it
    overlaps them. ``plan_low``, ``plan_high`` and ``plan_frac``: where ``_grid_plan`` placed
    the samples of these alignments, SIDE a row (NULL: each is placed here)."""
    cdef double values[LANES][SIDE]
    cdef double total[LANES]
    cdef double squares[LANES]
    cdef double cost[LANES]
    cdef double mean[LANES]
    cdef double spread[LANES]
    cdef double inverse[LANES]
    cdef double s[LANES]
    cdef double o[LANES]
    cdef double frac, flat_cost = 0.0
    cdef int start, lanes, k, j, lo, hi
    cdef int row[LANES]
    for j in range(SIDE):  # what a flat sample costs: nothing of it matches the target
        flat_cost += fabs(target[j])
    flat_cost /= SIDE
    for start in range(0, count, LANES):
        lanes = count - start if count - start < LANES else LANES
        for k in range(LANES):  # lanes past the end repeat the first: their sums are unused
            s[k] = scales[start + k] if k < lanes else scales[start]
            o[k] = offsets[start + k] if k < lanes else offsets[start]
            total[k] = 0.0
            squares[k] = 0.0
            cost[k] = 0.0
        if plan_low != NULL:
            for k in range(LANES):
                row[k] = (start + k if k < lanes else start) * SIDE
            for j in range(SIDE):
                for k in range(LANES):
                    frac = plan_frac[row[k] + j]
                    values[k][j] = (profile[plan_low[row[k] + j]] * (1.0 - frac)
                                    + profile[plan_high[row[k] + j]] * frac)
                    total[k] += values[k][j]
        else:
            for j in range(SIDE):
                for k in range(LANES):
                    _sample_at(s[k], o[k], j, &lo, &hi, &frac)
                    values[k][j] = profile[lo] * (1.0 - frac) + profile[hi] * frac
                    total[k] += values[k][j]
        for k in range(LANES):
            mean[k] = total[k] / SIDE
        for j in range(SIDE):
            for k in range(LANES):
                values[k][j] -= mean[k]
                squares[k] += values[k][j] * values[k][j]
        for k in range(LANES):
            spread[k] = sqrt(squares[k] / SIDE)
            inverse[k] = 1.0 / spread[k] if spread[k] > flat else 0.0
        for j in range(SIDE):
            for k in range(LANES):
                cost[k] += fabs(values[k][j] * inverse[k] - target[j])
        for k in range(lanes):
            out[start + k] = cost[k] / SIDE if spread[k] > flat else flat_cost


cdef void _standardised_grid(const double *profile, Constants *k, double *out,
                             unsigned char *flat) noexcept nogil:
    """``profile`` sampled at each of the grid's alignments and standardised, into ``out``
    (grid, SIDE), and whether each sample is flat: the numbers ``_profile_costs`` makes of
    it for every pair, made once (its lanes' sums, one alignment at a time, are the same)."""
    cdef int g, j, at
    cdef double frac, total, mean, squares, spread, inverse
    cdef double *values
    for g in range(k.grid_count):
        values = out + g * SIDE
        total = 0.0
        for j in range(SIDE):
            at = g * SIDE + j
            frac = k.grid_frac[at]
            values[j] = (profile[k.grid_low[at]] * (1.0 - frac)
                         + profile[k.grid_high[at]] * frac)
            total += values[j]
        mean = total / SIDE
        squares = 0.0
        for j in range(SIDE):
            values[j] -= mean
            squares += values[j] * values[j]
        spread = sqrt(squares / SIDE)
        inverse = 1.0 / spread if spread > k.flat else 0.0
        for j in range(SIDE):
            values[j] = values[j] * inverse
        flat[g] = not spread > k.flat


cdef void _grid_costs(const double *standardised, const unsigned char *flat,
                      const double *target, int count, double *out) noexcept nogil:
    """``_profile_costs`` of the grid's alignments from ``_standardised_grid``'s samples."""
    cdef double flat_cost = 0.0, cost
    cdef const double *values
    cdef int g, j
    for j in range(SIDE):
        flat_cost += fabs(target[j])
    flat_cost /= SIDE
    for g in range(count):
        if flat[g]:
            out[g] = flat_cost
            continue
        values = standardised + g * SIDE
        cost = 0.0
        for j in range(SIDE):
            cost += fabs(values[j] - target[j])
        out[g] = cost / SIDE


cdef void _facts(const unsigned char *x, Constants *k, double *grey, double *col, double *row,
                 double *coarse, double *grid, unsigned char *flat, Facts *out) noexcept nogil:
    """One picture's ``Facts`` from its descriptor, into the storage given (``grid`` and
    ``flat`` may be NULL: no samples made)."""
    cdef int i, j
    for i in range(GREY_BYTES):
        grey[i] = x[HEADER + i]
    for j in range(SIDE):
        col[j] = 0.0
        row[j] = 0.0
    for i in range(SIDE):
        for j in range(SIDE):
            col[j] += grey[i * SIDE + j]
            row[i] += grey[i * SIDE + j]
    for j in range(SIDE):
        col[j] /= SIDE
        row[j] /= SIDE
    _coarse(grey, coarse)
    if grid != NULL:
        _standardised_grid(col, k, grid, flat)
        _standardised_grid(row, k, grid + k.grid_count * SIDE, flat + k.grid_count)
    out.grey = grey
    out.col = col
    out.row = row
    out.coarse = coarse
    out.grid = grid
    out.flat = flat


cdef int _tried(const double *profile, const double *target, const double *tried_s,
                const double *tried_o, int steps, double flat, double *lowest,
                double *best_s, double *best_o, const int *plan_low, const int *plan_high,
                const double *plan_frac) noexcept nogil:
    """The refinement's alignments costed (their samples placed by the plan given, NULL:
    here); the first of them below ``lowest`` becomes the best (``lowest``, ``best_s`` and
    ``best_o`` updated). Which one, or -1 where none is below it."""
    cdef double costs[MOST_ALIGNMENTS]
    cdef int g, best = -1
    _profile_costs(profile, target, tried_s, tried_o, steps, flat, costs, plan_low, plan_high,
                   plan_frac)
    for g in range(steps):
        if costs[g] < lowest[0]:
            lowest[0] = costs[g]
            best_s[0] = tried_s[g]
            best_o[0] = tried_o[g]
            best = g
    return best


cdef void _axis(const double *profile, const double *inner, const double[::1] scales,
                const double[::1] offsets, const double[::1] edges,
                Constants *k, double *out_scale, double *out_offset,
                const double *standardised, const unsigned char *flat) noexcept nogil:
    """As ``check._axis_alignment`` for one pair and one axis: the grid's best alignment,
    then its far edge moved, then its near edge; the first lowest cost wins at each step.
    ``standardised`` and ``flat``: the profile's grid samples (``_standardised_grid``), or
    NULL to sample it here."""
    cdef double target[SIDE]
    cdef double costs[MOST_ALIGNMENTS]
    cdef double tried_s[MOST_ALIGNMENTS]
    cdef double tried_o[MOST_ALIGNMENTS]
    cdef int j, g, best = 0, far
    cdef int grid = <int> scales.shape[0], steps = <int> edges.shape[0]
    cdef Py_ssize_t at
    cdef double lowest = INFINITY, s0, o0, best_s, best_o
    for j in range(SIDE):
        target[j] = inner[j]
    _standardise(target, SIDE, k.flat)
    if standardised != NULL:
        _grid_costs(standardised, flat, target, grid, costs)
    else:
        _profile_costs(profile, target, &scales[0], &offsets[0], grid, k.flat, costs, k.grid_low,
                       k.grid_high, k.grid_frac)
    for g in range(grid):
        if costs[g] < lowest:
            lowest = costs[g]
            best = g
    s0 = scales[best]
    o0 = offsets[best]
    lowest = INFINITY
    best_s = s0
    best_o = o0
    for g in range(steps):  # the far edge moved, the near one where it is
        tried_s[g] = _clip(s0 + edges[g], k.min_scale, 1.0)
        tried_o[g] = _clip(o0, 0.0, 1.0 - tried_s[g])
    at = <Py_ssize_t> best * steps * SIDE  # the far edge's alignments from this grid one
    far = _tried(profile, target, tried_s, tried_o, steps, k.flat, &lowest, &best_s, &best_o,
                 k.far_low + at, k.far_high + at, k.far_frac + at)
    s0 = best_s
    o0 = best_o
    for g in range(steps):  # then the near edge, the far one where it is
        tried_s[g] = _clip(s0 - edges[g], k.min_scale, 1.0)
        tried_o[g] = _clip(_clip(o0 + edges[g], 0.0, 1.0), 0.0, 1.0 - tried_s[g])
    if far >= 0:  # the near edge's alignments from that far one
        at = (<Py_ssize_t> best * steps + far) * steps * SIDE
        _tried(profile, target, tried_s, tried_o, steps, k.flat, &lowest, &best_s, &best_o,
               k.near_low + at, k.near_high + at, k.near_frac + at)
    else:  # no cost was below infinity: placed here
        _tried(profile, target, tried_s, tried_o, steps, k.flat, &lowest, &best_s, &best_o,
               NULL, NULL, NULL)
    out_scale[0] = best_s
    out_offset[0] = best_o


cdef void _region(const double *grid, int size, double sy, double oy, double sx, double ox,
                  double *rows, double *out) noexcept nogil:
    """As ``check._region`` for one (size, size) plane: rows first, then columns."""
    cdef int i, j, lo, hi
    cdef double frac
    for i in range(size):
        _position(sy, oy, i, size, &lo, &hi, &frac)
        for j in range(size):
            rows[i * size + j] = grid[lo * size + j] * (1.0 - frac) + grid[hi * size + j] * frac
    for j in range(size):
        _position(sx, ox, j, size, &lo, &hi, &frac)
        for i in range(size):
            out[i * size + j] = rows[i * size + lo] * (1.0 - frac) + rows[i * size + hi] * frac


cdef void _coarse(const double *grey, double *out) noexcept nogil:
    cdef int i, j
    for i in range(CELLS):
        for j in range(CELLS):
            out[i * CELLS + j] = (
                grey[(2 * i) * SIDE + 2 * j] + grey[(2 * i) * SIDE + 2 * j + 1]
                + grey[(2 * i + 1) * SIDE + 2 * j] + grey[(2 * i + 1) * SIDE + 2 * j + 1]
            ) / 4.0


cdef bint _solve4(double *m, double *rhs) noexcept nogil:
    """Solve the 4x4 system ``m`` x = ``rhs`` in place (partial pivoting); False if singular."""
    cdef int col, row, pivot, c
    cdef double best, t, factor
    for col in range(4):
        pivot = col
        best = fabs(m[col * 4 + col])
        for row in range(col + 1, 4):
            if fabs(m[row * 4 + col]) > best:
                best = fabs(m[row * 4 + col])
                pivot = row
        if best == 0.0:
            return False
        if pivot != col:
            for c in range(4):
                t = m[col * 4 + c]
                m[col * 4 + c] = m[pivot * 4 + c]
                m[pivot * 4 + c] = t
            t = rhs[col]
            rhs[col] = rhs[pivot]
            rhs[pivot] = t
        for row in range(col + 1, 4):
            factor = m[row * 4 + col] / m[col * 4 + col]
            for c in range(col, 4):
                m[row * 4 + c] -= factor * m[col * 4 + c]
            rhs[row] -= factor * rhs[col]
    for col in range(3, -1, -1):
        t = rhs[col]
        for c in range(col + 1, 4):
            t -= m[col * 4 + c] * rhs[c]
        rhs[col] = t / m[col * 4 + col]
    return True


cdef void _scaled(const double *levels, int n, double *out) noexcept nogil:
    """Grey levels as shares of white (``level / 255.0``), divided once for both directions
    of a tone fit: a division costs the processor several times a multiplication."""
    cdef int i
    for i in range(n):
        out[i] = levels[i] / 255.0


cdef inline double _cubic(const double *coef, double x) noexcept nogil:
    return coef[0] + x * (coef[1] + x * (coef[2] + x * coef[3]))


cdef void _curve(const double *power, double *rhs, Constants *k, double lowest,
                 double highest) noexcept nogil:
    """The cubic tone curve's coefficients, into ``rhs``, from the normal equations' power
    sums (``gram[r][c] = power[r + c]``, ridged) and right-hand side (zeros if singular). As
    ``check._curve``, a curve that takes the fitted levels' ``lowest`` above their
    ``highest`` keeps no tone order: the best single level is fitted instead."""
    cdef double gram[16]
    cdef double sum_b = rhs[0]
    cdef int r, c
    for r in range(4):
        for c in range(4):
            gram[r * 4 + c] = power[r + c]
    for r in range(4):
        gram[r * 4 + r] += k.ridge
    if not _solve4(gram, rhs):
        rhs[0] = rhs[1] = rhs[2] = rhs[3] = 0.0
        return
    if lowest <= highest and _cubic(rhs, highest) < _cubic(rhs, lowest):
        rhs[0] = sum_b / (power[0] + k.ridge)
        rhs[1] = rhs[2] = rhs[3] = 0.0


# Where a cell stands in a censored tone fit (``check._censored_fit``).
DEF LEVEL = 0  # fitted
DEF AGREES = 1  # left out and agrees: white in two graphics, or clipped in both
DEF BOUND_A = 2  # ``a`` clipped: ``b`` at least the curve (and ``a``'s light level)
DEF BOUND_B = 3  # ``b`` clipped: the curve at least ``b``


cdef void _cell_roles(const double *a, const double *b, int n, Constants *k, bint graphic,
                      unsigned char *role, const unsigned char *edge) noexcept nogil:
    """Each cell's ``LEVEL``, ``AGREES``, ``BOUND_A`` or ``BOUND_B``: of the cells clipped at
    white on one side only, those of the side clipped in more cells are bounds, the other's
    are levels (all are levels where bounds would cover more than ``most_bounds`` of the
    fitted cells)."""
    cdef int i, only_a = 0, only_b = 0, fitted = 0
    cdef bint ca, cb, bounded
    for i in range(n):
        ca = a[i] >= k.clipped
        cb = b[i] >= k.clipped
        if (graphic and a[i] >= k.white and b[i] >= k.white) or (edge != NULL and edge[i]):
            role[i] = AGREES
            continue
        fitted += 1
        if ca and cb:
            role[i] = AGREES
        elif ca:
            role[i] = BOUND_A
            only_a += 1
        elif cb:
            role[i] = BOUND_B
            only_b += 1
        else:
            role[i] = LEVEL
    bounded = (only_a if only_a > only_b else only_b) <= k.most_bounds * fitted
    for i in range(n):
        if ((role[i] == BOUND_A and (only_b >= only_a or not bounded))
                or (role[i] == BOUND_B and (only_b < only_a or not bounded))):
            role[i] = LEVEL


cdef double _light_level(const double *sb, const unsigned char *role, int n, Constants *k
                         ) noexcept nogil:
    """``check._light_level`` of one row: ``light_share`` of the way up ``b``'s fitted levels
    (the lower of two), 1 where none."""
    cdef double levels[GREY_BYTES]
    cdef int i, count = 0
    for i in range(n):
        if role[i] == LEVEL:
            levels[count] = sb[i]
            count += 1
    if count == 0:
        return 1.0
    return select_rank(levels, count, <int> floor(k.light_share * (count - 1)))


cdef double _tone_fit(const double *a, const double *b, const double *sa, const double *sb,
                      int n, Constants *k, double *ta, double *tb, bint graphic,
                      const double *clear, const double *other, double scale,
                      const unsigned char *edge) noexcept nogil:
    """As ``check._tone_fit`` for one pair of ``n`` values, ``sa`` and ``sb`` being them
    ``_scaled`` and ``scale`` one over ``sb``'s deviation (``_inverse_spread``); ``ta``/``tb``
    may be NULL; ``graphic``: a pair of graphics, whose cells white in both are left out;
    ``clear`` and ``other``: ``a``'s and ``b``'s opacity (NULL where opaque)."""
    cdef double rhs[4]
    cdef double power[7]
    cdef unsigned char role[GREY_BYTES]
    cdef double fa, fb, f2, f3, fitted, diff = 0.0, light = -1.0
    cdef double lowest = INFINITY, highest = -INFINITY
    cdef int i
    for i in range(7):
        power[i] = 0.0
    for i in range(4):
        rhs[i] = 0.0
    _cell_roles(a, b, n, k, graphic, role, edge)
    cdef double count = 0.0
    for i in range(n):  # the normal equations from power sums: gram[r][c] = sum fa^(r + c)
        if role[i] != LEVEL:
            continue
        fa = sa[i]
        fb = sb[i]
        count += 1.0
        lowest = fmin(lowest, fa)
        highest = fmax(highest, fa)
        f2 = fa * fa
        f3 = f2 * fa
        power[1] += fa
        power[2] += f2
        power[3] += f3
        power[4] += f2 * f2
        power[5] += f2 * f3
        power[6] += f3 * f3
        rhs[0] += fb
        rhs[1] += fa * fb
        rhs[2] += f2 * fb
        rhs[3] += f3 * fb
    power[0] = count
    _curve(power, rhs, k, lowest, highest)
    for i in range(n):
        fa = sa[i]
        fb = sb[i] * scale
        if role[i] == AGREES:
            fitted = fb
        else:
            fitted = (rhs[0] + fa * (rhs[1] + fa * (rhs[2] + fa * rhs[3]))) * scale
            if role[i] == BOUND_B:
                fitted = fmin(fitted, fb)
            elif role[i] == BOUND_A:
                if light < 0.0:  # found once, where a row has such cells
                    light = _light_level(sb, role, n, k) * scale
                fitted = fmax(fmax(fitted, light), fb)
        diff += fabs(fitted - fb)
        if ta != NULL:
            ta[i] = fitted
            tb[i] = fb
    diff /= n
    if clear == NULL:
        return diff
    return _by_colour(a, b, sa, sb, n, k, ta, graphic, clear, other, scale, diff, edge)


cdef void _mean_spread(const double *values, int n, double *mean, double *spread
                       ) noexcept nogil:
    """The mean and deviation of ``n`` values."""
    cdef int i
    cdef double total = 0.0, squares = 0.0, d
    for i in range(n):
        total += values[i]
    total /= n
    for i in range(n):
        d = values[i] - total
        squares += d * d
    mean[0] = total
    spread[0] = sqrt(squares / n)


cdef double _inverse_spread(const double *sb, int n, Constants *k) noexcept nogil:
    """One over the deviation of ``n`` values (1 where they are flat)."""
    cdef double mean, spread
    _mean_spread(sb, n, &mean, &spread)
    if not spread > k.flat:
        spread = 1.0
    return 1.0 / spread


cdef inline double _colour_of(double shown, double opacity, Constants *k) noexcept nogil:
    """A cell's colour (0..1) from its grey shown over white and its opacity."""
    if not opacity > k.clear:
        return 1.0
    return _clip((shown - (1.0 - opacity)) / opacity, 0.0, 1.0)


cdef double _by_colour(const double *a, const double *b, const double *sa, const double *sb,
                       int n, Constants *k, double *ta, bint graphic, const double *clear,
                       const double *other, double scale, double composite,
                       const unsigned char *edge) noexcept nogil:
    """The tone fit of ``check._tone_fit`` by ``a``'s colours under its opacity ``clear``
    (charged where ``b``'s, ``other``, differs; NULL: opaque), where it is transparent
    somewhere and fits better than ``composite`` (the difference of the fit of what is
    shown); ``ta`` then gets its values. ``scale``: one over ``b``'s deviation."""
    cdef double rhs[4]
    cdef double power[7]
    cdef double colours[GREY_BYTES]
    cdef double u, o, w, u2, u3, target, fitted, diff = 0.0, changed = 0.0
    cdef double lowest = INFINITY, highest = -INFINITY
    cdef int i
    cdef bint transparent = False
    for i in range(n):
        if clear[i] < k.opaque:
            transparent = True
            break
    if not transparent:
        return composite
    for i in range(n):
        if edge == NULL or not edge[i]:
            changed += fabs(clear[i] - (1.0 if other == NULL else other[i]))
    changed = changed / n * scale
    if not changed < composite:  # the charge alone is no better: the fit cannot be
        return composite
    for i in range(7):
        power[i] = 0.0
    for i in range(4):
        rhs[i] = 0.0
    for i in range(n):  # basis o u^r: gram[r][c] = sum o^2 u^(r + c)
        if (graphic and a[i] >= k.white and b[i] >= k.white) or (edge != NULL and edge[i]):
            continue
        o = clear[i]
        u = _colour_of(sa[i], o, k)
        colours[i] = u
        lowest = fmin(lowest, u)
        highest = fmax(highest, u)
        w = o * o
        u2 = u * u
        u3 = u2 * u
        target = o * (sb[i] - (1.0 - o))
        power[0] += w
        power[1] += w * u
        power[2] += w * u2
        power[3] += w * u3
        power[4] += w * u2 * u2
        power[5] += w * u2 * u3
        power[6] += w * u3 * u3
        rhs[0] += target
        rhs[1] += u * target
        rhs[2] += u2 * target
        rhs[3] += u3 * target
    _curve(power, rhs, k, lowest, highest)
    for i in range(n):  # the colours' fitted values shown, over ``b``'s deviation
        if (graphic and a[i] >= k.white and b[i] >= k.white) or (edge != NULL and edge[i]):
            colours[i] = sb[i] * scale  # left out: agrees, as ``_tone_fit`` has it
            continue
        o = clear[i]
        u = colours[i]
        fitted = o * (rhs[0] + u * (rhs[1] + u * (rhs[2] + u * rhs[3]))) + (1.0 - o)
        colours[i] = fitted * scale
        diff += fabs(colours[i] - sb[i] * scale)
    diff = diff / n + changed
    if not diff < composite:
        return composite
    if ta != NULL:
        for i in range(n):
            ta[i] = colours[i]
    return diff


cdef double _one_way(const Facts *held, const Facts *inner_facts,
                     const double[::1] scales, const double[::1] offsets,
                     const double[::1] edges, Constants *k,
                     double *align, double *region, double *scratch, bint graphic,
                     double still, const double *clear,
                     const double *inner_clear) noexcept nogil:
    """As ``check._one_way``: the layout difference; ``align`` gets (sy, oy, sx, ox) and
    ``region`` the container's region on the inner's grid; ``clear`` and ``inner_clear``:
    the opacity thumbnails (NULL where opaque). ``still`` is the layout cost of the two whole
    thumbnails (the same both ways round: computed once by the caller). ``held``: the
    container's facts, ``inner_facts`` the other's."""
    cdef const double *container = held.grey
    cdef const double *grid_rows = NULL
    cdef const unsigned char *flat_rows = NULL
    cdef double cr[CELLS * CELLS]
    cdef double cr_clear[CELLS * CELLS]
    cdef double aligned
    cdef int i
    if held.grid != NULL:
        grid_rows = held.grid + k.grid_count * SIDE
        flat_rows = held.flat + k.grid_count
    _axis(held.col, inner_facts.col, scales, offsets, edges, k, &align[2], &align[3],
          held.grid, held.flat)
    _axis(held.row, inner_facts.row, scales, offsets, edges, k, &align[0], &align[1],
          grid_rows, flat_rows)
    _region(container, SIDE, align[0], align[1], align[2], align[3], scratch, region)
    _coarse(region, cr)
    if clear != NULL:  # the layout's cells are the opacity thumbnail's: taken at its size
        _region(clear, CELLS, align[0], align[1], align[2], align[3], scratch, cr_clear)
    aligned = _layout_cost(cr, inner_facts.coarse, k, graphic, cr_clear if clear != NULL else NULL,
                           inner_clear)
    if still <= aligned:  # the whole thumbnails decide whether it was aligned already
        align[0] = 1.0
        align[1] = 0.0
        align[2] = 1.0
        align[3] = 0.0
        for i in range(GREY_BYTES):
            region[i] = container[i]
        return still
    return aligned


cdef const unsigned char *_redrawn_edges(const double *own, const double *other, int n,
                                        Constants *k, unsigned char *edge) noexcept nogil:
    """As ``check._redrawn_edges`` for one pair's ``n`` cells (``own`` and ``other``: the
    opacities, NULL where opaque), into ``edge``; NULL where none is left out."""
    cdef int i, count = 0, solid = 0
    cdef double o, t, change
    if not k.redrawn or (own == NULL and other == NULL):
        return NULL
    for i in range(n):
        o = 1.0 if own == NULL else own[i]
        t = 1.0 if other == NULL else other[i]
        change = fabs(o - t)
        edge[i] = (o < 1.0 or t < 1.0) and change < k.edge_change and change > k.edge_least
        count += edge[i]
        solid += (o if o < t else t) >= 1.0 - k.edge_least
    if count == 0 or count > k.edge_share * n or count > k.edge_solid * solid:
        return NULL
    return edge


cdef double _layout_cost(const double *region, const double *inner, Constants *k,
                         bint graphic, const double *region_clear,
                         const double *inner_clear) noexcept nogil:
    cdef double scaled_region[CELLS * CELLS]
    cdef double scaled_inner[CELLS * CELLS]
    cdef unsigned char edge_cells[CELLS * CELLS]
    cdef const unsigned char *edge = _redrawn_edges(region_clear, inner_clear, CELLS * CELLS, k,
                                                    edge_cells)
    _scaled(region, CELLS * CELLS, scaled_region)
    _scaled(inner, CELLS * CELLS, scaled_inner)
    cdef double over_inner = _inverse_spread(scaled_inner, CELLS * CELLS, k)
    cdef double over_region = _inverse_spread(scaled_region, CELLS * CELLS, k)
    cdef double there = _tone_fit(region, inner, scaled_region, scaled_inner, CELLS * CELLS, k,
                                  NULL, NULL, graphic, NULL, NULL, over_inner, edge)
    cdef double back = _tone_fit(inner, region, scaled_inner, scaled_region, CELLS * CELLS, k,
                                 NULL, NULL, graphic, NULL, NULL, over_region, edge)
    # the worse way round, each way the better of its two fits: a fit by colour is made only
    # where it could lower the worse (the same figure as making both, at a fraction of it)
    cdef bint try_there = region_clear != NULL, try_back = inner_clear != NULL
    while True:
        if there >= back and try_there:
            try_there = False
            there = _by_colour(region, inner, scaled_region, scaled_inner, CELLS * CELLS, k,
                               NULL, graphic, region_clear, inner_clear, over_inner, there, edge)
        elif back >= there and try_back:
            try_back = False
            back = _by_colour(inner, region, scaled_inner, scaled_region, CELLS * CELLS, k,
                              NULL, graphic, inner_clear, region_clear, over_region, back, edge)
        else:
            return there if there > back else back


cdef double _best_shift_worst(const double *x, const double *y, int side, double *padded,
                              double *typical) noexcept nogil:
    """The largest over x's blocks of its smallest summed absolute difference from y shifted
    by up to one pixel (edges repeated), over the block's pixels; ``typical`` (unless NULL)
    gets the median block's (``check._block_differences``, numpy's median)."""
    cdef int blocks = side // DETAIL_BLOCK
    if blocks < 1:
        blocks = 1
    cdef int block = side // blocks
    cdef int wide = side + 2
    cdef int i, j, by, bx, dy, dx, ii, jj
    cdef double total, best, worst = -INFINITY
    cdef double found[MOST_BLOCKS]
    for i in range(wide):
        ii = 0 if i - 1 < 0 else (side - 1 if i - 1 >= side else i - 1)
        for j in range(wide):
            jj = 0 if j - 1 < 0 else (side - 1 if j - 1 >= side else j - 1)
            padded[i * wide + j] = y[ii * side + jj]
    for by in range(blocks):
        for bx in range(blocks):
            best = INFINITY
            for dy in range(3):
                for dx in range(3):
                    total = 0.0
                    for i in range(by * block, (by + 1) * block):
                        for j in range(bx * block, (bx + 1) * block):
                            total += fabs(x[i * side + j] - padded[(i + dy) * wide + j + dx])
                    if total < best:
                        best = total
            found[by * blocks + bx] = best
            if best > worst:
                worst = best
    if typical != NULL:
        typical[0] = _median(found, blocks * blocks) / (block * block)
    return worst / (block * block)


cdef double _median(double *values, int n) noexcept nogil:
    """The median of ``n`` values (reordered in place), the mean of the middle two for an
    even ``n``, as numpy's."""
    if n % 2:
        return select_rank(values, n, n // 2)
    return 0.5 * (select_rank(values, n, n // 2 - 1) + select_rank(values, n, n // 2))


cdef double _detail(const double *shared_a, const double *shared_b, int side,
                    const double *weights, Constants *k, double *work, double *where,
                    bint graphic, const double *clear_a, const double *clear_b,
                    double *typical) noexcept nogil:
    """As the detail figure of ``check.compare`` for one pair; ``where`` gets the centre of
    the block where the two differ most (x, y shares), as ``check._worst_position``, and
    ``typical`` (unless NULL) the median block's difference, the larger way round."""
    cdef double *ta = work
    cdef double *tb = work + GREY_BYTES
    cdef double *ua = work + 2 * GREY_BYTES
    cdef double *ub = work + 3 * GREY_BYTES
    cdef double *half = work + 4 * GREY_BYTES
    cdef double *sa = work + 5 * GREY_BYTES
    cdef double *sb = work + 6 * GREY_BYTES
    cdef double *padded = work + 7 * GREY_BYTES  # (side + 2) squared: under two planes
    cdef double *scaled_a = work + 9 * GREY_BYTES
    cdef double *scaled_b = work + 10 * GREY_BYTES
    cdef double there, back, first, second, total
    cdef double *da
    cdef double *db
    cdef int i, j, t, c
    cdef unsigned char edge_cells[GREY_BYTES]
    cdef const unsigned char *edge = _redrawn_edges(clear_a, clear_b, GREY_BYTES, k, edge_cells)
    _scaled(shared_a, GREY_BYTES, scaled_a)
    _scaled(shared_b, GREY_BYTES, scaled_b)
    there = _tone_fit(shared_a, shared_b, scaled_a, scaled_b, GREY_BYTES, k, ta, tb, graphic,
                      clear_a, clear_b, _inverse_spread(scaled_b, GREY_BYTES, k), NULL)
    back = _tone_fit(shared_b, shared_a, scaled_b, scaled_a, GREY_BYTES, k, ub, ua, graphic,
                     clear_b, clear_a, _inverse_spread(scaled_a, GREY_BYTES, k), NULL)
    if there <= back:
        da = ta
        db = tb
    else:
        da = ua
        db = ub
    if edge != NULL:  # an edge redrawn agrees (as ``check._compare``)
        for i in range(GREY_BYTES):
            if edge[i]:
                db[i] = da[i]
    if side < SIDE:  # box-average down to the smaller picture's side: W @ d @ W.T
        for t in range(2):
            for i in range(side):
                for j in range(SIDE):
                    total = 0.0
                    for c in range(SIDE):
                        if t == 0:
                            total += weights[i * SIDE + c] * da[c * SIDE + j]
                        else:
                            total += weights[i * SIDE + c] * db[c * SIDE + j]
                    half[i * SIDE + j] = total
            for i in range(side):
                for j in range(side):
                    total = 0.0
                    for c in range(SIDE):
                        total += half[i * SIDE + c] * weights[j * SIDE + c]
                    if t == 0:
                        sa[i * side + j] = total
                    else:
                        sb[i * side + j] = total
        da = sa
        db = sb
    cdef double typical_there = 0.0, typical_back = 0.0
    first = _best_shift_worst(da, db, side, padded, NULL if typical == NULL else &typical_there)
    second = _best_shift_worst(db, da, side, padded, NULL if typical == NULL else &typical_back)
    if typical != NULL:
        typical[0] = typical_there if typical_there > typical_back else typical_back
    _worst_position(da, db, side, where)
    return 1.0 - (first if first > second else second) / k.detail_unrelated


cdef void _worst_position(const double *x, const double *y, int side, double *where
                          ) noexcept nogil:
    cdef int blocks = side // DETAIL_BLOCK
    if blocks < 1:
        blocks = 1
    cdef int block = side // blocks
    cdef int by, bx, i, j, best_y = 0, best_x = 0
    cdef double total, most = -INFINITY
    for by in range(blocks):
        for bx in range(blocks):
            total = 0.0
            for i in range(by * block, (by + 1) * block):
                for j in range(bx * block, (bx + 1) * block):
                    total += fabs(x[i * side + j] - y[i * side + j])
            total /= block * block
            if total > most:
                most = total
                best_y = by
                best_x = bx
    where[0] = (best_x + 0.5) / blocks
    where[1] = (best_y + 0.5) / blocks


cdef int _hues(const double *chroma, Constants *k, double *resultant) noexcept nogil:
    """0: no colour (colourless); 1: one hue (``resultant`` gets its direction, summed Cb
    and Cr); 2: many; 3: one weak hue, a tint (``check._tint``)."""
    cdef int i
    cdef double strength, strongest = 0.0, total = 0.0, sum_b = 0.0, sum_r = 0.0, share
    for i in range(CHROMA * CHROMA):
        strength = sqrt(chroma[i] * chroma[i]
                        + chroma[CHROMA * CHROMA + i] * chroma[CHROMA * CHROMA + i])
        if strength > strongest:
            strongest = strength
        total += strength
        sum_b += chroma[i]
        sum_r += chroma[CHROMA * CHROMA + i]
    resultant[0] = sum_b
    resultant[1] = sum_r
    if strongest < k.colourless:
        return 0
    share = sqrt(sum_b * sum_b + sum_r * sum_r) / total if total > 0 else 1.0
    if share < k.one_hue:
        return 2
    return 3 if strongest <= k.tint_strength else 1


cdef inline double _hue_cosine(const double *ra, const double *rb) noexcept nogil:
    """The cosine of two summed chromas (Cb, Cr): whether two pictures are of one hue (0
    where either has none), as ``check._cosine`` of theirs."""
    cdef double norms = sqrt((ra[0] * ra[0] + ra[1] * ra[1]) * (rb[0] * rb[0] + rb[1] * rb[1]))
    return (ra[0] * rb[0] + ra[1] * rb[1]) / norms if norms > 0 else 0.0


cdef void _softened(const double *chroma, double *out) noexcept nogil:
    """As ``check._softened`` for one pair's (2, CHROMA, CHROMA) chroma: [1, 2, 1] / 4 down,
    then across, edges repeated."""
    cdef double down[CHROMA_BYTES]
    cdef int plane, i, j, up, below, left, right
    cdef const double *c
    cdef double *d
    for plane in range(2):
        c = chroma + plane * CHROMA * CHROMA
        d = down + plane * CHROMA * CHROMA
        for i in range(CHROMA):
            up = i - 1 if i > 0 else 0
            below = i + 1 if i < CHROMA - 1 else CHROMA - 1
            for j in range(CHROMA):
                d[i * CHROMA + j] = (c[up * CHROMA + j] + 2.0 * c[i * CHROMA + j]
                                     + c[below * CHROMA + j])
        for i in range(CHROMA):
            for j in range(CHROMA):
                left = j - 1 if j > 0 else 0
                right = j + 1 if j < CHROMA - 1 else CHROMA - 1
                out[plane * CHROMA * CHROMA + i * CHROMA + j] = (
                    d[i * CHROMA + left] + 2.0 * d[i * CHROMA + j] + d[i * CHROMA + right]
                ) / 16.0


DEF ALIGNED = 2.0  # ``_unaligned_colour``: the aligned chroma must be compared


cdef double _unaligned_colour(const unsigned char *x, const unsigned char *y, Constants *k,
                              double *ca, double *cb) noexcept nogil:
    """As ``check._unaligned_colour`` for one pair: the colour figure where no alignment is
    needed for it (1 where either picture has no colours, or either is a tint, or a photo of
    one hue; two graphics, one of one strong hue: how their hues agree), else ``ALIGNED``.
    ``ca`` and ``cb`` get the chroma thumbnails where ``ALIGNED`` is answered."""
    cdef double resultant_a[2]
    cdef double resultant_b[2]
    cdef int hues_a, hues_b, i
    if not (x[0] & y[0] & COLOUR):
        return 1.0
    for i in range(CHROMA_BYTES):
        ca[i] = x[HEADER + GREY_BYTES + i] - 128.0
        cb[i] = y[HEADER + GREY_BYTES + i] - 128.0
    hues_a = _hues(ca, k, resultant_a)
    hues_b = _hues(cb, k, resultant_b)
    if hues_a == 0 or hues_b == 0:
        return 1.0
    if x[0] & y[0] & GRAPHIC:
        if hues_a == 3 or hues_b == 3:  # a tint may be made of a drawing of any colours
            return 1.0
        if hues_a == 1 or hues_b == 1:  # a drawing of one hue: the hues must agree
            return 1.0 - k.colour_weight * (1.0 - _hue_cosine(resultant_a, resultant_b))
    elif hues_a != 2 or hues_b != 2:  # a photo of one hue: a tint, a green meadow
        return 1.0
    return ALIGNED


cdef double _colour(bint b_in_a, const double *align, Constants *k, double unaligned,
                    const double *ca, const double *cb) noexcept nogil:
    """As ``check._colour_agreement`` for one pair: ``unaligned`` where it is not
    ``ALIGNED``, else the aligned chroma thumbnails ``ca`` and ``cb`` compared (both from
    ``_unaligned_colour``)."""
    cdef double region[CHROMA_BYTES]
    cdef double soft_a[CHROMA_BYTES]
    cdef double soft_b[CHROMA_BYTES]
    cdef double rows[CHROMA * CHROMA]
    cdef double dot = 0.0, na = 0.0, nb = 0.0, cosine, norms
    cdef const double *fa
    cdef const double *fb
    cdef int i, plane
    if unaligned != ALIGNED:
        return unaligned
    for plane in range(2):
        if b_in_a:
            _region(ca + plane * CHROMA * CHROMA, CHROMA, align[0], align[1], align[2],
                    align[3], rows, region + plane * CHROMA * CHROMA)
        else:
            _region(cb + plane * CHROMA * CHROMA, CHROMA, align[0], align[1], align[2],
                    align[3], rows, region + plane * CHROMA * CHROMA)
    if b_in_a:
        _softened(region, soft_a)
        _softened(cb, soft_b)
    else:
        _softened(ca, soft_a)
        _softened(region, soft_b)
    fa = soft_a
    fb = soft_b
    dot = 0.0
    for i in range(CHROMA_BYTES):
        dot += fa[i] * fb[i]
        na += fa[i] * fa[i]
        nb += fb[i] * fb[i]
    norms = sqrt(na * nb)
    cosine = dot / norms if norms > 0 else 0.0
    return 1.0 - k.colour_weight * (1.0 - cosine)


#: The fields ``comparisons`` gives per pair, in order (``check.Comparison``'s).
FIELDS = (
    "similarity", "layout", "detail", "colour", "b_in_a", "scale_x", "offset_x", "scale_y",
    "offset_y", "mean_a", "mean_b", "spread_a", "spread_b", "worst_x", "worst_y",
    "whole_layout", "typical_block",
)
DEF NFIELDS = 17


cdef double *_opacity(const unsigned char *row, double *out) noexcept nogil:
    """As ``check._opacity`` for one descriptor, into ``out``; NULL where it is opaque."""
    cdef int i
    cdef bint opaque = True
    for i in range(ALPHA_BYTES):
        if row[CHROMA_END + i] != 255:
            opaque = False
            break
    if opaque:
        return NULL
    for i in range(ALPHA_BYTES):
        out[i] = row[CHROMA_END + i] / 255.0
    return out


cdef int _colours_held(const unsigned char *row, Constants *k, double *resultant
                       ) noexcept nogil:
    """0: no colour (greyscale, or too weak); 1: colours the colour figure compares
    (``check.holds_colour``); 2: a tint (one weak hue). ``resultant``: the summed chroma."""
    cdef double chroma[CHROMA_BYTES]
    cdef int i, hues
    resultant[0] = 0.0
    resultant[1] = 0.0
    if not (row[0] & COLOUR):
        return 0
    for i in range(CHROMA_BYTES):
        chroma[i] = row[HEADER + GREY_BYTES + i] - 128.0
    hues = _hues(chroma, k, resultant)
    return 0 if hues == 0 else (2 if hues == 3 else 1)


cdef bint _tonal(const unsigned char *x, const unsigned char *y, Constants *k) noexcept nogil:
    """As ``check._tonal`` for one pair."""
    cdef double ra[2]
    cdef double rb[2]
    cdef int held_x = _colours_held(x, k, ra), held_y = _colours_held(y, k, rb)
    if held_x == held_y and held_x != 2:
        return True
    if held_x == 0 or held_y == 0:
        return False
    return _hue_cosine(ra, rb) >= k.tonal_hue


cdef double *_shared(const double *opacity, bint container, const double *align,
                     double *scratch, double *out) noexcept nogil:
    """As ``check._shared`` for one side: its opacity over the grey cells of the region the
    pair shares (its region under ``align`` where it is the ``container``) into ``out``;
    NULL where it is opaque."""
    cdef int i, j
    if opacity == NULL:
        return NULL
    for i in range(SIDE):
        for j in range(SIDE):
            out[i * SIDE + j] = opacity[(i // 2) * ALPHA + j // 2]
    if container:
        _region(out, SIDE, align[0], align[1], align[2], align[3], scratch, out)
    return out


cdef void _pair(const unsigned char *x, const unsigned char *y, const Facts *fa,
                const Facts *fb, const double[::1] scales,
                const double[::1] offsets, const double[::1] edges,
                const double[:, :, ::1] weights, Constants *k, bint full, double below,
                double *buf, double *fields) noexcept nogil:
    """One pair's fields (``FIELDS``); ``full``: the detail figure and the tone of each side
    for every pair (else only what the similarity needs). Without ``full``, a pair whose
    layout (or, for two graphics, layout and detail) already falls under ``below`` stops
    there: its similarity is that figure, an upper bound, plus ``STOPPED``. ``fa`` and
    ``fb``: what each picture's descriptor gives on its own (``_facts``)."""
    cdef const double *ga = fa.grey
    cdef const double *gb = fb.grey
    cdef double *region_ab = buf + 2 * GREY_BYTES
    cdef double *region_ba = buf + 3 * GREY_BYTES
    cdef double *scratch = buf + 4 * GREY_BYTES
    cdef double *shared_clear_a = buf + 5 * GREY_BYTES
    cdef double *shared_clear_b = buf + 6 * GREY_BYTES
    cdef double *work = buf + 7 * GREY_BYTES
    cdef double opacity_a[ALPHA_BYTES]
    cdef double opacity_b[ALPHA_BYTES]
    cdef double chroma_a[CHROMA_BYTES]
    cdef double chroma_b[CHROMA_BYTES]
    cdef const double *clear_a = NULL
    cdef const double *clear_b = NULL
    cdef double align_ab[4]
    cdef double align_ba[4]
    cdef double where[2]
    cdef double hue[2]
    cdef double cost_ab, cost_ba, layout, detail = 1.0, colour, lowest, still, unaligned
    cdef const double *align
    cdef const double *shared_a
    cdef const double *shared_b
    cdef bint b_in_a, any_a = False, any_b = False, graphic
    cdef int i, j, side
    for i in range(NFIELDS):
        fields[i] = 0.0
    for i in range(WIDTH):
        if x[i]:
            any_a = True
        if y[i]:
            any_b = True
    if not (any_a and any_b) and not full:
        return
    graphic = (x[0] & y[0] & GRAPHIC) != 0
    side = x[3] if x[3] > y[3] else y[3]  # the larger short side, against the smaller
    k.redrawn = graphic and side >= k.redrawn_ratio * (
        1 if (x[3] if x[3] < y[3] else y[3]) < 1 else (x[3] if x[3] < y[3] else y[3]))
    if k.redrawn:  # as ``check._redrawn``: two drawings in colour
        k.redrawn = _colours_held(x, k, hue) != 0 and _colours_held(y, k, hue) != 0
    unaligned = _unaligned_colour(x, y, k, chroma_a, chroma_b)
    if not full and below > 0.0 and unaligned < below:  # other hues: seen before aligning
        fields[0] = _clip(unaligned, 0.0, 1.0) + STOPPED
        return
    clear_a = _opacity(x, opacity_a)
    clear_b = _opacity(y, opacity_b)
    if (clear_a != NULL or clear_b != NULL) and not _tonal(x, y, k):
        clear_a = clear_b = NULL
    still = _layout_cost(fa.coarse, fb.coarse, k, graphic, clear_a, clear_b)
    cost_ab = _one_way(fa, fb, scales, offsets, edges, k,
                       align_ab, region_ab, scratch, graphic, still, clear_a, clear_b)
    cost_ba = _one_way(fb, fa, scales, offsets, edges, k,
                       align_ba, region_ba, scratch, graphic, still, clear_b, clear_a)
    b_in_a = cost_ab <= cost_ba
    layout = 1.0 - (cost_ab if b_in_a else cost_ba) / k.unrelated
    lowest = layout
    if not full and lowest < below:
        fields[0] = _clip(lowest, 0.0, 1.0) + STOPPED
        return
    if b_in_a:
        align = align_ab
        shared_a = region_ab
        shared_b = gb
    else:
        align = align_ba
        shared_a = ga
        shared_b = region_ba
    where[0] = 0.5
    where[1] = 0.5
    if graphic or full:
        side = x[3] if x[3] < y[3] else y[3]
        side = 1 if side < 1 else (SIDE if side > SIDE else side)
        detail = _detail(shared_a, shared_b, side, &weights[side, 0, 0], k, work, where, graphic,
                         _shared(clear_a, b_in_a, align, scratch, shared_clear_a),
                         _shared(clear_b, not b_in_a, align, scratch, shared_clear_b),
                         &fields[16] if full else NULL)
        if graphic and detail < lowest:
            lowest = detail
            if not full and lowest < below:
                fields[0] = _clip(lowest, 0.0, 1.0) + STOPPED
                return
    colour = _colour(b_in_a, align, k, unaligned, chroma_a, chroma_b)
    if colour < lowest:
        lowest = colour
    fields[0] = _clip(lowest, 0.0, 1.0) if (any_a and any_b) else 0.0
    fields[1] = layout
    fields[2] = detail
    fields[3] = colour
    fields[4] = 1.0 if b_in_a else 0.0
    fields[5] = align[2]
    fields[6] = align[3]
    fields[7] = align[0]
    fields[8] = align[1]
    if full:
        _mean_spread(shared_a, GREY_BYTES, &fields[9], &fields[11])
        _mean_spread(shared_b, GREY_BYTES, &fields[10], &fields[12])
    fields[13] = where[0]
    fields[14] = where[1]
    fields[15] = layout
    if full and k.redrawn:  # as ``check._whole_layout``: every cell counted, edges too
        k.redrawn = False
        still = _layout_cost(fa.coarse, fb.coarse, k, graphic, clear_a, clear_b)
        cost_ab = _one_way(fa, fb, scales, offsets, edges, k,
                           align_ab, region_ab, scratch, graphic, still, clear_a, clear_b)
        cost_ba = _one_way(fb, fa, scales, offsets, edges, k,
                           align_ba, region_ba, scratch, graphic, still, clear_b, clear_a)
        fields[15] = 1.0 - (cost_ab if cost_ab < cost_ba else cost_ba) / k.unrelated


cdef object _constants_of(Constants *k, const double[::1] scales, const double[::1] offsets,
                          const double[::1] edges, const double[:, :, ::1] weights,
                          dict constants):
    """``k`` filled from the check's constants, and the grid's alignments placed (the arrays
    returned hold what ``k`` points into: keep them while ``k`` is used)."""
    if weights.shape[0] != SIDE + 1 or weights.shape[1] != SIDE or weights.shape[2] != SIDE:
        raise ValueError("weights must be (33, 32, 32)")
    if not (0 < scales.shape[0] <= MOST_ALIGNMENTS and scales.shape[0] == offsets.shape[0]
            and 0 < edges.shape[0] <= MOST_ALIGNMENTS):
        raise ValueError("at most %d alignments a pass" % MOST_ALIGNMENTS)
    k.unrelated = constants["unrelated"]
    k.detail_unrelated = constants["detail_unrelated"]
    k.colourless = constants["colourless"]
    k.one_hue = constants["one_hue"]
    k.colour_weight = constants["colour_weight"]
    k.ridge = constants["ridge"]
    k.flat = constants["flat"]
    k.min_scale = constants["min_scale"]
    k.white = constants["white"]
    k.clipped = constants["clipped"]
    k.light_share = constants["light_share"]
    k.most_bounds = constants["most_bounds"]
    k.tint_strength = constants["tint_strength"]
    k.clear = constants["clear"]
    k.opaque = constants["opaque"]
    k.tonal_hue = constants["tonal_hue"]
    k.redrawn_ratio = constants["redrawn_ratio"]
    k.edge_change = constants["edge_change"]
    k.edge_least = constants["edge_least"]
    k.edge_share = constants["edge_share"]
    k.edge_solid = constants["edge_solid"]
    k.redrawn = False
    grid_low = np.empty(scales.shape[0] * SIDE, np.intc)
    grid_high = np.empty(scales.shape[0] * SIDE, np.intc)
    grid_frac = np.empty(scales.shape[0] * SIDE, np.float64)
    cdef int[::1] low_view = grid_low
    cdef int[::1] high_view = grid_high
    cdef double[::1] frac_view = grid_frac
    _grid_plan(scales, offsets, low_view, high_view, frac_view)
    k.grid_low = &low_view[0]
    k.grid_high = &high_view[0]
    k.grid_frac = &frac_view[0]
    k.grid_count = <int> scales.shape[0]
    k.steps = <int> edges.shape[0]
    far, near = _refinement_plans(scales, offsets, edges, k.min_scale)
    cdef int[::1] far_low = far[0]
    cdef int[::1] far_high = far[1]
    cdef double[::1] far_frac = far[2]
    cdef int[::1] near_low = near[0]
    cdef int[::1] near_high = near[1]
    cdef double[::1] near_frac = near[2]
    k.far_low = &far_low[0]
    k.far_high = &far_high[0]
    k.far_frac = &far_frac[0]
    k.near_low = &near_low[0]
    k.near_high = &near_high[0]
    k.near_frac = &near_frac[0]
    return grid_low, grid_high, grid_frac, far, near


#: The refinement's plans by the grid, steps and smallest scale they were made for.
_PLANS = {}


cdef object _refinement_plans(const double[::1] scales, const double[::1] offsets,
                              const double[::1] edges, double min_scale):
    """Where the refinement's alignments sample a profile, for every grid alignment it may
    start from: the far edge moved by each step, then the near edge by each step from each
    of those (``_axis``'s alignments, computed as it computes them), made once a process."""
    key = (bytes(scales), bytes(offsets), bytes(edges), min_scale)
    if key in _PLANS:
        return _PLANS[key]
    cdef int grid = <int> scales.shape[0], steps = <int> edges.shape[0], g, e, f, j
    far_low = np.empty(grid * steps * SIDE, np.intc)
    far_high = np.empty(grid * steps * SIDE, np.intc)
    far_frac = np.empty(grid * steps * SIDE, np.float64)
    near_low = np.empty(grid * steps * steps * SIDE, np.intc)
    near_high = np.empty(grid * steps * steps * SIDE, np.intc)
    near_frac = np.empty(grid * steps * steps * SIDE, np.float64)
    cdef int[::1] fl = far_low
    cdef int[::1] fh = far_high
    cdef double[::1] ff = far_frac
    cdef int[::1] nl = near_low
    cdef int[::1] nh = near_high
    cdef double[::1] nf = near_frac
    cdef double s0, o0, s1, o1, s2, o2
    cdef Py_ssize_t at
    for g in range(grid):
        s0 = scales[g]
        o0 = offsets[g]
        for e in range(steps):
            s1 = _clip(s0 + edges[e], min_scale, 1.0)
            o1 = _clip(o0, 0.0, 1.0 - s1)
            at = (<Py_ssize_t> g * steps + e) * SIDE
            for j in range(SIDE):
                _sample_at(s1, o1, j, &fl[at + j], &fh[at + j], &ff[at + j])
            for f in range(steps):
                s2 = _clip(s1 - edges[f], min_scale, 1.0)
                o2 = _clip(_clip(o1 + edges[f], 0.0, 1.0), 0.0, 1.0 - s2)
                at = ((<Py_ssize_t> g * steps + e) * steps + f) * SIDE
                for j in range(SIDE):
                    _sample_at(s2, o2, j, &nl[at + j], &nh[at + j], &nf[at + j])
    plans = ((far_low, far_high, far_frac), (near_low, near_high, near_frac))
    _PLANS[key] = plans
    return plans


cdef object _run(const unsigned char[:, ::1] x, const unsigned char[:, ::1] y,
                 const double[::1] scales, const double[::1] offsets, const double[::1] edges,
                 const double[:, :, ::1] weights, dict constants,
                 bint full, double below):
    cdef Py_ssize_t pairs = x.shape[0], p
    if y.shape[0] != pairs or x.shape[1] != WIDTH or y.shape[1] != WIDTH:
        raise ValueError("descriptors must be (P, %d) rows alike" % WIDTH)
    cdef Constants k
    plan = _constants_of(&k, scales, offsets, edges, weights, constants)
    result = np.zeros((pairs, NFIELDS), np.float64)
    if pairs == 0:
        return result
    cdef double[:, ::1] out = result
    buffers = np.zeros(20 * GREY_BYTES, np.float64)
    cdef double[::1] buf = buffers
    own = np.zeros(2 * (GREY_BYTES + 2 * SIDE + CELLS * CELLS), np.float64)
    cdef double[::1] held = own
    cdef double *at_a = &held[0]
    cdef double *at_b = at_a + GREY_BYTES + 2 * SIDE + CELLS * CELLS
    cdef Facts fa, fb
    with nogil:
        for p in range(pairs):
            _facts(&x[p, 0], &k, at_a, at_a + GREY_BYTES, at_a + GREY_BYTES + SIDE,
                   at_a + GREY_BYTES + 2 * SIDE, NULL, NULL, &fa)
            _facts(&y[p, 0], &k, at_b, at_b + GREY_BYTES, at_b + GREY_BYTES + SIDE,
                   at_b + GREY_BYTES + 2 * SIDE, NULL, NULL, &fb)
            _pair(&x[p, 0], &y[p, 0], &fa, &fb, scales, offsets, edges, weights, &k, full,
                  below, &buf[0], &out[p, 0])
    return result


cdef object _run_indexed(const unsigned char[:, ::1] table, const Py_ssize_t[::1] first,
                         const Py_ssize_t[::1] second, const double[::1] scales,
                         const double[::1] offsets, const double[::1] edges,
                         const double[:, :, ::1] weights, dict constants, double below):
    """``_run``'s similarities of the pairs (first[p], second[p]) of ``table``'s rows, each
    row's facts, its profiles' grid samples among them, worked out once."""
    cdef Py_ssize_t rows = table.shape[0], pairs = first.shape[0], p, i
    if second.shape[0] != pairs or table.shape[1] != WIDTH:
        raise ValueError("descriptors must be (N, %d) rows, pairs two index arrays alike" % WIDTH)
    if pairs and (min(np.min(first), np.min(second)) < 0
                  or max(np.max(first), np.max(second)) >= rows):
        raise ValueError("a pair names a row the table does not hold")
    cdef Constants k
    plan = _constants_of(&k, scales, offsets, edges, weights, constants)
    result = np.zeros(pairs, np.float64)
    if pairs == 0:
        return result
    cdef int grid = k.grid_count
    fields = np.zeros(NFIELDS, np.float64)
    cdef double[::1] field = fields
    cdef double[::1] out = result
    buffers = np.zeros(20 * GREY_BYTES, np.float64)
    cdef double[::1] buf = buffers
    cdef double[:, ::1] grey = np.empty((rows, GREY_BYTES), np.float64)
    cdef double[:, ::1] profiles = np.empty((rows, 2 * SIDE), np.float64)
    cdef double[:, ::1] coarse = np.empty((rows, CELLS * CELLS), np.float64)
    cdef double[:, ::1] samples = np.empty((rows, 2 * grid * SIDE), np.float64)
    cdef unsigned char[:, ::1] flat = np.empty((rows, 2 * grid), np.uint8)
    facts_bytes = np.zeros(rows * sizeof(Facts), np.uint8)
    cdef unsigned char[::1] facts_view = facts_bytes
    cdef Facts *facts = <Facts *> &facts_view[0]
    with nogil:
        for i in range(rows):
            _facts(&table[i, 0], &k, &grey[i, 0], &profiles[i, 0], &profiles[i, SIDE],
                   &coarse[i, 0], &samples[i, 0], &flat[i, 0], &facts[i])
        for p in range(pairs):
            _pair(&table[first[p], 0], &table[second[p], 0], &facts[first[p]],
                  &facts[second[p]], scales, offsets, edges, weights, &k, False, below,
                  &buf[0], &field[0])
            out[p] = field[0]
    return result


def similarities(
    const unsigned char[:, ::1] x,
    const unsigned char[:, ::1] y,
    const double[::1] scales,
    const double[::1] offsets,
    const double[::1] edges,
    const double[:, :, ::1] weights,
    dict constants,
    double below=-1.0,
):
    """``check.compare(x, y).similarity`` for (P, DESCRIPTOR_BYTES) descriptors: the grid of
    alignments and its refinement steps, the area matrices ``weights[side]`` (side, 32) padded
    into (33, 32, 32), and the check's constants by name. A pair that cannot reach ``below``
    may stop early (``check.stopped_early``)."""
    return np.ascontiguousarray(
        _run(x, y, scales, offsets, edges, weights, constants, False, below)[:, 0]
    )


def comparisons(
    const unsigned char[:, ::1] x,
    const unsigned char[:, ::1] y,
    const double[::1] scales,
    const double[::1] offsets,
    const double[::1] edges,
    const double[:, :, ::1] weights,
    dict constants,
):
    """Every field of ``check.compare(x, y)`` (``FIELDS``, in order) as a (P, 15) array."""
    return _run(x, y, scales, offsets, edges, weights, constants, True, -1.0)


def similarities_of(
    const unsigned char[:, ::1] table,
    const Py_ssize_t[::1] first,
    const Py_ssize_t[::1] second,
    const double[::1] scales,
    const double[::1] offsets,
    const double[::1] edges,
    const double[:, :, ::1] weights,
    dict constants,
    double below=-1.0,
):
    """``similarities`` of the pairs (``first[p]``, ``second[p]``) of (N, DESCRIPTOR_BYTES)
    ``table``'s rows: what each picture gives on its own (its profiles sampled at every grid
    alignment among it) is worked out once, however many pairs it is in; the same numbers."""
    return _run_indexed(table, first, second, scales, offsets, edges, weights, constants, below)


DEF TRANSPARENT = 2


cdef void _levels_of(const unsigned char *row, int start, int side, double *out) noexcept nogil:
    """A descriptor's (side, side) thumbnail at ``start`` as grey levels on the grey
    thumbnail's grid (each sample repeated ``SIDE // side`` times each way)."""
    cdef int repeat = SIDE // side, i, j
    for i in range(SIDE):
        for j in range(SIDE):
            out[i * SIDE + j] = row[start + (i // repeat) * side + j // repeat]


cdef void _aligned_pair(const unsigned char *a, const unsigned char *b, int start, int side,
                        double sy, double oy, double sx, double ox, bint inside,
                        double *out_a, double *out_b, double *rows) noexcept nogil:
    """``check._aligned`` of one pair: both thumbnails on the grey grid, the container's
    region resampled onto the inner's grid, in place (none where the alignment is the
    whole)."""
    _levels_of(a, start, side, out_a)
    _levels_of(b, start, side, out_b)
    if sy == 1.0 and oy == 0.0 and sx == 1.0 and ox == 0.0:
        return
    if inside:
        _region(out_a, SIDE, sy, oy, sx, ox, rows, out_a)
    else:
        _region(out_b, SIDE, sy, oy, sx, ox, rows, out_b)


cdef double _coarse_spread(const double *grey, double *cells) noexcept nogil:
    """The deviation of a thumbnail's ``_coarse`` cells."""
    cdef double mean, spread
    _coarse(grey, cells)
    _mean_spread(cells, CELLS * CELLS, &mean, &spread)
    return spread


cdef void _drawn_tone(const double *grey, const unsigned char *drawn, double cells,
                      double *mean, double *spread) noexcept nogil:
    """Mean and deviation of a thumbnail's levels over its ``drawn`` cells."""
    cdef double total = 0.0, squares = 0.0, d
    cdef int i
    for i in range(GREY_BYTES):
        if drawn[i]:
            total += grey[i]
    mean[0] = total / cells
    for i in range(GREY_BYTES):
        if drawn[i]:
            d = grey[i] - mean[0]
            squares += d * d
    spread[0] = sqrt(squares / cells)


def tones(
    const unsigned char[:, ::1] kept,
    const unsigned char[:, ::1] others,
    const double[::1] scale_y,
    const double[::1] offset_y,
    const double[::1] scale_x,
    const double[::1] offset_x,
    const unsigned char[::1] b_in_a,
    double drawn_level,
    int least_drawn,
):
    """``check._tones``'s figures for (P, DESCRIPTOR_BYTES) rows aligned as a comparison
    aligned them, as a (P, 4) array of the mean and deviation of each side (kept's, then
    the other's: mean_a, mean_b, spread_a, spread_b), NaN where the comparison's own
    figure stands: a transparent pair over the cells opaque to ``drawn_level`` in both
    (where at least ``least_drawn`` are), the spreads of an opaque pair whose alignment
    moved over ``_coarse`` cells."""
    cdef Py_ssize_t pairs = kept.shape[0], p
    cdef int i, count
    if (others.shape[0] != pairs or kept.shape[1] != WIDTH or others.shape[1] != WIDTH
            or scale_y.shape[0] != pairs or offset_y.shape[0] != pairs
            or scale_x.shape[0] != pairs or offset_x.shape[0] != pairs
            or b_in_a.shape[0] != pairs):
        raise ValueError("descriptors must be (P, %d) rows alike, with P alignments" % WIDTH)
    result = np.full((pairs, 4), np.nan)
    if pairs == 0:
        return result
    cdef double[:, ::1] out = result
    buffers = np.zeros(6 * GREY_BYTES, np.float64)
    cdef double[::1] buf = buffers
    cdef double *ga = &buf[0]
    cdef double *gb = ga + GREY_BYTES
    cdef double *oa = gb + GREY_BYTES
    cdef double *ob = oa + GREY_BYTES
    cdef double *rows = ob + GREY_BYTES
    cdef double *cells = rows + GREY_BYTES
    cdef unsigned char drawn[GREY_BYTES]
    cdef const unsigned char *a
    cdef const unsigned char *b
    cdef bint clear, moved, inside
    with nogil:
        for p in range(pairs):
            a = &kept[p, 0]
            b = &others[p, 0]
            clear = ((a[0] | b[0]) & TRANSPARENT) != 0
            moved = not clear and (scale_x[p] < 1.0 or scale_y[p] < 1.0)
            if not (clear or moved):
                continue
            inside = b_in_a[p] != 0
            _aligned_pair(a, b, HEADER, SIDE, scale_y[p], offset_y[p], scale_x[p],
                          offset_x[p], inside, ga, gb, rows)
            if moved:
                out[p, 2] = _coarse_spread(ga, cells)
                out[p, 3] = _coarse_spread(gb, cells)
                continue
            _aligned_pair(a, b, CHROMA_END, ALPHA, scale_y[p], offset_y[p], scale_x[p],
                          offset_x[p], inside, oa, ob, rows)
            count = 0
            for i in range(GREY_BYTES):
                drawn[i] = oa[i] >= drawn_level and ob[i] >= drawn_level
                count += drawn[i]
            if count < least_drawn:
                continue
            _drawn_tone(ga, drawn, <double> count, &out[p, 0], &out[p, 2])
            _drawn_tone(gb, drawn, <double> count, &out[p, 1], &out[p, 3])
    return result
