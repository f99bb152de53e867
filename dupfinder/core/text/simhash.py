"""Text fingerprints: a 64-bit Charikar SimHash over weighted shingles, for any script.

Pipeline (defined exactly here, so that a fingerprint is the same on every platform):

1. ``normalize``: Unicode NFKC, then ``str.casefold``. Every code point is then put in a class by
   its Unicode category: letters, marks and numbers are *word* characters; Han, Hiragana,
   Katakana, Hangul and the unsegmented South-East Asian scripts (Thai, Lao, Khmer, Myanmar) are
   *CJK* characters (one token each, since those scripts put no spaces between words); format
   characters (soft hyphen, zero-width joiners, BOM) and variation selectors are *dropped*;
   everything else (punctuation P*, symbols S*, separators Z*, controls, unassigned, private use,
   and every code point above U+3FFFF) separates tokens.
2. Tokens: each maximal run of word characters, and each CJK character.
3. Token hash: Horner polynomial of the code points, ``h = h * P + c`` mod 2**64, then the
   murmur3 ``fmix64`` finaliser. Shingle hash: Horner polynomial of ``SHINGLE`` consecutive token
   hashes with multiplier ``Q``, then ``fmix64`` again. Both are computed vectorised in numpy with
   wrapping uint64 arithmetic, which is why the scheme is fast (no per-feature Python call).
4. Weight of each distinct shingle: ``sqrt(count)``, quantised to an integer number of
   ``1/WEIGHT_SCALE`` so that the tally is exact in float64 whatever order BLAS sums in.
5. SimHash: bit ``b`` (bit 0 = least significant) of the result is 1 when the weights of the
   features whose hash has bit ``b`` set outweigh those with it clear. Bits are read through an
   explicit little-endian view, so byte order never changes the answer.

Bump ``ALGORITHM_VERSION`` whenever any output of this module changes: the cache keys on it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from dupfinder.core import wording
from dupfinder.core.errors import TooLittleContent
from dupfinder.core.jit.engine import Engine
from dupfinder.core.text import compiled as text_compiled
from dupfinder.core.text.chars import WORD, code_points

__all__ = [
    "ALGORITHM_VERSION",
    "MIN_TOKENS",
    "SHINGLE",
    "features",
    "normalize",
    "simhash",
    "simhash_features",
    "text_fingerprint",
    "tokens",
]

#: Changes whenever a fingerprint of the same text would change; part of the cache key.
ALGORITHM_VERSION = "textsim-1"
#: Tokens per shingle (words, or CJK characters), chosen on bench/text_accuracy.py.
SHINGLE = 3
#: Fewer tokens than this give fingerprints that flip on a one-word edit; refuse them.
MIN_TOKENS = 20
#: Weights are rounded to multiples of 1/WEIGHT_SCALE so sums are exact integers.
WEIGHT_SCALE = 256

# Odd multipliers (invertible mod 2**64) for the token and shingle polynomials.
_P = np.uint64(0x9E3779B97F4A7C15)
_Q = np.uint64(0xC2B2AE3D27D4EB4F)
_P_INV = np.uint64(pow(int(_P), -1, 1 << 64))
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)

U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]


@functools.cache
def _powers(base: int, count: int) -> U64:
    """``base**i`` mod 2**64 for i in 0..count-1 (count rounded up by the caller to reuse)."""
    out = np.empty(count, dtype=np.uint64)
    out[0] = 1
    if count > 1:
        out[1:] = np.cumprod(np.full(count - 1, base, dtype=np.uint64), dtype=np.uint64)
    out.flags.writeable = False
    return out


def _pow_table(base: np.uint64, length: int) -> U64:
    """At least ``length`` powers of ``base``; tables up to 2**18 entries (2 MiB) are kept."""
    size = 64
    while size < length:
        size *= 4
    if size > 1 << 18:  # a long document: do not keep a huge table alive
        return _powers.__wrapped__(int(base), size)
    return _powers(int(base), size)


def _fmix64(h: U64) -> U64:
    """murmur3's 64-bit finaliser: every input bit flips each output bit with p ~ 1/2."""
    h = h ^ (h >> np.uint64(33))
    h *= _M1
    h ^= h >> np.uint64(33)
    h *= _M2
    h ^= h >> np.uint64(33)
    return h


