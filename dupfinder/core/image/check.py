"""A second, independent check of pictures: align two thumbnails, undo tone, compare what is left.

The 64-bit perceptual hash finds candidates fast; every pair it proposes is checked again
with a *descriptor* made in the same decode pass (``descriptor``): a header (colour,
transparency, format, JPEG quality, short side, plain border trimmed), a ``GREY_SIDE`` square
grey thumbnail of the picture inside its plain border, and a ``CHROMA_SIDE`` square chroma
thumbnail (Cb and Cr) of the same part.

People crop, pad, recolour, lighten and caption the pictures they keep, icons and drawings as
much as photos; what tells two different drawings apart is what is left once those edits are
undone. A pair is compared in four steps, both ways round (each picture taken as the one
that holds the other), the better way kept:

1. **Align.** Per axis a scale of 1 down to ``MIN_SCALE`` and an offset (a crop of up to 24 %
   of a side, or a padding the border trim did not remove): the standardised column and row
   profiles of both thumbnails choose them (``_GRID`` alignments per axis), so a crop or a
   shift is undone instead of compared cell by cell.
2. **Tone.** The container's aligned region is resampled onto the other's grid, and the cubic
   tone curve that best maps one onto the other (least squares) is applied: brightness,
   contrast and gamma drop out, and a grey or sepia copy has the luma of its original. The
   curve keeps the tones' order: one that takes the darkest level above the lightest (a
   negative, a light glyph against a dark one) is no tone edit, and one level is fitted. A
   level clipped at white is a bound, not a level: it is left out of the fit and agrees
   wherever the curve reaches it, so a light picture brightened past white is still its
   copy. The mean difference left, over the other's deviation and that of unrelated
   pictures (``_UNRELATED``), is the *layout* figure. Two drawings in colour of sizes far
   apart may be one icon that a theme drew at each size, each size's soft edges where its
   own pixel grid puts them: cells where one is partly opaque and the other differs by less
   than half are left out of this fit and agree (``_redrawn_edges``; not for a glyph in one
   grey, which is drawn by its edges).
3. **Detail.** When both pictures are graphics (small, or transparent: icons and clip art) the
   toned thumbnails are also compared at the smaller picture's own resolution, block by block
   with a one-pixel shift for resampling, and the **worst** block decides: the badge or emblem
   that tells two icons of one theme apart is never averaged away (an edge redrawn at the
   other size agrees here too: the worst block is the drawing's, not its rim). Photos keep
   the mean: a caption on a photo does not make it another photo.
4. **Colour.** When both pictures hold colours of more than one hue, the cosine of their
   aligned chroma thumbnails, each softened by a cell either way (a thin colour on a cell's
   edge moves into the next with the slightest shift), says whether the colours agree
   (brightness and saturation scale chroma and keep the cosine); a greyscale copy has no
   colours to compare, nor does a tint (one weak hue: sepia, a faded print), which may be
   made of a picture of any colours. A graphic of one strong hue (a drawing in one colour:
   a red badge, a green button) must agree on that hue with the other graphic, whether that
   one holds one hue or many: a green button and its pink-and-orange twin are two icons.
   Photos of one hue (a tint, a green meadow) need not agree.

The similarity of a pair is the lowest of these, 0..1: what a person is shown and what the
scan's picture threshold is compared with. ``check_kernels`` is the same computation compiled
(tens of microseconds a pair); this module is its reference and its fallback, and tests hold
the two equal. Constants were chosen on the tuning half of ``bench/picture_corpus.py`` and
measured on its held-out half (README, *Pictures*).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image

from dupfinder.core.jit.engine import Kernel, choose
from dupfinder.core.model import Edit, EditCode, Side

__all__ = [
    "ALPHA_SIDE",
    "BASE_BYTES",
    "CHECK_VERSION",
    "CHROMA_SIDE",
    "DESCRIPTOR_BYTES",
    "DRAWN_SIDE",
    "ENGINE_VARIABLE",
    "EXPLAINED",
    "FRAMING_CODES",
    "GREY_SIDE",
    "HEADER_BYTES",
    "MIN_SCALE",
    "SHAPES_APART",
    "SMALL_SIDE",
    "STOPPED",
    "Comparison",
    "Format",
    "Header",
    "assembled",
    "chroma_cells",
    "compare",
    "compiled_files",
    "content_shapes",
    "descriptor",
    "drawn_apart",
    "edits",
    "edits_of",
    "has_detail",
    "header",
    "headers",
    "holds_colour",
    "invariant_pair_similarity",
    "opacity_cells",
    "padded",
    "pair_similarity",
    "pair_similarity_of",
    "shapes_apart",
    "similarity",
    "stopped_early",
    "transparent",
]

#: Side of the grey thumbnail (alignment, layout and detail).
GREY_SIDE = 32
#: Side of the chroma thumbnail (the colour check).
CHROMA_SIDE = 8
#: Side of the opacity thumbnail (a transparent picture's tone fit; 255 where opaque).
ALPHA_SIDE = 16
#: Pictures whose long side is at most this are graphics for the detail check (icons, clip
#: art); larger ones too when some pixel is transparent (icons drawn at 512 px).
SMALL_SIDE = 256
#: Bytes of the header: flags, JPEG quality, format, short side, then the four margins.
HEADER_BYTES = 8
_GREY_BYTES = GREY_SIDE * GREY_SIDE
_CHROMA_BYTES = 2 * CHROMA_SIDE * CHROMA_SIDE
_ALPHA_BYTES = ALPHA_SIDE * ALPHA_SIDE
_GREY_END = HEADER_BYTES + _GREY_BYTES
_CHROMA_END = _GREY_END + _CHROMA_BYTES
#: Bytes of a descriptor: the header, the grey thumbnail, Cb and Cr (offset by 128), then
#: the opacity thumbnail.
DESCRIPTOR_BYTES = _CHROMA_END + _ALPHA_BYTES
#: Bytes that tell copies apart (all of it: the descriptor has one part).
BASE_BYTES = DESCRIPTOR_BYTES
#: Scales tried per axis: 1, 1 - _SCALE_STEP, ... (``_SCALES`` of them); offsets in steps of
#: ``_OFFSET_STEP`` (half a scale step, so every region of the grid fits).
_SCALE_STEP = 0.06
_SCALES = 5
_OFFSET_STEP = _SCALE_STEP / 2
#: The refinement around the grid's best alignment moves one edge of the region at a time
#: (a crop or a padding moves one edge, not the centre) in steps of ``_EDGE_STEP`` (a
#: twelfth of a grid step), ``_EDGE_STEPS`` each way: 26 tries an axis, where moving scale
#: and offset together tried 91, for as many edited copies found.
_EDGE_STEP = 0.0025
_EDGE_STEPS = 6
#: The smallest scale of one axis that alignment tries: a crop or a padding of up to 24 %.
MIN_SCALE = 1.0 - _SCALE_STEP * (_SCALES - 1)
#: Mean absolute difference, in deviations, after the tone fit that makes a pair 0 % similar
#: in layout: chosen on the tuning half so that the scan's default (85 %) accepts up to 0.165
#: (the balance of edited copies kept and look-alikes refused, README *Pictures*).
_UNRELATED = 1.1
#: Cells of the grey thumbnail averaged into one for the layout figure.
_LAYOUT_CELL = 2
#: Pixels per block side of the detail check, and the block difference (deviations) that
#: makes a pair 0 % alike in detail (the default accepts a worst block of 0.6).
_DETAIL_BLOCK = 4
_DETAIL_UNRELATED = 4.0
#: Two pictures' summed chroma whose cosine is at least this are of one hue: a tint of it is
#: the other's colours made weaker (darker, duller), still fitted through one tone curve.
_TONAL_HUE = 0.9
#: Two graphics whose short sides differ by this factor or more may be one icon drawn at two
#: sizes: a theme draws each size's soft edges anew, so where one's opacity is partial and
#: the other's differs by less than ``_EDGE_CHANGE`` (and more than rounding,
#: ``_EDGE_LEAST``), the cell is an edge redrawn, left out of the layout's fit and agreeing
#: there and in the detail; unless such cells are more than ``_EDGE_SHARE`` of all (then the
#: silhouettes differ) or more than ``_EDGE_SOLID`` times the cells opaque in both: a glyph
#: of thin strokes (a battery's level, a status dot) is all edges, and they are its drawing.
_REDRAWN_RATIO = 1.5
_EDGE_CHANGE = 0.5
_EDGE_LEAST = 0.02
_EDGE_SHARE = 0.25
_EDGE_SOLID = 0.5
#: A chroma thumbnail whose strongest cell is below this (of 127) holds no colour.
_COLOURLESS = 8.0
#: Chroma whose cells point one way (mean resultant length of their directions, weighted by
#: strength) holds one hue: a tint (sepia, a blue-toned print) or a drawing in one colour.
_ONE_HUE = 0.98
#: Chroma of one hue whose strongest cell is at most this is a tint (a faded or sepia copy),
#: which may be made of a picture of any colours; stronger (a yellow or orange drawing,
#: though of sepia's direction) is a colour of its own.
_TINT_STRENGTH = 32.0
#: How fast the colour figure falls with the cosine of the chroma thumbnails: 1 - weight x
#: (1 - cosine).
_COLOUR_WEIGHT = 2.0
#: Grey level (of 255) from which a cell white in both pictures is background to the tone fit.
_WHITE = 250.0
#: Grey level (of 255) from which a cell is clipped: an edit may have taken it past white.
_CLIPPED = 253.0
#: Bounds cover at most this share of the fitted cells: a picture clipped over more of it has
#: too little left to fit a curve to (a blown-out disc with dark corners would pass as any
#: photo with dark corners), and its white cells are levels.
_MOST_BOUNDS = 0.5
#: How far up the other picture's fitted levels a clipped white must map (of 1): the lightest
#: but for a tenth, which mixed and noisy cells may overshoot.
_LIGHT_SHARE = 0.9
#: Opacity (0..1) under which a cell's colour is not read (its grey is the background's),
#: and from which a cell is opaque (an opaque region resampled is 1 only to rounding).
_CLEAR = 1e-3
_OPAQUE = 1.0 - 1e-9
#: Ridge added to the tone fit's normal equations (a flat region has a singular one).
_RIDGE = 1e-6
#: Deviations below this are flat (nothing to standardise).
_FLAT = 1e-6
_SIDE_CAP = 255
#: Part of the cache key: changes whenever a descriptor of the same picture would change.
CHECK_VERSION = (
    f"aligned-h{HEADER_BYTES}-grey{GREY_SIDE}-chroma{CHROMA_SIDE}-alpha{ALPHA_SIDE}"
    f"-small{SMALL_SIDE}-trimmed"
)
#: Environment variable that forces the check's engine: ``numpy`` or ``compiled``.
ENGINE_VARIABLE = Kernel.PICTURE_CHECK.variable


class Format(enum.IntEnum):
    """The file format a descriptor's header records (for naming a conversion)."""

    UNKNOWN = 0
    PNG = 1
    JPEG = 2
    WEBP = 3
    GIF = 4
    BMP = 5
    TIFF = 6
    HEIF = 7
    OTHER = 8


