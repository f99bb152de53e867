"""Perceptual fingerprints of images: one decode path, then a 64-bit hash as a plain int.

Every file goes through the same steps, so that a JPEG and its PNG copy are hashed from
equivalent pixels (mixing a drafted JPEG decode with a full decode moves hashes by a few bits):

1. open (HEIF/HEIC through pi-heif when it is installed, registered once, lazily); a colour
   JPEG is decoded as YCbCr, whose Y channel is exactly what a greyscale decode gives;
2. reduce by the largest factor of 1, 2, 4 or 8 that keeps both sides >= ``WORKING_SIZE``:
   JPEG does this inside the decoder (``draft``, several times faster), every other format
   with ``Image.reduce`` (a box filter, which is what the decoder's scaled IDCT amounts to);
3. greyscale by ITU-R 601 luma (what a JPEG's Y channel holds), transparency composited over
   white first so that an icon with alpha matches its flattened copy (over black when white
   leaves nothing to see: white art on a transparent layer);
4. EXIF orientation applied to the reduced image (cheap), then a Lanczos resize to a square
   ``WORKING_SIZE`` greyscale working image; near-flat working images are refused;
5. the hash over that image (``pdhash`` by default: 32 pHash bits for the coarse layout and
   32 dHash bits for edges, chosen on ``bench/image_accuracy.py``), and with ``invariant=True``
   the hashes of its seven mirrored and rotated forms, from the same pixels;
6. the descriptor of the second check (``dupfinder.core.image.check``): a smaller grey
   thumbnail of the working image, and a chroma thumbnail of the decoded colours (over
   white where transparent), upright; for small pictures (icons, clip art) also a larger
   colour thumbnail over white, the detail.

The hashes are imagehash's (4.x) computed here with numpy, so that neither scipy (imagehash's
DCT) nor PyWavelets is installed with the app: pHash is the 8x8 lowest frequencies of the 2-D
DCT-II (unnormalised, as ``scipy.fftpack.dct``) of a 32x32 Lanczos resize against their median,
dHash the sign of horizontal steps in a 9x8 resize, wHash the 8x8 block means of the picture with
its mean removed (the Haar approximation imagehash takes) against their median. Tests compare
pHash and dHash with imagehash bit for bit.

Bit order: each hash is an 8x8 boolean array; cell ``[r, c]`` becomes bit ``63 - (8 * r + c)``
of the int, i.e. the int's 16 hex digits are exactly imagehash's ``str()`` form (4.x). The mix
packs pHash rows 0-3 (bits 63..32) then dHash rows 0, 2, 4, 6 (bits 31..0) the same way.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PIL import Image, UnidentifiedImageError

from dupfinder.core.errors import (
    CorruptFile,
    FileProblem,
    TooLarge,
    TooLittleContent,
    UnsupportedFile,
)
from dupfinder.core.image import check as imagecheck

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_VERSION",
    "DEFAULT_ALGORITHM",
    "VARIANT_TRANSFORMS",
    "WORKING_SIZE",
    "ImageFingerprint",
    "WorkingImage",
    "hash_bits_to_int",
    "hash_working",
    "image_fingerprint",
    "load_working_image",
]

#: Side of the square greyscale image every hash is computed from.
WORKING_SIZE = 64
#: Working images whose pixel standard deviation (0..255 scale) is below this are refused:
#: their hash is decided by compression noise and would group unrelated blank images.
FLAT_STD = 2.0
#: The hash used for fingerprints. On real wallpapers/photos with 19 kinds of edit (see
#: bench/image_accuracy.py) the pHash/dHash mix beat pHash, dHash and wHash: F1 0.982 at
#: precision 0.995 (k=10) against 0.948/0.960 (pHash), 0.921/0.932 (dHash), 0.925/1.0 (wHash).
DEFAULT_ALGORITHM = "pdhash"
#: Cache key part: changes whenever any step above (or the hash choice) changes an output
#: (img2: the hashes computed here with numpy, not by imagehash and scipy; a tied coefficient
#: of a symmetric picture no longer falls on either side of the median by rounding).
ALGORITHM_VERSION = (
    f"img2-{DEFAULT_ALGORITHM}-draft-box-luma-white-lanczos{WORKING_SIZE}"
    f"-{imagecheck.CHECK_VERSION}"
)

_RESAMPLE = Image.Resampling.LANCZOS
_ORIENTATION_TAG = 0x0112
_ALPHA_MODES = frozenset({"RGBA", "LA", "PA", "RGBa", "La"})
_DIRECT_GREY_MODES = frozenset({"1", "L", "P", "RGB", "RGBX"})
#: Modes without colour: their descriptor's chroma is neutral.
_COLOURLESS_MODES = frozenset({"1", "L", "LA", "La", "I", "F", "I;16", "I;16L", "I;16B", "I;16N"})
_HIGH_DEPTH_MODES = frozenset({"I", "F", "I;16", "I;16L", "I;16B", "I;16N"})
_JPEG_FORMATS = frozenset({"JPEG", "MPO"})

#: EXIF orientation value -> the transpose that shows the picture upright.
_ORIENT_OPS: dict[int, Image.Transpose] = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
#: The order of ``ImageFingerprint.variants``: the hash the image would have after each op.
VARIANT_TRANSFORMS: tuple[Image.Transpose, ...] = (
    Image.Transpose.FLIP_LEFT_RIGHT,
    Image.Transpose.FLIP_TOP_BOTTOM,
    Image.Transpose.ROTATE_90,
    Image.Transpose.ROTATE_180,
    Image.Transpose.ROTATE_270,
    Image.Transpose.TRANSPOSE,
    Image.Transpose.TRANSVERSE,
)


@dataclass(frozen=True, slots=True)
class ImageFingerprint:
    """A 64-bit perceptual hash with the picture's upright size; ``variants`` when invariant;
    ``descriptor``: the second check's thumbnails (``dupfinder.core.image.check``)."""

    value: int
    width: int
    height: int
    variants: tuple[int, ...] = ()
    descriptor: bytes = b""


