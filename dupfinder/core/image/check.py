"""A second, independent check of pictures: small thumbnails compared pixel by pixel.

The 64-bit perceptual hash finds candidates fast, but 64 bits of coarse layout cannot tell
apart icons of one theme (a folder with a music emblem and one with a code emblem), nor
pictures that differ only in colour: those land a few bits apart. Every pair the index
proposes is therefore checked with a *descriptor* made in the same decode pass, from the
same working image:

- ``GREY_SIDE`` x ``GREY_SIDE`` grey thumbnail (a box average of the working image): the
  layout. Two thumbnails are compared after removing each one's mean and contrast (so tone
  edits do not count), cell block by cell block, each block allowed to shift by one cell to
  find its best match (so a small crop or a resize that moves edges by a fraction of a cell
  does not count either). The mean absolute difference left, over that of two unrelated
  pictures (``_UNRELATED``), is the share of the picture that differs.
- ``CHROMA_SIDE`` x ``CHROMA_SIDE`` chroma thumbnail (Cb and Cr): the colours. When both
  pictures have colour, the cosine of their chroma thumbnails says whether the colours agree
  (a brightness change scales chroma and keeps the cosine). A greyscale copy of a colour
  picture has no colour to compare and is judged on its layout alone.

- for small pictures (icons, clip art: long side at most ``SMALL_SIDE``) a ``DETAIL_SIDE`` x
  ``DETAIL_SIDE`` colour thumbnail over white (the detail), and the side it is worth (the
  picture's short side, at most ``DETAIL_SIDE``). Icons of one theme differ by a badge or a
  label that a 16x16 thumbnail averages away; two small pictures are therefore also compared at
  the smaller one's own resolution, block by block with a one-pixel shift for resampling, and
  the *worst* block decides (a mean would drown a badge). Photos have no detail (zeros) and
  keep the checks above: their crops and watermarks must not count.

The similarity of a pair is the lowest of these, 0..1: what the person is shown, and what
the scan's picture threshold is compared with. Chosen on ``bench/image_accuracy.py`` (see
the README, *Pictures*).
"""

from __future__ import annotations

import functools
import logging
from types import ModuleType

import numpy as np
import numpy.typing as npt
from PIL import Image

from dupfinder.core.jit.engine import Kernel, choose

__all__ = [
    "BASE_BYTES",
    "CHECK_VERSION",
    "CHROMA_SIDE",
    "DESCRIPTOR_BYTES",
    "DETAIL_SIDE",
    "GREY_SIDE",
    "SMALL_SIDE",
    "descriptor",
    "has_detail",
    "invariant_pair_similarity",
    "padded",
    "pair_similarity",
    "similarity",
]

#: Side of the grey thumbnail (the layout check).
GREY_SIDE = 16
#: Side of the chroma thumbnail (the colour check).
CHROMA_SIDE = 8
#: Side of the colour thumbnail of small pictures (the detail check).
DETAIL_SIDE = 32
#: Pictures whose long side is at most this are small (icons, clip art) and get the detail
#: check. On the accuracy corpus every icon is 48-256 px and every wallpaper 284 px or more.
#: Larger pictures get it too when some pixel is transparent: icons drawn at 512 px (no
#: wallpaper of the corpus has a transparent pixel; photos and screenshots are opaque).
SMALL_SIDE = 256
_GREY_BYTES = GREY_SIDE * GREY_SIDE
_CHROMA_BYTES = 2 * CHROMA_SIDE * CHROMA_SIDE
#: Bytes of the part every picture has: the grey thumbnail, then Cb and Cr (offset by 128).
BASE_BYTES = _GREY_BYTES + _CHROMA_BYTES
_BASE_BYTES = BASE_BYTES
_DETAIL_BYTES = 1 + 3 * DETAIL_SIDE * DETAIL_SIDE
#: Bytes of a whole descriptor: the base, then the detail: the side it is worth and the RGB
#: thumbnail. Only small pictures store it; a large picture's descriptor is the base alone
#: (BASE_BYTES), read as if the detail were zeros (none), so a million photos do not carry
#: three kilobytes of zeros each in memory and in the cache.
DESCRIPTOR_BYTES = _BASE_BYTES + _DETAIL_BYTES
#: Part of the cache key: changes whenever a descriptor of the same picture would change.
CHECK_VERSION = (
    f"thumb{GREY_SIDE}-chroma{CHROMA_SIDE}-detail{DETAIL_SIDE}-small{SMALL_SIDE}-or-transparent"
    "-compact"
)