_FORMATS = {
    "PNG": Format.PNG,
    "JPEG": Format.JPEG,
    "MPO": Format.JPEG,
    "WEBP": Format.WEBP,
    "GIF": Format.GIF,
    "BMP": Format.BMP,
    "TIFF": Format.TIFF,
    "HEIF": Format.HEIF,
    "AVIF": Format.HEIF,
}
_COLOUR = 1
_TRANSPARENT = 2
_GRAPHIC = 4


@dataclass(frozen=True, slots=True)
class Header:
    """What a descriptor says about its picture besides its thumbnails."""

    colour: bool
    transparent: bool
    graphic: bool
    format: Format
    quality: int  # estimated JPEG quality, 0 when not a JPEG
    side: int  # the short side in pixels, at most 255
    margins: tuple[float, float, float, float]  # plain border trimmed: left, top, right, bottom


def transparent(picture: Image.Image) -> bool:
    """Whether some pixel of ``picture`` is not fully opaque."""
    bands = picture.getbands()
    if bands[-1] in ("A", "a"):
        alpha = picture.getchannel(len(bands) - 1)
    elif "transparency" in picture.info:
        alpha = picture.convert("RGBA").getchannel("A")
    else:
        return False
    lowest = alpha.getextrema()[0]
    return isinstance(lowest, int | float) and lowest < 255


def has_detail(width: int, height: int, picture: Image.Image | None = None) -> bool:
    """Whether a picture is a graphic for the detail check: small (by its stored size), or
    with a pixel that is not fully opaque (its decoded ``picture``), like an icon drawn large."""
    if max(width, height) <= SMALL_SIDE:
        return True
    return picture is not None and transparent(picture)


def descriptor(
    working: Image.Image,
    chroma: Image.Image | None,
    opacity: Image.Image | None = None,
    *,
    graphic: bool = False,
    transparent: bool = False,
    file_format: str | None = None,
    quality: int = 0,
    side: int = 0,
    border: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0),
) -> bytes:
    """The descriptor of a picture: its square grey working image, its upright ``YCbCr`` (or
    ``RGB``) colours at any size (``None`` for greyscale pictures), its upright opacity
    (``L``) at any size (``None`` for an opaque picture), whether it is a graphic
    (``has_detail``) and transparent, its Pillow format name, JPEG quality and short side,
    and the part of it inside a plain border (left, top, right, bottom shares) that the
    thumbnails show."""
    cells = None if chroma is None else chroma_cells(chroma)
    grey = working.resize((GREY_SIDE, GREY_SIDE), Image.Resampling.BOX)
    return assembled(
        np.asarray(grey, dtype=np.uint8),
        cells,
        None if opacity is None else opacity_cells(opacity),
        graphic=graphic,
        transparent=transparent,
        file_format=file_format,
        quality=quality,
        side=side,
        border=border,
    )


def chroma_cells(chroma: Image.Image) -> npt.NDArray[np.uint8]:
    """A picture's colours (``YCbCr`` or ``RGB``, any size) as the descriptor's chroma cells:
    Cb then Cr, box-averaged to ``CHROMA_SIDE`` square."""
    small = chroma.convert("YCbCr") if chroma.mode != "YCbCr" else chroma
    if small.size != (CHROMA_SIDE, CHROMA_SIDE):  # Pillow's resize to its own size copies
        small = small.resize((CHROMA_SIDE, CHROMA_SIDE), Image.Resampling.BOX)
    cells: npt.NDArray[np.uint8] = np.asarray(small, dtype=np.uint8)[:, :, 1:].transpose(2, 0, 1)
    return cells


def opacity_cells(opacity: Image.Image) -> npt.NDArray[np.uint8]:
    """A picture's opacity (``L``, any size) as the descriptor's opacity thumbnail: box-averaged
    to ``ALPHA_SIDE`` square. It lets the tone fit undo a tone edit made to a transparent
    picture's colours before it was shown over white (``_tone_fit``)."""
    small = opacity.resize((ALPHA_SIDE, ALPHA_SIDE), Image.Resampling.BOX)
    return np.asarray(small, dtype=np.uint8)


def assembled(
    grey: npt.NDArray[np.uint8],
    cells: npt.NDArray[np.uint8] | None,
    opacity: npt.NDArray[np.uint8] | None = None,
    *,
    graphic: bool,
    transparent: bool,
    file_format: str | None,
    quality: int,
    side: int,
    border: tuple[float, float, float, float],
) -> bytes:
    """A descriptor from its parts: the ``GREY_SIDE`` square grey thumbnail, the chroma
    cells (Cb then Cr, ``CHROMA_SIDE`` square; None for a picture without colour), the
    opacity cells (``ALPHA_SIDE`` square; None for an opaque picture) and the header's facts
    (see ``descriptor``)."""
    flags = (_GRAPHIC if graphic else 0) | (_TRANSPARENT if transparent else 0)
    if cells is not None:
        flags |= _COLOUR
    fmt = _FORMATS.get((file_format or "").upper(), Format.OTHER if file_format else Format.UNKNOWN)
    left, top, right, bottom = border
    margins = (left, top, 1.0 - right, 1.0 - bottom)
    out = bytearray([flags, max(0, min(quality, 100)), int(fmt), max(0, min(side, _SIDE_CAP))])
    out += bytes(max(0, min(round(m * 250), 250)) for m in margins)
    out += np.ascontiguousarray(grey, dtype=np.uint8).tobytes()
    if cells is None:
        out += bytes([128]) * _CHROMA_BYTES
    else:
        out += np.ascontiguousarray(cells, dtype=np.uint8).tobytes()
    if opacity is None:
        out += bytes([255]) * _ALPHA_BYTES
    else:
        out += np.ascontiguousarray(opacity, dtype=np.uint8).tobytes()
    return bytes(out)


def header(row: npt.ArrayLike) -> Header:
    """The header of one descriptor."""
    data = np.asarray(row, dtype=np.uint8).reshape(-1)
    return _header_of(tuple(data[:HEADER_BYTES].tolist()))


def headers(rows: npt.NDArray[np.uint8]) -> list[Header]:
    """The header of each of (P, DESCRIPTOR_BYTES) descriptors: a group's kept picture heads
    every pair of it, so each distinct header is read once."""
    return [_header_of(tuple(values)) for values in rows[:, :HEADER_BYTES].tolist()]


@functools.lru_cache(maxsize=4096)
def _header_of(values: tuple[int, ...]) -> Header:
    flags, quality, fmt, side, *margins = values
    return Header(
        colour=bool(flags & _COLOUR),
        transparent=bool(flags & _TRANSPARENT),
        graphic=bool(flags & _GRAPHIC),
        format=Format(fmt) if fmt in Format._value2member_map_ else Format.OTHER,
        quality=quality,
        side=side,
        margins=(margins[0] / 250, margins[1] / 250, margins[2] / 250, margins[3] / 250),
    )