@dataclass(frozen=True, slots=True)
class WorkingImage:
    """The square greyscale image all hashes start from, and the original upright size;
    ``colour``: the upright decoded colours at a small size (None for greyscale pictures);
    ``detail``: small pictures' upright colours over white at the detail size (else None)."""

    image: Image.Image
    width: int
    height: int
    colour: Image.Image | None = None
    detail: Image.Image | None = None

    def descriptor(self) -> bytes:
        """The second check's descriptor of this picture."""
        side = min(self.width, self.height) if self.detail is not None else 0
        return imagecheck.descriptor(self.image, self.colour, self.detail, side)


def hash_bits_to_int(bits: np.ndarray) -> int:
    """Pack a boolean array row-major, first cell most significant (imagehash's hex order)."""
    flat = np.asarray(bits, dtype=bool).reshape(-1)
    if flat.size != 64:
        raise ValueError(f"expected 64 hash bits, got {flat.size}")
    return int.from_bytes(np.packbits(flat).tobytes(), "big")


def _dct_matrix(n: int) -> npt.NDArray[np.float64]:
    """DCT-II as a matrix, unnormalised like ``scipy.fftpack.dct``: 2 cos(pi k (2j + 1) / 2n)."""
    k = np.arange(n, dtype=np.float64)[:, None]
    j = np.arange(n, dtype=np.float64)[None, :]
    matrix: npt.NDArray[np.float64] = 2.0 * np.cos(np.pi * k * (2.0 * j + 1.0) / (2.0 * n))
    return matrix


_DCT32 = _dct_matrix(32)
#: Relative size of the rounding noise of a sum of a thousand products (about 1e-13 here).
_TIE = 1e-9


def _phash_bits(image: Image.Image) -> npt.NDArray[np.bool_]:
    """imagehash's ``phash`` (hash_size 8, highfreq_factor 4) as an 8x8 boolean array."""
    pixels = np.asarray(image.convert("L").resize((32, 32), _RESAMPLE), dtype=np.float64)
    low = (_DCT32 @ pixels @ _DCT32.T)[:8, :8]
    return _above_median(low)


