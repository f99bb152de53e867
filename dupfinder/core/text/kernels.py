"""A document's shingles, SimHash and sketch compiled with numba: one pass, no temporaries.

Only :mod:`dupfinder.core.text.simhash` imports this module, lazily (numba is imported here, at the
top). The functions compute exactly what the numpy reference in ``textsim`` and ``sketch``
computes (tests compare them on every script); they exist because the numpy version spends
most of a short document's time on the fixed cost of some sixty array operations, and a
long one's on a dozen passes over every character.

1. ``shingle_hashes``: from folded code points to shingle hashes. Tokens (runs of word
   characters, single CJK characters) are hashed as they are read (Horner with ``P``, then
   ``fmix64``), and each run of ``size`` token hashes is combined with ``Q`` and ``fmix64``.
2. After ``np.sort``, ``fingerprint``: each distinct shingle weighs ``rint(sqrt(count) * scale)``
   (whole numbers, so integer sums equal the reference's exact float sums); per bit, the weight
   of the shingles with it set decides the SimHash bit (tallied through byte histograms, as
   the numpy path does); the first hash of each of the sketch's bins (its minimum, the input
   being sorted) gives the sketch value.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

_JIT: dict[str, Any] = {"nogil": True, "cache": True}

_P = np.uint64(0x9E3779B97F4A7C15)
_Q = np.uint64(0xC2B2AE3D27D4EB4F)
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)
# textchars' classes and marker, written out here: compiled code is cached by this module's
# byte code, which would not change if an imported value did (a test keeps them equal)
WORD = 2
CJK = 3
NOT_SINGLE = np.uint32(0xFFFFFFFF)


@numba.njit(inline="always")
def _fmix64(h: np.uint64) -> np.uint64:
    h ^= h >> _S33
    h *= _M1
    h ^= h >> _S33
    h *= _M2
    h ^= h >> _S33
    return h


@numba.njit(**_JIT)
def shingle_hashes(cps: Any, fold: Any, classes: Any, size: int) -> tuple[Any, int]:
    """Shingle hashes (unsorted, one per position) and the token count of a text's code points.

    ``fold`` maps a code point to its casefolded NFKC form (``textchars``' table, or an empty
    array when ``cps`` are folded already); ``classes`` is the class table. Code points past
    the end of either table are separators. A code point that does not fold to exactly one
    (an expansion, a dropped character, one not in the table yet) stops the pass: the count
    is then -1 and the caller folds the text the general way. Fewer tokens than ``size``: the
    whole text is one shingle.
    """
    last = classes.shape[0] - 1
    use_fold = fold.shape[0] > 0
    fold_last = fold.shape[0] - 1
    tokens = np.empty(cps.shape[0], np.uint64)
    count = 0
    h = np.uint64(0)
    in_word = False
    for i in range(cps.shape[0]):
        cp = np.uint32(cps[i])
        if use_fold:
            cp = fold[min(cp, fold_last)]
            if cp == NOT_SINGLE:
                return np.empty(0, np.uint64), -1
        kind = classes[min(cp, last)]
        if kind == WORD:
            h = h * _P + np.uint64(cp) if in_word else np.uint64(cp)
            in_word = True
            continue
        if in_word:
            tokens[count] = _fmix64(h)
            count += 1
            in_word = False
        if kind == CJK:
            tokens[count] = _fmix64(np.uint64(cp))
            count += 1
    if in_word:
        tokens[count] = _fmix64(h)
        count += 1
    shingles = count - size + 1
    if shingles <= 0:
        size, shingles = count, 1
    if size == 0:
        return tokens[:0], count
    for j in range(shingles):  # in place: shingle j reads tokens j.. only
        acc = tokens[j]
        for k in range(1, size):
            acc = acc * _Q + tokens[j + k]
        tokens[j] = _fmix64(acc)
    return tokens[:shingles], count


@numba.njit(**_JIT)
def fingerprint(sorted_hashes: Any, scale: float, bin_bits: int, bits: int) -> tuple[Any, Any]:
    """SimHash (sqrt-of-count weights in units of 1/scale) and sketch (2**bin_bits bins, 1 to
    8 bits each) of ascending shingle hashes.

    Weights go into a histogram per (byte position, byte value): eight additions per shingle,
    then 2,048 x 8 for the document, instead of 64 per shingle.
    """
    histogram = np.zeros(8 * 256, np.int64)
    total = np.int64(0)
    sketch = np.zeros(1 << bin_bits, np.uint8)
    shift = np.uint64(64 - bin_bits)
    modulus = np.uint64((1 << bits) - 1)
    n = sorted_hashes.shape[0]
    i = 0
    while i < n:
        value = sorted_hashes[i]
        j = i + 1
        while j < n and sorted_hashes[j] == value:
            j += 1
        weight = np.int64(np.rint(np.sqrt(np.float64(j - i)) * scale))
        total += weight
        for b in range(8):
            histogram[b * 256 + np.int64((value >> np.uint64(8 * b)) & np.uint64(255))] += weight
        slot = (value >> shift) if bin_bits > 0 else np.uint64(0)
        if sketch[slot] == 0:  # the bin's first, hence smallest, hash
            sketch[slot] = np.uint8(value % modulus + np.uint64(1))
        i = j
    out = np.uint64(0)
    for byte in range(8):
        for bit in range(8):
            weight_set = np.int64(0)
            for x in range(256):
                if (x >> bit) & 1:
                    weight_set += histogram[byte * 256 + x]
            if 2 * weight_set > total:
                out |= np.uint64(1) << np.uint64(8 * byte + bit)
    return out, sketch
