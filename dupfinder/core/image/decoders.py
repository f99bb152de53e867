"""Whole-picture decoders faster than Pillow's own for the two formats that cost a scan most.

A scan decodes every picture once (in full but a JPEG and an opaque WebP, below), and on a
mixed folder the decoding is most of what pictures cost. Two formats have a leaner decoder:

- **PNG** through libspng (``pyspng``, BSD-2-Clause): 1.6-2x Pillow's CPU on large pictures
  and on icons, where Pillow's Python around its C decoder is most of the time;
- **WebP** through libwebp's plain ``WebPDecode`` (``webp``, MIT; libwebp BSD-3-Clause):
  Pillow reads every WebP through libwebp's animation decoder into a canvas, then copies it
  again; the plain decoder writes the pixels once, at 0.6x the CPU.

Both give the very pixels Pillow gives (tests compare them on real pictures of several
producers). They are taken only where that is so: 8-bit RGB and RGBA pictures (a PNG palette, a
colour key, 16-bit or grey samples, and animated WebP stay with Pillow), after Pillow has read
the header, checked the picture's size against its decompression-bomb limit and taken its
metadata. Where a decoder is not installed (no wheel for the platform) or refuses the data,
Pillow decodes as before, and a damaged file is named by Pillow's error.

A scan asks for a large picture ``reduced`` by the factor its steps reduce it by anyway
(``levels.reduce_factor``, as JPEG's draft does): libwebp then scales an opaque WebP while it
decodes (its own area average of the same boxes, in YUV before the colour conversion: within
a few levels of Pillow's ``reduce``), which saves a quarter of the decode and the copies of a
wallpaper's millions of pixels (a 4096 x 4096 WebP: 0.26 s to 0.19 s).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from PIL import Image

__all__ = ["applies", "available", "decoded"]

#: A decoder: the file's bytes, the mode wanted ("RGB" or "RGBA") and a smaller size wanted
#: (width, height; None: whole, as stored) to an (h, w, bands) array; a decoder that cannot
#: scale gives it whole.
_Decoder = Callable[[bytes, str, tuple[int, int] | None], npt.NDArray[np.uint8]]
#: Modes the fast decoders give as Pillow does, by their number of bands.
_BANDS = {"RGB": 3, "RGBA": 4}


def _png_decoder() -> _Decoder | None:
    try:
        import pyspng  # type: ignore[import-untyped]
    except ImportError:
        return None

    def decode(data: bytes, mode: str, size: tuple[int, int] | None) -> npt.NDArray[np.uint8]:
        return np.asarray(pyspng.load(data, mode))  # a PNG has no cheaper smaller decode

    return decode


def _webp_decoder() -> _Decoder | None:
    try:
        import webp
    except ImportError:
        return None
    modes = {"RGB": webp.WebPColorMode.RGB, "RGBA": webp.WebPColorMode.RGBA}
    scaled = _webp_scaling()

    def decode(data: bytes, mode: str, size: tuple[int, int] | None) -> npt.NDArray[np.uint8]:
        if size is not None and scaled is not None and mode == "RGB":
            return scaled(data, size)
        return np.asarray(webp.WebPData.from_buffer(data).decode(modes[mode]))

    return decode


#: ``WebPDecoderOptions`` as libwebp's decode.h lays it out (ABI 2.x): ints, ``use_scaling``
#: and the scaled width and height at these positions, ``use_threads`` after them.
_USE_SCALING, _SCALED_WIDTH, _SCALED_HEIGHT, _USE_THREADS = 7, 8, 9, 10
_OPTIONS_BYTES = 76


def _webp_scaling() -> Callable[[bytes, tuple[int, int]], npt.NDArray[np.uint8]] | None:
    """libwebp's decode of an opaque WebP straight to a given size, through the ``webp``
    package's own library; None where its declarations do not show the layout above (the
    package declares only ``use_threads`` of the options: the rest is placed by the header's
    layout, checked against that field's place and the struct's size)."""
    try:
        from webp._webp import ffi, lib  # type: ignore[import-not-found]

        laid_out = ffi.sizeof("WebPDecoderOptions") == _OPTIONS_BYTES and ffi.offsetof(
            "WebPDecoderOptions", "use_threads"
        ) == _USE_THREADS * ffi.sizeof("int")
    except (ImportError, AttributeError, TypeError):
        return None
    if not laid_out:
        return None

    def decode(data: bytes, size: tuple[int, int]) -> npt.NDArray[np.uint8]:
        width, height = size
        config = ffi.new("WebPDecoderConfig *")
        if not lib.WebPInitDecoderConfig(config):
            raise ValueError("libwebp refused its decoder configuration")
        options = ffi.cast("int *", ffi.addressof(config, "options"))
        options[_USE_SCALING] = 1
        options[_SCALED_WIDTH] = width
        options[_SCALED_HEIGHT] = height
        pixels = np.empty((height, width, 3), np.uint8)
        config.output.colorspace = lib.MODE_RGB
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = ffi.cast("uint8_t *", ffi.from_buffer(pixels))
        config.output.u.RGBA.size = pixels.size
        config.output.u.RGBA.stride = width * 3
        source = ffi.from_buffer(data)
        status = lib.WebPDecode(ffi.cast("uint8_t *", source), len(data), config)
        lib.WebPFreeDecBuffer(ffi.addressof(config, "output"))
        if status != lib.VP8_STATUS_OK:
            raise ValueError(f"libwebp could not decode the picture (status {status})")
        return pixels

    return decode


_FACTORIES: dict[str, Callable[[], _Decoder | None]] = {
    "PNG": _png_decoder,
    "WEBP": _webp_decoder,
}


def _plain(picture: Image.Image, file_format: str) -> bool:
    """Whether Pillow would decode ``picture`` as it is stored: one frame of 8-bit samples (a
    16-bit PNG's samples Pillow cuts to their high byte itself)."""
    if file_format == "PNG":
        tiles = getattr(picture, "tile", [])
        return len(tiles) == 1 and tiles[0].args == picture.mode
    return getattr(picture, "n_frames", 1) == 1


@functools.cache
def _decoder(file_format: str) -> _Decoder | None:
    """The fast decoder of a format, imported on first use; None where there is none."""
    factory = _FACTORIES.get(file_format)
    return factory() if factory is not None else None


def available() -> dict[str, bool]:
    """Which formats have a fast decoder in this installation (the tests of the decoders skip
    a format whose package is not installed)."""
    return {name: _decoder(name) is not None for name in _FACTORIES}


def applies(picture: Image.Image) -> bool:
    """Whether ``picture`` (opened by Pillow, not yet loaded) has a fast decoder here."""
    file_format = picture.format or ""
    if picture.mode not in _BANDS or "transparency" in picture.info:
        return False
    return _plain(picture, file_format) and _decoder(file_format) is not None


def decoded(picture: Image.Image, data: bytes, reduced: int = 1) -> Image.Image | None:
    """``picture`` (opened by Pillow from the file ``data``, not yet loaded) decoded by a
    fast decoder; None where none applies, and Pillow decodes it. ``reduced``: the factor its
    steps reduce it by (``levels.reduce_factor``); a decoder that scales while it decodes
    gives it that much smaller (width and height rounded up, as ``Image.reduce`` does), the
    others whole."""
    decode = _decoder(picture.format or "") if applies(picture) else None
    if decode is None:
        return None
    bands = _BANDS[picture.mode]
    stored = picture.size
    wanted = (-(-stored[0] // reduced), -(-stored[1] // reduced)) if reduced > 1 else stored
    try:
        pixels = decode(data, picture.mode, wanted if wanted != stored else None)
    except Exception:  # the fast decoder refuses: Pillow decodes, and names any damage
        return None
    width, height = (pixels.shape[1], pixels.shape[0]) if pixels.ndim == 3 else (0, 0)
    if (width, height) not in (stored, wanted):
        return None
    if pixels.shape != (height, width, bands) or pixels.dtype != np.uint8:
        return None
    return Image.frombuffer(picture.mode, (width, height), pixels, "raw", picture.mode, 0, 1)