def padded(descriptors: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Descriptors as (P, DESCRIPTOR_BYTES) rows (a single one becomes one row)."""
    x = np.atleast_2d(np.asarray(descriptors, dtype=np.uint8))
    if x.shape[1] != DESCRIPTOR_BYTES:
        raise ValueError(f"descriptors must be ({DESCRIPTOR_BYTES},) rows: {x.shape}")
    return x


# ------------------------------------------------------------------------------ alignment


@functools.cache
def _grid() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Every (scale, offset) of one axis that alignment tries, as two arrays: the compiled
    check is handed these very values."""
    scales: list[float] = []
    offsets: list[float] = []
    for k in range(_SCALES):
        scale = 1.0 - _SCALE_STEP * k
        for i in range(2 * k + 1):
            scales.append(scale)
            offsets.append(min(_OFFSET_STEP * i, 1.0 - scale))
    return np.array(scales), np.array(offsets)


def _positions(
    scale: npt.NDArray[np.float64], offset: npt.NDArray[np.float64], size: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Linear interpolation of ``size`` samples of the region [offset, offset + scale] of an
    axis of ``size`` cells: lower index, upper index and weight of the upper, (..., size)."""
    centres = offset[..., None] + scale[..., None] * ((np.arange(size) + 0.5) / size)
    position = np.clip(centres * size - 0.5, 0.0, size - 1.0)
    low = np.floor(position).astype(np.int64)
    return low, np.minimum(low + 1, size - 1), position - low


def _standardise(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each vector of the last axis with mean 0 and deviation 1 (zeros when flat)."""
    centred = x - x.mean(axis=-1, keepdims=True)
    spread = np.sqrt((centred * centred).mean(axis=-1, keepdims=True))
    out: npt.NDArray[np.float64] = np.divide(
        centred, spread, out=np.zeros_like(centred), where=spread > _FLAT
    )
    return out


def _profile_costs(
    container: npt.NDArray[np.float64],
    target: npt.NDArray[np.float64],
    scales: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """(P, G) mean absolute difference of ``container``'s profiles (P, side) sampled at G
    alignments ((P, G) or (G,) scales and offsets), standardised, from ``target`` (P, side,
    standardised)."""
    side = container.shape[1]
    low, high, frac = _positions(scales, offsets, side)  # (P?, G, side)
    if low.ndim == 2:
        low, high, frac = low[None], high[None], frac[None]
    rows = np.arange(len(container))[:, None, None]
    sampled = container[rows, low] * (1.0 - frac) + container[rows, high] * frac
    cost: npt.NDArray[np.float64] = np.abs(_standardise(sampled) - target[:, None, :]).mean(axis=2)
    return cost


@functools.cache
def _fine() -> npt.NDArray[np.float64]:
    """Steps by which the refinement moves an edge of the grid's best region."""
    return np.array([_EDGE_STEP * e for e in range(-_EDGE_STEPS, _EDGE_STEPS + 1)])


def _best_of(
    container: npt.NDArray[np.float64],
    target: npt.NDArray[np.float64],
    scales: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per pair the (scale, offset) of the (P, G) candidates that costs least (the first)."""
    pick = np.argmin(_profile_costs(container, target, scales, offsets), axis=1)[:, None]
    return (
        np.take_along_axis(scales, pick, axis=1)[:, 0],
        np.take_along_axis(offsets, pick, axis=1)[:, 0],
    )


def _axis_alignment(
    container: npt.NDArray[np.float64], inner: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per pair the (scale, offset) whose sampling of ``container``'s profile (P, side) best
    matches ``inner``'s (standardised, the first of the smallest mean absolute difference):
    on the grid, then refined around the grid's best: the far edge moved with the near one
    where it is, then the near edge with the far one where the first step left it."""
    scales, offsets = _grid()
    target = _standardise(inner)
    best = np.argmin(_profile_costs(container, target, scales, offsets), axis=1)
    edges = _fine()
    far_s = np.clip(scales[best][:, None] + edges, MIN_SCALE, 1.0)
    far_o = np.clip(offsets[best][:, None], 0.0, 1.0 - far_s)
    scale, offset = _best_of(container, target, far_s, far_o)
    near_s = np.clip(scale[:, None] - edges, MIN_SCALE, 1.0)
    near_o = np.clip(np.clip(offset[:, None] + edges, 0.0, 1.0), 0.0, 1.0 - near_s)
    both_s = np.concatenate([scale[:, None], near_s], axis=1)
    both_o = np.concatenate([offset[:, None], near_o], axis=1)
    return _best_of(container, target, both_s, both_o)


def _region(
    container: npt.NDArray[np.float64],
    sy: npt.NDArray[np.float64],
    oy: npt.NDArray[np.float64],
    sx: npt.NDArray[np.float64],
    ox: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """The region of each container (P, ..., side, side) resampled onto its whole grid: rows
    first, then columns."""
    side = container.shape[-1]
    lead = (len(container),) + (1,) * (container.ndim - 3)
    low, high, frac = (v.reshape((*lead, side, 1)) for v in _positions(sy, oy, side))
    rows = np.take_along_axis(container, low, axis=-2) * (1.0 - frac)
    rows = rows + np.take_along_axis(container, high, axis=-2) * frac
    low, high, frac = (v.reshape((*lead, 1, side)) for v in _positions(sx, ox, side))
    out: npt.NDArray[np.float64] = np.take_along_axis(rows, low, axis=-1) * (1.0 - frac)
    out = out + np.take_along_axis(rows, high, axis=-1) * frac
    return out


# ------------------------------------------------------------------------------ comparison


def _tone_fit(
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    graphic: npt.NDArray[np.bool_],
    opacity: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None,
    redrawn: npt.NDArray[np.bool_] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``a`` mapped through the cubic tone curve that best gives ``b`` (least squares), and
    ``b``, both divided by ``b``'s deviation; and their mean absolute difference. (P, N)
    arrays of grey levels; ``graphic`` (P,): pairs of two graphics; ``opacity``: ``a``'s and
    ``b``'s (P, N, 0..1), where some picture is transparent.

    A transparent picture is shown over white, and a tone edit of its colours does not map
    what is shown through one curve (a half-opaque edge and an opaque white page show one
    grey and move apart). So for an ``a`` transparent somewhere the curve is also fitted to
    its colours under its opacity (shown: opacity x curve(colour) + white x (1 - opacity)),
    and the better of the two fits counts: the edit may have been made before or after the
    picture was flattened. A tone edit keeps the opacity: where ``b``'s differs, the fit by
    colour is charged the difference as a change from black to white (else a curve that
    turns one grey white would erase a part that is gone from the other picture: a battery's
    bar).

    Cells clipped at white on either side (``_CLIPPED``) bound the curve rather than fit it
    (``_censored_fit``): brightening a light picture takes its page or its window past
    white, where one curve of the levels left cannot follow. The fit by colour is not
    censored: on the picture benchmark that found no more copies and lost some with more
    contrast (a colour read back from a part-opaque cell is clipped only to rounding).

    ``redrawn``: pairs whose soft edges may have been drawn anew at another size; those
    cells are left out of both fits and agree (``_redrawn_edges``)."""
    fa = a / 255.0
    fb = b / 255.0
    # for two graphics, white in both (the background an icon was drawn on, which every tone
    # edit keeps) is left out of the fit and agrees: a darker icon has a darker drawing, not
    # a grey background (a screenshot's white is its content: it is fitted)
    fit = ~((a >= _WHITE) & (b >= _WHITE) & graphic[:, None])
    edges = _redrawn_edges(opacity, redrawn)
    if edges is not None:
        fit &= ~edges
    fitted = _censored_fit(fa, fb, fit, (a >= _CLIPPED) & fit, (b >= _CLIPPED) & fit)
    centred = fb - fb.mean(axis=1, keepdims=True)
    spread = np.sqrt((centred * centred).mean(axis=1, keepdims=True))
    scale = np.where(spread > _FLAT, spread, 1.0)
    ta, tb = fitted / scale, fb / scale
    difference = np.abs(ta - tb).mean(axis=1)
    if opacity is None:
        return ta, tb, difference
    own, other = opacity
    colours = np.divide(fa - (1.0 - own), own, out=np.ones_like(fa), where=own > _CLEAR)
    curve = _curve(fa, fb, fit, own, np.clip(colours, 0.0, 1.0))
    shown = np.where(fit, curve, fb) / scale
    change = np.abs(own - other)
    if edges is not None:
        change = np.where(edges, 0.0, change)
    changed = change.mean(axis=1) / scale[:, 0]
    by_colour = np.abs(shown - tb).mean(axis=1) + changed
    better = (by_colour < difference) & (own < _OPAQUE).any(axis=1)
    return np.where(better[:, None], shown, ta), tb, np.where(better, by_colour, difference)


def _redrawn_edges(
    opacity: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None,
    redrawn: npt.NDArray[np.bool_] | None,
) -> npt.NDArray[np.bool_] | None:
    """(P, N) cells that are an edge drawn anew at another size, for the ``redrawn`` pairs
    (``_redrawn``) of two sides' ``opacity``: left out of the layout's tone fit and of its
    charge for opacity, equal in the detail; None where no pair has any."""
    if opacity is None or redrawn is None or not redrawn.any():
        return None
    own, other = opacity
    change = np.abs(own - other)
    edges = ((own < 1.0) | (other < 1.0)) & (change < _EDGE_CHANGE) & (change > _EDGE_LEAST)
    count = edges.sum(axis=1)
    solid = (np.minimum(own, other) >= 1.0 - _EDGE_LEAST).sum(axis=1)
    few = (count <= _EDGE_SHARE * edges.shape[1]) & (count <= _EDGE_SOLID * solid)
    out: npt.NDArray[np.bool_] = edges & (few & redrawn)[:, None]
    return out


def _redrawn(x: npt.NDArray[np.uint8], y: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Pairs of two graphics in colour whose short sides differ by ``_REDRAWN_RATIO`` or
    more. A drawing without colours (a symbolic glyph in one grey, a pictogram) is drawn by
    its edges: they are not left out."""
    sides_x, sides_y = x[:, 3].astype(np.float64), y[:, 3].astype(np.float64)
    graphic = ((x[:, 0] & y[:, 0]) & _GRAPHIC).astype(bool)
    larger, smaller = np.maximum(sides_x, sides_y), np.maximum(np.minimum(sides_x, sides_y), 1.0)
    coloured = ~_colourless_rows(x) & ~_colourless_rows(y)
    out: npt.NDArray[np.bool_] = graphic & (larger >= _REDRAWN_RATIO * smaller) & coloured
    return out


def _censored_fit(
    fa: npt.NDArray[np.float64],
    fb: npt.NDArray[np.float64],
    fit: npt.NDArray[np.bool_],
    clipped_a: npt.NDArray[np.bool_],
    clipped_b: npt.NDArray[np.bool_],
) -> npt.NDArray[np.float64]:
    """``fb`` as the tone curve of ``fa`` predicts it over ``fit`` (``fb`` itself elsewhere),
    where a level clipped at white (``clipped_a``, ``clipped_b``) may be only a bound: the
    edit that brightened it may have taken it past white.

    Cells clipped in both agree and are left out of the fit. Of the cells clipped on one
    side only, those of the side clipped in more cells (the brighter picture) are bounds,
    as long as they are at most ``_MOST_BOUNDS`` of the fitted cells: left out of the fit,
    they agree where the curve reaches that side's level (``b`` clipped: the curve at least
    white; ``a`` clipped: ``b`` at least the curve and ``_light_level``). The other side's
    are levels like any other, since one increasing curve cannot take some levels past white
    and keep white below another picture's grey: a drawing over white and a caption's white
    over a drawing are no tone edit of each other."""
    only_a, only_b = clipped_a & ~clipped_b, clipped_b & ~clipped_a
    count_a, count_b = only_a.sum(axis=1), only_b.sum(axis=1)
    bounds_b = (count_b >= count_a)[:, None]
    bounded = (np.maximum(count_a, count_b) <= _MOST_BOUNDS * fit.sum(axis=1))[:, None]
    bound_a, bound_b = only_a & ~bounds_b & bounded, only_b & bounds_b & bounded
    both = clipped_a & clipped_b
    levels = fit & ~both & ~bound_a & ~bound_b
    curve = _curve(fa, fb, levels, np.ones_like(fa), fa)
    out = np.where(fit & ~both, curve, fb)
    out = np.where(bound_b, np.minimum(out, fb), out)
    rows = np.flatnonzero(bound_a.any(axis=1))  # the light level is sorted out where needed
    if len(rows):
        top = np.maximum(out[rows], _light_level(fb[rows], levels[rows])[:, None])
        out[rows] = np.where(bound_a[rows], np.maximum(top, fb[rows]), out[rows])
    return out


def _light_level(
    fb: npt.NDArray[np.float64], levels: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float64]:
    """Per row the level ``_LIGHT_SHARE`` of the way up ``fb``'s fitted ``levels`` (the lower
    of two; white where none). ``a``'s white is its lightest level, so the curve takes it at
    least that high: a blank picture, or a white region, bounds nothing."""
    counts = levels.sum(axis=1)
    ordered = np.sort(np.where(levels, fb, np.inf), axis=1)
    index = np.floor(_LIGHT_SHARE * np.maximum(counts - 1, 0)).astype(np.int64)
    found = np.take_along_axis(ordered, index[:, None], axis=1)[:, 0]
    out: npt.NDArray[np.float64] = np.where(counts > 0, found, 1.0)
    return out


def _curve(
    fa: npt.NDArray[np.float64],
    fb: npt.NDArray[np.float64],
    fit: npt.NDArray[np.bool_],
    opacity: npt.NDArray[np.float64],
    colours: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """``fb`` as the cubic tone curve of ``colours`` shown with ``opacity`` over white predicts
    it, at every cell (least squares over ``fit``): with ``opacity`` 1, the curve of ``fa``.

    A tone edit keeps the order of tones: a curve that takes ``colours``' darkest fitted
    level above its lightest (a negative, a dark theme's glyph against a light theme's) is
    no tone edit, and the best level that keeps the order, one grey for every cell, is
    fitted instead."""
    powers = [opacity, opacity * colours]
    powers += [powers[1] * colours, powers[1] * colours * colours]
    basis = np.stack(powers, axis=2)  # (P, N, 4)
    weighted = basis * fit[:, :, None]
    gram = np.einsum("pni,pnj->pij", weighted, basis) + _RIDGE * np.eye(4)
    rhs = np.einsum("pni,pn->pi", weighted, fb - (1.0 - opacity))
    coef = np.linalg.solve(gram, rhs[:, :, None])[:, :, 0]
    fitted = fit.any(axis=1)
    lowest = np.where(fitted, np.where(fit, colours, np.inf).min(axis=1), 0.0)
    highest = np.where(fitted, np.where(fit, colours, -np.inf).max(axis=1), 0.0)
    reversed_ = fitted & (_cubic(coef, highest) < _cubic(coef, lowest))
    if reversed_.any():
        level = np.zeros_like(coef)
        level[:, 0] = rhs[:, 0] / gram[:, 0, 0]
        coef = np.where(reversed_[:, None], level, coef)
    out: npt.NDArray[np.float64] = np.einsum("pni,pi->pn", basis, coef) + (1.0 - opacity)
    return out


def _cubic(coef: npt.NDArray[np.float64], x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each row's cubic (coefficients of 1, x, x^2, x^3) at its ``x``."""
    out: npt.NDArray[np.float64] = coef[:, 0] + x * (coef[:, 1] + x * (coef[:, 2] + x * coef[:, 3]))
    return out


@functools.cache
def _area_matrix(side: int) -> npt.NDArray[np.float64]:
    """(side, GREY_SIDE) weights that box-average a thumbnail down to ``side``."""
    weights = np.zeros((side, GREY_SIDE))
    cells = np.arange(GREY_SIDE)
    for i in range(side):
        lo, hi = i * GREY_SIDE / side, (i + 1) * GREY_SIDE / side
        weights[i] = np.clip(np.minimum(hi, cells + 1) - np.maximum(lo, cells), 0.0, None)
    out: npt.NDArray[np.float64] = weights / weights.sum(axis=1, keepdims=True)
    return out


def _block_differences(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """(P, blocks) each of x's blocks' smallest mean absolute difference from y shifted by up
    to one pixel (edges repeated); (P, side, side) arrays."""
    side = x.shape[-1]
    blocks = max(side // _DETAIL_BLOCK, 1)
    block = side // blocks
    cut = blocks * block
    n = len(x)
    padded_y = np.pad(y, ((0, 0), (1, 1), (1, 1)), mode="edge")
    best = np.full((n, blocks, blocks), np.inf)
    for dy in range(3):
        for dx in range(3):
            diff = np.abs(x[:, :cut, :cut] - padded_y[:, dy : dy + cut, dx : dx + cut])
            per_block = diff.reshape(n, blocks, block, blocks, block).sum(axis=(2, 4))
            np.minimum(best, per_block, out=best)
    out: npt.NDArray[np.float64] = best.reshape(n, -1) / (block * block)
    return out


def _one_hue(chroma: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """(P, 2, side, side) chroma (centred on 0) holding colours of one hue (or none)."""
    flat = chroma.reshape(len(chroma), 2, -1)
    strength = np.hypot(flat[:, 0], flat[:, 1])
    total = strength.sum(axis=1)
    resultant = np.hypot(flat[:, 0].sum(axis=1), flat[:, 1].sum(axis=1))
    share = np.divide(resultant, total, out=np.ones(len(flat)), where=total > 0)
    out: npt.NDArray[np.bool_] = share >= _ONE_HUE
    return out


@dataclass(frozen=True, slots=True)
class Comparison:
    """Checked pairs in numbers: the similarity (0..1) of each part and the lowest of them,
    the alignment found (the region of the container that the other picture shows), and the
    tone of each side over the shared region."""

    similarity: npt.NDArray[np.float64]
    layout: npt.NDArray[np.float64]
    #: The layout with every cell counted: the soft edges an icon's drawing at another size
    #: redraws, which ``layout`` leaves out, too (the mark in ``edits`` is told against it).
    whole_layout: npt.NDArray[np.float64]
    #: The detail figure of every pair (the similarity counts it for graphics only).
    detail: npt.NDArray[np.float64]
    #: The median block's difference (deviations) behind the detail figure, the larger way
    #: round: a mark is a few blocks far above it (``edits``).
    typical_block: npt.NDArray[np.float64]
    colour: npt.NDArray[np.float64]
    #: True where the second picture is (a crop of) a region of the first.
    b_in_a: npt.NDArray[np.bool_]
    scale_x: npt.NDArray[np.float64]
    offset_x: npt.NDArray[np.float64]
    scale_y: npt.NDArray[np.float64]
    offset_y: npt.NDArray[np.float64]
    #: Mean (0..255) and deviation of each side's grey over the shared region.
    mean_a: npt.NDArray[np.float64]
    mean_b: npt.NDArray[np.float64]
    spread_a: npt.NDArray[np.float64]
    spread_b: npt.NDArray[np.float64]
    #: Where the worst detail block is, as shares of the picture (x, y of its centre).
    worst_x: npt.NDArray[np.float64]
    worst_y: npt.NDArray[np.float64]


def _one_way(
    container: npt.NDArray[np.float64],
    inner: npt.NDArray[np.float64],
    graphic: npt.NDArray[np.bool_],
    opacity: tuple[npt.NDArray[np.float64] | None, npt.NDArray[np.float64] | None],
    redrawn: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.float64], tuple[npt.NDArray[np.float64], ...], npt.NDArray[np.float64]]:
    """``inner`` found in ``container``: its layout difference, the alignment (sy, oy, sx, ox)
    and the container's region on the inner's grid (``opacity``: the container's and the
    inner's opacity thumbnails, None where opaque)."""
    sx, ox = _axis_alignment(container.mean(axis=1), inner.mean(axis=1))
    sy, oy = _axis_alignment(container.mean(axis=2), inner.mean(axis=2))
    region = _region(container, sy, oy, sx, ox)
    clear, inner_clear = opacity
    # the layout's cells are the opacity thumbnail's: its region is taken at its own size
    region_clear = None if clear is None else _flat_rows(_region(clear, sy, oy, sx, ox))
    coarse_inner = _coarse(inner), _flat_rows(inner_clear)
    aligned = _layout_cost((_coarse(region), region_clear), coarse_inner, graphic, redrawn)
    # the profiles propose; the whole thumbnails decide whether the pair was aligned already
    # (a tone change moves the profiles of a drawing over a plain background)
    unmoved = _layout_cost((_coarse(container), _flat_rows(clear)), coarse_inner, graphic, redrawn)
    still = unmoved <= aligned
    one, zero = np.ones(len(inner)), np.zeros(len(inner))
    alignment = tuple(
        np.where(still, unmoved, moved)
        for unmoved, moved in zip((one, zero, one, zero), (sy, oy, sx, ox), strict=True)
    )
    region = np.where(still[:, None, None], container, region)
    cost = np.where(still, unmoved, aligned)
    return cost, alignment, region


#: A thumbnail (P, N) with its opacity (P, N; None where opaque).
_Shown = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64] | None]


def _layout_cost(
    region: _Shown, inner: _Shown, graphic: npt.NDArray[np.bool_], redrawn: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float64]:
    """The worse of the tone fits either way of two (P, N) coarse thumbnails."""
    _, _, there = _tone_fit(region[0], inner[0], graphic, _both(region[1], inner[1]), redrawn)
    _, _, back = _tone_fit(inner[0], region[0], graphic, _both(inner[1], region[1]), redrawn)
    out: npt.NDArray[np.float64] = np.maximum(there, back)
    return out


def _both(
    own: npt.NDArray[np.float64] | None, other: npt.NDArray[np.float64] | None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """Two sides' opacity for ``_tone_fit`` (an opaque side's all ones); None when both are
    opaque."""
    if own is None and other is None:
        return None
    shape = own.shape if own is not None else other.shape  # type: ignore[union-attr]
    return (
        np.ones(shape) if own is None else own,
        np.ones(shape) if other is None else other,
    )


def _opacity(
    rows: npt.NDArray[np.uint8], tonal: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float64] | None:
    """(P, ALPHA_SIDE, ALPHA_SIDE) opacity (0..1) of descriptors, all ones where a pair is
    not ``tonal``; None when every one is opaque."""
    cells = np.where(tonal[:, None], rows[:, _CHROMA_END:], 255)
    if (cells == 255).all():
        return None
    out: npt.NDArray[np.float64] = cells.reshape(len(rows), ALPHA_SIDE, ALPHA_SIDE) / 255.0
    return out


def _tonal(x: npt.NDArray[np.uint8], y: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Pairs whose colours may be fitted through a tone curve under their opacity: both hold
    colours the colour figure compares, or neither holds any, or one is a tint of the other's
    own hue (``_TONAL_HUE``: a darker or duller copy of an orange folder is orange, weakly).
    A colourless picture against a coloured one is a grey copy only with the other's luma:
    a grey folder icon is not a grey copy of the green one, whatever curve maps the one's
    greys onto the other's."""
    colourless_x, colourless_y = _colourless_rows(x), _colourless_rows(y)
    held_x, held_y = holds_colour(x), holds_colour(y)
    same = (held_x & held_y) | (colourless_x & colourless_y)
    # a darker, duller or lighter copy of a picture's colours may fall to a tint of their own
    # hue: its colours are still the other's, through the same curve
    weakened = ~colourless_x & ~colourless_y & ~(held_x & held_y)
    hue = _cosine(_chroma(x).sum(axis=(2, 3)), _chroma(y).sum(axis=(2, 3)))
    out: npt.NDArray[np.bool_] = same | (weakened & (hue >= _TONAL_HUE))
    return out


def _colourless_rows(rows: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Descriptors of pictures without colour: greyscale, or colours too weak to count."""
    coloured = (rows[:, 0] & _COLOUR).astype(bool)
    out: npt.NDArray[np.bool_] = ~coloured | _colourless(_chroma(rows))
    return out


def _detailed(opacity: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """(P, ALPHA_SIDE, ALPHA_SIDE) opacity over the grey thumbnail's cells (each cell of the
    opacity thumbnail over the grey cells it covers)."""
    repeat = GREY_SIDE // ALPHA_SIDE
    out: npt.NDArray[np.float64] = opacity.repeat(repeat, axis=1).repeat(repeat, axis=2)
    return out


def _coarse(grey: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """(P, side, side) thumbnails averaged over ``_LAYOUT_CELL`` square cells, as (P, N) rows:
    the layout is compared on these, where resampling a region blurs less than a cell."""
    n, side = len(grey), grey.shape[-1]
    cells = side // _LAYOUT_CELL
    out: npt.NDArray[np.float64] = grey.reshape(n, cells, _LAYOUT_CELL, cells, _LAYOUT_CELL).mean(
        axis=(2, 4)
    )
    return out.reshape(n, -1)


def compare(a: npt.ArrayLike, b: npt.ArrayLike) -> Comparison:
    """Each row of ``a`` against the same row of ``b``: (P, DESCRIPTOR_BYTES) uint8 arrays of
    descriptors (or single ones), aligned and compared (see the module's notes)."""
    x, y = _rows(a, b)
    jit = _kernel()
    if jit is None:
        return _compare(x, y)
    fields = np.asarray(jit.comparisons(x, y, *_kernel_arguments()))
    values = {name: fields[:, i] for i, name in enumerate(jit.FIELDS)}
    values["b_in_a"] = values["b_in_a"] > 0.5
    return Comparison(**values)


def _rows(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[npt.NDArray[np.uint8], ...]:
    """Both sides as contiguous (P, DESCRIPTOR_BYTES) rows of one shape."""
    x, y = padded(a), padded(b)
    if x.shape != y.shape:
        raise ValueError(f"descriptors must be rows of one shape: {x.shape}, {y.shape}")
    return np.ascontiguousarray(x), np.ascontiguousarray(y)


def _compare(x: npt.NDArray[np.uint8], y: npt.NDArray[np.uint8]) -> Comparison:
    """``compare`` on numpy: the reference the compiled check is held to."""
    n = len(x)
    grey = slice(HEADER_BYTES, HEADER_BYTES + _GREY_BYTES)
    ga = x[:, grey].reshape(n, GREY_SIDE, GREY_SIDE).astype(np.float64)
    gb = y[:, grey].reshape(n, GREY_SIDE, GREY_SIDE).astype(np.float64)
    graphic = ((x[:, 0] & y[:, 0]) & _GRAPHIC).astype(bool)
    tonal = _tonal(x, y)
    clear_a, clear_b = _opacity(x, tonal), _opacity(y, tonal)
    redrawn = _redrawn(x, y)
    cost_ab, p_ab, region_ab = _one_way(ga, gb, graphic, (clear_a, clear_b), redrawn)
    cost_ba, p_ba, region_ba = _one_way(gb, ga, graphic, (clear_b, clear_a), redrawn)
    b_in_a = cost_ab <= cost_ba
    sy, oy, sx, ox = (np.where(b_in_a, u, v) for u, v in zip(p_ab, p_ba, strict=True))
    inside = b_in_a[:, None, None]
    shared_a = np.where(inside, region_ab, ga)
    shared_b = np.where(inside, gb, region_ba)
    alignment = (sy, oy, sx, ox)
    opacity_a = _flat_rows(_shared(inside, clear_a, alignment, True))
    opacity_b = _flat_rows(_shared(inside, clear_b, alignment, False))
    layout = 1.0 - np.minimum(cost_ab, cost_ba) / _UNRELATED
    # the detail of the better tone fit's direction, at the smaller picture's resolution
    flat_a, flat_b = shared_a.reshape(n, -1), shared_b.reshape(n, -1)
    ta, tb, there = _tone_fit(flat_a, flat_b, graphic, _both(opacity_a, opacity_b))
    ub, ua, back = _tone_fit(flat_b, flat_a, graphic, _both(opacity_b, opacity_a))
    forward = (there <= back)[:, None]
    da = np.where(forward, ta, ua)
    db = np.where(forward, tb, ub)
    # an edge redrawn at the other size agrees: the worst block is the drawing's, not its rim
    edges = _redrawn_edges(_both(opacity_a, opacity_b), redrawn)
    if edges is not None:
        db = np.where(edges, da, db)
    da, db = da.reshape(n, GREY_SIDE, GREY_SIDE), db.reshape(n, GREY_SIDE, GREY_SIDE)
    side = np.clip(np.minimum(x[:, 3], y[:, 3]).astype(np.int64), 1, GREY_SIDE)
    detail = np.ones(n)
    typical = np.zeros(n)
    worst_x = np.full(n, 0.5)
    worst_y = np.full(n, 0.5)
    for value in np.unique(side).tolist():
        rows = np.flatnonzero(side == value)
        weights = _area_matrix(int(value))
        sa = weights @ da[rows] @ weights.T
        sb = weights @ db[rows] @ weights.T
        there, back = _block_differences(sa, sb), _block_differences(sb, sa)
        detail[rows] = 1.0 - np.maximum(there.max(axis=1), back.max(axis=1)) / _DETAIL_UNRELATED
        typical[rows] = np.maximum(np.median(there, axis=1), np.median(back, axis=1))
        worst_x[rows], worst_y[rows] = _worst_position(sa, sb)
    colour = _colour_agreement(x, y, b_in_a, (sy, oy, sx, ox))
    whole = _whole_layout(ga, gb, graphic, (clear_a, clear_b), redrawn, layout)
    missing = ~x.any(axis=1) | ~y.any(axis=1)
    lowest = np.minimum(np.minimum(layout, np.where(graphic, detail, 1.0)), colour)
    return Comparison(
        similarity=np.where(missing, 0.0, np.clip(lowest, 0.0, 1.0)),
        layout=layout,
        whole_layout=whole,
        detail=detail,
        typical_block=typical,
        colour=colour,
        b_in_a=b_in_a,
        scale_x=sx,
        offset_x=ox,
        scale_y=sy,
        offset_y=oy,
        mean_a=shared_a.mean(axis=(1, 2)),
        mean_b=shared_b.mean(axis=(1, 2)),
        spread_a=shared_a.std(axis=(1, 2)),
        spread_b=shared_b.std(axis=(1, 2)),
        worst_x=worst_x,
        worst_y=worst_y,
    )


def _whole_layout(
    ga: npt.NDArray[np.float64],
    gb: npt.NDArray[np.float64],
    graphic: npt.NDArray[np.bool_],
    opacity: tuple[npt.NDArray[np.float64] | None, npt.NDArray[np.float64] | None],
    redrawn: npt.NDArray[np.bool_],
    layout: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """The layout figure with every cell counted, redrawn edges too, where a pair's were
    left out (``layout`` elsewhere): what the detail is held against to tell a mark from an
    icon's own drawing at another size, whose soft edges differ all round."""
    rows = np.flatnonzero(redrawn)
    if len(rows) == 0:
        return layout
    clear_a, clear_b = (None if c is None else c[rows] for c in opacity)
    counted = np.zeros(len(rows), dtype=np.bool_)
    ab, _, _ = _one_way(ga[rows], gb[rows], graphic[rows], (clear_a, clear_b), counted)
    ba, _, _ = _one_way(gb[rows], ga[rows], graphic[rows], (clear_b, clear_a), counted)
    out = layout.copy()
    out[rows] = 1.0 - np.minimum(ab, ba) / _UNRELATED
    return out


def _shared(
    inside: npt.NDArray[np.bool_],
    opacity: npt.NDArray[np.float64] | None,
    alignment: tuple[npt.NDArray[np.float64], ...],
    first: bool,
) -> npt.NDArray[np.float64] | None:
    """The opacity over the grey cells of the region two pictures share, of the ``first``
    of each pair or its second: its region under ``alignment`` where it is the container
    (the second picture lies ``inside`` the first), else all of it (None: opaque)."""
    if opacity is None:
        return None
    whole = _detailed(opacity)
    container = inside if first else ~inside
    out: npt.NDArray[np.float64] = np.where(container, _region(whole, *alignment), whole)
    return out


def _flat_rows(grid: npt.NDArray[np.float64] | None) -> npt.NDArray[np.float64] | None:
    return None if grid is None else grid.reshape(len(grid), -1)


def _worst_position(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Centre (x, y shares) of the block where x and y differ most, without shifts."""
    side = x.shape[-1]
    blocks = max(side // _DETAIL_BLOCK, 1)
    block = side // blocks
    cut = blocks * block
    n = len(x)
    diff = np.abs(x[:, :cut, :cut] - y[:, :cut, :cut]).reshape(n, blocks, block, blocks, block)
    flat = diff.mean(axis=(2, 4)).reshape(n, -1).argmax(axis=1)
    by, bx = np.divmod(flat, blocks)
    return (bx + 0.5) / blocks, (by + 0.5) / blocks


def _colour_agreement(
    x: npt.NDArray[np.uint8],
    y: npt.NDArray[np.uint8],
    b_in_a: npt.NDArray[np.bool_],
    alignment: tuple[npt.NDArray[np.float64], ...],
) -> npt.NDArray[np.float64]:
    """Cosine of the aligned chroma thumbnails where ``_unaligned_colour`` cannot say."""
    n = len(x)
    ca, cb = _chroma(x), _chroma(y)
    inside = b_in_a[:, None, None, None]
    region = _region(np.where(inside, ca, cb), *alignment)
    fa = _softened(np.where(inside, region, ca)).reshape(n, -1)
    fb = _softened(np.where(inside, cb, region)).reshape(n, -1)
    unaligned = _unaligned_colour(x, y, ca, cb)
    out: npt.NDArray[np.float64] = np.where(
        np.isnan(unaligned), 1.0 - _COLOUR_WEIGHT * (1.0 - _cosine(fa, fb)), unaligned
    )
    return out


def _unaligned_colour(
    x: npt.NDArray[np.uint8],
    y: npt.NDArray[np.uint8],
    ca: npt.NDArray[np.float64] | None = None,
    cb: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """The colour figure of each pair where it needs no alignment, NaN where it does: 1 where
    either has no colours, or (two graphics) either is a tint, or (photos) either is of one
    hue; two graphics, one of them of one strong hue, by how their hues agree. A pair of
    drawings of other hues therefore stops before it is aligned (``_stopped``). ``ca`` and
    ``cb``: the pairs' chroma thumbnails where the caller has them."""
    n = len(x)
    ca = _chroma(x) if ca is None else ca
    cb = _chroma(y) if cb is None else cb
    plain = ~((x[:, 0] & y[:, 0]) & _COLOUR).astype(bool) | _colourless(ca) | _colourless(cb)
    one_a, one_b = _one_hue(ca), _one_hue(cb)
    tint_a, tint_b = one_a & _tint(ca), one_b & _tint(cb)
    # two graphics of one hue each (drawings with one colour in them: a red badge, a green
    # one): the hues must agree; photos of one hue (a tint, a green meadow) need not
    hue = _cosine(ca.reshape(n, 2, -1).sum(axis=2), cb.reshape(n, 2, -1).sum(axis=2))
    graphic = ((x[:, 0] & y[:, 0]) & _GRAPHIC).astype(bool)
    # a graphic of one strong hue against another picture is another drawing unless one of
    # them is a tint (one weak hue: sepia, a faded print), which may be made of anything
    tinted = tint_a | tint_b
    photo_rule = np.where(one_a | one_b, 1.0, np.nan)
    graphic_rule = np.where(tinted, 1.0, np.where(one_a | one_b, hue, np.nan))
    agreement = np.where(graphic, graphic_rule, photo_rule)
    out: npt.NDArray[np.float64] = np.where(plain, 1.0, 1.0 - _COLOUR_WEIGHT * (1.0 - agreement))
    return out


def _softened(chroma: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """(P, 2, side, side) chroma smoothed by [1, 2, 1] / 4 down and across (edges repeated):
    a colour that falls near a cell's edge (a thin highlight, an icon's badge, JPEG's colour
    kept at half the resolution) is split between cells by the slightest shift, which says
    nothing of which colours a picture holds."""
    padded = np.pad(chroma, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="edge")
    down = padded[:, :, :-2] + 2.0 * padded[:, :, 1:-1] + padded[:, :, 2:]
    out: npt.NDArray[np.float64] = (
        down[:, :, :, :-2] + 2.0 * down[:, :, :, 1:-1] + down[:, :, :, 2:]
    ) / 16.0
    return out


def holds_colour(descriptors: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Which of (N, DESCRIPTOR_BYTES) descriptors hold colours the colour figure can check:
    neither greyscale nor a tint (one weak hue, as sepia). The others pass against pictures
    of any colours, so they cannot tell a group's colourways apart (``grouping.split`` cuts
    among the others)."""
    rows = padded(descriptors)
    cells = _chroma(rows)
    coloured = (rows[:, 0] & _COLOUR).astype(bool)
    out: npt.NDArray[np.bool_] = coloured & ~_colourless(cells) & ~(_one_hue(cells) & _tint(cells))
    return out


def _chroma(rows: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    """(P, 2, CHROMA_SIDE, CHROMA_SIDE) chroma cells of descriptors, centred on 0."""
    cells = rows[:, HEADER_BYTES + _GREY_BYTES : _CHROMA_END].astype(np.float64) - 128.0
    out: npt.NDArray[np.float64] = cells.reshape(len(rows), 2, CHROMA_SIDE, CHROMA_SIDE)
    return out


def _strongest(chroma: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """(P, 2, side, side) chroma (centred on 0): each picture's strongest cell of colour."""
    out: npt.NDArray[np.float64] = np.hypot(chroma[:, 0], chroma[:, 1]).max(axis=(1, 2))
    return out


def _tint(chroma: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """(P, 2, side, side) chroma that would be a tint were it of one hue: no cell stronger
    than ``_TINT_STRENGTH``."""
    out: npt.NDArray[np.bool_] = _strongest(chroma) <= _TINT_STRENGTH
    return out


def _colourless(chroma: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """(P, 2, side, side) chroma (centred on 0) with no cell of colour."""
    out: npt.NDArray[np.bool_] = _strongest(chroma) < _COLOURLESS
    return out


def _cosine(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Cosine of each row of ``a`` with the same row of ``b`` (0 where either is zero)."""
    norms = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    out: npt.NDArray[np.float64] = np.divide(
        (a * b).sum(axis=1), norms, out=np.zeros(len(a)), where=norms > 0
    )
    return out


def compiled_files() -> tuple[str, ...]:
    """The compiled check's file where it is the engine (none on numpy): what names this
    check's remembered outcomes besides this module's source (``grouping.checked``), so that
    a change made to the kernel alone is never answered by what the kernel before decided."""
    jit = _kernel()
    path = getattr(jit, "__file__", None)
    return (path,) if isinstance(path, str) else ()


def _kernel() -> ModuleType | None:
    """The compiled check (built ahead of time with the package), or None for numpy when it
    was not built; ``ENGINE_VARIABLE`` forces either."""
    return choose(Kernel.PICTURE_CHECK)


def pair_similarity(
    a: npt.ArrayLike, b: npt.ArrayLike, below: float | None = None
) -> npt.NDArray[np.float64]:
    """Similarity (0..1) of each row of ``a`` with the same row of ``b``: (P, DESCRIPTOR_BYTES)
    uint8 arrays of descriptors (or single ones). A missing descriptor (all zero) makes the
    pair unrelated.

    With ``below`` (a scan's threshold), a pair that cannot reach it stops at the first figure
    that says so and answers that figure, an upper bound of its similarity, plus ``STOPPED``
    (``stopped_early`` tells them apart): first the colour where it needs no alignment (two
    graphics, one drawn in one strong hue, of other hues: an icon theme's look-alikes in
    another colour, seen before they are aligned), then the layout, or for two graphics the
    detail (nine pairs in ten of a scan fail on them, and the colours are not compared)."""
    x, y = _rows(a, b)
    jit = _kernel()
    if jit is None:
        found = _compare(x, y)
        return found.similarity if below is None else _stopped(found, x, y, below)
    arguments = (*_kernel_arguments(), -1.0 if below is None else float(below))
    out: npt.NDArray[np.float64] = np.asarray(jit.similarities(x, y, *arguments))
    return out


def pair_similarity_of(
    table: npt.ArrayLike,
    first: npt.ArrayLike,
    second: npt.ArrayLike,
    below: float | None = None,
) -> npt.NDArray[np.float64]:
    """``pair_similarity`` of the pairs (``table[first[i]]``, ``table[second[i]]``): what each
    picture gives on its own (its profiles sampled at every alignment of the grid among it)
    is worked out once however many pairs it is in, where ``pair_similarity`` works it out
    for each pair; a scan proposes each picture with dozens of others. The same numbers."""
    rows = np.ascontiguousarray(padded(table))
    a = np.ascontiguousarray(first, dtype=np.intp).reshape(-1)
    b = np.ascontiguousarray(second, dtype=np.intp).reshape(-1)
    jit = _kernel()
    if jit is None:
        return pair_similarity(rows[a], rows[b], below)
    arguments = (*_kernel_arguments(), -1.0 if below is None else float(below))
    out: npt.NDArray[np.float64] = np.asarray(jit.similarities_of(rows, a, b, *arguments))
    return out


#: Two pictures whose shown parts' shapes (width over height, inside their plain borders)
#: differ by more than this factor are not one picture, whatever their thumbnails say: the
#: thumbnails are square, and a crop the alignment undoes changes the shape by at most
#: ``1 / MIN_SCALE`` (1.32). On the picture benchmark no pair of copies is further apart
#: than 1.4; on ``/usr/share`` a square checkbox was a landscape tablet's and a portrait
#: phone's copy, a circle an ellipse's, a play triangle a narrower arrow's.
SHAPES_APART = 1.5


def content_shapes(
    headers: npt.ArrayLike, widths: npt.ArrayLike, heights: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """The natural log of the shape (width over height) of each picture's part inside its
    plain border: (N, at least ``HEADER_BYTES``) descriptors and each picture's upright
    stored size; NaN where a size or a descriptor is missing (nothing is then ruled out)."""
    count = len(np.asarray(widths))
    rows = np.asarray(headers, dtype=np.uint8).reshape(count, -1)
    margins = rows[:, 4:HEADER_BYTES].astype(np.float64) / 250.0
    width = np.asarray(widths, dtype=np.float64) * (1.0 - margins[:, 0] - margins[:, 2])
    height = np.asarray(heights, dtype=np.float64) * (1.0 - margins[:, 1] - margins[:, 3])
    known = (width > 0) & (height > 0) & rows.any(axis=1)
    out: npt.NDArray[np.float64] = np.full(count, np.nan)
    out[known] = np.log(width[known] / height[known])
    return out


def shapes_apart(a: npt.ArrayLike, b: npt.ArrayLike, turned: bool = False) -> npt.NDArray[np.bool_]:
    """Whether the pictures of each pair (``content_shapes`` of each side) are too unlike in
    shape to be one picture (``SHAPES_APART``); ``turned``: a quarter turn is allowed (the
    scan's mirror and rotation invariance), which swaps width and height."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    gap = np.abs(x - y)
    if turned:
        gap = np.minimum(gap, np.abs(x + y))
    with np.errstate(invalid="ignore"):  # NaN: a shape not known rules nothing out
        out: npt.NDArray[np.bool_] = gap > np.log(SHAPES_APART)
    return out


#: Pictures whose longer side is at most this many pixels are drawn at their size (icons,
#: emblems, a toolbar's buttons): ``drawn_apart`` rules on two of them of one size.
DRAWN_SIDE = 64
#: Two such pictures less alike than this differ by more than a re-save or a re-render: an
#: edit must name what changed (real themes' copies under two names score 0.97 and above).
EXPLAINED = 0.97
#: The edits that only frame a picture (``drawn_apart``).
FRAMING_CODES = frozenset(
    {EditCode.CROPPED, EditCode.UNCROPPED, EditCode.PADDED, EditCode.BORDER_REMOVED}
)


def drawn_apart(
    similarity: float,
    found: Sequence[Edit],
    size_a: tuple[int, int],
    size_b: tuple[int, int],
) -> bool:
    """Whether two small pictures of one size (``DRAWN_SIDE``) are two drawings: less alike
    than ``EXPLAINED`` while no edit of tone, colour, marks or file names the difference
    (``found``: none, or framing alone, which at one size is a part of the drawing moved or
    grown, as nobody crops a 24-pixel icon and enlarges it back). Real themes' look-alikes
    are such pairs: a battery's level, a face's mouth, a speaker's waves, lines of text
    aligned left or right; the check's blocks of a 16-pixel drawing are two pixels wide, so
    it passes them as alike. Of the sizes, the upright stored sizes; either unknown (0):
    nothing is ruled out."""
    if size_a != size_b or min(size_a) < 1 or max(size_a) > DRAWN_SIDE:
        return False
    if similarity >= EXPLAINED:
        return False
    return all(edit.code in FRAMING_CODES for edit in found)


#: Added to the upper bound that a pair stopped early answers: such answers lie in [-2, -1).
STOPPED = -2.0


def stopped_early(similarity: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Which answers of ``pair_similarity(..., below=...)`` are upper bounds (``STOPPED``)."""
    out: npt.NDArray[np.bool_] = similarity < STOPPED / 2
    return out


def _stopped(
    found: Comparison, x: npt.NDArray[np.uint8], y: npt.NDArray[np.uint8], below: float
) -> npt.NDArray[np.float64]:
    """The numpy reference's answer under ``below``: the compiled check's rule on its figures."""
    graphic = ((x[:, 0] & y[:, 0]) & _GRAPHIC).astype(bool)
    present = x.any(axis=1) & y.any(axis=1)
    bound = np.minimum(found.layout, np.where(graphic, found.detail, np.inf))
    stops = present & ((found.layout < below) | (graphic & (bound < below)))
    bound = np.where(found.layout < below, found.layout, bound)
    if below > 0.0:  # other hues are seen before anything is aligned
        unaligned = _unaligned_colour(x, y)
        by_colour = present & (unaligned < below)
        stops |= by_colour
        bound = np.where(by_colour, unaligned, bound)
    out: npt.NDArray[np.float64] = np.where(
        stops, np.clip(bound, 0.0, 1.0) + STOPPED, found.similarity
    )
    return out


def _kernel_arguments() -> tuple[object, ...]:
    """What the compiled check is handed besides the descriptors: the alignments to try, the
    area matrices and the constants (one definition for both engines)."""
    scales, offsets = _grid()
    return scales, offsets, _fine(), _area_matrices(), _constants()


@functools.cache
def _area_matrices() -> npt.NDArray[np.float64]:
    """``_area_matrix(side)`` for every side 1..GREY_SIDE, as (GREY_SIDE + 1, GREY_SIDE,
    GREY_SIDE) rows padded with zeros (for the compiled check)."""
    out = np.zeros((GREY_SIDE + 1, GREY_SIDE, GREY_SIDE))
    for side in range(1, GREY_SIDE + 1):
        out[side, :side] = _area_matrix(side)
    return out


def _constants() -> dict[str, float]:
    """The check's constants by name (for the compiled check)."""
    return {
        "unrelated": _UNRELATED,
        "detail_unrelated": _DETAIL_UNRELATED,
        "colourless": _COLOURLESS,
        "one_hue": _ONE_HUE,
        "colour_weight": _COLOUR_WEIGHT,
        "ridge": _RIDGE,
        "flat": _FLAT,
        "min_scale": MIN_SCALE,
        "white": _WHITE,
        "clipped": _CLIPPED,
        "light_share": _LIGHT_SHARE,
        "most_bounds": _MOST_BOUNDS,
        "tint_strength": _TINT_STRENGTH,
        "clear": _CLEAR,
        "opaque": _OPAQUE,
        "tonal_hue": _TONAL_HUE,
        "redrawn_ratio": _REDRAWN_RATIO,
        "edge_change": _EDGE_CHANGE,
        "edge_least": _EDGE_LEAST,
        "edge_share": _EDGE_SHARE,
        "edge_solid": _EDGE_SOLID,
    }


def _dihedral(descriptors: npt.NDArray[np.uint8], turns: int, mirror: bool) -> np.ndarray:
    """Descriptors of the pictures turned by ``turns`` quarter turns (after a mirror)."""
    n = len(descriptors)
    head = descriptors[:, :HEADER_BYTES]
    grey = descriptors[:, HEADER_BYTES : HEADER_BYTES + _GREY_BYTES]
    grey = grey.reshape(n, GREY_SIDE, GREY_SIDE)
    chroma = descriptors[:, HEADER_BYTES + _GREY_BYTES : _CHROMA_END]
    chroma = chroma.reshape(n, 2, CHROMA_SIDE, CHROMA_SIDE)
    opacity = descriptors[:, _CHROMA_END:].reshape(n, ALPHA_SIDE, ALPHA_SIDE)
    if mirror:
        grey, chroma, opacity = grey[:, :, ::-1], chroma[:, :, :, ::-1], opacity[:, :, ::-1]
    grey = np.rot90(grey, turns, axes=(1, 2))
    chroma = np.rot90(chroma, turns, axes=(2, 3))
    opacity = np.rot90(opacity, turns, axes=(1, 2))
    parts = [head, grey.reshape(n, -1), chroma.reshape(n, -1), opacity.reshape(n, -1)]
    return np.concatenate(parts, axis=1)


def invariant_pair_similarity(
    a: npt.ArrayLike, b: npt.ArrayLike, below: float | None = None
) -> npt.NDArray[np.float64]:
    """As ``pair_similarity``, taking for each pair the best of ``b`` mirrored and turned by
    quarter turns (the scan's mirror and rotation invariance). Under ``below``, the best is
    exact where an exact figure is at least every form's upper bound, else the highest bound
    (``STOPPED`` added)."""
    x, y = padded(a), padded(b)
    exact = np.full(len(x), -np.inf)
    bound = np.full(len(x), -np.inf)
    for mirror in (False, True):
        for turns in range(4):
            form = _dihedral(y, turns, mirror) if (mirror or turns) else y
            found = pair_similarity(x, form, below)
            early = stopped_early(found)
            exact = np.where(early, exact, np.maximum(exact, found))
            bound = np.where(early, np.maximum(bound, found - STOPPED), bound)
    out: npt.NDArray[np.float64] = np.where(exact >= bound, exact, bound + STOPPED)
    return out


def similarity(a: bytes | npt.ArrayLike, b: bytes | npt.ArrayLike) -> float:
    """Similarity of two descriptors (bytes or arrays), 0..1."""

    def row(d: bytes | npt.ArrayLike) -> npt.NDArray[np.uint8]:
        return np.frombuffer(d, np.uint8) if isinstance(d, bytes) else np.asarray(d, np.uint8)

    return float(pair_similarity(row(a), row(b))[0])


# ------------------------------------------------------------------------------ naming edits

#: Grey levels (of 255) of mean difference that read as brighter or darker.
_TONE_LEVELS = 8.0
#: Ratio of grey deviations that reads as more or less contrast.
_CONTRAST_RATIO = 1.12
#: Share of a side (of 1) cut or added before it counts.
_EDGE = 0.025
#: Two graphics: below this detail figure, with the layout well above it, a small part
#: differs: a mark. (An icon is a few blocks: its mark is a large part of it.)
_MARK = 0.95
_MARK_GAP = 0.05
#: Other pictures: a worst block of at least ``_MARK_WORST`` deviations and ``_MARK_LOCAL``
#: times the median block is a mark (a caption, a logo); a crop, a resize or a recompression
#: moves every block a little. Chosen on the picture benchmark's tuning half (captions and
#: logos on photos, drawings and screenshots named 94 % where the gap above named 87 %, other
#: edits named marks 2.3 % where it named 5.2 %); held-out: 91 % against 85 %, 2.0 % against
#: 4.7 %.
_MARK_WORST = 0.2
_MARK_LOCAL = 10.0
#: Two graphics: the gap above, and a worst block this many times the median one. A crop,
#: a recompression or a tone edit of an icon lowers its detail figure too, but over many
#: blocks: on the tuning half 9.8 % of such copies were named marked by the gap alone and
#: 1.4 % with this (marks named 86 % and 85 %, a caption in a plain margin included);
#: held-out 7.2 % and 1.6 % (marks 94 % and 94 %).
_MARK_LOCAL_GRAPHIC = 20.0
_LOSSY = frozenset({Format.JPEG, Format.WEBP, Format.HEIF})
_FORMAT_NAMES = {
    Format.PNG: "PNG",
    Format.JPEG: "JPEG",
    Format.WEBP: "WebP",
    Format.GIF: "GIF",
    Format.BMP: "BMP",
    Format.TIFF: "TIFF",
    Format.HEIF: "HEIF",
}


#: Ratio (either way) of the pixels given to what both pictures show, beyond which a copy
#: reads as resized. A crop or a padding keeps the pixels' scale and changes only the file's
#: size: on the picture benchmark's tuning half every resize is 0.26 or under, and of the
#: 2,087 copies made without resizing 2,032 are within 5 % and all but two within 20 %
#: (alignments a step off).
_RESIZED = 1.2


def _pixel_scale(
    c: _Figures, ha: Header, size_a: tuple[int, int], hb: Header, size_b: tuple[int, int]
) -> float:
    """The pixels ``b`` gives to what both pictures show, against ``a``'s (1: the same scale;
    0.25: half the width and height). The border is trimmed from each, and the alignment
    says what share of one's picture the other shows."""

    def inside(head: Header, size: tuple[int, int]) -> float:
        left, top, right, bottom = head.margins
        return size[0] * max(1.0 - left - right, 0.0) * size[1] * max(1.0 - top - bottom, 0.0)

    shown = max(c.scale_x * c.scale_y, 1e-6)  # the inner picture's share of the container
    a, b = inside(ha, size_a), inside(hb, size_b)
    if a <= 0 or b <= 0:
        return 1.0
    return b / (a * shown) if c.b_in_a else b * shown / a


def _sides(left: float, top: float, right: float, bottom: float) -> tuple[Side, ...]:
    named = ((Side.LEFT, left), (Side.TOP, top), (Side.RIGHT, right), (Side.BOTTOM, bottom))
    return tuple(side for side, share in named if share > _EDGE)


#: A picture whose strongest cell of colour is below this (of 127) has too little colour to
#: say it was lost or added against one without any, unless that one's file holds no colour
#: at all: a grey window with a few small coloured icons reads as colourless or not by
#: where its cells fall, and a crop of it must not read as its coloured original.
_FAINT = 2.0 * _COLOURLESS


def _hue_kinds(
    rows: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Per descriptor 0: no colour, 1: one hue (a tint), 2: many hues; the summed chroma
    (Cb, Cr); and whether its colour is clear (``_FAINT``)."""
    chroma = _chroma(rows)
    strongest = _strongest(chroma)
    resultant = chroma.reshape(len(rows), 2, -1).sum(axis=2)
    coloured = ((rows[:, 0] & _COLOUR) > 0) & (strongest >= _COLOURLESS)
    kinds = np.where(coloured, np.where(_one_hue(chroma), 1, 2), 0).astype(np.int64)
    return kinds, resultant, strongest >= _FAINT


#: Cosine of two tints' hues below which they read as toned differently.
_SAME_HUE = 0.9


def _colour_changes(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8]) -> list[EditCode | None]:
    """GREYSCALE, TINTED or COLOURED for each row of ``b`` against the same row of ``a``, or
    None. One hue on a picture without colour is a tint too (a grey photo toned sepia):
    COLOURED, a sign of the original for the keeper, is many hues where there were none."""
    (kind_a, hue_a, vivid_a), (kind_b, hue_b, vivid_b) = _hue_kinds(a), _hue_kinds(b)
    other_hue = _cosine(hue_a, hue_b) < _SAME_HUE
    clear_a = vivid_a | ((b[:, 0] & _COLOUR) == 0)
    clear_b = vivid_b | ((a[:, 0] & _COLOUR) == 0)
    tinted = (kind_b == 1) & ((kind_a != 1) | other_hue) & clear_b
    code = np.select(
        [(kind_b == 0) & (kind_a > 0) & clear_a, tinted, (kind_a == 0) & (kind_b > 0) & clear_b],
        [1, 2, 3],
        0,
    )
    names = (None, EditCode.GREYSCALE, EditCode.TINTED, EditCode.COLOURED)
    return [names[c] for c in code.tolist()]


def edits(
    kept: npt.ArrayLike,
    other: npt.ArrayLike,
    kept_size: tuple[int, int],
    other_size: tuple[int, int],
) -> tuple[Edit, ...]:
    """What differs in ``other`` from ``kept`` (two descriptors and the pictures' upright
    sizes), in the order a person reads them: size, framing, colour, tone, marks, file."""
    return edits_of(compare(kept, other), padded(kept), padded(other), [kept_size], [other_size])[0]


def edits_of(
    found: Comparison,
    kept: npt.NDArray[np.uint8],
    others: npt.NDArray[np.uint8],
    kept_sizes: Sequence[tuple[int, int]],
    other_sizes: Sequence[tuple[int, int]],
) -> list[tuple[Edit, ...]]:
    """``edits`` of each row pair that ``found`` compared (descriptors and sizes alike)."""
    kept, others = padded(kept), padded(others)
    tones = ("mean_a", "mean_b", "spread_a", "spread_b")
    told: dict[str, list[Any]] = dict(zip(tones, _tones(found, kept, others), strict=True))
    figures: list[list[Any]] = [
        told[name] if name in told else getattr(found, name).tolist()
        for name in (
            "scale_x", "offset_x", "scale_y", "offset_y", "b_in_a", "mean_a", "mean_b",
            "spread_a", "spread_b", "detail", "whole_layout", "worst_x", "worst_y",
            "typical_block",
        )
    ]  # fmt: skip
    colours = _colour_changes(kept, others)
    heads_a, heads_b = headers(kept), headers(others)
    return [
        _named(
            _Figures(*(column[i] for column in figures)),
            heads_a[i],
            heads_b[i],
            colours[i],
            kept_sizes[i],
            other_sizes[i],
        )
        for i in range(len(kept))
    ]


#: Cells opaque to at least this (of 1) in both pictures are the drawing whose tone is told.
_DRAWN = 0.9
#: A transparent pair with fewer such cells (of the grey thumbnail's) is told as shown.
_LEAST_DRAWN = 32


def _tones(
    found: Comparison, kept: npt.NDArray[np.uint8], others: npt.NDArray[np.uint8]
) -> tuple[list[float], list[float], list[float], list[float]]:
    """``_numpy_tones``, compiled where the check is (the pairs' thumbnails aligned and told
    one pair at a time, without numpy's temporaries: they cost a scan's naming of edits
    more than its comparisons did)."""
    jit = _kernel()
    if jit is None:
        return _numpy_tones(found, kept, others)

    def column(values: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        return np.ascontiguousarray(values, dtype=np.float64)

    told = np.asarray(
        jit.tones(
            np.ascontiguousarray(kept),
            np.ascontiguousarray(others),
            column(found.scale_y),
            column(found.offset_y),
            column(found.scale_x),
            column(found.offset_x),
            np.ascontiguousarray(found.b_in_a, dtype=np.uint8),
            _DRAWN * 255,
            _LEAST_DRAWN,
        )
    )
    figures = np.stack([found.mean_a, found.mean_b, found.spread_a, found.spread_b], axis=1)
    chosen = np.where(np.isnan(told), figures, told)
    mean_a, mean_b, spread_a, spread_b = (values.tolist() for values in chosen.T)
    return mean_a, mean_b, spread_a, spread_b


def _numpy_tones(
    found: Comparison, kept: npt.NDArray[np.uint8], others: npt.NDArray[np.uint8]
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Mean and spread of the grey levels of each side, as a person compares the tone of
    two copies. Where a picture is transparent, over its drawing: the cells opaque in
    both, aligned as ``found`` aligned them (a tone edit is made to the drawing; shown over
    white, the white around it stays, and darkening read as more contrast). Where the
    alignment moved (a crop), the spreads over cells of ``_LAYOUT_CELL`` pixels: the
    region resampled onto the other's grid is blurred, and a crop read as more contrast
    (held-out copies named exactly 0.811 -> 0.819). Other pairs keep ``found``'s figures."""
    means_a, means_b = found.mean_a.tolist(), found.mean_b.tolist()
    spreads_a, spreads_b = found.spread_a.tolist(), found.spread_b.tolist()
    clear = ((kept[:, 0] | others[:, 0]) & _TRANSPARENT) > 0
    moved = np.flatnonzero(~clear & ((found.scale_x < 1.0) | (found.scale_y < 1.0)))
    if len(moved):
        ga, gb = _aligned(found, kept, others, moved, slice(HEADER_BYTES, _GREY_END), GREY_SIDE)
        coarse_a, coarse_b = _coarse(ga).std(axis=1).tolist(), _coarse(gb).std(axis=1).tolist()
        for k, row in enumerate(moved.tolist()):
            spreads_a[row], spreads_b[row] = coarse_a[k], coarse_b[k]
    rows = np.flatnonzero(clear)
    if not len(rows):
        return means_a, means_b, spreads_a, spreads_b
    ga, gb = _aligned(found, kept, others, rows, slice(HEADER_BYTES, _GREY_END), GREY_SIDE)
    oa, ob = _aligned(found, kept, others, rows, slice(_CHROMA_END, None), ALPHA_SIDE)
    drawn = (oa >= _DRAWN * 255) & (ob >= _DRAWN * 255)
    count = drawn.sum(axis=(1, 2))
    enough = count >= _LEAST_DRAWN
    if not enough.any():
        return means_a, means_b, spreads_a, spreads_b
    # every row's cells at once (a row at a time cost some 60 us of numpy calls a member)
    weight = drawn[enough].astype(np.float64)
    cells = count[enough].astype(np.float64)
    told = [_drawn_tone(grey[enough], weight, cells) for grey in (ga, gb)]
    for k, row in enumerate(rows[enough].tolist()):
        means_a[row], spreads_a[row] = told[0][0][k], told[0][1][k]
        means_b[row], spreads_b[row] = told[1][0][k], told[1][1][k]
    return means_a, means_b, spreads_a, spreads_b


def _drawn_tone(
    grey: npt.NDArray[np.float64], weight: npt.NDArray[np.float64], cells: npt.NDArray[np.float64]
) -> tuple[list[float], list[float]]:
    """Mean and deviation of each thumbnail's grey levels over its cells of ``weight`` 1."""
    mean = np.einsum("ijk,ijk->i", grey, weight) / cells
    deviation = grey - mean[:, None, None]
    spread = np.sqrt(np.einsum("ijk,ijk,ijk->i", deviation, deviation, weight) / cells)
    return mean.tolist(), spread.tolist()


def _aligned(
    found: Comparison,
    kept: npt.NDArray[np.uint8],
    others: npt.NDArray[np.uint8],
    rows: npt.NDArray[np.intp],
    part: slice,
    side: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """A thumbnail of the descriptors (``part``, ``side`` square) of ``rows``, each side on
    the grey thumbnail's grid, the container's region resampled onto the inner's grid as
    ``found`` aligned them."""
    shape = (len(rows), side, side)
    a = kept[rows, part].reshape(shape).astype(np.float64)
    b = others[rows, part].reshape(shape).astype(np.float64)
    scale = GREY_SIDE // side
    if scale > 1:
        a = a.repeat(scale, axis=1).repeat(scale, axis=2)
        b = b.repeat(scale, axis=1).repeat(scale, axis=2)
    alignment = (
        found.scale_y[rows],
        found.offset_y[rows],
        found.scale_x[rows],
        found.offset_x[rows],
    )
    inside = found.b_in_a[rows]
    # the whole of a container is its own region (every sample falls on a cell, weight 0)
    whole = (alignment[0] == 1.0) & (alignment[1] == 0.0)
    whole &= (alignment[2] == 1.0) & (alignment[3] == 0.0)
    for container, which in (
        (a, np.flatnonzero(inside & ~whole)),
        (b, np.flatnonzero(~(inside | whole))),
    ):
        if len(which):  # only each pair's container is resampled
            container[which] = _region(container[which], *(v[which] for v in alignment))
    return a, b


@dataclass(frozen=True, slots=True)
class _Figures:
    """One pair's figures of a ``Comparison``, as Python numbers."""

    scale_x: float
    offset_x: float
    scale_y: float
    offset_y: float
    b_in_a: bool
    mean_a: float
    mean_b: float
    spread_a: float
    spread_b: float
    detail: float
    #: ``Comparison.whole_layout``: the layout with every cell counted.
    layout: float
    worst_x: float
    worst_y: float
    typical_block: float


def _framing(c: _Figures, ha: Header, hb: Header) -> list[Edit]:
    """Cropped or uncropped (the alignment), then a plain border added or removed (the
    trimmed margins). ``hb`` against ``ha``."""
    out: list[Edit] = []
    sx, ox, sy, oy = c.scale_x, c.offset_x, c.scale_y, c.offset_y
    sides = _sides(ox, oy, 1.0 - sx - ox, 1.0 - sy - oy)
    # a lossy copy flattened from a transparent picture blurs its drawing's edge into the
    # plain background: that halo is no more around the edges (held-out copies named
    # exactly 0.783 -> 0.790; the JPEGs of icons "uncropped" in 7 % of the copies that pass)
    halo = ha.transparent and not hb.transparent and hb.format in _LOSSY
    if sides and (c.b_in_a or not halo):
        code = EditCode.CROPPED if c.b_in_a else EditCode.UNCROPPED
        out.append(Edit(code, percent=max(round(100 * (1.0 - sx * sy)), 1), sides=sides))
    added = [mb - ma for ma, mb in zip(ha.margins, hb.margins, strict=True)]
    if any(abs(d) > _EDGE for d in added):
        grew = sum(added) > 0
        code = EditCode.PADDED if grew else EditCode.BORDER_REMOVED
        where = _sides(*(d if grew else -d for d in added))
        out.append(Edit(code, percent=round(100 * max(abs(d) for d in added)), sides=where))
    return out


#: Canvases whose width-to-height ratios differ by less than this (relative) are one shape.
_SAME_SHAPE = 0.02


def _mark_in_margin(
    framing: Sequence[Edit],
    ha: Header,
    hb: Header,
    kept_size: tuple[int, int],
    other_size: tuple[int, int],
) -> tuple[Side, ...] | None:
    """The sides (top or bottom first, as a mark's) where the other picture reaches into the
    kept one's plain border on a canvas of the same shape, or None. A caption or a logo put
    in an icon's empty corner leaves exactly that: the picture shows more than the kept one
    on those sides (uncropped) and has less border there (border removed). A crop of the
    canvas shrinks picture and border together, and padding grows the border alone. A lossy
    copy's border is blurred and says nothing, so neither file may be lossy. The reverse (a
    mark taken away: cropped and padded) is left to the framing's names: a GIF's hardened
    soft edges leave it too."""
    (wa, ha_), (wb, hb_) = kept_size, other_size
    if not all((wa, ha_, wb, hb_)) or ha.format in _LOSSY or hb.format in _LOSSY:
        return None
    if abs(wa * hb_ / (ha_ * wb) - 1.0) > _SAME_SHAPE:
        return None
    found = {edit.code: set(edit.sides) for edit in framing}
    reached = found.get(EditCode.UNCROPPED, set()) & found.get(EditCode.BORDER_REMOVED, set())
    if not reached:
        return None
    return tuple(side for side in _MARK_SIDES if side in found[EditCode.BORDER_REMOVED])


#: The order a mark's sides are said in.
_MARK_SIDES = (Side.TOP, Side.BOTTOM, Side.LEFT, Side.RIGHT)


def _marked(c: _Figures, graphics: bool) -> bool:
    """Whether a small part of the picture differs: text or a mark added."""
    worst = (1.0 - c.detail) * _DETAIL_UNRELATED
    if graphics:
        gap = c.detail < _MARK and c.layout - c.detail > _MARK_GAP
        return gap and worst >= _MARK_LOCAL_GRAPHIC * c.typical_block
    return worst >= _MARK_WORST and worst >= _MARK_LOCAL * c.typical_block


def _named(
    c: _Figures,
    ha: Header,
    hb: Header,
    colour: EditCode | None,
    kept_size: tuple[int, int],
    other_size: tuple[int, int],
) -> tuple[Edit, ...]:
    out: list[Edit] = []
    (wa, hta), (wb, htb) = kept_size, other_size
    # resized: what both show has more or fewer pixels (a crop or a padding changes only
    # the file's size); a file of the very same size is not "larger" (a caption in a margin
    # moves the border: that is the mark's, named below)
    if all((wa, hta, wb, htb)) and (wa, hta) != (wb, htb):
        scale = _pixel_scale(c, ha, (wa, hta), hb, (wb, htb))
        if scale > _RESIZED or scale < 1.0 / _RESIZED:
            code = EditCode.SMALLER if scale < 1.0 else EditCode.LARGER
            out.append(Edit(code, width=wb, height=htb, of_width=wa, of_height=hta))
    framing = _framing(c, ha, hb)
    in_margin = _mark_in_margin(framing, ha, hb, kept_size, other_size)
    if in_margin is None:
        out.extend(framing)
    if colour is not None:
        out.append(Edit(colour))
    shift = c.mean_b - c.mean_a
    if abs(shift) >= _TONE_LEVELS:
        code = EditCode.BRIGHTER if shift > 0 else EditCode.DARKER
        out.append(Edit(code, percent=round(100 * abs(shift) / 255)))
    spread_a, spread_b = c.spread_a, c.spread_b
    if spread_a > 1 and spread_b > 1:
        ratio = spread_b / spread_a
        if ratio >= _CONTRAST_RATIO or ratio <= 1 / _CONTRAST_RATIO:
            code = EditCode.MORE_CONTRAST if ratio > 1 else EditCode.LESS_CONTRAST
            out.append(Edit(code, percent=round(100 * abs(ratio - 1))))
    if in_margin is not None:
        out.append(Edit(EditCode.MARKED, sides=in_margin))
    elif _marked(c, ha.graphic and hb.graphic):
        x, y = c.worst_x, c.worst_y
        where: tuple[Side, ...] = (Side.TOP,) if y < 0.4 else (Side.BOTTOM,) if y > 0.6 else ()
        where += (Side.LEFT,) if x < 0.4 else (Side.RIGHT,) if x > 0.6 else ()
        out.append(Edit(EditCode.MARKED, sides=where))
    if ha.transparent and not hb.transparent:
        out.append(Edit(EditCode.TRANSPARENCY_REMOVED))
    elif hb.transparent and not ha.transparent:
        out.append(Edit(EditCode.TRANSPARENCY_ADDED))
    name = _FORMAT_NAMES.get(hb.format, "")
    lower = hb.quality and ha.quality and hb.quality < ha.quality - 3
    if name and hb.format in _LOSSY and (hb.format != ha.format or lower):
        out.append(Edit(EditCode.REENCODED, format=name, quality=hb.quality))
    elif name and ha.format not in (Format.UNKNOWN, hb.format):
        out.append(Edit(EditCode.CONVERTED, format=name))
    return tuple(out)
