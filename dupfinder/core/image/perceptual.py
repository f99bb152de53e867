"""Perceptual fingerprints of images: one decode path, then a 64-bit hash as a plain int.

Every file goes through the same steps, so that a JPEG and its PNG copy are hashed from
equivalent pixels (mixing a drafted JPEG decode with a full decode moves hashes by a few bits):

1. open (HEIF/HEIC through pi-heif when it is installed, registered once, lazily); a colour
   JPEG is decoded as YCbCr, whose Y channel is exactly what a greyscale decode gives;
2. reduce by the largest factor of 1, 2, 4 or 8 that keeps both sides >= ``WORKING_SIZE``:
   JPEG does this inside the decoder (``draft``, several times faster), every other format
   with ``Image.reduce`` (a box filter, which is what the decoder's scaled IDCT amounts to)
   right after decoding, in colour, so that no later step reads a wallpaper's millions of
   pixels (a palette or a colour key is reduced after its grey is taken);
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
pHash and dHash with imagehash bit for bit. A fingerprint takes the working image's resizes
(the hash's, its mirrored and turned forms', the crops') as Pillow's own fixed-point arithmetic
in a few matrix products (``resample``) instead of a Pillow call each: the same pixels.

Bit order: each hash is an 8x8 boolean array; cell ``[r, c]`` becomes bit ``63 - (8 * r + c)``
of the int, i.e. the int's 16 hex digits are exactly imagehash's ``str()`` form (4.x). The mix
packs pHash rows 0-3 (bits 63..32) then dHash rows 0, 2, 4, 6 (bits 31..0) the same way.
"""

from __future__ import annotations

import functools
import io
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

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
from dupfinder.core.image import decoders, direct, png
from dupfinder.core.image.hashes import CROP_BOXES, DCT32, TIE, WORKING_SIZE, Box, pdhashes
from dupfinder.core.image.levels import (
    BORDER_TOLERANCE,
    TURNS,
    is_flat,
    reduce_factor,
    trim_levels,
)

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_VERSION",
    "CROP_BOXES",
    "DEFAULT_ALGORITHM",
    "VARIANT_TRANSFORMS",
    "WORKING_SIZE",
    "ImageFingerprint",
    "WorkingImage",
    "hash_bits_to_int",
    "hash_working",
    "image_fingerprint",
    "load_working_image",
    "warm",
    "working_hashes",
]

