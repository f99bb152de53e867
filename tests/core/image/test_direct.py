"""A small picture's direct path gives the very fingerprint Pillow's steps give.

Pictures from several producers: icon themes and pictures Debian ships (Inkscape, optipng,
GIMP...), the app's own icons and screenshots (Qt), and Pillow's encoders in every mode the
direct path takes (RGB, RGBA with graded transparency, palettes with and without a colour key,
grey with and without alpha, GIF, BMP, WebP), at the sizes where the steps differ: a chroma
thumbnail's own size (copied, not resized), odd sides, a plain border, a transparent margin,
white art on a transparent layer (hashed over black). The reference is the same fingerprint
with the direct path switched off (``DUPFINDER_PICTURE_DIRECT=numpy``).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from dupfinder.core.errors import CorruptFile, TooLittleContent
from dupfinder.core.image import decoders, direct, perceptual, png
from dupfinder.core.jit.engine import Kernel, available

ROOT = Path(__file__).resolve().parents[3]
_REAL = (
    (ROOT / "docs", 20),
    (ROOT / "resources", 40),
    (Path("/usr/share/icons/oxygen/base/32x32/actions"), 40),
    (Path("/usr/share/icons/Adwaita/16x16"), 40),
    (Path("/usr/share/icons/hicolor/48x48/apps"), 30),
    (Path("/usr/share/pixmaps"), 40),
)

needs_kernel = pytest.mark.skipif(
    not available(Kernel.PICTURE_DIRECT), reason="the small-picture kernel was not built"
)


def _reference(path: Path, monkeypatch: pytest.MonkeyPatch, invariant: bool) -> Any:
    with monkeypatch.context() as patch:
        patch.setenv(Kernel.PICTURE_DIRECT.variable, "numpy")
        return _outcome(path, invariant)


def _outcome(path: Path, invariant: bool) -> Any:
    try:
        return perceptual.image_fingerprint(path, invariant=invariant)
    except (CorruptFile, TooLittleContent) as exc:
        return type(exc).__name__


def _real_pictures() -> Iterator[Path]:
    for folder, count in _REAL:
        if not folder.is_dir():
            continue
        pictures = [
            path
            for path in sorted(folder.rglob("*"))
            if path.suffix.lower() in (".png", ".gif", ".bmp", ".xpm", ".ico", ".webp")
            and path.is_file()
            and path.stat().st_size < 2_000_000
        ]
        yield from pictures[:: max(1, len(pictures) // count)][:count]


@needs_kernel
def test_real_pictures_of_several_producers_fingerprint_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = 0
    for i, path in enumerate(_real_pictures()):
        invariant = i % 3 == 0
        assert _outcome(path, invariant) == _reference(path, monkeypatch, invariant), path
        checked += 1
    assert checked >= 20


def _drawing(mode: str, size: tuple[int, int], margin: int = 0) -> Image.Image:
    """A drawing with gradients, edges and (with alpha) graded transparency, inside a plain
    or transparent margin."""
    w, h = size
    x = np.linspace(0, 255, w)[None, :]
    y = np.linspace(0, 255, h)[:, None]
    rgba = np.zeros((h, w, 4), dtype=np.uint8)
    rgba[..., 0] = (x + 0 * y).astype(np.uint8)
    rgba[..., 1] = (y + 0 * x).astype(np.uint8)
    rgba[..., 2] = ((x * y) % 256).astype(np.uint8)
    rgba[..., 3] = np.clip(np.hypot(x - 128, y - 128) * 2, 0, 255).astype(np.uint8)
    picture = Image.fromarray(rgba, "RGBA")
    ImageDraw.Draw(picture).rectangle((w // 4, h // 4, w // 2, h // 2), fill=(200, 30, 60, 255))
    if margin:
        canvas = Image.new("RGBA", (w + 2 * margin, h + 2 * margin), (0, 0, 0, 0))
        canvas.paste(picture, (margin, margin))
        picture = canvas
    if mode == "RGBA":
        return picture
    if mode == "P":
        return picture.convert("RGB").quantize(64)
    if mode == "PT":  # a palette with a transparent entry
        quantised = picture.convert("RGB").quantize(64)
        quantised.info["transparency"] = 0
        return quantised
    return picture.convert(mode)


_CASES = [
    ("RGBA", (48, 48), 0, "png"),
    ("RGBA", (8, 8), 0, "png"),  # the chroma thumbnail's own size: copied, not resized
    ("RGBA", (97, 61), 0, "png"),
    ("RGBA", (32, 32), 6, "png"),  # a transparent margin, trimmed
    ("RGBA", (127, 20), 3, "png"),
    ("RGB", (64, 64), 0, "png"),  # the working size: copied, not resized
    ("RGB", (45, 77), 0, "png"),
    ("P", (40, 40), 0, "png"),
    ("PT", (40, 40), 0, "png"),
    ("L", (33, 50), 0, "png"),
    ("LA", (50, 33), 4, "png"),
    ("P", (60, 30), 0, "gif"),
    ("RGB", (30, 60), 0, "bmp"),
    ("RGBA", (100, 90), 0, "webp"),
    # reduced first (by 2, 4 or 8), as the Pillow path reduces them
    ("RGBA", (300, 260), 0, "png"),
    ("RGBA", (257, 700), 9, "png"),
    ("RGB", (520, 300), 0, "png"),
    ("L", (260, 129), 0, "png"),
    ("LA", (400, 400), 20, "png"),
    ("P", (300, 300), 0, "png"),  # a palette is reduced after its grey: Pillow's steps
    ("PT", (300, 300), 0, "png"),
    ("RGB", (600, 520), 0, "webp"),
    ("RGBA", (300, 300), 0, "webp"),
]


@needs_kernel
@pytest.mark.parametrize(("mode", "size", "margin", "suffix"), _CASES)
def test_each_mode_and_size_fingerprints_alike(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    size: tuple[int, int],
    margin: int,
    suffix: str,
) -> None:
    path = tmp_path / f"picture.{suffix}"
    options: dict[str, Any] = {"lossless": True} if suffix == "webp" else {}
    if suffix == "webp" and not decoders.available()["WEBP"]:
        pytest.skip("webp not installed")
    _drawing(mode, size, margin).save(path, **options)
    for invariant in (False, True):
        found = _outcome(path, invariant)
        assert found == _reference(path, monkeypatch, invariant)
        assert not isinstance(found, str)


@needs_kernel
def test_a_white_drawing_on_a_transparent_layer_is_hashed_over_black(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    picture = Image.new("RGBA", (40, 40), (255, 255, 255, 0))
    ImageDraw.Draw(picture).ellipse((8, 8, 30, 34), fill=(255, 255, 255, 255))
    ImageDraw.Draw(picture).line((5, 35, 35, 5), fill=(250, 250, 250, 180), width=3)
    path = tmp_path / "white.png"
    picture.save(path)
    found = _outcome(path, False)
    assert not isinstance(found, str)
    assert found == _reference(path, monkeypatch, False)


@needs_kernel
def test_one_translucent_pixel_of_a_large_picture_makes_it_transparent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reducing averages a single translucent pixel away: transparency is the stored
    picture's, in both paths."""
    picture = _drawing("RGBA", (300, 300))
    pixels = np.asarray(picture).copy()
    pixels[..., 3] = 255
    pixels[150, 150, 3] = 254
    path = tmp_path / "nearly-opaque.png"
    Image.fromarray(pixels, "RGBA").save(path)
    found = _outcome(path, False)
    assert found == _reference(path, monkeypatch, False)
    assert found.descriptor[0] & 2  # the descriptor's transparent flag


