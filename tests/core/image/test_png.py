"""A plain PNG read from its bytes gives Pillow's very pixels, or is left to Pillow.

Pictures from several producers (icon themes and wallpapers Debian ships, made with Inkscape,
optipng, GIMP...; the app's screenshots, written by Qt; Pillow's encoder at every compression
level) and pictures written here row by row with each of the five PNG filters, so that every
unfiltering rule is held to the reference on the first row and below it, for RGB and RGBA at
odd widths; damaged, interlaced and unusual files go to libspng or to Pillow as before.
"""

from __future__ import annotations

import io
import struct
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path

import imagemagick
import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from dupfinder.core.image import png
from dupfinder.core.jit.engine import Kernel, available, choose

ROOT = Path(__file__).resolve().parents[3]
_REAL = (
    (ROOT / "docs", 20),
    (ROOT / "resources", 20),
    (Path("/usr/share/icons/Adwaita"), 40),
    (Path("/usr/share/icons/hicolor"), 30),
    (Path("/usr/share/pixmaps"), 20),
    (Path("/usr/share/backgrounds"), 4),
)

needs_reader = pytest.mark.skipif(
    not available(Kernel.PICTURE_DIRECT) or png._inflater() is None,
    reason="libdeflate or the compiled unfiltering is missing here",
)


def _pillows(data: bytes) -> npt.NDArray[np.uint8]:
    with Image.open(io.BytesIO(data)) as picture:
        return np.asarray(picture.convert(picture.mode))