def _token_spans(
    cls: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Mask of token characters, and each token's start and length in the masked array."""
    is_tok = cls >= WORD
    word = cls == WORD
    cont = np.zeros(cls.shape, dtype=np.bool_)
    cont[1:] = word[1:] & word[:-1]  # a word character right after another one continues it
    starts_mask = (is_tok & ~cont)[is_tok]
    starts = np.flatnonzero(starts_mask)
    lengths = np.diff(np.append(starts, starts_mask.size))
    return is_tok, starts, lengths


def normalize(text: str) -> str:
    """The text as it is compared: NFKC, casefolded, punctuation and symbols gone, spaces single.

    CJK text keeps its characters together (only its punctuation becomes a space).
    """
    cps, cls = code_points(text)
    out = np.where(cls >= WORD, cps, np.uint32(32)).astype("<u4")
    spaced = out.tobytes().decode("utf-32-le", "surrogatepass")
    return " ".join(spaced.split())


def tokens(text: str) -> list[str]:
    """Words, and single CJK characters, in order (for display and debugging)."""
    cps, cls = code_points(text)
    is_tok, starts, lengths = _token_spans(cls)
    chars = cps[is_tok].astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
    return [chars[s : s + n] for s, n in zip(starts.tolist(), lengths.tolist(), strict=True)]


def _token_hashes(text: str) -> U64:
    cps, cls = code_points(text)
    is_tok, starts, lengths = _token_spans(cls)
    if starts.size == 0:
        return np.empty(0, dtype=np.uint64)
    chars = cps[is_tok].astype(np.uint64)
    poly = _token_polynomials(chars, starts, lengths)
    return _fmix64(poly)


#: Characters handled per pass of _token_polynomials: its power tables stay small and cached.
_SEGMENT = 1 << 15


def _token_polynomials(
    chars: U64, starts: npt.NDArray[np.intp], lengths: npt.NDArray[np.intp]
) -> U64:
    """Each token's Horner polynomial ``sum(c_i * P**(end-1-i))`` without a loop over tokens.

    Weighting character i of a segment of n characters by P**(n-1-i) gives every token's
    polynomial times P**(n-end); the inverse of P (odd, so invertible mod 2**64) takes that
    factor off again per token. Long documents go in segments of whole tokens, so the power
    tables never outgrow _SEGMENT (a single longer token gets a segment of its own).
    """
    ends = starts + lengths
    out = np.empty(starts.size, dtype=np.uint64)
    first = 0
    while first < starts.size:
        last = int(np.searchsorted(ends, starts[first] + _SEGMENT, side="right"))
        last = max(last, first + 1)
        base = int(starts[first])
        n = int(ends[last - 1]) - base
        segment = chars[base : base + n] * _pow_table(_P, n)[n - 1 :: -1]
        local_starts = starts[first:last] - base
        poly = np.add.reduceat(segment, local_starts)
        poly *= _pow_table(_P_INV, n + 1)[n - (ends[first:last] - base)]
        out[first:last] = poly
        first = last
    return out


def _shingle_hashes(token_hashes: U64, size: int) -> U64:
    count = token_hashes.size - size + 1
    if count <= 0:
        size, count = token_hashes.size, 1  # shorter than one shingle: the whole text is one
    if size == 0:
        return np.empty(0, dtype=np.uint64)
    acc = token_hashes[:count].copy()
    for k in range(1, size):
        acc *= _Q
        acc += token_hashes[k : k + count]
    return _fmix64(acc)


def _raw(counts: F64) -> F64:
    return counts


_WEIGHTINGS: dict[str, Callable[[F64], F64]] = {
    "binary": np.ones_like,
    "raw": _raw,
    "sqrt": np.sqrt,
    "log": np.log1p,
}
#: How a shingle's count in the document becomes its weight; chosen on bench/text_accuracy.py.
WEIGHTING = "sqrt"


def features(text: str, *, shingle: int = SHINGLE, weighting: str = WEIGHTING) -> tuple[U64, F64]:
    """Distinct shingle hashes (uint64, sorted) and their weights, the input of the SimHash.

    ``shingle`` and ``weighting`` exist for the accuracy benchmark; ``simhash`` uses the defaults.
    """
    if shingle < 1:
        raise ValueError(f"shingle must be at least 1, got {shingle}")
    if weighting not in _WEIGHTINGS:
        raise ValueError(f"weighting must be one of {sorted(_WEIGHTINGS)}, got {weighting!r}")
    return _features(_token_hashes(text), shingle, weighting)


def _features(token_hashes: U64, shingle: int, weighting: str) -> tuple[U64, F64]:
    hashes, counts = np.unique(_shingle_hashes(token_hashes, shingle), return_counts=True)
    weights: F64 = _WEIGHTINGS[weighting](counts.astype(np.float64))
    return hashes, weights


#: Row v holds the 8 bits of the byte value v (bit 0 first).
_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float64)