@needs_kernel
def test_a_flat_icon_is_refused_as_the_pillow_path_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "flat.png"
    Image.new("RGBA", (32, 32), (90, 90, 90, 255)).save(path)
    assert _outcome(path, False) == "TooLittleContent"
    assert _reference(path, monkeypatch, False) == "TooLittleContent"


@needs_kernel
def test_an_icon_takes_the_direct_path(tmp_path: Path) -> None:
    """Not only equal: the direct path answers for a plain RGBA icon (it is what it is for)."""
    path = tmp_path / "icon.png"
    _drawing("RGBA", (24, 24)).save(path)
    pixels = png.pixels(path.read_bytes(), Image.MAX_IMAGE_PIXELS)
    assert pixels is not None
    assert pixels.shape == (24, 24, 4)
    found = direct.fingerprint(pixels, colour=True, file_format="PNG", invariant=False)
    assert found is not None
    assert found.hashes[0] == perceptual.image_fingerprint(path).value


@needs_kernel
@pytest.mark.parametrize("size", [(48, 40), (1203, 611), (2600, 1500)])
def test_a_grey_png_read_from_its_bytes_fingerprints_as_pillows_decode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """A plain grey PNG skips Pillow's decoder (libdeflate and the compiled unfiltering read
    it) and then takes Pillow's very steps: the same fingerprint as Pillow's decode gives,
    small, reduced by two, and reduced by four."""
    path = tmp_path / "grey.png"
    _drawing("RGB", size).convert("L").save(path)
    if png.pixels(path.read_bytes(), None) is None:
        pytest.skip("libdeflate is not installed here")
    for invariant in (False, True):
        found = _outcome(path, invariant)
        with monkeypatch.context() as patch:
            patch.setattr(png, "_BANDS", {2: 3, 6: 4})  # grey left to Pillow, as before
            assert png.pixels(path.read_bytes(), None) is None
            assert found == _outcome(path, invariant)