def _above_median(values: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """``values > median``, with values within rounding noise of the median counted as equal:
    a symmetric picture has coefficients that are exactly equal (zero, often the median), and
    which side their last bits fall on depends on how the sums were ordered, not the picture."""
    median = np.median(values)
    noise = _TIE * float(np.abs(values).max())
    bits: npt.NDArray[np.bool_] = values > median + noise
    return bits


def _dhash_bits(image: Image.Image) -> npt.NDArray[np.bool_]:
    """imagehash's ``dhash`` (hash_size 8) as an 8x8 boolean array."""
    pixels = np.asarray(image.convert("L").resize((9, 8), _RESAMPLE), dtype=np.int16)
    bits: npt.NDArray[np.bool_] = pixels[:, 1:] > pixels[:, :-1]
    return bits


def _phash(image: Image.Image) -> int:
    return hash_bits_to_int(_phash_bits(image))


def _dhash(image: Image.Image) -> int:
    return hash_bits_to_int(_dhash_bits(image))


def _whash(image: Image.Image) -> int:
    """imagehash's ``whash`` (Haar, image_scale = WORKING_SIZE): 8x8 block means of the picture
    less its mean (its Haar approximation with the coarsest level removed) against their
    median."""
    side = WORKING_SIZE
    pixels = np.asarray(image.convert("L").resize((side, side), _RESAMPLE), dtype=np.float64)
    pixels = pixels / 255.0
    pixels -= pixels.mean()
    cell = side // 8
    low = pixels.reshape(8, cell, 8, cell).sum(axis=(1, 3)) / cell
    return hash_bits_to_int(_above_median(low))


def _pdhash(image: Image.Image) -> int:
    """32 low-vertical-frequency pHash bits, then 32 dHash bits from every other row.

    pHash alone shrugs off tone and compression but loses crops and watermarks; dHash keeps
    those but confuses textures. Half of each is more precise at the same recall than either.
    """
    p = _phash_bits(image)[:4]
    d = _dhash_bits(image)[::2]
    return hash_bits_to_int(np.concatenate([p, d]))


#: Every hash the benchmark compares; each maps a working image to an unsigned 64-bit int.
ALGORITHMS: dict[str, Callable[[Image.Image], int]] = {
    "phash": _phash,
    "dhash": _dhash,
    "whash": _whash,
    "pdhash": _pdhash,
}


@functools.cache
def _register_heif() -> bool:
    """Teach Pillow HEIF/HEIC once per process; False when pi-heif is not installed.

    pi-heif, not pillow-heif: the same decoder without pillow-heif's x265 encoder (GPL).
    """
    try:
        from pi_heif import register_heif_opener
    except ImportError:
        return False
    register_heif_opener()
    return True


def _reduce_factor(width: int, height: int) -> int:
    """The factor JPEG ``draft`` picks for WORKING_SIZE, reused for every other format."""
    scale = min(width // WORKING_SIZE, height // WORKING_SIZE)
    return next((s for s in (8, 4, 2) if scale >= s), 1)


def _orientation(im: Image.Image) -> int:
    try:
        value = im.getexif().get(_ORIENTATION_TAG, 1)
    except Exception:  # a malformed EXIF block must not cost the picture itself
        return 1
    return value if isinstance(value, int) and value in _ORIENT_OPS else 1


def _has_alpha(im: Image.Image) -> bool:
    return im.mode in _ALPHA_MODES or "transparency" in im.info


def _to_grey(im: Image.Image, background: int = 255) -> Image.Image:
    """Greyscale by 601 luma; transparent pixels composited over ``background`` first."""
    if im.mode == "YCbCr":  # a drafted colour JPEG: Y is the luma a greyscale decode gives
        return im.getchannel(0)
    if _has_alpha(im):
        la = im.convert("LA") if im.mode in ("LA", "La") else im.convert("RGBA").convert("LA")
        flat = Image.new("L", la.size, background)
        flat.paste(la.getchannel("L"), mask=la.getchannel("A"))
        return flat
    if im.mode in _DIRECT_GREY_MODES:
        return im.convert("L")
    if im.mode in _HIGH_DEPTH_MODES:
        # 16-bit and float pictures: stretch to 0..255 (every hash here ignores gain and offset).
        arr = np.asarray(im, dtype=np.float64)
        low, high = float(arr.min()), float(arr.max())
        span = high - low or 1.0
        return Image.fromarray(np.rint((arr - low) * (255.0 / span)).astype(np.uint8), "L")
    return im.convert("RGB").convert("L")


def _decode(path: str | os.PathLike[str]) -> tuple[Image.Image, int, int, int]:
    """Open and decode (drafted for JPEG): pixels, stored width and height, orientation."""
    _register_heif()
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below; Pillow reads lazily from it
    except OSError as exc:
        raise FileProblem(f"cannot read file: {exc.strerror or exc}") from exc
    with fh, warnings.catch_warnings():
        # Decoder chatter (odd EXIF, palette notes) is not the user's problem; bombs are.
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            im = Image.open(fh)
            width, height = im.size
            orientation = _orientation(im)
            if im.format in _JPEG_FORMATS:
                im.draft("YCbCr", (WORKING_SIZE, WORKING_SIZE))
            im.load()
        except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
            raise TooLarge(f"too many pixels to decode safely: {exc}") from exc
        except UnidentifiedImageError as exc:
            raise UnsupportedFile("not an image format dupfinder can read") from exc
        except Exception as exc:  # Pillow's plugins raise a wide, undocumented set on bad data
            reason = str(exc) or type(exc).__name__
            raise CorruptFile(f"image data is damaged or truncated: {reason}") from exc
    if width < 1 or height < 1:
        raise CorruptFile("image has no pixels")
    return im, width, height, orientation


def _shrink(grey: Image.Image, width: int, height: int, orientation: int) -> Image.Image:
    """Reduce (unless the JPEG decoder already did), orient, resize to the working square."""
    factor = _reduce_factor(width, height)
    if factor > 1 and grey.size == (width, height):
        grey = grey.reduce(factor)
    op = _ORIENT_OPS.get(orientation)
    if op is not None:
        grey = grey.transpose(op)
    return grey.resize((WORKING_SIZE, WORKING_SIZE), _RESAMPLE)


def _colour(im: Image.Image, orientation: int) -> Image.Image | None:
    """The decoded colours, box-averaged to the chroma thumbnail, over white where
    transparent, upright; None when the picture has no colour channels."""
    if im.mode in _COLOURLESS_MODES:
        return None
    side = (imagecheck.CHROMA_SIDE, imagecheck.CHROMA_SIDE)
    if _has_alpha(im):
        small = im.convert("RGBA").resize(side, Image.Resampling.BOX)
        small = Image.alpha_composite(Image.new("RGBA", side, (255, 255, 255, 255)), small)
        small = small.convert("RGB")
    elif im.mode in ("RGB", "YCbCr"):
        small = im.resize(side, Image.Resampling.BOX)
    else:
        small = im.convert("RGB").resize(side, Image.Resampling.BOX)
    op = _ORIENT_OPS.get(orientation)
    return small.transpose(op) if op is not None else small


def _detail(im: Image.Image, orientation: int) -> Image.Image:
    """A small picture's colours over white at the detail size, upright."""
    side = (imagecheck.DETAIL_SIDE, imagecheck.DETAIL_SIDE)
    if _has_alpha(im):
        rgba = im if im.mode == "RGBA" else im.convert("RGBA")
        if max(rgba.size) > imagecheck.SMALL_SIDE:
            # An icon drawn large: averaged first (Pillow averages alpha premultiplied, as a
            # composite would be) so that no full-size composite is made.
            rgba = rgba.resize(side, Image.Resampling.BOX)
        flat = Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba)
        rgb = flat.convert("RGB")
    else:
        rgb = im.convert("RGB")
    small = rgb.resize(side, Image.Resampling.BOX)
    op = _ORIENT_OPS.get(orientation)
    return small.transpose(op) if op is not None else small


def _is_flat(working: Image.Image) -> bool:
    return float(np.asarray(working, dtype=np.float32).std()) < FLAT_STD


def load_working_image(path: str | os.PathLike[str]) -> WorkingImage:
    """Decode ``path`` down to the square greyscale working image every hash is taken from."""
    im, width, height, orientation = _decode(path)
    working = _shrink(_to_grey(im), width, height, orientation)
    if _is_flat(working) and _has_alpha(im):
        # White-on-transparent art vanishes over white; over black it shows, as in a viewer.
        working = _shrink(_to_grey(im, background=0), width, height, orientation)
    if _is_flat(working):
        raise TooLittleContent("flat or nearly blank image")
    detail = _detail(im, orientation) if imagecheck.has_detail(width, height, im) else None
    if orientation >= 5:
        width, height = height, width
    return WorkingImage(working, width, height, _colour(im, orientation), detail)


def hash_working(image: Image.Image, algorithm: str = DEFAULT_ALGORITHM) -> int:
    """One of ``ALGORITHMS`` over a working image, as an unsigned 64-bit int."""
    try:
        func = ALGORITHMS[algorithm]
    except KeyError:
        known = sorted(ALGORITHMS)
        raise ValueError(f"unknown image hash {algorithm!r}; choose from {known}") from None
    return func(image)


def image_fingerprint(path: str | os.PathLike[str], *, invariant: bool = False) -> ImageFingerprint:
    """Fingerprint one image file; raises a ``FileProblem`` subclass when that is impossible."""
    working = load_working_image(path)
    value = hash_working(working.image)
    variants: tuple[int, ...] = ()
    if invariant:
        variants = tuple(hash_working(working.image.transpose(op)) for op in VARIANT_TRANSFORMS)
    return ImageFingerprint(value, working.width, working.height, variants, working.descriptor())
