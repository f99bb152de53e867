"""A plain PNG's pixels from its bytes, without Pillow: the commonest picture of a scan.

Decoding is most of what a PNG costs a scan (icons, screenshots, photos and wallpapers saved
as PNG), and most of decoding is inflating the image data: zlib's inflate, which libspng and
Pillow run, took 60 % of libspng's time on photos here, and libdeflate inflates the same
streams 3-4x faster. A plain picture (8-bit grey, RGB or RGBA samples, not interlaced, no
colour key, no animation) is read here: its chunks walked, its image data inflated by libdeflate
(``deflate``, MIT; libdeflate MIT) to exactly the size its header gives, and its rows
unfiltered in compiled code (``direct_kernels.unfiltered``). Where libdeflate is not installed
or refuses the data, libspng decodes an RGB or RGBA picture (``pyspng``); everything else
gets None, and Pillow opens the file and names any damage. PNG is lossless: every decoder
gives the same pixels (tests compare them with Pillow's on real pictures of several
producers). Chunks before the image data are checked against their CRC-32, as Pillow checks
them; the image data's chunks are not (Pillow does not), its zlib stream's own Adler-32 is.
"""

from __future__ import annotations

import functools
import struct
import zlib
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from dupfinder.core.jit.engine import Kernel, choose

__all__ = ["SIGNATURE", "may_hold_exif", "pixels", "warm"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: IHDR colour types read here: 0 (grey), 2 (RGB) and 6 (RGBA), at 8 bits a sample.
_BANDS = {0: 1, 2: 3, 6: 4}
#: Chunks that send a PNG to Pillow: a colour key (``tRNS``) changes what its pixels mean,
#: and an animation (``acTL``) may not show its first image data as its first frame.
_NOT_PLAIN = frozenset({b"tRNS", b"acTL"})
_DATA = b"IDAT"
#: Bytes of the signature and IHDR chunk up to its interlace method.
_HEADER_BYTES = 29
_CHUNK = struct.Struct(">I4s")
_CRC = struct.Struct(">I")

#: Inflates a zlib stream to exactly the given number of bytes, else raises.
_Inflate = Callable[[bytes | memoryview, int], bytes | bytearray]


def pixels(data: bytes, max_pixels: int | None) -> npt.NDArray[np.uint8] | None:
    """A PNG's pixels as (height, width, 1, 3 or 4) when the file is a plain 8-bit grey, RGB
    or RGBA picture that Pillow would decode as it is, within ``max_pixels`` (Pillow's
    decompression-bomb limit); None for everything else (a grey picture libdeflate cannot
    read is left to Pillow, not libspng)."""
    if len(data) < _HEADER_BYTES + 4 or not data.startswith(SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height, depth, colour_type, compression, filtering, interlace = struct.unpack_from(
        ">IIBBBBB", data, 16
    )
    bands = _BANDS.get(colour_type)
    if bands is None or depth != 8 or width < 1 or height < 1:
        return None
    if max_pixels is not None and width * height > max_pixels:
        return None
    stream = _image_data(data)
    if stream is None:
        return None
    if interlace == 0 and compression == 0 and filtering == 0:
        found = _inflated(stream, width, height, bands)
        if found is not None:
            return found
    return _spng(data, width, height, bands) if bands > 1 else None


#: What a PNG holds EXIF in: its own chunk, or the text chunk ImageMagick writes it to
#: (``Raw profile type exif``: the keyword that begins a text chunk).
_EXIF = b"eXIf"
_TEXTS = frozenset({b"tEXt", b"zTXt", b"iTXt"})
_EXIF_KEYWORD = b"Raw profile type exif\0"
_EXIF_MARKS = (_EXIF, _EXIF_KEYWORD[:-1])
_END = b"IEND"


def may_hold_exif(data: bytes) -> bool:
    """Whether a PNG's bytes may hold EXIF (an orientation): an ``eXIf`` chunk or an EXIF
    text chunk, found by walking the chunks to the end; a file whose chunks cannot be walked
    so is searched whole for either mark (a photo's megabytes twice: a third of a
    millisecond)."""
    at, end = 8, len(data)
    while at + 8 <= end:
        length, kind = _CHUNK.unpack_from(data, at)
        if kind == _EXIF:
            return True
        if kind in _TEXTS and data.startswith(_EXIF_KEYWORD, at + 8):
            return True
        if kind == _END:
            return False
        at += 12 + length
    return any(mark in data for mark in _EXIF_MARKS)


def _image_data(data: bytes) -> bytes | memoryview | None:
    """The image data (the ``IDAT`` chunks' bodies, which follow one another), or None when a
    colour key or an animation comes before it, a chunk before it fails its checksum (as
    Pillow checks them) or a chunk runs past the file's end (damaged: Pillow names it)."""
    at, end = 8, len(data)
    while at + 8 <= end:
        length, kind = _CHUNK.unpack_from(data, at)
        if kind == _DATA:
            break
        if kind in _NOT_PLAIN or not _intact(data, at, length):
            return None
        at += 12 + length
    else:
        return None
    view = memoryview(data)
    parts: list[memoryview] = []
    while at + 8 <= end:
        length, kind = _CHUNK.unpack_from(data, at)
        if kind != _DATA:
            break
        if at + 8 + length > end:
            return None
        parts.append(view[at + 8 : at + 8 + length])
        at += 12 + length
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _intact(data: bytes, at: int, length: int) -> bool:
    """Whether the chunk at ``at`` lies within the file and its CRC-32 (of its type and
    body) is the one it carries."""
    body_end = at + 8 + length
    if body_end + 4 > len(data):
        return False
    carried: int = _CRC.unpack_from(data, body_end)[0]
    return zlib.crc32(memoryview(data)[at + 4 : body_end]) == carried


def _inflated(
    stream: bytes | memoryview, width: int, height: int, bands: int
) -> npt.NDArray[np.uint8] | None:
    """The picture from its image data by libdeflate and the compiled unfiltering; None where
    either is missing or the data is not exactly what the header promises."""
    inflate, kernel = _inflater(), choose(Kernel.PICTURE_DIRECT)
    if inflate is None or kernel is None:
        return None
    size = height * (width * bands + 1)
    try:
        raw = inflate(stream, size)
    except Exception:  # libdeflate refuses (damaged, or more data than the header says)
        return None
    if len(raw) != size:
        return None
    found: npt.NDArray[np.uint8] | None = kernel.unfiltered(raw, height, width, bands)
    return found


def warm() -> None:
    """Import libdeflate's module now (a worker's first PNG would)."""
    _inflater()


@functools.cache
def _inflater() -> _Inflate | None:
    """libdeflate's zlib inflate, imported on first use; None where it is not installed."""
    try:
        import deflate
    except ImportError:
        return None
    inflate: _Inflate = deflate.zlib_decompress
    return inflate


def _spng(data: bytes, width: int, height: int, bands: int) -> npt.NDArray[np.uint8] | None:
    try:
        import pyspng  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        found = np.asarray(pyspng.load(data, "RGBA" if bands == 4 else "RGB"))
    except Exception:  # libspng refuses: Pillow decodes, and names the damage
        return None
    if found.shape != (height, width, bands) or found.dtype != np.uint8:
        return None
    return found