_WHOLE: Box = (0.0, 0.0, 1.0, 1.0)
#: The hash used for fingerprints. On real wallpapers/photos with 19 kinds of edit (see
#: bench/image_accuracy.py) the pHash/dHash mix beat pHash, dHash and wHash: F1 0.982 at
#: precision 0.995 (k=10) against 0.948/0.960 (pHash), 0.921/0.932 (dHash), 0.925/1.0 (wHash).
DEFAULT_ALGORITHM = "pdhash"
#: Cache key part: changes whenever any step above (or the hash choice) changes an output
#: (img2: the hashes computed here with numpy, not by imagehash and scipy; a tied coefficient
#: of a symmetric picture no longer falls on either side of the median by rounding; img4:
#: every picture reduced as a JPEG's draft would be before its grey and colours are taken;
#: an opaque WebP then scaled by libwebp as it decodes; "stored": the plain border found and cut
#: off at the stored size, before the picture is reduced by the factor of what is kept).
ALGORITHM_VERSION = (
    f"img4-{DEFAULT_ALGORITHM}-draft-reduced-box-webpscaled-luma-white-trim{BORDER_TOLERANCE}a-stored"
    f"-lanczos{WORKING_SIZE}"
    f"-crops{len(CROP_BOXES)}bilinear"
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
    #: Hashes of the parts ``CROP_BOXES`` of the picture (searched like ``variants``).
    crops: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class WorkingImage:
    """The square greyscale image all hashes start from, and the original upright size;
    ``colour``: the upright decoded colours at a small size (None for greyscale pictures);
    ``graphic``: small or transparent (``check.has_detail``); ``transparent``: some pixel
    is not opaque; ``format`` and ``quality``: Pillow's format name and, for a JPEG, the
    quality its quantisation tables were made at (0 when unknown)."""

    image: Image.Image
    width: int
    height: int
    colour: Image.Image | None = None
    #: the upright opacity inside the border (None: opaque, or shown over black)
    opacity: Image.Image | None = None
    graphic: bool = False
    transparent: bool = False
    format: str | None = None
    quality: int = 0
    border: Box = (0.0, 0.0, 1.0, 1.0)
    #: ``image``'s grey levels as numbers (read once; None: read from ``image`` when needed)
    pixels: npt.NDArray[np.uint8] | None = field(default=None, compare=False, repr=False)

    def levels(self) -> npt.NDArray[np.uint8]:
        """The working image's grey levels, 0..255, as a (side, side) array."""
        return _grey_levels(self.image) if self.pixels is None else self.pixels

    def descriptor(self) -> bytes:
        """The second check's descriptor of this picture."""
        return imagecheck.descriptor(
            self.image,
            self.colour,
            self.opacity,
            graphic=self.graphic,
            transparent=self.transparent,
            file_format=self.format,
            quality=self.quality,
            side=min(self.width, self.height),
            border=self.border,
        )


def hash_bits_to_int(bits: np.ndarray) -> int:
    """Pack a boolean array row-major, first cell most significant (imagehash's hex order)."""
    flat = np.asarray(bits, dtype=bool).reshape(-1)
    if flat.size != 64:
        raise ValueError(f"expected 64 hash bits, got {flat.size}")
    return int.from_bytes(np.packbits(flat).tobytes(), "big")


def _phash_bits(image: Image.Image) -> npt.NDArray[np.bool_]:
    """imagehash's ``phash`` (hash_size 8, highfreq_factor 4) as an 8x8 boolean array."""
    pixels = np.asarray(image.convert("L").resize((32, 32), _RESAMPLE), dtype=np.float64)
    low = (DCT32 @ pixels @ DCT32.T)[:8, :8]
    return _above_median(low)


def _above_median(values: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """``values > median``, with values within rounding noise of the median counted as equal:
    a symmetric picture has coefficients that are exactly equal (zero, often the median), and
    which side their last bits fall on depends on how the sums were ordered, not the picture."""
    median = np.median(values)
    noise = TIE * float(np.abs(values).max())
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


def _whole_file(fh: BinaryIO) -> bytes:
    fh.seek(0)
    return fh.read()


def _orientation(im: Image.Image, data: bytes = b"") -> int:
    """The EXIF orientation; 1 when there is none. A PNG whose bytes (``data``) hold no EXIF
    anywhere answers without Pillow's ``getexif``, which decodes the whole picture to look
    for an EXIF chunk after the pixels."""
    if im.format == "PNG" and data and not png.may_hold_exif(data):
        return 1
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


def _png_bytes(path: str | os.PathLike[str]) -> bytes | None:
    """The whole file when it is a PNG (its bytes are read whole anyway: the direct path
    decodes them, and its EXIF is looked for in them); None for any other format."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(png.SIGNATURE)) != png.SIGNATURE:
                return None
            return _whole_file(fh)
    except OSError as exc:
        raise FileProblem(f"cannot read file: {exc.strerror or exc}") from exc


def _decode(
    path: str | os.PathLike[str], data: bytes | None = None
) -> tuple[Image.Image, str | None, int, int, int]:
    """Open and decode (drafted for JPEG; PNG and WebP by ``decoders`` where they can): pixels,
    the file's format, stored width and height, orientation. ``data``: the file's bytes,
    where they were read already."""
    _register_heif()
    try:
        fh: BinaryIO = open(path, "rb") if data is None else io.BytesIO(data)  # noqa: SIM115 - closed below; Pillow reads lazily from it
    except OSError as exc:
        raise FileProblem(f"cannot read file: {exc.strerror or exc}") from exc
    with fh, warnings.catch_warnings():
        # Decoder chatter (odd EXIF, palette notes) is not the user's problem; bombs are.
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            opened = Image.open(fh)
            width, height = opened.size
            file_format = opened.format
            if data is None:  # read whole where a step needs the bytes (given: read already)
                wanted = file_format == "PNG" or decoders.applies(opened)
                data = _whole_file(fh) if wanted else b""
            orientation = _orientation(opened, data)
            if file_format in _JPEG_FORMATS:
                opened.draft("YCbCr", (WORKING_SIZE, WORKING_SIZE))
            # scaled while decoded where the decoder can (a WebP), as a JPEG's draft is
            reduced = reduce_factor(width, height)
            im = decoders.decoded(opened, data, reduced) if data else None
            if im is None:
                opened.load()
                im = opened
        except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
            raise TooLarge(f"too many pixels to decode safely: {exc}") from exc
        except UnidentifiedImageError as exc:
            raise UnsupportedFile("not an image format dupfinder can read") from exc
        except Exception as exc:  # Pillow's plugins raise a wide, undocumented set on bad data
            reason = str(exc) or type(exc).__name__
            raise CorruptFile(f"image data is damaged or truncated: {reason}") from exc
    if width < 1 or height < 1:
        raise CorruptFile("image has no pixels")
    return im, file_format, width, height, orientation


def trim_box(grey: Image.Image, alpha: Image.Image | None = None) -> Box:
    """``levels.trim_levels`` of a grey picture and its transparency (same size)."""
    return trim_levels(np.asarray(grey), None if alpha is None else np.asarray(alpha))


def _stored_trim(im: Image.Image, background: int = 255) -> Box:
    """The part of a picture decoded at its stored size inside its plain border (shown over
    ``background``), found before it is reduced (``direct.fingerprint`` says why)."""
    alpha = _alpha(im)
    if alpha is None and im.mode in _POINTWISE_GREY_MODES and not _plain_corners(im):
        return _WHOLE  # a photo: its four corners differ, and no picture is converted whole
    grey = _to_grey(im, background)
    return trim_levels(np.asarray(grey), None if alpha is None else np.asarray(alpha), background)


#: Modes whose grey is taken pixel by pixel (``_to_grey``), so a corner's grey is its own.
_POINTWISE_GREY_MODES = frozenset({"L", "RGB"})


def _plain_corners(im: Image.Image) -> bool:
    """Whether the four corners' grey levels are within ``BORDER_TOLERANCE`` of each other:
    ``levels.trim_levels``'s first test, for the price of four pixels."""
    w, h = im.size
    levels = [
        _to_grey(im.crop((x, y, x + 1, y + 1))).getpixel((0, 0))
        for x, y in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1))
    ]
    numbers = [int(v) for v in levels if isinstance(v, int | float)]
    return len(numbers) == 4 and max(numbers) - min(numbers) <= BORDER_TOLERANCE