#: Added to the eight bytes of a hash: each byte position gets its own 256 histogram slots.
_BYTE_SLOTS = np.arange(8, dtype=np.uint16) * 256


def _weighted_bit_sums(h: U64, w: F64) -> F64:
    """Per bit, the total weight of the hashes that have it set.

    One weighted histogram over (byte position, byte value) of the (little-endian) hashes,
    then a 256 x 8 product: a few passes over the features instead of unpacking 64 bits of
    each. Weights are whole numbers, so every sum is exact in float64 whatever the order.
    """
    slots = h.view(np.uint8).reshape(-1, 8) + _BYTE_SLOTS
    histogram = np.bincount(slots.reshape(-1), weights=np.repeat(w, 8), minlength=2048)
    sums: F64 = (histogram.reshape(8, 256) @ _BYTE_BITS).reshape(-1)
    return sums


def simhash_features(hashes: npt.ArrayLike, weights: npt.ArrayLike) -> int:
    """Charikar SimHash of weighted 64-bit features, as an unsigned int.

    Weights are rounded to multiples of 1/WEIGHT_SCALE first, so the per-bit sums are exact and
    the result cannot depend on summation order (BLAS, platform).
    """
    h = np.ascontiguousarray(hashes, dtype="<u8").reshape(-1)
    w = np.rint(np.asarray(weights, dtype=np.float64).reshape(-1) * WEIGHT_SCALE)
    if h.size != w.size:
        raise ValueError(f"{h.size} hashes but {w.size} weights")
    if h.size and w.min() < 0:
        raise ValueError("weights must not be negative")
    sums = _weighted_bit_sums(h, w) if h.size else np.zeros(64, dtype=np.float64)
    total = float(w.sum())
    on = 2.0 * sums > total  # weight with the bit set outweighs weight with it clear
    return int.from_bytes(np.packbits(on, bitorder="little").tobytes(), "little")


def _too_short(count: int) -> TooLittleContent:
    return TooLittleContent(
        f"too little text to compare ({wording.count(count, 'word')}; at least {MIN_TOKENS} needed)"
    )


def _checked_features(text: str) -> tuple[U64, F64]:
    token_hashes = _token_hashes(text)
    if token_hashes.size < MIN_TOKENS:
        raise _too_short(token_hashes.size)
    return _features(token_hashes, SHINGLE, WEIGHTING)


def simhash(text: str) -> int:
    """64-bit SimHash of a document; raises TooLittleContent when it is too short to compare."""
    return simhash_features(*_checked_features(text))


def text_fingerprint(text: str, engine: Engine = Engine.AUTO) -> tuple[int, bytes]:
    """The SimHash and the MinHash sketch (``dupfinder.core.text.sketch``) of one document, from
    the same shingles in one pass; raises TooLittleContent like ``simhash``.

    ``engine`` picks the numpy reference or the compiled kernel (same values; see
    ``dupfinder.core.text.compiled``); the default uses the kernel when it was built.
    """
    from dupfinder.core.text import sketch

    kernels = text_compiled.kernel(engine)
    if kernels is not None and WEIGHTING == "sqrt" and sketch.BITS <= 8:
        count, value, raw = text_compiled.fingerprint(
            kernels,
            text,
            shingle=SHINGLE,
            scale=float(WEIGHT_SCALE),
            bin_bits=sketch.BINS.bit_length() - 1,
            bits=sketch.BITS,
        )
        if count < MIN_TOKENS:
            raise _too_short(count)
        return value, raw
    hashes, weights = _checked_features(text)
    return simhash_features(hashes, weights), sketch.sketch(hashes).tobytes()
