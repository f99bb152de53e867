"""Rules over a picture's grey levels that both fingerprint paths share: its plain border,
its flatness, its turned forms. ``perceptual`` (through Pillow) and ``direct`` (from decoded
pixels) apply the same rule to the same numbers, so they cannot drift apart."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from dupfinder.core.image.hashes import WORKING_SIZE, Box

__all__ = [
    "BORDER_TOLERANCE",
    "FLAT_STD",
    "TRIM_KEEPS",
    "TURNS",
    "is_flat",
    "reduce_factor",
    "trim_levels",
]

#: Grey levels (of 255) within which a picture's edge counts as a plain border, trimmed
#: before hashing: a padded copy, or an icon cropped into its empty margin, hashes alike.
BORDER_TOLERANCE = 12
#: Working images whose pixel standard deviation (0..255 scale) is below this are refused:
#: their hash is decided by compression noise and would group unrelated blank images.
FLAT_STD = 2.0
#: A border is trimmed only while at least this share of each side is left.
TRIM_KEEPS = 0.3
_WHOLE: Box = (0.0, 0.0, 1.0, 1.0)

#: A working image as each of the seven mirrored and turned forms a fingerprint hashes
#: (flip left-right, flip top-bottom, a quarter turn anticlockwise, a half turn, a quarter
#: turn clockwise, transpose, transverse: ``perceptual.VARIANT_TRANSFORMS``'s order).
TURNS: tuple[Callable[[npt.NDArray[np.uint8]], npt.NDArray[np.uint8]], ...] = (
    lambda a: a[:, ::-1],
    lambda a: a[::-1],
    lambda a: np.rot90(a, 1),
    lambda a: a[::-1, ::-1],
    lambda a: np.rot90(a, 3),
    lambda a: a.T,
    lambda a: a[::-1, ::-1].T,
)


def trim_levels(
    arr: npt.NDArray[np.uint8],
    opacity: npt.NDArray[np.uint8] | None = None,
    background: int = 255,
) -> Box:
    """The part of a grey picture ``arr`` inside a plain border (the four corners within
    ``BORDER_TOLERANCE`` of one level: padding, or an icon's empty margin over white), as
    (left, top, right, bottom) shares; the whole picture when it has none. With ``opacity``
    (the picture's alpha, same size) the border is what is transparent or opaque white: a
    brighter, darker or recoloured copy of an icon keeps its shape, not its colours at the
    edge, and an icon padded with white keeps its drawing. ``background``: what ``arr`` shows
    transparent pixels over, 255 or 0 (white art on transparency, shown over black, where
    the border's opaque colour is black)."""
    h, w = arr.shape
    if h < 8 or w < 8:
        return _WHOLE
    if opacity is not None:  # neither transparent nor opaque white (a white border added)
        plain = np.abs(arr.astype(np.int16) - background) <= BORDER_TOLERANCE
        inside = opacity > BORDER_TOLERANCE
        inside &= (opacity < 255 - BORDER_TOLERANCE) | ~plain
    else:
        corners = sorted(int(v) for v in (arr[0, 0], arr[0, -1], arr[-1, 0], arr[-1, -1]))
        if corners[-1] - corners[0] > BORDER_TOLERANCE:
            return _WHOLE
        level = (corners[1] + corners[2]) // 2  # the corners' median, rounded down
        inside = (arr < level - BORDER_TOLERANCE) | (arr > level + BORDER_TOLERANCE)
    rows, cols = np.flatnonzero(inside.any(axis=1)), np.flatnonzero(inside.any(axis=0))
    if len(rows) == 0 or (rows[-1] + 1 - rows[0]) < TRIM_KEEPS * h:
        return _WHOLE
    if (cols[-1] + 1 - cols[0]) < TRIM_KEEPS * w:
        return _WHOLE
    return (cols[0] / w, rows[0] / h, (cols[-1] + 1) / w, (rows[-1] + 1) / h)


def is_flat(pixels: npt.NDArray[np.uint8]) -> bool:
    """Whether the grey levels' standard deviation is under ``FLAT_STD`` (one dot product: the
    sums of whole levels are exact in floating point)."""
    levels = pixels.ravel().astype(np.float64)
    mean = levels.mean()
    return float(np.dot(levels, levels) / len(levels) - mean * mean) < FLAT_STD * FLAT_STD


def reduce_factor(width: int, height: int) -> int:
    """The factor a picture is reduced by before its steps: the one JPEG ``draft`` picks for
    ``WORKING_SIZE`` (1, 2, 4 or 8), reused for every other format."""
    scale = min(width // WORKING_SIZE, height // WORKING_SIZE)
    return next((s for s in (8, 4, 2) if scale >= s), 1)