def _alpha(im: Image.Image) -> Image.Image | None:
    """The transparency of a picture that has some, else None."""
    if not _has_alpha(im):
        return None
    if im.mode in ("RGBA", "LA", "RGBa", "La", "PA"):
        return im.getchannel(im.mode[-1])
    return im.convert("RGBA").getchannel("A")


def _cropped(im: Image.Image, box: Box) -> Image.Image:
    if box == _WHOLE:
        return im
    w, h = im.size
    edges = (box[0] * w, box[1] * h, box[2] * w, box[3] * h)
    return im.crop(tuple(round(v) for v in edges))  # type: ignore[arg-type]


def _shrink(
    grey: Image.Image,
    width: int,
    height: int,
    orientation: int,
    alpha: Image.Image | None = None,
    trimmed: bool = False,
) -> tuple[Image.Image, Box]:
    """Reduce (unless the JPEG decoder already did), trim a plain border (the transparent
    one, given the picture's ``alpha``; none when the picture was ``trimmed`` at its stored
    size already), orient, resize to the working square; and the part of the picture kept."""
    factor = reduce_factor(width, height)
    if factor > 1 and grey.size == (width, height):
        grey = grey.reduce(factor)
    if alpha is not None and alpha.size != grey.size:
        alpha = alpha.resize(grey.size, Image.Resampling.BOX)
    box = _WHOLE if trimmed else trim_box(grey, alpha)
    grey = _cropped(grey, box)
    op = _ORIENT_OPS.get(orientation)
    if op is not None:
        grey = grey.transpose(op)
    return grey.resize((WORKING_SIZE, WORKING_SIZE), _RESAMPLE), box


def _colour(im: Image.Image, orientation: int, box: Box = _WHOLE) -> Image.Image | None:
    """The decoded colours inside ``box``, box-averaged to the chroma thumbnail, over white
    where transparent, upright; None when the picture has no colour channels."""
    if im.mode in _COLOURLESS_MODES:
        return None
    im = _cropped(im, box)
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


