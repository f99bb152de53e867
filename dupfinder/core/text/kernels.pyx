# cython: language_level=3
"""A document's shingles, SimHash and sketch compiled ahead of time: one pass, no temporaries.

Only :mod:`dupfinder.core.text.compiled` calls this module (through
:func:`dupfinder.core.jit.engine.load`). The functions compute exactly what the numpy
reference in ``text.simhash`` and ``text.sketch`` computes (tests compare them on every
script); they exist because the numpy version spends most of a short document's time on the
fixed cost of some sixty array operations, and a long one's on a dozen passes over every
character.

1. ``shingle_hashes``: from folded code points to shingle hashes. Tokens (runs of word
   characters, single CJK characters) are hashed as they are read (Horner with ``P``, then
   ``fmix64``), and each run of ``size`` token hashes is combined with ``Q`` and ``fmix64``.
2. After ``np.sort``, ``fingerprint``: each distinct shingle weighs ``rint(sqrt(count) * scale)``
   (whole numbers, so integer sums equal the reference's exact float sums); per bit, the weight
   of the shingles with it set decides the SimHash bit (tallied through byte histograms, as
   the numpy path does); the first hash of each of the sketch's bins (its minimum, the input
   being sorted) gives the sketch value.
"""

from libc.math cimport rint, sqrt
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memset

import numpy as np

# The hash constants and character classes of ``text.simhash`` and ``text.chars``, written
# out here (a test keeps them equal).
P = 0x9E3779B97F4A7C15
Q = 0xC2B2AE3D27D4EB4F
M1 = 0xFF51AFD7ED558CCD
M2 = 0xC4CEB9FE1A85EC53
WORD = 2
CJK = 3
NOT_SINGLE = 0xFFFFFFFF

cdef uint64_t _P = 0x9E3779B97F4A7C15ULL
cdef uint64_t _Q = 0xC2B2AE3D27D4EB4FULL
cdef uint64_t _M1 = 0xFF51AFD7ED558CCDULL
cdef uint64_t _M2 = 0xC4CEB9FE1A85EC53ULL
cdef uint8_t _WORD = 2
cdef uint8_t _CJK = 3
cdef uint32_t _NOT_SINGLE = 0xFFFFFFFFU

ctypedef fused code_point:
    uint8_t
    uint32_t


cdef inline uint64_t _fmix64(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= _M1
    h ^= h >> 33
    h *= _M2
    h ^= h >> 33
    return h


def shingle_hashes(
    const code_point[::1] cps, const uint32_t[::1] fold, const uint8_t[::1] classes, int size
):
    """Shingle hashes (unsorted, one per position) and the token count of a text's code points.

    ``fold`` maps a code point to its casefolded NFKC form (``text.chars``' table, or an empty
    array when ``cps`` are folded already); ``classes`` is the class table. Code points past
    the end of either table are separators. A code point that does not fold to exactly one
    (an expansion, a dropped character, one not in the table yet) stops the pass: the count
    is then -1 and the caller folds the text the general way. Fewer tokens than ``size``: the
    whole text is one shingle.
    """
    cdef Py_ssize_t n = cps.shape[0], i, j, count = 0, shingles
    cdef Py_ssize_t last = classes.shape[0] - 1, fold_last = fold.shape[0] - 1
    cdef bint use_fold = fold.shape[0] > 0, in_word = False, unfolded = False
    cdef uint32_t cp
    cdef uint8_t kind
    cdef uint64_t h = 0, acc
    cdef int k
    if classes.shape[0] == 0:
        raise ValueError("the class table is empty")
    if size < 0:
        raise ValueError("size must not be negative")
    tokens_array = np.empty(n, np.uint64)
    cdef uint64_t[::1] tokens = tokens_array
    with nogil:
        for i in range(n):
            cp = <uint32_t> cps[i]
            if use_fold:
                cp = fold[cp if cp < <uint32_t> fold_last else fold_last]
                if cp == _NOT_SINGLE:
                    unfolded = True
                    break
            kind = classes[cp if cp < <uint32_t> last else last]
            if kind == _WORD:
                h = h * _P + cp if in_word else cp
                in_word = True
                continue
            if in_word:
                tokens[count] = _fmix64(h)
                count += 1
                in_word = False
            if kind == _CJK:
                tokens[count] = _fmix64(cp)
                count += 1
    if unfolded:
        return np.empty(0, np.uint64), -1
    if in_word:
        tokens[count] = _fmix64(h)
        count += 1
    shingles = count - size + 1
    if shingles <= 0:
        size, shingles = count, 1
    if size == 0:
        return tokens_array[:0], count
    with nogil:
        for j in range(shingles):  # in place: shingle j reads tokens j.. only
            acc = tokens[j]
            for k in range(1, size):
                acc = acc * _Q + tokens[j + k]
            tokens[j] = _fmix64(acc)
    return tokens_array[:shingles], count


def fingerprint(const uint64_t[::1] sorted_hashes, double scale, int bin_bits, int bits):
    """SimHash (sqrt-of-count weights in units of 1/scale) and sketch (2**bin_bits bins, 1 to
    8 bits each) of ascending shingle hashes.

    Weights go into a histogram per (byte position, byte value): eight additions per shingle,
    then 2,048 x 8 for the document, instead of 64 per shingle.
    """
    cdef int64_t histogram[8 * 256]
    cdef int64_t total = 0, weight, weight_set
    cdef uint64_t shift, modulus, value, slot, out = 0
    cdef Py_ssize_t n = sorted_hashes.shape[0], i = 0, j
    cdef int b, byte, bit, x
    if not 0 <= bin_bits <= 24 or not 1 <= bits <= 8:
        raise ValueError("bin_bits must be 0..24 and bits 1..8")
    shift = <uint64_t> (64 - bin_bits) if bin_bits > 0 else 0
    modulus = ((<uint64_t> 1) << bits) - 1
    sketch_array = np.zeros(1 << bin_bits, np.uint8)
    cdef uint8_t[::1] sketch = sketch_array
    with nogil:
        memset(histogram, 0, sizeof(histogram))
        while i < n:
            value = sorted_hashes[i]
            j = i + 1
            while j < n and sorted_hashes[j] == value:
                j += 1
            weight = <int64_t> rint(sqrt(<double> (j - i)) * scale)
            total += weight
            for b in range(8):
                histogram[b * 256 + <int> ((value >> (8 * b)) & 255)] += weight
            slot = (value >> shift) if bin_bits > 0 else 0
            if sketch[slot] == 0:  # the bin's first, hence smallest, hash
                sketch[slot] = <uint8_t> (value % modulus + 1)
            i = j
        for byte in range(8):
            for bit in range(8):
                weight_set = 0
                for x in range(256):
                    if (x >> bit) & 1:
                        weight_set += histogram[byte * 256 + x]
                if 2 * weight_set > total:
                    out |= (<uint64_t> 1) << (8 * byte + bit)
    return out, sketch_array
