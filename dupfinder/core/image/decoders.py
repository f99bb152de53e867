"""Whole-picture decoders faster than Pillow's own for the two formats that cost a scan most.

A scan decodes every picture once, in full (only JPEG can be decoded smaller), and on a mixed
folder the decoding is most of what pictures cost. Two formats have a leaner decoder:

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
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from PIL import Image

__all__ = ["applies", "available", "decoded"]

#: A decoder: the file's bytes and the mode wanted ("RGB" or "RGBA") to an (h, w, bands) array.
_Decoder = Callable[[bytes, str], npt.NDArray[np.uint8]]
#: Modes the fast decoders give as Pillow does, by their number of bands.
_BANDS = {"RGB": 3, "RGBA": 4}


def _png_decoder() -> _Decoder | None:
    try:
        import pyspng  # type: ignore[import-untyped]
    except ImportError:
        return None

    def decode(data: bytes, mode: str) -> npt.NDArray[np.uint8]:
        return np.asarray(pyspng.load(data, mode))

    return decode


def _webp_decoder() -> _Decoder | None:
    try:
        import webp
    except ImportError:
        return None
    modes = {"RGB": webp.WebPColorMode.RGB, "RGBA": webp.WebPColorMode.RGBA}

    def decode(data: bytes, mode: str) -> npt.NDArray[np.uint8]:
        return np.asarray(webp.WebPData.from_buffer(data).decode(modes[mode]))

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


def decoded(picture: Image.Image, data: bytes) -> Image.Image | None:
    """``picture`` (opened by Pillow from the file ``data``, not yet loaded) decoded by a
    fast decoder; None where none applies, and Pillow decodes it."""
    decode = _decoder(picture.format or "") if applies(picture) else None
    if decode is None:
        return None
    bands = _BANDS[picture.mode]
    try:
        pixels = decode(data, picture.mode)
    except Exception:  # the fast decoder refuses: Pillow decodes, and names any damage
        return None
    width, height = picture.size
    if pixels.shape != (height, width, bands) or pixels.dtype != np.uint8:
        return None
    return Image.frombuffer(picture.mode, (width, height), pixels, "raw", picture.mode, 0, 1)
