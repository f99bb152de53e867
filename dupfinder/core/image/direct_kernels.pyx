# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A small picture's steps compiled: grey over a background, its plain border, Pillow's resize.

Only :mod:`dupfinder.core.image.direct` calls this module (through
:func:`dupfinder.core.jit.engine.load`). Each function is one step ``perceptual`` takes with
Pillow, in Pillow's own integer arithmetic, so the two paths give the same numbers (tests hold
them equal on real pictures):

- ``grey_over``: ITU-R 601 luma ``(19595 R + 38470 G + 7471 B + 0x8000) >> 16`` (Pillow's
  ``L24``), composited over a plain level by the alpha band as ``Image.paste`` with a mask
  blends (``BLEND``: ``DIV255(out (255 - a) + in a)``);
- ``border``: ``levels.trim_levels``'s rule, the same comparisons;
- ``resized``: ``ImagingResample`` for 8-bit bands, a horizontal and a vertical pass of integer
  weights (the plan's, handed in as taps), each pass rounded and clipped to 8 bits, in the
  plan's order;
- ``premultiplied`` and ``over_white``: Pillow's RGBA to RGBa (``MULDIV255``), RGBa back to
  RGBA (whole division), and ``Image.alpha_composite`` over opaque white (7 bits of precision);
- ``halved`` and ``spread``: the descriptor's box halving and the flatness test's sums;
- ``shown_parts``: the steps after a whole picture's border was cut off, in one call (an
  icon's steps cost more in the interpreter between them than in themselves), each resize
  by a ``Resize`` made once per picture size.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t
from libc.string cimport memcpy

cdef extern from *:
    """
    /* PNG's serial filters (Sub, Average, Paeth) a pixel at a time in the lanes of one SSE
       register, each channel a 16-bit lane: the chain of dependent steps from one pixel to
       the next is one pixel's, not three or four channels' interleaved, and the Paeth choice
       is made with compares and masks instead of branches that real rows mispredict. */
    #include <stdint.h>
    #include <string.h>
    #if defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)
    #include <emmintrin.h>
    #define DF_UNFILTER_SIMD 1
    #if defined(__GNUC__) || defined(__clang__)
    #define DF_INLINE static inline __attribute__((always_inline))
    #elif defined(_MSC_VER)
    #define DF_INLINE static __forceinline
    #else
    #define DF_INLINE static inline
    #endif
    #if defined(__SSSE3__)
    #include <tmmintrin.h>
    #define DF_ABS16(v) _mm_abs_epi16(v)
    #else
    #define DF_ABS16(v) _mm_max_epi16((v), _mm_sub_epi16(_mm_setzero_si128(), (v)))
    #endif
    #if defined(__SSE4_1__)
    #include <smmintrin.h>
    #define DF_SELECT(mask, yes, no) _mm_blendv_epi8((no), (yes), (mask))
    #else
    #define DF_SELECT(mask, yes, no) \
        _mm_or_si128(_mm_and_si128((mask), (yes)), _mm_andnot_si128((mask), (no)))
    #endif

    /* One pixel of ``bands`` (3 or 4, a constant where inlined) bytes, one per 16-bit lane. */
    DF_INLINE __m128i df_pixel(const uint8_t *at, const int bands) {
        int32_t v = 0;
        memcpy(&v, at, (size_t)bands);
        return _mm_unpacklo_epi8(_mm_cvtsi32_si128(v), _mm_setzero_si128());
    }

    DF_INLINE void df_put(uint8_t *at, __m128i v, const int bands) {
        int32_t out = _mm_cvtsi128_si32(_mm_packus_epi16(v, v));
        memcpy(at, &out, (size_t)bands);
    }

    /* Each loop moves four bytes a pixel while four bytes lie within the row, then the
       pixel's own bands: a three-band pixel's fourth byte is the next pixel's first (a grey
       pixel's next three are the next three pixels), read and written again when its turn
       comes (three-byte moves are split in two by the compiler). Lanes hold 0..255 with a
       zero high byte: a byte-wise add is the sum modulo 256 and leaves the high bytes
       zero. */
    #define DF_EACH_PIXEL(width, bands, STEP) do { \
            Py_ssize_t x_ = 0; \
            for (; x_ * (bands) + 4 <= (width) * (bands); x_++) { STEP(x_ * (bands), 4) } \
            for (; x_ < (width); x_++) { STEP(x_ * (bands), (bands)) } \
        } while (0)

    #define DF_SUB_STEP(at, size) \
        left = _mm_add_epi8(left, df_pixel(row + (at), size)); \
        df_put(line + (at), left, size);

    DF_INLINE void df_sub(const uint8_t *row, uint8_t *line, Py_ssize_t width,
                          const int bands) {
        __m128i left = _mm_setzero_si128();
        DF_EACH_PIXEL(width, bands, DF_SUB_STEP);
    }

    /* ``above`` NULL: the first row, where the row above is taken as zeros. */
    #define DF_AVERAGE_STEP(at, size) \
        if (above != NULL) up = df_pixel(above + (at), size); \
        left = _mm_add_epi8(_mm_srli_epi16(_mm_add_epi16(left, up), 1), \
                            df_pixel(row + (at), size)); \
        df_put(line + (at), left, size);

    DF_INLINE void df_average(const uint8_t *row, uint8_t *line, const uint8_t *above,
                              Py_ssize_t width, const int bands) {
        __m128i left = _mm_setzero_si128(), up = _mm_setzero_si128();
        DF_EACH_PIXEL(width, bands, DF_AVERAGE_STEP);
    }

    /* Paeth below the first row: the neighbour (left a, above b, upper left c) nearest to
       p = a + b - c, ties in that order. */
    #define DF_PAETH_STEP(at, size) { \
            __m128i b = df_pixel(above + (at), size); \
            __m128i to_a = _mm_sub_epi16(b, c);  /* p - a */ \
            __m128i to_b = _mm_sub_epi16(a, c);  /* p - b */ \
            __m128i pa = DF_ABS16(to_a); \
            __m128i pb = DF_ABS16(to_b); \
            __m128i pc = DF_ABS16(_mm_add_epi16(to_a, to_b));  /* p - c */ \
            __m128i least = _mm_min_epi16(_mm_min_epi16(pa, pb), pc); \
            __m128i nearest = DF_SELECT(_mm_cmpeq_epi16(least, pb), b, c); \
            nearest = DF_SELECT(_mm_cmpeq_epi16(least, pa), a, nearest); \
            a = _mm_add_epi8(nearest, df_pixel(row + (at), size)); \
            df_put(line + (at), a, size); \
            c = b; \
        }

    DF_INLINE void df_paeth(const uint8_t *row, uint8_t *line, const uint8_t *above,
                            Py_ssize_t width, const int bands) {
        __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();
        DF_EACH_PIXEL(width, bands, DF_PAETH_STEP);
    }

    /* One Sub (1), Average (3) or Paeth (4) row of 1, 3 or 4 bands; ``above`` NULL on the
       first row (where Paeth is Sub). Each band count is its own inlined copy. */
    #define DF_ROW(n) \
        if (kind == 1 || (kind == 4 && above == NULL)) df_sub(row, line, width, n); \
        else if (kind == 3) df_average(row, line, above, width, n); \
        else df_paeth(row, line, above, width, n);
    static void df_serial_row(int kind, const uint8_t *row, uint8_t *line,
                              const uint8_t *above, Py_ssize_t width, int bands) {
        if (bands == 1) { DF_ROW(1) }
        else if (bands == 3) { DF_ROW(3) }
        else { DF_ROW(4) }
    }
    #else
    #define DF_UNFILTER_SIMD 0
    static void df_serial_row(int kind, const uint8_t *row, uint8_t *line,
                              const uint8_t *above, Py_ssize_t width, int bands) {}
    #endif
    """
    bint UNFILTER_SIMD "DF_UNFILTER_SIMD"
    void simd_serial_row "df_serial_row"(int kind, const uint8_t *row, uint8_t *line,
                                         const uint8_t *above, Py_ssize_t width,
                                         int bands) noexcept nogil

#: Whether ``unfiltered`` takes the vector path (x86-64); elsewhere the scalar one.
VECTORISED = bool(UNFILTER_SIMD)

import numpy as np

#: Fractional bits of Pillow's fixed-point weights (``resample.PRECISION_BITS``).
DEF PRECISION = 22
DEF HALF = 1 << (PRECISION - 1)


cdef inline uint32_t _div255(uint32_t value) noexcept nogil:
    value += 128
    return ((value >> 8) + value) >> 8


cdef inline int _shown(const uint8_t[:, :, :] pixels, Py_ssize_t y, Py_ssize_t x,
                       Py_ssize_t bands, uint32_t background) noexcept nogil:
    """One sample's grey as ``grey_over`` takes it over ``background`` (the sample itself for
    grey)."""
    cdef uint32_t luma
    if bands == 1:
        return pixels[y, x, 0]
    luma = (pixels[y, x, 0] * 19595 + pixels[y, x, 1] * 38470 + pixels[y, x, 2] * 7471
            + 0x8000) >> 16
    if bands == 4:
        luma = _div255(background * (255 - pixels[y, x, 3]) + luma * pixels[y, x, 3])
    return <int>luma


def grey_over(const uint8_t[:, :, :] pixels, int background):
    """The grey of (h, w, 3 or 4) samples, over ``background`` where a fourth band (alpha)
    says so: (h, w) uint8."""
    cdef Py_ssize_t h = pixels.shape[0], w = pixels.shape[1], bands = pixels.shape[2]
    out = np.empty((h, w), dtype=np.uint8)
    cdef uint8_t[:, ::1] grey = out
    cdef Py_ssize_t y, x
    with nogil:
        for y in range(h):
            for x in range(w):
                grey[y, x] = <uint8_t>_shown(pixels, y, x, bands, background)
    return out


def translucent(const uint8_t[:, :, :] pixels):
    """Whether some pixel of (h, w, 4) samples is not fully opaque."""
    cdef Py_ssize_t y, x
    cdef bint found = False
    if pixels.shape[2] != 4:
        return False
    with nogil:
        for y in range(pixels.shape[0]):
            for x in range(pixels.shape[1]):
                if pixels[y, x, 3] != 255:
                    found = True
                    break
            if found:
                break
    return found


cdef int _corner_level(int a, int b, int c, int d, int tolerance) noexcept:
    """The plain border's grey: the median of the four corners (rounded down), or -1 when
    they differ by more than ``tolerance`` (no plain border)."""
    cdef int corners[4]
    cdef int t, i, j
    corners[0] = a
    corners[1] = b
    corners[2] = c
    corners[3] = d
    for i in range(1, 4):  # sort four
        t = corners[i]
        j = i - 1
        while j >= 0 and corners[j] > t:
            corners[j + 1] = corners[j]
            j -= 1
        corners[j + 1] = t
    if corners[3] - corners[0] > tolerance:
        return -1
    return (corners[1] + corners[2]) // 2


cdef inline bint _kept(const uint8_t[:, :, :] pixels, Py_ssize_t y, Py_ssize_t x,
                       Py_ssize_t bands, int tolerance, int level) noexcept nogil:
    """Whether one sample is inside the plain border (``levels.trim_levels``'s rule: ``level``
    is the border's grey, or the background transparent samples are shown over)."""
    cdef int g = _shown(pixels, y, x, bands, level), a
    if bands != 4:
        return g < level - tolerance or g > level + tolerance
    a = pixels[y, x, 3]
    return a > tolerance and (a < 255 - tolerance or g < level - tolerance or g > level + tolerance)


cdef bint _row_kept(const uint8_t[:, :, :] pixels, Py_ssize_t y, Py_ssize_t bands,
                    int tolerance, int level) noexcept nogil:
    """Whether row ``y`` holds a sample inside the border."""
    cdef Py_ssize_t x
    for x in range(pixels.shape[1]):
        if _kept(pixels, y, x, bands, tolerance, level):
            return True
    return False


cdef bint _column_kept(const uint8_t[:, :, :] pixels, Py_ssize_t x, Py_ssize_t top,
                       Py_ssize_t bottom, Py_ssize_t bands, int tolerance,
                       int level) noexcept nogil:
    """Whether column ``x`` holds a sample inside the border, in rows ``top`` to ``bottom``."""
    cdef Py_ssize_t y
    for y in range(top, bottom + 1):
        if _kept(pixels, y, x, bands, tolerance, level):
            return True
    return False


def border(const uint8_t[:, :, :] pixels, int tolerance, double keeps, int background=255):
    """``levels.trim_levels`` of (h, w, 1, 3 or 4) samples shown over ``background`` (255 or
    0), by their alpha band when they have one, as whole pixels (left, top, right, bottom),
    or None for the whole picture; found from the edges inward, so the rows and columns past
    the border's first are never read (a photo without a plain border: its four corners)."""
    cdef Py_ssize_t h = pixels.shape[0], w = pixels.shape[1], bands = pixels.shape[2]
    if h < 8 or w < 8:
        return None
    cdef int level = background
    cdef Py_ssize_t top = 0, bottom = h - 1, left = 0, right = w - 1
    if bands != 4:
        level = _corner_level(_shown(pixels, 0, 0, bands, background),
                              _shown(pixels, 0, w - 1, bands, background),
                              _shown(pixels, h - 1, 0, bands, background),
                              _shown(pixels, h - 1, w - 1, bands, background), tolerance)
        if level < 0:
            return None
    with nogil:
        while top < h and not _row_kept(pixels, top, bands, tolerance, level):
            top += 1
        if top < h:  # row ``top`` holds one: each scan below stops there at the latest
            while not _row_kept(pixels, bottom, bands, tolerance, level):
                bottom -= 1
            while not _column_kept(pixels, left, top, bottom, bands, tolerance, level):
                left += 1
            while not _column_kept(pixels, right, top, bottom, bands, tolerance, level):
                right -= 1
    if top == h:
        return None
    if (bottom + 1 - top) < keeps * h or (right + 1 - left) < keeps * w:
        return None
    if (left, top, right + 1, bottom + 1) == (0, 0, w, h):
        return None
    return (left, top, right + 1, bottom + 1)


def resized(const uint8_t[:, :, :] pixels,
            const int32_t[::1] x_start, const int32_t[::1] x_count, const int32_t[:, ::1] x_weight,
            const int32_t[::1] y_start, const int32_t[::1] y_count, const int32_t[:, ::1] y_weight,
            bint horizontal_first):
    """(h, w, bands) resized to (len(y_start), len(x_start), bands) as Pillow resizes 8-bit
    bands: output column ``i`` sums ``x_count[i]`` inputs from ``x_start[i]`` by
    ``x_weight[i]``, rows likewise; each pass rounded and clipped to 8 bits, in the order
    given. Band by band, each through ``resized_grey``'s passes."""
    cdef Py_ssize_t h = pixels.shape[0], w = pixels.shape[1], bands = pixels.shape[2]
    cdef Py_ssize_t out_w = x_start.shape[0], out_h = y_start.shape[0], b, y, x
    out = np.empty((out_h, out_w, bands), dtype=np.uint8)
    cdef uint8_t[:, :, ::1] result = out
    cdef uint8_t[:, ::1] plane = np.empty((h, w), dtype=np.uint8)
    cdef uint8_t[:, ::1] done = np.empty((out_h, out_w), dtype=np.uint8)
    cdef Passes passes = Passes(h, w, out_h, out_w, horizontal_first)
    for b in range(bands):
        for y in range(h):
            for x in range(w):
                plane[y, x] = pixels[y, x, b]
        passes.run(plane, done, x_start, x_count, x_weight, y_start, y_count, y_weight)
        for y in range(out_h):
            for x in range(out_w):
                result[y, x, b] = done[y, x]
    return out


def resized_grey(const uint8_t[:, ::1] pixels,
                 const int32_t[::1] x_start, const int32_t[::1] x_count,
                 const int32_t[:, ::1] x_weight,
                 const int32_t[::1] y_start, const int32_t[::1] y_count,
                 const int32_t[:, ::1] y_weight,
                 bint horizontal_first):
    """``resized`` for one band (a grey picture), its passes laid out to run in vector
    registers: the same sums in 32-bit integers, as Pillow's own."""
    cdef Py_ssize_t out_w = x_start.shape[0], out_h = y_start.shape[0]
    out = np.empty((out_h, out_w), dtype=np.uint8)
    cdef Passes passes = Passes(pixels.shape[0], pixels.shape[1], out_h, out_w, horizontal_first)
    passes.run(pixels, out, x_start, x_count, x_weight, y_start, y_count, y_weight)
    return out


cdef class Passes:
    """The two passes of one resize and the buffers between them."""

    cdef uint8_t[:, ::1] middle
    cdef int32_t[::1] sums
    cdef bint horizontal_first

    def __cinit__(self, Py_ssize_t h, Py_ssize_t w, Py_ssize_t out_h, Py_ssize_t out_w,
                  bint horizontal_first):
        self.horizontal_first = horizontal_first
        if horizontal_first:
            self.middle = np.empty((h, out_w), dtype=np.uint8)
        else:
            self.middle = np.empty((out_h, w), dtype=np.uint8)
        self.sums = np.empty(max(w, out_w), dtype=np.int32)

    cdef void run(self, const uint8_t[:, ::1] source, uint8_t[:, ::1] target,
                  const int32_t[::1] x_start, const int32_t[::1] x_count,
                  const int32_t[:, ::1] x_weight,
                  const int32_t[::1] y_start, const int32_t[::1] y_count,
                  const int32_t[:, ::1] y_weight) noexcept nogil:
        if self.horizontal_first:
            _across(source, self.middle, x_start, x_count, x_weight)
            _down(self.middle, target, y_start, y_count, y_weight, self.sums)
        else:
            _down(source, self.middle, y_start, y_count, y_weight, self.sums)
            _across(self.middle, target, x_start, x_count, x_weight)


cdef inline uint8_t _clip32(int32_t ss) noexcept nogil:
    ss >>= PRECISION
    if ss < 0:
        return 0
    if ss > 255:
        return 255
    return <uint8_t>ss


cdef void _across(const uint8_t[:, ::1] source, uint8_t[:, ::1] target,
                  const int32_t[::1] start, const int32_t[::1] count,
                  const int32_t[:, ::1] weight) noexcept nogil:
    """The horizontal pass: each output column from its taps of one row."""
    cdef Py_ssize_t y, x, k, taps = weight.shape[1], width = target.shape[1]
    cdef const uint8_t* row
    cdef const int32_t* w
    cdef int32_t ss
    for y in range(source.shape[0]):
        row = &source[y, 0]
        for x in range(width):
            w = &weight[x, 0]
            ss = HALF
            for k in range(count[x]):
                ss += row[start[x] + k] * w[k]
            target[y, x] = _clip32(ss)


cdef void _down(const uint8_t[:, ::1] source, uint8_t[:, ::1] target,
                const int32_t[::1] start, const int32_t[::1] count,
                const int32_t[:, ::1] weight, int32_t[::1] sums) noexcept nogil:
    """The vertical pass: each output row the weighted sum of its taps' rows, summed a whole
    row at a time."""
    cdef Py_ssize_t y, x, k, width = target.shape[1]
    cdef int32_t wk
    cdef int32_t* acc = &sums[0]
    cdef const uint8_t* row
    cdef uint8_t* out
    for y in range(target.shape[0]):
        for x in range(width):
            acc[x] = HALF
        for k in range(count[y]):
            wk = weight[y, k]
            row = &source[start[y] + k, 0]
            _accumulate(acc, row, wk, width)
        out = &target[y, 0]
        for x in range(width):
            out[x] = _clip32(acc[x])


cdef inline void _accumulate(int32_t* acc, const uint8_t* row, int32_t wk,
                             Py_ssize_t width) noexcept nogil:
    cdef Py_ssize_t x
    for x in range(width):
        acc[x] += row[x] * wk


def premultiplied(const uint8_t[:, :, :] pixels):
    """RGBA samples as Pillow's RGBa: each colour times alpha over 255 (``MULDIV255``)."""
    cdef Py_ssize_t h = pixels.shape[0], w = pixels.shape[1], y, x, b
    out = np.empty((h, w, 4), dtype=np.uint8)
    cdef uint8_t[:, :, ::1] result = out
    cdef uint32_t alpha
    with nogil:
        for y in range(h):
            for x in range(w):
                alpha = pixels[y, x, 3]
                for b in range(3):
                    result[y, x, b] = <uint8_t>_div255(pixels[y, x, b] * alpha)
                result[y, x, 3] = <uint8_t>alpha
    return out


cdef inline uint32_t _unpremultiply(uint32_t colour, uint32_t alpha) noexcept nogil:
    """Pillow's RGBa to RGBA for one sample: 255 c / alpha (whole division), clipped; as it is
    where alpha is 0 or 255."""
    if alpha == 0 or alpha == 255:
        return colour
    colour = 255 * colour // alpha
    return 255 if colour > 255 else colour


def over_white(const uint8_t[:, :, :] pixels, bint premultiplied):
    """RGBA (or, when ``premultiplied``, RGBa first turned back into RGBA as Pillow does:
    255 c / alpha, whole division, clipped) composited over opaque white as
    ``Image.alpha_composite`` does it: (h, w, 3) uint8."""
    cdef Py_ssize_t h = pixels.shape[0], w = pixels.shape[1], y, x, b
    out = np.empty((h, w, 3), dtype=np.uint8)
    cdef uint8_t[:, :, ::1] result = out
    cdef uint32_t alpha, colour, coef1, coef2, mixed
    with nogil:
        for y in range(h):
            for x in range(w):
                alpha = pixels[y, x, 3]
                for b in range(3):
                    colour = pixels[y, x, b]
                    if premultiplied:
                        colour = _unpremultiply(colour, alpha)
                    if alpha == 0:
                        result[y, x, b] = 255
                    else:
                        coef1 = alpha * 128  # a 255 255 128 / (255 255): over opaque white
                        coef2 = 255 * 128 - coef1
                        mixed = colour * coef1 + 255 * coef2 + (0x80 << 7)
                        result[y, x, b] = <uint8_t>((((mixed >> 8) + mixed) >> 8) >> 7)
    return out


def halved(const uint8_t[:, :] grey):
    """A square of even side box-resized to half its side as Pillow does it: two samples a
    pass at weight one half, the horizontal pass first, each rounded."""
    cdef Py_ssize_t side = grey.shape[0] // 2, y, x
    out = np.empty((side, side), dtype=np.uint8)
    cdef uint8_t[:, ::1] result = out
    cdef uint32_t upper, lower
    with nogil:
        for y in range(side):
            for x in range(side):
                upper = (grey[2 * y, 2 * x] + grey[2 * y, 2 * x + 1] + 1) >> 1
                lower = (grey[2 * y + 1, 2 * x] + grey[2 * y + 1, 2 * x + 1] + 1) >> 1
                result[y, x] = <uint8_t>((upper + lower + 1) >> 1)
    return out


def spread(const uint8_t[:, :] grey):
    """The variance of the grey levels as ``levels.is_flat`` computes it: the mean of the
    squares less the square of the mean, from exact whole sums."""
    cdef Py_ssize_t h = grey.shape[0], w = grey.shape[1], y, x
    cdef int64_t total = 0, squares = 0, v
    with nogil:
        for y in range(h):
            for x in range(w):
                v = grey[y, x]
                total += v
                squares += v * v
    cdef double n = <double>(h * w)
    cdef double mean = <double>total / n
    return <double>squares / n - mean * mean


cdef inline int _distance(int v) noexcept nogil:
    return v if v >= 0 else -v


cdef inline void _paeth_row(const uint8_t *row, uint8_t *line, const uint8_t *above,
                            Py_ssize_t width, int bands) noexcept nogil:
    """A Paeth-filtered row below another: each byte plus the neighbour (left, above or
    upper left) nearest to left + above - upper left, ties in that order (the choice
    written as libpng writes it). Pixel by pixel, the left and upper-left samples kept in
    registers (``bands`` is a constant where this is inlined): each channel's chain of
    dependent steps never waits on a store and a load."""
    cdef int left[4]
    cdef int upper[4]
    cdef Py_ssize_t x, at
    cdef int ch, b, pa, pb, pc, nearest, best
    for ch in range(bands):
        left[ch] = (row[ch] + above[ch]) & 255
        line[ch] = <uint8_t> left[ch]
        upper[ch] = above[ch]
    for x in range(1, width):
        at = x * bands
        for ch in range(bands):
            b = above[at + ch]
            pa = _distance(b - upper[ch])
            pb = _distance(left[ch] - upper[ch])
            pc = _distance(left[ch] + b - 2 * upper[ch])
            nearest = left[ch]
            best = pa
            if pb < best:
                best = pb
                nearest = b
            if pc < best:
                nearest = upper[ch]
            left[ch] = (row[at + ch] + nearest) & 255
            line[at + ch] = <uint8_t> left[ch]
            upper[ch] = b


cdef inline void _sub_row(const uint8_t *row, uint8_t *line, Py_ssize_t width,
                          int bands) noexcept nogil:
    """A Sub-filtered row (or Paeth on the first row): each byte plus the one to its left,
    the left samples kept in registers as in ``_paeth_row``."""
    cdef int left[4]
    cdef Py_ssize_t x, at
    cdef int ch
    for ch in range(bands):
        left[ch] = row[ch]
        line[ch] = row[ch]
    for x in range(1, width):
        at = x * bands
        for ch in range(bands):
            left[ch] = (row[at + ch] + left[ch]) & 255
            line[at + ch] = <uint8_t> left[ch]


cdef void _paeth_row1(const uint8_t *row, uint8_t *line, const uint8_t *above,
                      Py_ssize_t width) noexcept nogil:
    _paeth_row(row, line, above, width, 1)


cdef void _paeth_row3(const uint8_t *row, uint8_t *line, const uint8_t *above,
                      Py_ssize_t width) noexcept nogil:
    _paeth_row(row, line, above, width, 3)


cdef void _paeth_row4(const uint8_t *row, uint8_t *line, const uint8_t *above,
                      Py_ssize_t width) noexcept nogil:
    _paeth_row(row, line, above, width, 4)


cdef void _sub_row1(const uint8_t *row, uint8_t *line, Py_ssize_t width) noexcept nogil:
    _sub_row(row, line, width, 1)


cdef void _sub_row3(const uint8_t *row, uint8_t *line, Py_ssize_t width) noexcept nogil:
    _sub_row(row, line, width, 3)


cdef void _sub_row4(const uint8_t *row, uint8_t *line, Py_ssize_t width) noexcept nogil:
    _sub_row(row, line, width, 4)


def unfiltered(const uint8_t[::1] raw, Py_ssize_t height, Py_ssize_t width, int bands,
               bint vectorised=True):
    """A non-interlaced 8-bit PNG's inflated image data (each row its filter type, then
    ``width`` x ``bands`` filtered bytes, 1, 3 or 4 bands) as its (height, width, bands) pixels;
    None where the data is not exactly that (its length, or a filter type other than the
    five PNG defines), so that another decoder reads the file and names the damage.

    Sub, Average and Paeth rows take the vector path where it is built (``VECTORISED``) and
    ``vectorised`` is left True; False takes the scalar path other CPUs run (for tests)."""
    cdef Py_ssize_t stride = width * bands
    if height < 1 or width < 1 or bands not in (1, 3, 4) or raw.shape[0] != height * (stride + 1):
        return None
    out = np.empty((height, width, bands), dtype=np.uint8)
    cdef uint8_t[:, :, ::1] view = out
    cdef uint8_t *pixels = &view[0, 0, 0]
    cdef const uint8_t *row
    cdef uint8_t *line
    cdef uint8_t *above
    cdef Py_ssize_t y, i
    cdef int kind
    cdef bint damaged = False
    cdef bint simd = vectorised and UNFILTER_SIMD
    cdef bint three = bands == 3
    cdef bint grey = bands == 1
    with nogil:
        for y in range(height):
            row = &raw[y * (stride + 1)]
            kind = row[0]
            row += 1
            line = pixels + y * stride
            above = line - stride  # read only where y > 0
            if kind == 0:
                memcpy(line, row, stride)
            elif kind == 2:  # Up
                if y == 0:
                    memcpy(line, row, stride)
                else:
                    for i in range(stride):
                        line[i] = <uint8_t> (row[i] + above[i])
            elif kind > 4:
                damaged = True
                break
            elif simd:  # Sub, Average or Paeth
                simd_serial_row(kind, row, line, NULL if y == 0 else above, width, bands)
            elif kind == 1 or (kind == 4 and y == 0):  # Sub; Paeth on the first row is Sub
                if three:
                    _sub_row3(row, line, width)
                elif grey:
                    _sub_row1(row, line, width)
                else:
                    _sub_row4(row, line, width)
            elif kind == 3:  # Average
                if y == 0:
                    for i in range(bands):
                        line[i] = row[i]
                    for i in range(bands, stride):
                        line[i] = <uint8_t> (row[i] + (line[i - bands] >> 1))
                else:
                    for i in range(bands):
                        line[i] = <uint8_t> (row[i] + (above[i] >> 1))
                    for i in range(bands, stride):
                        line[i] = <uint8_t> (row[i] + ((line[i - bands] + above[i]) >> 1))
            elif three:  # Paeth, below the first row
                _paeth_row3(row, line, above, width)
            elif grey:
                _paeth_row1(row, line, above, width)
            else:
                _paeth_row4(row, line, above, width)
    return None if damaged else out


cdef class Resize:
    """A resize of pictures of one size to a fixed size as Pillow runs it: ``resized``'s taps
    (``resample``'s weights), made once per picture size and kept, so a picture's steps are
    handed three of these instead of eighteen arrays."""

    cdef int32_t[::1] x_start, x_count, y_start, y_count
    cdef int32_t[:, ::1] x_weight, y_weight
    cdef readonly Py_ssize_t height, width, out_height, out_width
    cdef bint horizontal_first

    def __cinit__(self, Py_ssize_t height, Py_ssize_t width,
                  int32_t[::1] x_start, int32_t[::1] x_count, int32_t[:, ::1] x_weight,
                  int32_t[::1] y_start, int32_t[::1] y_count, int32_t[:, ::1] y_weight,
                  bint horizontal_first):
        self.height, self.width = height, width
        self.out_height, self.out_width = y_start.shape[0], x_start.shape[0]
        self.x_start, self.x_count, self.x_weight = x_start, x_count, x_weight
        self.y_start, self.y_count, self.y_weight = y_start, y_count, y_weight
        self.horizontal_first = horizontal_first

    cdef object grey(self, const uint8_t[:, ::1] pixels):
        """``resized_grey`` by these taps."""
        out = np.empty((self.out_height, self.out_width), dtype=np.uint8)
        cdef Passes passes = Passes(self.height, self.width, self.out_height, self.out_width,
                                    self.horizontal_first)
        passes.run(pixels, out, self.x_start, self.x_count, self.x_weight,
                   self.y_start, self.y_count, self.y_weight)
        return out

    cdef object bands(self, const uint8_t[:, :, :] pixels):
        """``resized`` by these taps."""
        return resized(pixels, self.x_start, self.x_count, self.x_weight,
                       self.y_start, self.y_count, self.y_weight, self.horizontal_first)


def shown_parts(shown_samples, int background, Resize working,
                Resize colours, Resize opacity, bint want_colours, bint want_opacity,
                double flat):
    """A whole picture's steps after its border was cut off, in one call: ``shown`` (h, w, 3
    or 4) as grey over ``background`` resized to the working square (``working``; None where
    it is that square), then, unless that square's variance is under ``flat`` (None is
    returned), its halving, the colours at the chroma thumbnail's size over white
    (``colours``, box; with ``want_colours``) and the opacity thumbnail (``opacity``, box;
    with ``want_opacity`` and an alpha band), as ``direct``'s steps take them one by one:
    (working, halved, colours or None, opacity or None). A resize of None keeps the picture
    as it is (Pillow copies a picture already at the size)."""
    cdef const uint8_t[:, :, :] shown = shown_samples
    cdef Py_ssize_t bands = shown.shape[2]
    grey = grey_over(shown, background)
    square = grey if working is None else working.grey(grey)
    if spread(square) < flat:
        return None
    small = None
    if want_colours:
        if colours is None:
            small = np.ascontiguousarray(shown_samples) if bands == 3 else over_white(shown, False)
        elif bands == 3:
            small = colours.bands(shown)
        else:
            small = over_white(colours.bands(premultiplied(shown)), True)
    alpha = None
    if want_opacity and bands == 4:
        alpha = np.ascontiguousarray(shown_samples[:, :, 3])
        if opacity is not None:
            alpha = opacity.grey(alpha)
    return square, halved(square), small, alpha