def _real_pngs() -> Iterator[Path]:
    for folder, count in _REAL:
        if not folder.is_dir():
            continue
        found = [p for p in sorted(folder.rglob("*.png")) if p.is_file() and not p.is_symlink()]
        yield from found[:: max(1, len(found) // count)][:count]


@needs_reader
def test_real_pngs_give_pillows_pixels() -> None:
    read = 0
    for path in _real_pngs():
        data = path.read_bytes()
        found = png.pixels(data, None)
        if found is None:
            continue
        read += 1
        assert np.array_equal(found, _pillows(data)), path
    assert read >= 20


@needs_reader
@pytest.mark.parametrize("level", [0, 1, 6, 9])
@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
def test_pillows_encoder_at_every_level(level: int, mode: str) -> None:
    buffer = io.BytesIO()
    _picture(mode, (131, 77)).save(buffer, "PNG", compress_level=level)
    data = buffer.getvalue()
    found = png.pixels(data, None)
    assert found is not None
    assert np.array_equal(found, _pillows(data))


def _picture(mode: str, size: tuple[int, int]) -> Image.Image:
    """Gradients, hard edges, noise and (RGBA) graded transparency: every filter has work."""
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0 : size[1], 0 : size[0]]
    bands = [
        (x * 255 // size[0]).astype(np.uint8),
        ((x ^ y) * 5 % 256).astype(np.uint8),
        rng.integers(0, 256, (size[1], size[0]), dtype=np.uint8),
        np.where((x // 7 + y // 5) % 2 == 0, 255, y * 3 % 256).astype(np.uint8),
    ]
    return Image.fromarray(np.dstack(bands[: len(mode)]), mode)


def _filtered(pixels: npt.NDArray[np.uint8], kinds: list[int]) -> bytes:
    """The PNG filters, written from the specification: each row's filter type, then its
    bytes less the prediction of the type (``kinds`` cycled over the rows)."""
    height, width, bands = pixels.shape
    rows = pixels.reshape(height, width * bands).astype(np.int32)
    out = bytearray()
    for y in range(height):
        kind = kinds[y % len(kinds)]
        line = rows[y]
        above = rows[y - 1] if y else np.zeros_like(line)
        left = np.concatenate([np.zeros(bands, np.int32), line[:-bands]])
        upper_left = np.concatenate([np.zeros(bands, np.int32), above[:-bands]])
        if kind == 0:
            predicted = np.zeros_like(line)
        elif kind == 1:
            predicted = left
        elif kind == 2:
            predicted = above
        elif kind == 3:
            predicted = (left + above) // 2
        else:
            estimate = left + above - upper_left
            pa, pb, pc = (np.abs(estimate - v) for v in (left, above, upper_left))
            predicted = np.where(
                (pa <= pb) & (pa <= pc), left, np.where(pb <= pc, above, upper_left)
            )
        out.append(kind)
        out += ((line - predicted) % 256).astype(np.uint8).tobytes()
    return bytes(out)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png_of(
    pixels: npt.NDArray[np.uint8], kinds: list[int], pieces: int = 1, interlace: int = 0
) -> bytes:
    height, width, bands = pixels.shape
    colour = {3: 2, 4: 6}[bands]
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, interlace))
    stream = zlib.compress(_filtered(pixels, kinds))
    step = -(-len(stream) // pieces)
    data = b"".join(_chunk(b"IDAT", stream[i : i + step]) for i in range(0, len(stream), step))
    return png.SIGNATURE + header + data + _chunk(b"IEND", b"")


@needs_reader
@pytest.mark.parametrize("kinds", [[0], [1], [2], [3], [4], [4, 3, 2, 1, 0], [2, 4]])
@pytest.mark.parametrize(("mode", "size"), [("RGB", (37, 9)), ("RGBA", (23, 11)), ("RGB", (1, 5))])
def test_each_filter_on_the_first_row_and_below(
    kinds: list[int], mode: str, size: tuple[int, int]
) -> None:
    pixels = np.asarray(_picture(mode, size))
    data = _png_of(pixels, kinds)
    assert np.array_equal(_pillows(data), pixels)  # the writer above is right
    found = png.pixels(data, None)
    assert found is not None
    assert np.array_equal(found, pixels)


@needs_reader
@pytest.mark.parametrize("vectorised", [True, False])
@pytest.mark.parametrize("bands", [1, 3, 4])
@pytest.mark.parametrize("seed", range(6))
def test_the_vector_and_scalar_unfilterings_give_the_pixels(
    vectorised: bool, bands: int, seed: int
) -> None:
    """Both paths of the compiled unfiltering (the vector one x86-64 takes, the scalar one of
    other CPUs) on random rows of every filter at widths from one pixel up, plain noise and
    nearly flat rows, where the Paeth choice ties."""
    kernel = choose(Kernel.PICTURE_DIRECT)
    assert kernel is not None
    rng = np.random.default_rng(seed)
    for width in (1, 2, 3, 5, 8, 17, 64):
        for levels in (256, 3):
            pixels = rng.integers(0, levels, (7, width, bands), dtype=np.uint8)
            kinds = [int(k) for k in rng.integers(0, 5, 7)]
            raw = _filtered(pixels, kinds)
            found = kernel.unfiltered(raw, 7, width, bands, vectorised)
            assert np.array_equal(found, pixels), (width, levels, kinds)


@needs_reader
def test_image_data_in_several_chunks() -> None:
    pixels = np.asarray(_picture("RGBA", (64, 48)))
    found = png.pixels(_png_of(pixels, [4, 1], pieces=7), None)
    assert found is not None
    assert np.array_equal(found, pixels)


def test_an_unknown_filter_type_is_left_to_pillow() -> None:
    pixels = np.asarray(_picture("RGB", (16, 8)))
    filtered = bytearray(_filtered(pixels, [1]))
    filtered[3 * (16 * 3 + 1)] = 5  # the fourth row's filter type
    height, width = 8, 16
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    data = png.SIGNATURE + header + _chunk(b"IDAT", zlib.compress(bytes(filtered)))
    data += _chunk(b"IEND", b"")
    assert png.pixels(data, None) is None


@pytest.mark.parametrize("cut", ["stream", "chunk"])
def test_damaged_image_data_is_left_to_pillow(cut: str) -> None:
    pixels = np.asarray(_picture("RGB", (40, 30)))
    stream = zlib.compress(_filtered(pixels, [4]))
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", 40, 30, 8, 2, 0, 0, 0))
    if cut == "stream":  # a whole chunk of half a stream
        body = _chunk(b"IDAT", stream[: len(stream) // 2]) + _chunk(b"IEND", b"")
    else:  # the file ends inside the chunk
        body = _chunk(b"IDAT", stream)[: len(stream) // 2]
    assert png.pixels(png.SIGNATURE + header + body, None) is None


def test_more_image_data_than_the_header_says_is_not_taken_as_it() -> None:
    pixels = np.asarray(_picture("RGB", (20, 10)))
    extra = zlib.compress(_filtered(pixels, [0]) + b"\0" * 61)
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", 20, 10, 8, 2, 0, 0, 0))
    data = png.SIGNATURE + header + _chunk(b"IDAT", extra) + _chunk(b"IEND", b"")
    found = png.pixels(data, None)
    assert found is None or np.array_equal(found, pixels)


@pytest.mark.skipif(not imagemagick.installed(), reason="ImageMagick not installed")
def test_an_interlaced_png_gives_pillows_pixels(tmp_path: Path) -> None:
    """Pillow writes no interlaced PNG: ImageMagick does (Adam7)."""
    source = tmp_path / "plain.png"
    _picture("RGBA", (45, 33)).save(source)
    path = tmp_path / "interlaced.png"
    subprocess.run(
        ["convert", str(source), "-interlace", "PNG", f"PNG32:{path}"], check=True, timeout=60
    )
    data = path.read_bytes()
    assert data[28] == 1
    found = png.pixels(data, None)
    if found is not None:  # libspng reads it (where it is installed)
        assert np.array_equal(found, _pillows(data))


def test_without_libdeflate_libspng_or_pillow_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    pixels = np.asarray(_picture("RGB", (30, 20)))
    data = _png_of(pixels, [4, 2])
    monkeypatch.setattr(png, "_inflater", lambda: None)
    found = png.pixels(data, None)
    assert found is None or np.array_equal(found, pixels)


def test_only_plain_pictures_within_the_limit_are_read() -> None:
    pixels = np.asarray(_picture("RGB", (20, 10)))
    plain = _png_of(pixels, [1])
    assert png.pixels(plain, 100) is None  # over the bomb limit
    assert png.pixels(b"GIF89a" + plain[6:], None) is None
    key = _chunk(b"tRNS", b"\0\1\0\2\0\3")
    at = 8 + 25  # after IHDR
    assert png.pixels(plain[:at] + key + plain[at:], None) is None
    grey = plain[:25] + bytes([0]) + plain[26:]  # colour type 0: Pillow's
    assert png.pixels(grey, None) is None


def test_exif_is_found_in_its_chunk_or_text_chunk_wherever_it_is() -> None:
    pixels = np.asarray(_picture("RGB", (12, 8)))
    plain = _png_of(pixels, [0])
    end = plain.index(b"IEND") - 4
    after = [
        _chunk(b"eXIf", b"MM\0*\0\0\0\x08"),
        _chunk(b"tEXt", b"Raw profile type exif\0\nexif\n"),
        _chunk(b"zTXt", b"Raw profile type exif\0\0" + zlib.compress(b"exif")),
        _chunk(b"iTXt", b"Raw profile type exif\0\0\0\0\0exif"),
    ]
    assert not png.may_hold_exif(plain)
    for chunk in after:
        assert png.may_hold_exif(plain[:end] + chunk + plain[end:])
        assert png.may_hold_exif(plain[:33] + chunk + plain[33:])  # before the image data
    other = _chunk(b"tEXt", b"Comment\0Raw profile type exif")  # the words, not the keyword
    assert not png.may_hold_exif(plain[:end] + other + plain[end:])


def test_a_file_whose_chunks_cannot_be_walked_is_searched_whole() -> None:
    pixels = np.asarray(_picture("RGB", (12, 8)))
    plain = _png_of(pixels, [0])
    end = plain.index(b"IEND") - 4
    broken = struct.pack(">I", 1 << 30) + b"junk" + b"eXIf"  # a length past the end
    assert png.may_hold_exif(plain[:end] + broken)
    assert not png.may_hold_exif(plain[:end] + struct.pack(">I", 1 << 30) + b"junk")


@pytest.mark.parametrize("where", ["header", "text before the data"])
def test_a_chunk_before_the_data_that_fails_its_checksum_is_left_to_pillow(where: str) -> None:
    """Pillow refuses such a file: it is not read here either (a header whose width and
    height were swapped by damage would give the same number of bytes)."""
    pixels = np.asarray(_picture("RGB", (12, 8)))
    plain = _png_of(pixels, [1])
    assert png.pixels(plain, None) is not None
    if where == "header":
        damaged = bytearray(plain)
        damaged[29] ^= 0xFF  # the header's CRC
    else:
        text = bytearray(_chunk(b"tEXt", b"Comment\0hello"))
        text[-1] ^= 0xFF
        damaged = bytearray(plain[:33] + text + plain[33:])
    with pytest.raises(Exception):  # noqa: B017, PT011 - Pillow's own refusal, whichever
        _pillows(bytes(damaged))
    assert png.pixels(bytes(damaged), None) is None


def test_a_text_chunk_after_the_data_is_not_checked_as_pillow_does_not() -> None:
    pixels = np.asarray(_picture("RGB", (12, 8)))
    plain = _png_of(pixels, [1])
    end = plain.index(b"IEND") - 4
    text = bytearray(_chunk(b"tEXt", b"Comment\0hello"))
    text[-1] ^= 0xFF
    damaged = plain[:end] + bytes(text) + plain[end:]
    assert np.array_equal(_pillows(damaged), pixels)
    found = png.pixels(damaged, None)
    assert found is not None
    assert np.array_equal(found, pixels)