#: Grey cells per block that shifts on its own to find its best match.
_BLOCK = 2
#: Cells a block may shift (a 5 % crop moves the far corner by 0.8 cells of 16).
_SHIFT = 1
#: Mean absolute difference of two unrelated standardised thumbnails (independent normal
#: values: 2 / sqrt(pi)): a pair this far apart is 0 % similar.
_UNRELATED = 2.0 / np.sqrt(np.pi)
#: A chroma thumbnail whose strongest cell is below this (of 127) holds no colour to compare:
#: greyscale pictures, and colour pictures of greys (JPEG noise reaches 2 to 3).
_COLOURLESS = 8.0
#: Detail pixels per block side; the worst block decides (a badge is one or two blocks).
_DETAIL_BLOCK = 4
#: Mean absolute RGB difference (of 255) of a block that makes a pair 0 % alike in detail.
#: Chosen on the accuracy corpus so that the scan's default (85 %) accepts a worst block
#: differing by up to 8 % of full scale (20 of 255): resizes, re-encodes and flattened copies
#: of icons stay below that, badges and labels do not.
_DETAIL_UNRELATED = 136.0
#: Pairs compared in one step of the detail check (bounds its temporary arrays).
_DETAIL_CHUNK = 1024
#: Environment variable that forces the detail check's engine: ``numpy`` or ``compiled``.
ENGINE_VARIABLE = Kernel.PICTURE_CHECK.variable

_log = logging.getLogger(__name__)


def has_detail(width: int, height: int, picture: Image.Image | None = None) -> bool:
    """Whether a picture gets the detail check: small (by its stored size), or transparent
    (its decoded ``picture`` has a pixel that is not fully opaque) like an icon drawn large."""
    if max(width, height) <= SMALL_SIDE:
        return True
    if picture is None:
        return False
    bands = picture.getbands()
    if bands[-1] in ("A", "a"):
        alpha = picture.getchannel(len(bands) - 1)
    elif "transparency" in picture.info:
        alpha = picture.convert("RGBA").getchannel("A")
    else:
        return False
    lowest = alpha.getextrema()[0]
    return isinstance(lowest, int | float) and lowest < 255


def descriptor(
    working: Image.Image,
    chroma: Image.Image | None,
    detail: Image.Image | None = None,
    detail_side: int = 0,
) -> bytes:
    """The descriptor of a picture: its square grey working image and, when it has colour,
    its upright ``YCbCr`` (or ``RGB``) image at any size; ``None`` for greyscale pictures.
    Small pictures add ``detail``, their upright RGB image over white at any size, and
    ``detail_side``, their short side in pixels; without them the descriptor is BASE_BYTES
    long."""
    grey = working.resize((GREY_SIDE, GREY_SIDE), Image.Resampling.BOX)
    out = bytearray(np.asarray(grey, dtype=np.uint8).tobytes())
    if chroma is None:
        out += bytes([128]) * _CHROMA_BYTES
    else:
        small = chroma.convert("YCbCr") if chroma.mode != "YCbCr" else chroma
        small = small.resize((CHROMA_SIDE, CHROMA_SIDE), Image.Resampling.BOX)
        cells = np.asarray(small, dtype=np.uint8)[:, :, 1:]  # (side, side, [Cb, Cr])
        out += np.ascontiguousarray(cells.transpose(2, 0, 1)).tobytes()
    if detail is None or detail_side < 1:
        return bytes(out)
    rgb = detail.convert("RGB").resize((DETAIL_SIDE, DETAIL_SIDE), Image.Resampling.BOX)
    out.append(min(detail_side, DETAIL_SIDE))
    out += np.asarray(rgb, dtype=np.uint8).tobytes()
    return bytes(out)