def _opacity(alpha: Image.Image | None, orientation: int, box: Box) -> Image.Image | None:
    """The opacity inside ``box`` at the opacity thumbnail's size, upright (None without
    ``alpha``)."""
    if alpha is None:
        return None
    side = (imagecheck.ALPHA_SIDE, imagecheck.ALPHA_SIDE)
    small = _cropped(alpha, box).resize(side, Image.Resampling.BOX)
    op = _ORIENT_OPS.get(orientation)
    return small.transpose(op) if op is not None else small


#: libjpeg's luminance quantisation table at quality 50 (Annex K), in zig-zag order as Pillow
#: reports it: a file's table over this one gives the quality it was saved at.
_JPEG_LUMA_50 = (
    16, 11, 12, 14, 12, 10, 16, 14, 13, 14, 18, 17, 16, 19, 24, 40, 26, 24, 22, 22, 24, 49,
    35, 37, 29, 40, 58, 51, 61, 60, 57, 51, 56, 55, 64, 72, 92, 78, 64, 68, 87, 69, 55, 56,
    80, 109, 81, 87, 95, 98, 103, 104, 103, 62, 77, 113, 121, 112, 100, 120, 92, 101, 103, 99,
)  # fmt: skip


def jpeg_quality(im: Image.Image) -> int:
    """The libjpeg quality (1..100) a JPEG's luminance table was scaled for; 0 if not known."""
    tables = getattr(im, "quantization", None)
    if not isinstance(tables, dict) or 0 not in tables or len(tables[0]) != 64:
        return 0
    scale = 100.0 * sum(tables[0]) / sum(_JPEG_LUMA_50)
    quality = (200.0 - scale) / 2.0 if scale <= 100.0 else 5000.0 / scale
    return max(1, min(100, round(quality)))


def _grey_levels(working: Image.Image) -> npt.NDArray[np.uint8]:
    """A working image's pixels as numbers: read once, for the flatness test and every hash."""
    return np.asarray(working, dtype=np.uint8)


def _upright(box: Box, orientation: int) -> Box:
    """A box of the stored pixels as the same box of the picture shown upright."""
    left, top, right, bottom = box
    op = _ORIENT_OPS.get(orientation)
    corners = [(left, top), (right, bottom)]
    if op is None:
        return box
    moved = []
    for x, y in corners:
        if op in (Image.Transpose.FLIP_LEFT_RIGHT,):
            x = 1.0 - x
        elif op is Image.Transpose.FLIP_TOP_BOTTOM:
            y = 1.0 - y
        elif op is Image.Transpose.ROTATE_180:
            x, y = 1.0 - x, 1.0 - y
        elif op is Image.Transpose.TRANSPOSE:
            x, y = y, x
        elif op is Image.Transpose.ROTATE_270:  # clockwise quarter turn
            x, y = 1.0 - y, x
        elif op is Image.Transpose.ROTATE_90:  # anticlockwise quarter turn
            x, y = y, 1.0 - x
        elif op is Image.Transpose.TRANSVERSE:
            x, y = 1.0 - y, 1.0 - x
        moved.append((x, y))
    (x0, y0), (x1, y1) = moved
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


#: Modes ``Image.reduce`` averages as they are (a palette or a colour key must be expanded
#: first, which costs what reducing saves).
_REDUCIBLE_MODES = frozenset({"L", "LA", "RGB", "RGBA", "RGBX"})


def _reduced(im: Image.Image, width: int, height: int) -> Image.Image:
    """A picture no decoder shrank (PNG, WebP, TIFF...), box-reduced by the factor a JPEG's
    draft would have used, before anything else reads it: the grey, alpha and colour steps
    then read a few hundred pixels a side instead of a wallpaper's millions (a 5120 x 2880
    PNG's conversions cost more than half its decode)."""
    factor = reduce_factor(width, height)
    if factor == 1 or im.size != (width, height):
        return im
    if im.mode not in _REDUCIBLE_MODES or "transparency" in im.info:
        return im
    return im.reduce(factor)  # transparent pixels are averaged premultiplied, as a viewer would


def _kept(
    im: Image.Image, trim: Box | None, width: int, height: int
) -> tuple[Image.Image, tuple[int, int]]:
    """The picture inside ``trim`` reduced by the factor of its size, and that size; without
    a trim, the picture reduced by the factor of its stored ``width`` and ``height``."""
    if trim is None:
        return _reduced(im, width, height), (width, height)
    kept = _cropped(im, trim)
    return _reduced(kept, *kept.size), kept.size


def load_working_image(path: str | os.PathLike[str]) -> WorkingImage:
    """Decode ``path`` down to the square greyscale working image every hash is taken from."""
    return _working_from(*_decode(path))


