"""A picture's fingerprint straight from its decoded pixels, without Pillow's steps.

An icon costs a scan far more in Pillow's Python around a dozen small steps (open, convert,
paste, crop, resize, copy to numpy...) than in decoding or arithmetic: about 0.6 ms of some
0.8. Every picture that needs no turn (no EXIF orientation) and whose mode the Pillow path
reduces in colour (RGB, RGBA, grey with or without alpha; a palette only where it is not
reduced) takes this path instead, from an (height, width, 3 or 4) array of 8-bit samples to
the very hashes and descriptor the Pillow path gives, step for step in Pillow's own integer
arithmetic, compiled (``direct_kernels``; where it was not built, or
``DUPFINDER_PICTURE_DIRECT=numpy`` says so, Pillow's steps run):

- the plain border found at the stored size (``border``: ``levels.trim_levels``'s rule,
  from the edges inward) and cut off, so that a copy with a border added is reduced as its
  original was, pixel for pixel;
- reduced by the factor JPEG's draft would use for what is kept (``levels.reduce_factor``)
  by Pillow's own ``Image.reduce``, one call in C;
- grey by ITU-R 601 luma, ``(19595 R + 38470 G + 7471 B + 0x8000) >> 16`` (``Convert.c``);
- transparency composited over white (or black) as ``Image.paste`` with a mask blends,
  ``(out (255 - a) + in a + 128)`` divided by 255 with Pillow's shifts (``Paste.c``);
- the grey Lanczos-resized to the working square with ``resample``'s weights (Pillow's
  fixed point; a picture its decoder shrank is trimmed here, by the same rule);
- the colours: premultiplied by alpha, box-resized to the chroma thumbnail, unpremultiplied
  (``Image.resize`` of RGBA), composited over white (``AlphaComposite.c``);
- the descriptor's grey thumbnail as Pillow's box halving, its chroma as Pillow's YCbCr
  conversion gives it (read from tables made of that conversion, ``_chroma_tables``).

After its border is cut off, a picture takes the steps from its grey to its thumbnails in
one compiled call (``shown_parts``): an icon's steps cost more in the interpreter between
them than in themselves.

A PNG of 8-bit grey, RGB or RGBA samples is read from its bytes by ``png``, without Pillow
opening it (a grey one is reduced as grey, then made RGB); every other picture is decoded by
Pillow and handed over as grey, RGB or RGBA. Tests hold both paths equal on the icons and
pictures of several themes and producers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import numpy.typing as npt
from PIL import Image

from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import levels, resample
from dupfinder.core.image.hashes import WORKING_SIZE, Box, pdhashes
from dupfinder.core.image.levels import TURNS
from dupfinder.core.jit.engine import Kernel, choose

__all__ = ["Direct", "available", "fingerprint"]

_WHOLE: Box = (0.0, 0.0, 1.0, 1.0)


@dataclass(frozen=True, slots=True)
class Direct:
    """What a fingerprint takes from the direct path: every hash (the picture's, its turned
    forms' when asked, its crops'), its descriptor, and its size."""

    hashes: list[int]
    descriptor: bytes
    width: int
    height: int


def available() -> bool:
    """Whether the compiled steps answer here (built, and not switched off): where they do
    not, a caller decodes nothing for this path."""
    return choose(Kernel.PICTURE_DIRECT) is not None


@dataclass(frozen=True, slots=True)
class _Taps:
    """One pass of a ``resample.Resize`` as the kernel reads it: for each output sample, the
    first input it sums, how many, and their integer weights."""

    start: npt.NDArray[np.int32]
    count: npt.NDArray[np.int32]
    weight: npt.NDArray[np.int32]


def _taps(matrix: npt.NDArray[np.float64]) -> _Taps:
    """The taps of an (out, in) weight matrix."""
    out_size = matrix.shape[0]
    start = np.zeros(out_size, dtype=np.int32)
    count = np.zeros(out_size, dtype=np.int32)
    rows = []
    for i, row in enumerate(matrix):
        used = np.flatnonzero(row)
        first, last = (int(used[0]), int(used[-1]) + 1) if len(used) else (0, 0)
        start[i], count[i] = first, last - first
        rows.append(row[first:last])
    weight = np.zeros((out_size, max(1, int(count.max()))), dtype=np.int32)
    for i, taps in enumerate(rows):
        weight[i, : len(taps)] = taps
    return _Taps(start, count, weight)


@functools.lru_cache(maxsize=1024)
def _axis(in_size: int, out_size: int, box_filter: bool) -> _Taps:
    """The taps of one axis of a whole picture resized (Lanczos, or box): a picture's plan
    is two of these, each shared by every picture with that side."""
    kind = resample.BOX if box_filter else resample.LANCZOS
    return _taps(resample.axis_weights(in_size, out_size, kind))


@functools.lru_cache(maxsize=4096)
def _resize(kernel: ModuleType, height: int, width: int, side: int, box_filter: bool) -> object:
    """Pillow's resize of a (height, width) picture to a ``side`` square (Lanczos, or box) as
    the kernel's own ``Resize``, its taps held once per picture size; None where the picture
    is that square already (Pillow copies it)."""
    if (height, width) == (side, side):
        return None
    x, y = _axis(width, side, box_filter), _axis(height, side, box_filter)
    return kernel.Resize(
        height, width, x.start, x.count, x.weight, y.start, y.count, y.weight,
        resample.horizontal_first((height, width), (side, side)),
    )  # fmt: skip


def _parts(
    kernel: ModuleType, shown: npt.NDArray[np.uint8], background: int, colour: bool, opacity: bool
) -> tuple[npt.NDArray[np.uint8], ...] | None:
    """A picture's steps after its border was cut off, in one compiled call: the working
    square of its grey over ``background``, its halving, the colours at the chroma
    thumbnail's size (with ``colour``) and the opacity thumbnail (with ``opacity``); None
    where the square is flat (``perceptual._shrink``, ``_colour`` and ``_opacity`` for a
    picture that needs no turn)."""
    height, width = shown.shape[:2]
    found: tuple[npt.NDArray[np.uint8], ...] | None = kernel.shown_parts(
        shown,
        background,
        _resize(kernel, height, width, WORKING_SIZE, False),
        _resize(kernel, height, width, imagecheck.CHROMA_SIDE, True),
        _resize(kernel, height, width, imagecheck.ALPHA_SIDE, True),
        colour,
        opacity,
        levels.FLAT_STD * levels.FLAT_STD,
    )
    return found


def _border(kernel: ModuleType, pixels: npt.NDArray[np.uint8], background: int) -> Box:
    """The part of (h, w, 1, 3 or 4) samples inside a plain border (``levels.trim_levels``'s
    rule, shown over ``background``), found from the edges inward."""
    edges = kernel.border(pixels, levels.BORDER_TOLERANCE, levels.TRIM_KEEPS, background)
    if edges is None:
        return _WHOLE
    left, top, right, bottom = edges
    height, width = pixels.shape[:2]
    return (left / width, top / height, right / width, bottom / height)


def _kept(
    kernel: ModuleType, pixels: npt.NDArray[np.uint8], background: int
) -> tuple[Box, npt.NDArray[np.uint8]]:
    """The part of a picture's samples inside its plain border (shown over ``background``),
    and that part."""
    box = _border(kernel, pixels, background)
    left, top, right, bottom = _pixel_box(box, *pixels.shape[:2])
    return box, pixels[top:bottom, left:right]


def _trimmed(
    kernel: ModuleType, pixels: npt.NDArray[np.uint8], background: int
) -> tuple[Box, npt.NDArray[np.uint8]]:
    """A picture's stored samples trimmed (shown over ``background``), then reduced by the
    factor of what is kept; grey samples are then made RGB (as Pillow's ``convert``)."""
    trim, kept = _kept(kernel, pixels, background)
    shown = _reduced(kept, levels.reduce_factor(kept.shape[1], kept.shape[0]))
    if shown.shape[2] == 1:
        shown = np.ascontiguousarray(np.repeat(shown, 3, axis=2))
    return trim, shown


def _pixel_box(box: Box, height: int, width: int) -> tuple[int, int, int, int]:
    """``perceptual._cropped``'s whole pixels of a box: left, top, right, bottom."""
    return (
        round(box[0] * width),
        round(box[1] * height),
        round(box[2] * width),
        round(box[3] * height),
    )


def _chroma_cells(colours: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Cb and Cr of the chroma thumbnail, as the descriptor takes them: Pillow's YCbCr, read
    from ``_chroma_tables`` (an icon's 64 colours through Pillow cost some 30 us of its
    objects), or from Pillow itself where the tables do not hold."""
    tables = _chroma_tables()
    if tables is None:
        side = imagecheck.CHROMA_SIDE
        small = Image.frombuffer("RGB", (side, side), colours.tobytes(), "raw", "RGB", 0, 1)
        return imagecheck.chroma_cells(small)
    return _chroma_of(tables, colours)


#: Pillow's Cb and Cr by 8-bit RGB, halved: Cb is ``((cb[r, g] + b) >> 1) + 128`` and Cr
#: ``((cr[g, b] + r) >> 1) + 128``.
_Tables = tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]


def _chroma_of(tables: _Tables, rgb: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Cb then Cr of (..., 3) samples by ``tables``, as (2, ...)."""
    cb_half, cr_half = tables
    r, g, b = (rgb[..., band].astype(np.intp) for band in range(3))
    cb = ((cb_half[r, g] + b) >> 1) + 128
    cr = ((cr_half[g, b] + r) >> 1) + 128
    return np.stack([cb, cr]).astype(np.uint8)


#: Colours held against Pillow when the tables are made (each band through all its levels,
#: the three in other orders).
_CHROMA_PROBES = 4096


@functools.cache
def _chroma_tables() -> _Tables | None:
    """Pillow's RGB to YCbCr chroma as two tables, read from Pillow itself, or None where
    they do not give its answers.

    Pillow sums a table of each band and shifts (``ConvertYCbCr.c``), and one band's table is
    32 times the level in each: Cb's blue, Cr's red. ``(T + 32 b) >> 6`` then depends on the
    other two bands only through ``T >> 5``, which two conversions tell for every pair of
    levels (``b`` 0 and 1). The tables are held against Pillow on sample colours before
    they are used (a Pillow that converts otherwise keeps its own steps), and on every
    colour by the tests."""
    levels = np.arange(256)
    pairs = np.stack(np.meshgrid(levels, levels, indexing="ij"), -1).reshape(-1, 2)
    zero, one = np.zeros(len(pairs), np.intp), np.ones(len(pairs), np.intp)

    def converted(
        r: npt.NDArray[np.intp], g: npt.NDArray[np.intp], b: npt.NDArray[np.intp]
    ) -> npt.NDArray[np.int64]:
        samples = np.stack([r, g, b], -1).astype(np.uint8).reshape(256, -1, 3)
        ycbcr = Image.fromarray(samples, "RGB").convert("YCbCr")
        return np.asarray(ycbcr).reshape(-1, 3).astype(np.int64)

    def halved(low: npt.NDArray[np.int64], high: npt.NDArray[np.int64]) -> npt.NDArray[np.int16]:
        return ((low - 128) * 2 + (high - low)).reshape(256, 256).astype(np.int16)

    r, g = pairs[:, 0], pairs[:, 1]
    cb_half = halved(converted(r, g, zero)[:, 1], converted(r, g, one)[:, 1])
    cr_half = halved(converted(zero, r, g)[:, 2], converted(one, r, g)[:, 2])
    tables = (cb_half, cr_half)
    step = np.arange(_CHROMA_PROBES)[:, None]  # strides prime to 256: every level each band
    probes = (step * np.array([97, 89, 53]) + np.array([0, 13, 101])) % 256
    expected = converted(probes[:, 0], probes[:, 1], probes[:, 2])[:, 1:].T
    if not np.array_equal(_chroma_of(tables, probes.astype(np.uint8)), expected):
        return None
    return tables


def _reduced(pixels: npt.NDArray[np.uint8], factor: int) -> npt.NDArray[np.uint8]:
    """The pixels reduced by ``factor`` by Pillow's own ``Image.reduce`` (one call, in C: RGBA
    premultiplied for it), or themselves at factor 1: no later step reads a wallpaper's
    millions of pixels."""
    if factor == 1:
        return pixels
    height, width, bands = pixels.shape
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[bands]
    data = np.ascontiguousarray(pixels)  # a copy only of a part inside a border
    picture = Image.frombuffer(mode, (width, height), data, "raw", mode, 0, 1)
    reduced = np.asarray(picture.reduce(factor))
    return reduced[:, :, None] if bands == 1 else reduced


def fingerprint(
    pixels: npt.NDArray[np.uint8],
    *,
    colour: bool,
    file_format: str | None,
    invariant: bool,
    stored: tuple[int, int] | None = None,
    clear: bool | None = None,
) -> Direct | None:
    """The hashes and descriptor of a picture decoded to ``pixels`` (height, width, 1, 3 or
    4 bands of 8 bits; ``colour``: whether it was stored with colour channels), upright; or
    of a picture of ``stored`` size (width, height) that its decoder shrank to ``pixels``
    (3 or 4 bands), ``clear`` saying whether any of its stored pixels was translucent. None
    when it is flat even over black (the caller's Pillow path then names it), or where the
    compiled steps were not built.

    A picture's plain border is found at its stored size and cut off before it is reduced,
    by the factor of what is kept: a copy padded with a border is then reduced as its
    original was, pixel for pixel (reduced first, the border's edge fell inside a reduced
    pixel, and a white padding around a transparent margin blended into half-opaque white)."""
    kernel = choose(Kernel.PICTURE_DIRECT)
    width, height = stored or (pixels.shape[1], pixels.shape[0])
    if kernel is None or height < 1 or width < 1 or pixels.size == 0:
        return None
    if clear is None:
        clear = bool(kernel.translucent(pixels))
    parts = _steps(kernel, pixels, colour, clear, pixels.shape[:2] == (height, width))
    if parts is None:
        return None
    working, halved, colours, opacity, box = parts
    hashes = pdhashes(_forms(working, invariant), working)
    descriptor = imagecheck.assembled(
        halved,
        None if colours is None else _chroma_cells(colours),
        opacity,
        graphic=max(width, height) <= imagecheck.SMALL_SIDE or clear,
        transparent=clear,
        file_format=file_format,
        quality=0,
        side=min(width, height),
        border=box,
    )
    return Direct(hashes, descriptor, width, height)


#: What a picture's steps give its descriptor: the working square, its halving, the colours
#: (None without colour), the opacity thumbnail (None where opaque or shown over black) and
#: the part of the picture kept.
_Parts = tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.uint8],
    npt.NDArray[np.uint8] | None,
    npt.NDArray[np.uint8] | None,
    Box,
]


def _steps(
    kernel: ModuleType, pixels: npt.NDArray[np.uint8], colour: bool, clear: bool, whole: bool
) -> _Parts | None:
    """A picture's border found and cut off, then the rest in one compiled call (``_parts``):
    at its stored size, and reduced after, when it was decoded ``whole``; at the size it
    came at when its decoder shrank it (a scaled WebP). Shown over black where it is flat
    over white (white art on transparency: its border is found over black too)."""
    for background in (255, 0):
        if whole:
            box, shown = _trimmed(kernel, pixels, background)
        else:
            box, shown = _kept(kernel, pixels, background)
        found = _parts(kernel, shown, background, colour, clear and background == 255)
        if found is not None:
            working, halved, colours, opacity = found
            return working, halved, colours, opacity, box
        if shown.shape[2] != 4:
            return None
    return None


def _forms(working: npt.NDArray[np.uint8], invariant: bool) -> npt.NDArray[np.uint8]:
    """The working square, and its turned and mirrored forms where ``invariant``, as the
    hash kernel reads them."""
    if not invariant:
        return working[None]
    return np.ascontiguousarray(np.stack([working, *(turn(working) for turn in TURNS)]))
