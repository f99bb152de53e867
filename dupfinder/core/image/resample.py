"""Pillow's resize of 8-bit grey pixels as two matrix products, bit for bit.

A fingerprint resizes one small working image many times (the hash at 32 x 32 and 9 x 8, its
mirrored and turned forms, nine crops): one Pillow call each costs more in call overhead and
array round trips than in arithmetic. Pillow's ``ImagingResample`` (``Resample.c``) is a
separable filter with fixed-point weights: a horizontal pass, rounded and clipped to 8 bits,
and a vertical pass, each rounded and clipped to 8 bits, the vertical one first when the height
shrinks more than twice as much as the width (Pillow 11 and later). Its weights are computed here
the same way, in doubles with the box in single precision, then scaled to integers of
``PRECISION_BITS``; both passes are products of integers below 2**53, exact in float64, so
one ``matmul`` per pass over a stack of images gives Pillow's pixels exactly. Tests hold this
equal to ``Image.resize`` on random pixels, boxes and sizes.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

__all__ = [
    "BILINEAR",
    "BOX",
    "LANCZOS",
    "Filter",
    "Resize",
    "axis_weights",
    "horizontal_first",
    "resize_plan",
]

#: Fractional bits of Pillow's fixed-point weights for 8-bit images (``32 - 8 - 2``).
PRECISION_BITS = 22
_HALF = float(1 << (PRECISION_BITS - 1))
_SCALE = 1.0 / (1 << PRECISION_BITS)

#: Where a resize reads from: (left, top, right, bottom) in input pixels.
PixelBox = tuple[float, float, float, float]


@dataclasses.dataclass(frozen=True, slots=True)
class Filter:
    """A resampling filter: its support (in input pixels at scale 1) and its kernel."""

    support: float
    kernel: Callable[[float], float]


def _bilinear(x: float) -> float:
    x = -x if x < 0.0 else x
    return 1.0 - x if x < 1.0 else 0.0


def _box(x: float) -> float:
    return 1.0 if -0.5 < x <= 0.5 else 0.0


def _sinc(x: float) -> float:
    if x == 0.0:
        return 1.0
    x = x * math.pi
    return math.sin(x) / x


def _lanczos(x: float) -> float:
    return _sinc(x) * _sinc(x / 3.0) if -3.0 <= x < 3.0 else 0.0


BOX = Filter(0.5, _box)
BILINEAR = Filter(1.0, _bilinear)
LANCZOS = Filter(3.0, _lanczos)


def _single(value: float) -> float:
    """``value`` as the C float Pillow parses a box into."""
    return float(np.float32(value))


def _weights(
    in_size: int, start: float, end: float, out_size: int, kind: Filter
) -> npt.NDArray[np.float64]:
    """Pillow's ``precompute_coeffs`` then ``normalize_coeffs_8bpc`` as an (out, in) matrix."""
    in0, in1 = np.float32(start), np.float32(end)
    scale = float(in1 - in0) / out_size  # the difference in single precision, as in C
    filterscale = max(scale, 1.0)
    support = kind.support * filterscale
    matrix = np.zeros((out_size, in_size))
    for out in range(out_size):
        center = float(in0) + (out + 0.5) * scale
        ss = 1.0 / filterscale
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), in_size) - xmin
        taps = [kind.kernel((x + xmin - center + 0.5) * ss) for x in range(xmax)]
        total = 0.0
        for w in taps:
            total += w
        for x, w in enumerate(taps):
            w = w / total if total != 0.0 else w
            fixed = w * (1 << PRECISION_BITS)
            matrix[out, xmin + x] = int(fixed - 0.5) if w < 0 else int(fixed + 0.5)
    return matrix


def _round_clip(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Pillow's ``clip8`` in place: add a half, shift the fraction out (floor), clamp to
    0..255."""
    values += _HALF
    values *= _SCALE
    np.floor(values, out=values)
    np.clip(values, 0.0, 255.0, out=values)
    return values


@dataclasses.dataclass(frozen=True, slots=True)
class Resize:
    """A stack of ``k`` fixed resizes of (height, width) grey images: ``columns`` (k, width,
    out width) for the horizontal pass, ``rows`` (k, out height, height) for the vertical,
    and which pass Pillow runs first (the rounding between them makes the order matter)."""

    columns: npt.NDArray[np.float64]
    rows: npt.NDArray[np.float64]
    horizontal_first: bool

    def __call__(self, pixels: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Every resize of each image of ``pixels`` ((height, width) or (n, height, width),
        values 0..255): (n * k, out height, out width) of 0..255, image by image, as Pillow."""
        # each product one image by one resize: small enough that BLAS keeps it on this
        # thread (one product of them all is split across threads, which costs more than
        # it saves at this size, and far more on a busy machine)
        images = pixels.reshape(-1, 1, *pixels.shape[-2:])
        if self.horizontal_first:
            out = _round_clip(self.rows @ _round_clip(images @ self.columns))
        else:
            out = _round_clip(_round_clip(self.rows @ images) @ self.columns)
        return out.reshape(-1, *out.shape[-2:])


def resize_plan(
    shape: tuple[int, int], size: tuple[int, int], parts: Sequence[tuple[PixelBox, Filter]]
) -> Resize:
    """The resizes of (height, width) ``shape`` images to ``size`` (width, height), one per
    (box, filter) of ``parts``, as ``Image.resize(size, filter, box)`` would do them."""
    height, width = shape
    out_w, out_h = size
    columns = np.stack(
        [_weights(width, _single(b[0]), _single(b[2]), out_w, f).T for b, f in parts]
    )
    rows = np.stack([_weights(height, _single(b[1]), _single(b[3]), out_h, f) for b, f in parts])
    return Resize(
        np.ascontiguousarray(columns),
        np.ascontiguousarray(rows),
        horizontal_first(shape, size),
    )


def horizontal_first(shape: tuple[int, int], size: tuple[int, int]) -> bool:
    """Whether Pillow resizes (height, width) ``shape`` to ``size`` (width, height) with the
    horizontal pass first: unless the height shrinks by more than twice what the width does
    (``Resample.c``'s rule)."""
    shrink_h, shrink_w = shape[0] - size[1], shape[1] - size[0]
    return not (shrink_h > 0 and shrink_h > 2 * shrink_w)


def axis_weights(in_size: int, out_size: int, kind: Filter) -> npt.NDArray[np.float64]:
    """The (out, in) integer weights of one axis of a whole picture resized: the matrix
    ``resize_plan`` builds for that axis with the whole picture as its box."""
    return _weights(in_size, 0.0, float(in_size), out_size, kind)
