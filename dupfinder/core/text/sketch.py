"""A second, independent estimate of shared text: a one-permutation b-bit MinHash sketch.

The SimHash finds candidates fast, but it is a weighted vote over all shingles, so two
unrelated documents that share a lot of boilerplate (licences, package metadata, generated
code) can land a few bits apart. This sketch estimates the Jaccard similarity of the two
shingle *sets*: how many of the 3-token runs the documents share out of all they have. It is
what a person means by "x % of the text is the same", and shared boilerplate counts only for
what it is.

One-permutation hashing (Li, Owen and Zhang, NIPS 2012): the (already well mixed) 64-bit
shingle hashes are split into ``BINS`` bins by their top bits, and each bin keeps the smallest
hash that falls in it; of that minimum only ``BITS`` low bits are stored (b-bit MinHash, Li and
König, WWW 2010), with 0 meaning "empty bin". Two documents' minima in a bin are equal with
probability J (their Jaccard similarity); bins empty in both carry no information and are left
out of the estimate, which makes it usable for short documents too. Unequal minima agree on
``BITS`` bits by chance with probability 1 / (2**BITS - 1): the estimator takes that off.

The shingle hashes come sorted out of ``np.unique``, so each bin's minimum is the first hash
of its run: the sketch costs one ``searchsorted`` over ``BINS`` boundaries.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "BINS",
    "BITS",
    "SKETCH_VERSION",
    "pair_similarity",
    "similarity",
    "sketch",
]

#: Bins of the sketch (a power of two): the standard error of the estimate is about
#: sqrt(J (1 - J) / BINS), 0.044 at J = 0.5; chosen on bench/text_verify.py.
BINS = 128
#: Bits kept of each bin's minimum: 8 bits make chance agreement 1/255, which the estimator
#: removes, for a quarter of the memory of full 32-bit minima.
BITS = 8
#: Part of the cache key: changes whenever a sketch of the same text would change.
SKETCH_VERSION = f"oph{BINS}x{BITS}"


def _dtype(bits: int) -> type[np.unsignedinteger]:
    if not 2 <= bits <= 16:
        raise ValueError(f"bits must be from 2 to 16, got {bits}")
    return np.uint8 if bits <= 8 else np.uint16


def sketch(
    sorted_hashes: npt.NDArray[np.uint64], *, bins: int = BINS, bits: int = BITS
) -> npt.NDArray[np.unsignedinteger]:
    """The sketch of a set of 64-bit hashes given in ascending order (e.g. from np.unique).

    ``bins`` and ``bits`` exist for the benchmark; the scan uses the defaults.
    """
    if bins < 1 or bins & (bins - 1):
        raise ValueError(f"bins must be a power of two, got {bins}")
    hashes = np.asarray(sorted_hashes, dtype=np.uint64)
    out = np.zeros(bins, dtype=_dtype(bits))
    if hashes.size == 0:
        return out
    shift = np.uint64(64 - (bins.bit_length() - 1))
    bounds = np.arange(bins, dtype=np.uint64) << shift if bins > 1 else np.zeros(1, np.uint64)
    starts = np.searchsorted(hashes, bounds, side="left")
    ends = np.append(starts[1:], hashes.size)
    filled = starts < ends
    minima = hashes[starts[filled]]
    # stored values are 1..2**bits - 1; 0 marks an empty bin
    out[filled] = minima % np.uint64((1 << bits) - 1) + np.uint64(1)
    return out


def pair_similarity(
    a: npt.ArrayLike, b: npt.ArrayLike, *, bits: int = BITS
) -> npt.NDArray[np.float64]:
    """Estimated Jaccard similarity (0..1) of each row of ``a`` with the same row of ``b``.

    ``a`` and ``b`` are (P, bins) arrays of sketches (or single sketches). Two empty sketches
    count as unrelated.
    """
    x = np.atleast_2d(np.asarray(a))
    y = np.atleast_2d(np.asarray(b))
    if x.shape != y.shape:
        raise ValueError(f"sketches of different shapes: {x.shape} and {y.shape}")
    chance = 1.0 / ((1 << bits) - 1)
    x_set, y_set = x != 0, y != 0
    used = np.count_nonzero(x_set | y_set, axis=1)
    both = np.count_nonzero(x_set & y_set, axis=1)
    equal = np.count_nonzero((x == y) & x_set, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        raw = equal / used
        share_both = both / used
        estimate = (raw - share_both * chance) / (1.0 - chance)
    estimate = np.where(used > 0, estimate, 0.0)
    return np.clip(estimate, 0.0, 1.0)


def similarity(a: npt.ArrayLike, b: npt.ArrayLike, *, bits: int = BITS) -> float:
    """Estimated Jaccard similarity of two sketches, 0..1."""
    return float(pair_similarity(a, b, bits=bits)[0])