def _png(size: tuple[int, int], colour_type: int, depth: int, chunks: list[bytes]) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    w, h = size
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour_type, 0, 0, 0))
    bands = {0: 1, 2: 3, 6: 4}[colour_type] * depth // 8
    rows = b"".join(b"\x00" + bytes(i % 251 for i in range(w * bands)) for _ in range(h))
    data = chunk(b"IDAT", zlib.compress(rows))
    return b"\x89PNG\r\n\x1a\n" + header + b"".join(chunks) + data + chunk(b"IEND", b"")


def test_png_pixels_takes_only_plain_small_pictures() -> None:
    def trns(body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + b"tRNS" + body + b"\0\0\0\0"

    if not decoders.available()["PNG"]:
        pytest.skip("pyspng not installed")
    plain = _png((20, 10), 2, 8, [])
    pixels = png.pixels(plain, None)
    assert pixels is not None
    assert pixels.shape == (10, 20, 3)
    assert png.pixels(_png((20, 10), 6, 8, []), None) is not None
    grey = png.pixels(_png((20, 10), 0, 8, []), None)
    assert grey is not None
    assert grey.shape == (10, 20, 1)
    assert png.pixels(_png((20, 10), 0, 8, [trns(b"\0\7")]), None) is None  # a grey key
    assert png.pixels(_png((20, 10), 2, 8, [trns(b"\0\1\0\2\0\3")]), None) is None
    animated = struct.pack(">I", 8) + b"acTL" + struct.pack(">II", 2, 0) + b"\0\0\0\0"
    assert png.pixels(_png((20, 10), 6, 8, [animated]), None) is None
    assert png.pixels(_png((20, 10), 2, 16, []), None) is None  # 16-bit: Pillow's
    assert png.pixels(_png((200, 200), 2, 8, []), None) is not None  # reduced after
    assert png.pixels(_png((20, 10), 2, 8, []), 100) is None  # over the bomb limit
    assert png.pixels(plain[:-30], None) is None  # damaged: Pillow names it
    assert png.pixels(b"GIF89a" + plain[6:], None) is None


def test_a_truncated_png_is_named_damaged_as_before(tmp_path: Path) -> None:
    path = tmp_path / "cut.png"
    _drawing("RGBA", (40, 40)).save(path)
    path.write_bytes(path.read_bytes()[:-60])
    with pytest.raises(CorruptFile):
        perceptual.image_fingerprint(path)


def test_the_chroma_tables_give_pillows_ycbcr_for_every_colour() -> None:
    """Cb and Cr read from the tables made of Pillow's own conversions are Pillow's, on all
    16,777,216 colours; where no tables are made, Pillow converts."""
    tables = direct._chroma_tables()
    assert tables is not None
    every = np.arange(1 << 24, dtype=np.uint32)
    rgb = np.stack([(every >> 16) & 255, (every >> 8) & 255, every & 255], -1).astype(np.uint8)
    ycbcr = np.asarray(Image.fromarray(rgb.reshape(4096, 4096, 3), "RGB").convert("YCbCr"))
    expected = ycbcr.reshape(-1, 3)[:, 1:].T
    assert np.array_equal(direct._chroma_of(tables, rgb), expected)


def test_chroma_cells_are_pillows_with_the_tables_or_without(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(3)
    colours = rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)
    from_tables = direct._chroma_cells(colours)
    monkeypatch.setattr(direct, "_chroma_tables", lambda: None)
    assert np.array_equal(direct._chroma_cells(colours), from_tables)