def _standardised(grey: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    """Each row's thumbnail with mean 0 and standard deviation 1 (all zero when flat)."""
    values = grey.astype(np.float64).reshape(-1, GREY_SIDE, GREY_SIDE)
    values -= values.mean(axis=(1, 2), keepdims=True)
    spread = values.std(axis=(1, 2), keepdims=True)
    out: npt.NDArray[np.float64] = np.divide(
        values, spread, out=np.zeros_like(values), where=spread > 0
    )
    return out


def _block_difference(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Mean over ``a``'s blocks of the smallest mean absolute difference from ``b`` shifted
    by up to ``_SHIFT`` cells (``b``'s edges repeated outside it)."""
    pad = _SHIFT
    padded = np.pad(b, ((0, 0), (pad, pad), (pad, pad)), mode="edge")
    blocks = GREY_SIDE // _BLOCK
    best = np.full((len(a), blocks, blocks), np.inf)
    for dy in range(2 * pad + 1):
        for dx in range(2 * pad + 1):
            moved = padded[:, dy : dy + GREY_SIDE, dx : dx + GREY_SIDE]
            diff = np.abs(a - moved).reshape(len(a), blocks, _BLOCK, blocks, _BLOCK)
            per_block = diff.mean(axis=(2, 4))
            np.minimum(best, per_block, out=best)
    mean: npt.NDArray[np.float64] = best.mean(axis=(1, 2))
    return mean


def _colour_agreement(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8]) -> np.ndarray:
    """Cosine of the two chroma thumbnails; 1 when either holds no colour."""
    x = a.astype(np.float64) - 128.0
    y = b.astype(np.float64) - 128.0
    coloured = (np.abs(x).max(axis=1) >= _COLOURLESS) & (np.abs(y).max(axis=1) >= _COLOURLESS)
    norms = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
    cosine = np.divide((x * y).sum(axis=1), norms, out=np.zeros(len(x)), where=norms > 0)
    return np.where(coloured, cosine, 1.0)


@functools.cache
def _area_matrix(side: int) -> npt.NDArray[np.float32]:
    """(side, DETAIL_SIDE) weights that box-average a detail thumbnail down to ``side``."""
    weights = np.zeros((side, DETAIL_SIDE))
    for i in range(side):
        lo, hi = i * DETAIL_SIDE / side, (i + 1) * DETAIL_SIDE / side
        cells = np.arange(DETAIL_SIDE)
        weights[i] = np.clip(np.minimum(hi, cells + 1) - np.maximum(lo, cells), 0.0, None)
    out: npt.NDArray[np.float32] = (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def _worst_block(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32]) -> np.ndarray:
    """Per pair, the largest over ``x``'s blocks of its smallest mean absolute difference
    from ``y`` shifted by up to one pixel; (P, 3, side, side) arrays.

    In float32 with sums into preallocated arrays: this is the hot loop of a scan of icons
    (every proposed pair of two small pictures), and float32 halves its memory traffic at
    a cost of about 1e-8 in the similarity."""
    side = x.shape[-1]
    blocks = max(side // _DETAIL_BLOCK, 1)
    block = side // blocks
    cut = blocks * block
    n = len(x)
    near = np.ascontiguousarray(x[:, :, :cut, :cut], dtype=np.float32)
    padded = np.pad(y.astype(np.float32), ((0, 0), (0, 0), (1, 1), (1, 1)), mode="edge")
    best = np.full((n, blocks, blocks), np.inf, dtype=np.float32)
    diff = np.empty_like(near)
    for dy in range(3):
        for dx in range(3):
            np.subtract(near, padded[:, :, dy : dy + cut, dx : dx + cut], out=diff)
            np.abs(diff, out=diff)
            per_block = diff.sum(axis=1).reshape(n, blocks, block, blocks, block).sum(axis=(2, 4))
            np.minimum(best, per_block, out=best)
    worst: np.ndarray = best.max(axis=(1, 2)).astype(np.float64) / (3 * block * block)
    return worst


def _detail_kernel() -> ModuleType | None:
    """The compiled check (built ahead of time with the package), or None for numpy when it
    was not built; ``ENGINE_VARIABLE`` forces either."""
    return choose(Kernel.PICTURE_CHECK)


def _worst_both(
    x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], jit: ModuleType | None
) -> np.ndarray:
    """Per pair, the worse of ``_worst_block`` in both directions (``jit``: compiled)."""
    side = x.shape[-1]
    block = side // max(side // _DETAIL_BLOCK, 1)
    if jit is None:
        both: np.ndarray = np.maximum(_worst_block(x, y), _worst_block(y, x))
        return both
    worst: np.ndarray = np.asarray(
        jit.worst_blocks(
            np.ascontiguousarray(x, dtype=np.float32),
            np.ascontiguousarray(y, dtype=np.float32),
            block,
        )
    )
    return worst


def _layout_difference(
    gx: npt.NDArray[np.float64], gy: npt.NDArray[np.float64], jit: ModuleType | None
) -> np.ndarray:
    """Per pair, the worse of ``_block_difference`` in both directions (``jit``: compiled,
    which shifts by one cell, as ``_SHIFT`` does)."""
    if jit is None or _SHIFT != 1:
        both: np.ndarray = np.maximum(_block_difference(gx, gy), _block_difference(gy, gx))
        return both
    shape = (len(gx), 1, GREY_SIDE, GREY_SIDE)
    difference: np.ndarray = np.asarray(
        jit.mean_blocks(
            np.ascontiguousarray(gx.reshape(shape)), np.ascontiguousarray(gy.reshape(shape)), _BLOCK
        )
    )
    return difference


def _detail_similarity(
    a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8], jit: ModuleType | None
) -> np.ndarray:
    """Detail similarity of row pairs (detail parts of descriptors); 1 unless both have
    detail. Both are averaged down to the smaller side of the two before comparing."""
    out = np.ones(len(a))
    side = np.minimum(a[:, 0], b[:, 0]).astype(np.int64)
    shape = (-1, DETAIL_SIDE, DETAIL_SIDE, 3)
    for value in np.unique(side[side > 0]).tolist():
        weights = _area_matrix(int(value))
        rows = np.flatnonzero(side == value)
        for lo in range(0, len(rows), _DETAIL_CHUNK):
            chunk = rows[lo : lo + _DETAIL_CHUNK]
            x = a[chunk, 1:].reshape(shape).transpose(0, 3, 1, 2).astype(np.float32)
            y = b[chunk, 1:].reshape(shape).transpose(0, 3, 1, 2).astype(np.float32)
            if value < DETAIL_SIDE:  # at full size the averaging is the identity
                x = (weights @ x @ weights.T).astype(np.float32, copy=False)
                y = (weights @ y @ weights.T).astype(np.float32, copy=False)
            out[chunk] = 1.0 - _worst_both(x, y, jit) / _DETAIL_UNRELATED
    return out


def padded(descriptors: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Descriptors as (P, DESCRIPTOR_BYTES) rows: base-only ones (BASE_BYTES) get a zero
    detail part, which means "none"."""
    x = np.atleast_2d(np.asarray(descriptors, dtype=np.uint8))
    if x.shape[1] == BASE_BYTES:
        x = np.concatenate([x, np.zeros((len(x), _DETAIL_BYTES), dtype=np.uint8)], axis=1)
    if x.shape[1] != DESCRIPTOR_BYTES:
        raise ValueError(
            f"descriptors must be ({BASE_BYTES},) or ({DESCRIPTOR_BYTES},) rows: {x.shape}"
        )
    return x


def pair_similarity(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Similarity (0..1) of each row of ``a`` with the same row of ``b``: (P, DESCRIPTOR_BYTES)
    uint8 arrays of descriptors (or single ones; base-only ones are padded). A missing
    descriptor (all zero) makes the pair unrelated."""
    x, y = padded(a), padded(b)
    if x.shape != y.shape:
        raise ValueError(f"descriptors must be rows of one shape: {x.shape}, {y.shape}")
    gx, gy = _standardised(x[:, :_GREY_BYTES]), _standardised(y[:, :_GREY_BYTES])
    jit = _detail_kernel()  # one choice per call, for both checks
    layout = 1.0 - _layout_difference(gx, gy, jit) / _UNRELATED
    colour = _colour_agreement(x[:, _GREY_BYTES:_BASE_BYTES], y[:, _GREY_BYTES:_BASE_BYTES])
    detail = _detail_similarity(x[:, _BASE_BYTES:], y[:, _BASE_BYTES:], jit)
    missing = ~x.any(axis=1) | ~y.any(axis=1)
    lowest = np.minimum(np.minimum(layout, colour), detail)
    return np.where(missing, 0.0, np.clip(lowest, 0.0, 1.0))


def _dihedral(descriptors: npt.NDArray[np.uint8], turns: int, mirror: bool) -> np.ndarray:
    """Descriptors of the pictures turned by ``turns`` quarter turns (after a mirror): the
    thumbnails are square box averages, so turning them equals thumbnailing the turned picture."""
    n = len(descriptors)
    grey = descriptors[:, :_GREY_BYTES].reshape(n, GREY_SIDE, GREY_SIDE)
    chroma = descriptors[:, _GREY_BYTES:_BASE_BYTES].reshape(n, 2, CHROMA_SIDE, CHROMA_SIDE)
    side = descriptors[:, _BASE_BYTES : _BASE_BYTES + 1]
    detail = descriptors[:, _BASE_BYTES + 1 :].reshape(n, DETAIL_SIDE, DETAIL_SIDE, 3)
    if mirror:
        grey, chroma, detail = grey[:, :, ::-1], chroma[:, :, :, ::-1], detail[:, :, ::-1]
    grey = np.rot90(grey, turns, axes=(1, 2))
    chroma = np.rot90(chroma, turns, axes=(2, 3))
    detail = np.rot90(detail, turns, axes=(1, 2))
    parts = [grey, chroma, side, detail]
    return np.concatenate([part.reshape(n, -1) for part in parts], axis=1)


def invariant_pair_similarity(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """As ``pair_similarity``, taking for each pair the best of ``b`` mirrored and turned by
    quarter turns (the scan's mirror and rotation invariance)."""
    x, y = padded(a), padded(b)
    best = pair_similarity(x, y)
    for mirror in (False, True):
        for turns in range(4):
            if mirror or turns:
                best = np.maximum(best, pair_similarity(x, _dihedral(y, turns, mirror)))
    return best


def similarity(a: bytes | npt.ArrayLike, b: bytes | npt.ArrayLike) -> float:
    """Similarity of two descriptors (bytes or arrays), 0..1."""

    def row(d: bytes | npt.ArrayLike) -> npt.NDArray[np.uint8]:
        return np.frombuffer(d, np.uint8) if isinstance(d, bytes) else np.asarray(d, np.uint8)

    return float(pair_similarity(row(a), row(b))[0])