def _working_from(
    im: Image.Image, file_format: str | None, width: int, height: int, orientation: int
) -> WorkingImage:
    """A decoded picture down to its working image (``load_working_image``'s steps after
    decoding)."""
    quality = jpeg_quality(im) if file_format in _JPEG_FORMATS else 0
    clear = imagecheck.transparent(im) if _has_alpha(im) else False
    stored = im
    # at its stored size: trimmed, then reduced by the factor of what is kept; shrunk by its
    # decoder (a JPEG's draft): reduced and trimmed as it came
    trim = _stored_trim(im) if im.size == (width, height) else None
    im, size = _kept(stored, trim, width, height)
    alpha = _alpha(im)
    working, box = _shrink(_to_grey(im), *size, orientation, alpha, trim is not None)
    pixels = _grey_levels(working)
    flat = is_flat(pixels)
    clear_over_white = clear
    if flat and alpha is not None:
        # White-on-transparent art vanishes over white; over black it shows, as in a viewer.
        if trim is not None:
            trim = _stored_trim(stored, background=0)
            im, size = _kept(stored, trim, width, height)
            alpha = _alpha(im)
        over_black = _to_grey(im, background=0)
        working, box = _shrink(over_black, *size, orientation, alpha, trim is not None)
        pixels = _grey_levels(working)
        flat = is_flat(pixels)
        clear_over_white = False
    if flat:
        raise TooLittleContent("flat or nearly blank image")
    graphic = max(width, height) <= imagecheck.SMALL_SIDE or clear
    if orientation >= 5:
        width, height = height, width
    return WorkingImage(
        working,
        width,
        height,
        _colour(im, orientation, box),
        _opacity(alpha, orientation, box) if clear_over_white else None,
        graphic=graphic,
        transparent=clear,
        format=file_format,
        quality=quality,
        border=_upright(box if trim is None else trim, orientation),
        pixels=pixels,
    )


def hash_working(image: Image.Image, algorithm: str = DEFAULT_ALGORITHM) -> int:
    """One of ``ALGORITHMS`` over a working image, as an unsigned 64-bit int."""
    try:
        func = ALGORITHMS[algorithm]
    except KeyError:
        known = sorted(ALGORITHMS)
        raise ValueError(f"unknown image hash {algorithm!r}; choose from {known}") from None
    return func(image)


#: Decoded modes the direct path takes (as RGB or RGBA): the others keep Pillow's steps.
_DIRECT_MODES = frozenset({"RGB", "RGBA", "P", "L", "LA"})
#: Those of them that the Pillow path reduces in colour before its steps (``_reduced``), as
#: the direct path does: a palette or a colour key is reduced after its grey is taken.
_DIRECT_REDUCED_MODES = frozenset({"RGB", "RGBA", "L", "LA"})


def image_fingerprint(path: str | os.PathLike[str], *, invariant: bool = False) -> ImageFingerprint:
    """Fingerprint one image file; raises a ``FileProblem`` subclass when that is impossible.

    A picture that needs no turn (every icon, most pictures) takes the direct path
    (``direct``: the same numbers without Pillow's steps); a plain grey, RGB or RGBA PNG
    among them is not even decoded by Pillow."""
    data = _png_bytes(path)
    compiled = direct.available()  # where it was not built, Pillow's steps answer alone
    if compiled and data is not None and not png.may_hold_exif(data):
        pixels = png.pixels(data, Image.MAX_IMAGE_PIXELS)
        if pixels is not None:
            found = direct.fingerprint(
                pixels, colour=pixels.shape[2] != 1, file_format="PNG", invariant=invariant
            )
            if found is not None:
                return _fingerprint_of(found, invariant)
    im, file_format, width, height, orientation = _decode(path, data)
    reduced_alike = im.mode in _DIRECT_REDUCED_MODES and "transparency" not in im.info
    if (
        compiled
        and orientation == 1
        and im.mode in _DIRECT_MODES
        and file_format not in _JPEG_FORMATS
        and (reduced_alike or reduce_factor(width, height) == 1)
    ):
        found = _direct_from(im, file_format, width, height, invariant)
        if found is not None:
            return _fingerprint_of(found, invariant)
    working = _working_from(im, file_format, width, height, orientation)
    hashes = working_hashes(working, invariant=invariant)
    forms = 1 + (len(VARIANT_TRANSFORMS) if invariant else 0)
    return ImageFingerprint(
        hashes[0],
        working.width,
        working.height,
        tuple(hashes[1:forms]),
        working.descriptor(),
        tuple(hashes[forms:]),
    )


