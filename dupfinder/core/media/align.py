"""What music and videos share: SimHashes of a sequence of per-frame hashes, and aligning two
sequences (the offset where their bits agree most, then which aligned frames match).

A sequence is one hash per time step (an audio frame's 32 bits, a video frame's 64 bits) and a
mask of the informative steps (not silence, not a black or one-colour frame): steps outside the
mask count for nothing, so two files do not meet on their silence or their black frames.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = [
    "Alignment",
    "align",
    "bit_rows",
    "decode_both",
    "lsh64",
    "pack",
    "quick_agreement",
    "simhash",
    "unpack",
    "window_simhashes",
]

T = TypeVar("T")
U64 = npt.NDArray[np.uint64]
Bools = npt.NDArray[np.bool_]


def bit_rows(hashes: npt.NDArray[np.unsignedinteger], bits: int) -> Bools:
    """Each hash as a row of ``bits`` booleans; column k is bit k (least significant first)."""
    raw = np.ascontiguousarray(hashes.astype(np.dtype(f"<u{bits // 8}"), copy=False))
    rows: Bools = np.unpackbits(
        raw.view(np.uint8).reshape(-1, bits // 8), axis=1, bitorder="little"
    ).astype(bool)
    return rows


def pack(head: bytes, values: npt.NDArray[np.unsignedinteger], mask: Bools, dtype: str) -> bytes:
    """A serialised sequence: its header, the hashes (little-endian ``dtype``), the mask bits."""
    return head + values.astype(dtype).tobytes() + np.packbits(mask, bitorder="little").tobytes()


def unpack(
    sequence: bytes, offset: int, count: int, dtype: str
) -> tuple[npt.NDArray[np.uint64], Bools]:
    """The hashes (as uint64) and mask of ``pack``; ValueError when the length is wrong."""
    size = np.dtype(dtype).itemsize
    end = offset + size * count
    if len(sequence) != end + (count + 7) // 8:
        raise ValueError("a truncated sequence")
    values = np.frombuffer(sequence, dtype=dtype, count=count, offset=offset).astype(np.uint64)
    mask = np.unpackbits(np.frombuffer(sequence, dtype=np.uint8, offset=end), bitorder="little")
    return values, mask[:count].astype(bool)


def decode_both(decode: Callable[[bytes], T], a: bytes, b: bytes) -> tuple[T, T] | None:
    """Both sequences decoded, or None when either is of another format or damaged."""
    try:
        return decode(a), decode(b)
    except ValueError:
        return None


def _splitmix(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    z = values + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _hyperplanes(inputs: int, seed: int) -> npt.NDArray[np.float64]:
    """64 fixed hyperplanes over ``inputs`` coordinates, uniform in -1..1, from a counter hash
    (not a random generator, whose streams may change between numpy versions)."""
    with np.errstate(over="ignore"):
        counter = np.arange(64 * inputs, dtype=np.uint64) + np.uint64(seed << 32)
        mixed = _splitmix(counter)
    unit = (mixed >> np.uint64(11)).astype(np.float64) / float(1 << 53)
    planes: npt.NDArray[np.float64] = (unit * 2.0 - 1.0).reshape(64, inputs)
    return planes


def lsh64(rows: npt.NDArray[np.floating], seed: int) -> U64:
    """A 64-bit locality-sensitive hash of each row (random hyperplanes through the origin):
    rows at a small angle get hashes that differ in a few bits."""
    above = (rows.astype(np.float64) @ _hyperplanes(rows.shape[1], seed).T) > 0.0
    packed = np.packbits(above, axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8").reshape(-1).astype(np.uint64)


def _majority(counts: npt.NDArray[np.int64], totals: npt.NDArray[np.int64]) -> list[int]:
    """Bit k of each value is set when more than half of its features have bit k set."""
    above = counts * 2 > totals[:, None]
    packed = np.packbits(above, axis=1, bitorder="little")
    return [int(v) for v in np.ascontiguousarray(packed).view("<u8").reshape(-1)]


def simhash(features: U64) -> int:
    """The SimHash of 64-bit feature hashes (each weighing one): their bitwise majority."""
    if features.size == 0:
        return 0
    rows = bit_rows(features, 64)
    return _majority(
        rows.sum(axis=0, dtype=np.int64)[None, :], np.array([rows.shape[0]], dtype=np.int64)
    )[0]


def window_simhashes(features: U64, mask: Bools, width: int, stride: int) -> tuple[int, ...]:
    """SimHashes of the informative features in windows of ``width`` steps, every ``stride``
    steps (the last window ends at the last step); windows less than half informative are left
    out. A sequence shorter than a window has one: all of it."""
    n = features.shape[0]
    if n == 0:
        return ()
    rows = bit_rows(features, 64) & mask[:, None]
    ones = np.zeros((n + 1, 64), dtype=np.int64)
    np.cumsum(rows, axis=0, out=ones[1:])
    informative = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(mask, out=informative[1:])
    if n <= width:
        starts = np.array([0])
    else:
        starts = np.unique(np.append(np.arange(0, n - width + 1, stride), n - width))
    ends = np.minimum(starts + width, n)
    totals = informative[ends] - informative[starts]
    keep = totals * 2 >= (ends - starts)
    if not keep.any():
        return ()
    starts, ends, totals = starts[keep], ends[keep], totals[keep]
    return tuple(_majority(ones[ends] - ones[starts], totals))


@dataclass(frozen=True, slots=True)
class Alignment:
    """The best offset (``lag``: step ``i`` of A faces step ``i - lag`` of B), the aligned
    steps where both are informative (indices into A and B) and their bit differences."""

    lag: int
    a_steps: npt.NDArray[np.int64]
    b_steps: npt.NDArray[np.int64]
    differences: npt.NDArray[np.int64]


def _correlate(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], size: int) -> Any:
    fx = np.fft.rfft(x, n=size, axis=0)
    fy = np.fft.rfft(y, n=size, axis=0)
    product = fx * np.conj(fy)
    if product.ndim == 2:
        product = product.sum(axis=1)
    return np.fft.irfft(product, n=size)


def align(
    a: npt.NDArray[np.unsignedinteger],
    a_mask: Bools,
    b: npt.NDArray[np.unsignedinteger],
    b_mask: Bools,
    *,
    bits: int,
    min_overlap: int,
) -> Alignment | None:
    """The offset at which the two sequences' bits agree most significantly (agreement over
    informative aligned steps, in standard deviations of chance), found for every offset at
    once by FFT cross-correlation; None when no offset overlaps ``min_overlap`` informative
    steps."""
    n, m = a.shape[0], b.shape[0]
    if n == 0 or m == 0:
        return None
    size = 1 << int(n + m - 1).bit_length()
    sa = (bit_rows(a, bits).astype(np.float32) * 2 - 1) * a_mask[:, None]
    sb = (bit_rows(b, bits).astype(np.float32) * 2 - 1) * b_mask[:, None]
    agree = _correlate(sa, sb, size)
    overlap = np.rint(_correlate(a_mask.astype(np.float32), b_mask.astype(np.float32), size))
    lags = np.concatenate([np.arange(0, n), np.arange(-(m - 1), 0)])
    index = np.concatenate([np.arange(0, n), np.arange(size - (m - 1), size)])
    counts = overlap[index]
    usable = counts >= max(1, min_overlap)
    if not usable.any():
        return None
    score = np.where(usable, agree[index] / np.sqrt(bits * np.maximum(counts, 1)), -np.inf)
    lag = int(lags[int(np.argmax(score))])
    a_lo, a_hi = max(0, lag), min(n, m + lag)
    a_steps = np.arange(a_lo, a_hi, dtype=np.int64)
    b_steps = a_steps - lag
    both = a_mask[a_steps] & b_mask[b_steps]
    a_steps, b_steps = a_steps[both], b_steps[both]
    xor = a[a_steps].astype(np.uint64) ^ b[b_steps].astype(np.uint64)
    differences = bit_rows(xor, 64).sum(axis=1, dtype=np.int64)
    return Alignment(lag, a_steps, b_steps, differences)


def quick_agreement(
    a: npt.NDArray[np.unsignedinteger],
    a_mask: Bools,
    b: npt.NDArray[np.unsignedinteger],
    b_mask: Bools,
    *,
    bits: tuple[int, ...],
) -> float:
    """The best agreement over every offset of a few of the hash bits (``bits``), as a share of
    the shorter sequence's informative steps (1: all agree; unrelated: near 0). A cheap first
    look before ``align``: a pair matched over a share s of its shorter file with a bit error
    rate e scores about s * (1 - 2 e), while different songs, even of one album, stay low."""
    n, m = a.shape[0], b.shape[0]
    shorter = min(int(a_mask.sum()), int(b_mask.sum()))
    if n == 0 or m == 0 or shorter == 0:
        return 0.0
    chosen = np.array(bits, dtype=np.uint64)

    def signs(values: npt.NDArray[np.unsignedinteger], mask: Bools) -> npt.NDArray[np.float32]:
        ones = (values.astype(np.uint64)[:, None] >> chosen[None, :]) & np.uint64(1)
        return (ones.astype(np.float32) * 2 - 1) * mask[:, None]

    size = 1 << int(n + m - 1).bit_length()
    agree = _correlate(signs(a, a_mask), signs(b, b_mask), size)
    return float(agree.max()) / (len(bits) * shorter)