def _direct_from(
    im: Image.Image, file_format: str | None, width: int, height: int, invariant: bool
) -> direct.Direct | None:
    """The direct path for a picture Pillow decoded that needs no turn: its samples as they
    are (grey, RGB or RGBA; others made RGB or RGBA), which the compiled steps trim at the
    stored size and then reduce; a picture its decoder shrank (a scaled WebP) as it came."""
    clear = imagecheck.transparent(im) if _has_alpha(im) else False
    colour = im.mode not in _COLOURLESS_MODES
    if im.size != (width, height):  # shrunk by its decoder (a scaled WebP): as it came
        pixels = np.asarray(im.convert("RGBA" if _has_alpha(im) else "RGB"))
        return direct.fingerprint(
            pixels,
            colour=colour,
            file_format=file_format,
            invariant=invariant,
            stored=(width, height),
            clear=clear,
        )
    if im.mode == "L":
        samples = np.asarray(im)[:, :, None]
    elif im.mode in ("RGB", "RGBA"):
        samples = np.asarray(im)
    else:
        samples = np.asarray(im.convert("RGBA" if _has_alpha(im) else "RGB"))
    return direct.fingerprint(
        samples, colour=colour, file_format=file_format, invariant=invariant, clear=clear
    )


def _fingerprint_of(found: direct.Direct, invariant: bool) -> ImageFingerprint:
    forms = 1 + (len(VARIANT_TRANSFORMS) if invariant else 0)
    hashes = found.hashes
    return ImageFingerprint(
        hashes[0],
        found.width,
        found.height,
        tuple(hashes[1:forms]),
        found.descriptor,
        tuple(hashes[forms:]),
    )


def working_hashes(working: WorkingImage, *, invariant: bool = False) -> list[int]:
    """The working image's hash, its seven mirrored and turned forms' (when ``invariant``),
    then its ``CROP_BOXES`` parts': what a fingerprint holds, in that order."""
    pixels = working.levels()
    forms = [pixels]
    if invariant:
        forms += [_ARRAY_TRANSFORMS[op](pixels) for op in VARIANT_TRANSFORMS]
    return pdhashes(np.stack(forms), pixels)


def crop_hashes(working: Image.Image) -> tuple[int, ...]:
    """The default hash of each part ``CROP_BOXES`` of a working image, each part resized
    straight (bilinear) to the sizes the hash reads (32 x 32 for pHash, 9 x 8 for dHash):
    within a bit or two of hashing each part at the working size, at a fraction of the cost
    (they only need to land near a cropped copy)."""
    if working.size != (WORKING_SIZE, WORKING_SIZE):
        raise ValueError(
            f"expected a {WORKING_SIZE} x {WORKING_SIZE} working image, got {working.size}"
        )
    pixels = np.asarray(working.convert("L"), dtype=np.uint8)
    return tuple(pdhashes(pixels[None][:0], pixels))


#: A working image as each ``Image.Transpose`` would leave it (same pixels, moved).
_ARRAY_TRANSFORMS: dict[Image.Transpose, Callable[[np.ndarray], np.ndarray]] = dict(
    zip(VARIANT_TRANSFORMS, TURNS, strict=True)
)


def warm() -> None:
    """Make what a first picture makes once: the compiled kernels loaded, the hasher's plans,
    the chroma tables, libdeflate's module. A scan pool's fork server calls this before it
    forks (``fingerprints.warm``), so each worker starts with them instead of making them
    on its first file (a worker's first icon took 19.6 ms of CPU here, 2.2 ms warmed)."""
    png.warm()
    side = 48
    ramp = np.linspace(0, 255, side, dtype=np.uint8)
    pixels = np.empty((side, side, 4), dtype=np.uint8)
    pixels[:, :, 0] = ramp[None, :]
    pixels[:, :, 1] = ramp[:, None]
    pixels[:, :, 2] = ramp[::-1][None, :]
    pixels[:, :, 3] = 255
    pixels[:4, :4, 3] = 0  # a transparent corner: the opacity's steps too
    direct.fingerprint(pixels, colour=True, file_format="PNG", invariant=False)
