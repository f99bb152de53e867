"""PNG and WebP decoded by libspng and libwebp give Pillow's very pixels, or are left to Pillow.

Pictures from several producers: the icon themes and wallpapers Debian ships (Inkscape,
optipng, GIMP...), Qt's PNG and WebP writers (the app's screenshots; a WebP written by Qt),
Pillow's encoders (every mode and the odd cases: 16-bit, interlaced, palette, colour key,
animation) and ImageMagick where it is installed.
"""

from __future__ import annotations

import io
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import imagemagick
import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from dupfinder.core.errors import CorruptFile
from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import decoders, levels, perceptual

ROOT = Path(__file__).resolve().parents[3]
#: Folders of real pictures other programs made (each used where present), and how many to take
#: of each (wallpapers are large: a few of them).
_REAL = (
    (ROOT / "docs", 30),
    (ROOT / "resources" / "icons", 30),
    (Path("/usr/share/icons/oxygen/base/64x64/apps"), 30),
    (Path("/usr/share/icons/hicolor/48x48/apps"), 30),
    (Path("/usr/share/backgrounds"), 5),
    (Path("/usr/share/pixmaps"), 30),
)

needs_png = pytest.mark.skipif(not decoders.available()["PNG"], reason="pyspng not installed")
needs_webp = pytest.mark.skipif(not decoders.available()["WEBP"], reason="webp not installed")


def _both(path: Path) -> tuple[Image.Image, Image.Image | None]:
    """Pillow's own decode of ``path`` and the fast decoder's (None where it does not apply)."""
    with path.open("rb") as fh:
        fast = decoders.decoded(Image.open(fh), path.read_bytes())
    reference = Image.open(path)
    reference.load()
    return reference, fast


def _same(reference: Image.Image, fast: Image.Image) -> bool:
    return (
        reference.mode == fast.mode
        and reference.size == fast.size
        and np.array_equal(np.asarray(reference), np.asarray(fast))
    )


def _real_pictures() -> Iterator[Path]:
    """Some PNG and WebP files (under 3 MB) from each folder of real pictures."""
    for folder, count in _REAL:
        if not folder.is_dir():
            continue
        pictures = [
            path
            for path in sorted(folder.rglob("*"))
            if path.suffix.lower() in (".png", ".webp")
            and path.is_file()
            and path.stat().st_size < 3_000_000
        ]
        yield from pictures[:: max(1, len(pictures) // count)][:count]


def _saved(tmp_path: Path, picture: Image.Image, name: str, **options: Any) -> Path:
    path = tmp_path / name
    picture.save(path, **options)
    return path


def _drawing(mode: str, size: tuple[int, int] = (97, 61)) -> Image.Image:
    """A picture with gradients, edges and (in RGBA) graded transparency."""
    y, x = np.mgrid[0 : size[1], 0 : size[0]]
    bands = [
        (x * 255 // size[0]).astype(np.uint8),
        (y * 255 // size[1]).astype(np.uint8),
        ((x ^ y) * 7 % 256).astype(np.uint8),
        np.where((x // 8 + y // 8) % 2 == 0, 255, (x * 3 % 256)).astype(np.uint8),
    ]
    return Image.fromarray(np.dstack(bands[: len(mode)]), mode)


@needs_png
def test_real_pngs_decode_to_pillows_pixels() -> None:
    fast_ones = 0
    for path in _real_pictures():
        reference, fast = _both(path)
        if fast is None:
            assert not _plain_png(path), f"{path} was left to Pillow"
            continue
        fast_ones += 1
        assert _same(reference, fast), path
    if fast_ones == 0:
        pytest.skip("no real 8-bit RGB or RGBA PNG on this machine")


def _plain_png(path: Path) -> bool:
    """An 8-bit RGB or RGBA PNG without a colour key: what libspng decodes."""
    with Image.open(path) as picture:
        return (
            picture.format == "PNG"
            and picture.mode in ("RGB", "RGBA")
            and "transparency" not in picture.info
            and ";16" not in str(picture.tile[0].args)
        )


@needs_png
@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
@pytest.mark.parametrize(
    "options", [{}, {"interlace": 1}, {"optimize": True}, {"compress_level": 0}]
)
def test_pngs_pillow_writes_decode_to_its_pixels(
    tmp_path: Path, mode: str, options: dict[str, object]
) -> None:
    path = _saved(tmp_path, _drawing(mode), "a.png", **options)
    reference, fast = _both(path)
    assert fast is not None
    assert _same(reference, fast)


@needs_png
@pytest.mark.parametrize("mode", ["P", "L", "LA", "I;16", "1"])
def test_other_png_modes_stay_with_pillow(tmp_path: Path, mode: str) -> None:
    source = _drawing("RGB").convert(mode) if mode != "LA" else _drawing("RGBA").convert("LA")
    _, fast = _both(_saved(tmp_path, source, "a.png"))
    assert fast is None


@needs_png
def test_a_colour_key_and_16_bit_samples_stay_with_pillow(tmp_path: Path) -> None:
    keyed = _saved(tmp_path, _drawing("RGB"), "keyed.png", transparency=(0, 0, 0))
    assert _both(keyed)[1] is None
    deep = np.dstack([np.arange(64 * 64, dtype=">u2").reshape(64, 64) * 16] * 3)
    path = tmp_path / "deep.png"
    # a 48-bit PNG, written by hand: Pillow writes no 16-bit RGB
    _write_png(path, deep.tobytes(), 64, 64, bit_depth=16, colour_type=2)
    reference, fast = _both(path)
    assert reference.mode == "RGB"
    assert fast is None


def _write_png(
    path: Path, raw: bytes, width: int, height: int, bit_depth: int, colour_type: int
) -> None:
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    stride = len(raw) // height
    rows = b"".join(b"\0" + raw[r * stride : (r + 1) * stride] for r in range(height))
    header = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@needs_webp
@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
@pytest.mark.parametrize(
    "options", [{"quality": 60}, {"quality": 95, "method": 6}, {"lossless": True}]
)
def test_webps_pillow_writes_decode_to_its_pixels(
    tmp_path: Path, mode: str, options: dict[str, object]
) -> None:
    path = _saved(tmp_path, _drawing(mode, (301, 173)), "a.webp", **options)
    reference, fast = _both(path)
    assert fast is not None
    assert _same(reference, fast)


@needs_webp
def test_a_webp_qt_writes_decodes_to_pillows_pixels(tmp_path: Path) -> None:
    qt_gui = pytest.importorskip("PySide6.QtGui")
    picture = qt_gui.QImage(str(ROOT / "docs" / "screenshot-main.png"))
    path = tmp_path / "qt.webp"
    if picture.isNull() or not picture.save(str(path), "WEBP", 80):
        pytest.skip("Qt has no WebP writer here")
    reference, fast = _both(path)
    assert fast is not None
    assert _same(reference, fast)


@needs_webp
@pytest.mark.skipif(not imagemagick.installed(), reason="ImageMagick not installed")
def test_a_webp_imagemagick_writes_decodes_to_pillows_pixels(tmp_path: Path) -> None:
    source = _saved(tmp_path, _drawing("RGB", (211, 150)), "a.png")
    path = tmp_path / "im.webp"
    subprocess.run(["convert", str(source), "-quality", "70", str(path)], check=True, timeout=60)
    reference, fast = _both(path)
    assert fast is not None
    assert _same(reference, fast)


@needs_webp
def test_an_animated_webp_stays_with_pillow(tmp_path: Path) -> None:
    frames = [_drawing("RGB"), _drawing("RGB").rotate(90)]
    path = tmp_path / "anim.webp"
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=100)
    assert _both(path)[1] is None


@pytest.mark.parametrize(("name", "options"), [("a.png", {}), ("a.webp", {"quality": 80})])
def test_a_truncated_picture_is_named_damaged(
    tmp_path: Path, name: str, options: dict[str, object]
) -> None:
    path = _saved(tmp_path, _drawing("RGB", (300, 200)), name, **options)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(CorruptFile):
        perceptual.image_fingerprint(path)


@pytest.mark.parametrize(
    ("name", "mode"), [("a.png", "RGBA"), ("a.webp", "RGBA"), ("b.png", "RGB"), ("c.webp", "RGB")]
)
def test_fingerprints_do_not_depend_on_the_decoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, mode: str
) -> None:
    """Whole decodes give Pillow's pixels, and so its fingerprints; an opaque WebP that libwebp
    scales while it decodes moves by a hair only (the two are the same picture to the check)."""
    path = _saved(
        tmp_path,
        _drawing(mode, (640, 480)),
        name,
        **({"quality": 90} if name.endswith("webp") else {}),
    )
    fast = perceptual.image_fingerprint(path, invariant=True)
    monkeypatch.setattr(decoders, "decoded", lambda picture, source, reduced=1: None)
    pillows = perceptual.image_fingerprint(path, invariant=True)
    if name != "c.webp" or not decoders.available()["WEBP"]:
        assert pillows == fast
        return
    assert (pillows.width, pillows.height) == (fast.width, fast.height)
    assert (pillows.value ^ fast.value).bit_count() <= 6  # a drawing of sharp stripes
    alike = imagecheck.pair_similarity(
        np.frombuffer(pillows.descriptor, np.uint8), np.frombuffer(fast.descriptor, np.uint8)
    )
    assert float(alike[0]) >= 0.97


def _smooth(size: tuple[int, int]) -> Image.Image:
    """A photo-like RGB picture: gradients and broad shapes, no pixel-fine pattern."""
    y, x = np.mgrid[0 : size[1], 0 : size[0]] / max(size)
    bands = [
        255 * x,
        255 * y,
        127.5 + 100 * np.sin(7 * x) * np.cos(5 * y),
    ]
    return Image.fromarray(np.dstack(bands).round().astype(np.uint8), "RGB")


def _pillow_reduced(path: Path, factor: int) -> npt.NDArray[np.int16]:
    with Image.open(path) as whole:
        return np.asarray(whole.convert("RGB").reduce(factor)).astype(np.int16)


@needs_webp
@pytest.mark.parametrize(("size", "factor"), [((640, 480), 4), ((1111, 777), 8), ((300, 140), 2)])
def test_a_large_opaque_webp_is_scaled_while_it_is_decoded(
    tmp_path: Path, size: tuple[int, int], factor: int
) -> None:
    """The size ``Image.reduce`` gives (rounded up), within a few levels of its pixels on a
    picture without stripes finer than the boxes (chroma is scaled at half resolution)."""
    path = _saved(tmp_path, _smooth(size), "a.webp", quality=90)
    with Image.open(path) as picture:
        fast = decoders.decoded(picture, path.read_bytes(), factor)
    assert fast is not None
    assert fast.mode == "RGB"
    reference = _pillow_reduced(path, factor)
    assert fast.size == (reference.shape[1], reference.shape[0])
    difference = np.abs(np.asarray(fast).astype(np.int16) - reference)
    assert float(difference.mean()) < 1.5
    assert int(difference.max()) <= 24


@needs_webp
def test_a_real_wallpaper_webp_is_scaled_close_to_pillows_reduce() -> None:
    wallpapers = sorted(Path("/usr/share/backgrounds").rglob("*.webp"))
    if not wallpapers:
        pytest.skip("no WebP wallpapers installed")
    path = wallpapers[0]
    with Image.open(path) as picture:
        factor = levels.reduce_factor(*picture.size)
        fast = decoders.decoded(picture, path.read_bytes(), factor)
        translucent = picture.mode != "RGB"
    if translucent:
        assert fast is None or fast.size == Image.open(path).size
        return
    assert fast is not None
    difference = np.abs(np.asarray(fast).astype(np.int16) - _pillow_reduced(path, factor))
    assert float(difference.mean()) < 1.0


@needs_webp
@pytest.mark.parametrize("options", [{"quality": 80}, {"lossless": True}])
def test_a_translucent_webp_is_decoded_whole(tmp_path: Path, options: dict[str, object]) -> None:
    """Scaling would average its alpha before the steps that read it: Pillow's pixels, whole."""
    path = _saved(tmp_path, _drawing("RGBA", (640, 480)), "a.webp", **options)
    reference, _ = _both(path)
    with Image.open(path) as picture:
        fast = decoders.decoded(picture, path.read_bytes(), 4)
    assert fast is not None
    assert _same(reference, fast)


@needs_webp
def test_without_libwebps_options_layout_a_webp_is_decoded_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _saved(tmp_path, _drawing("RGB", (640, 480)), "a.webp", quality=80)
    monkeypatch.setattr(decoders, "_OPTIONS_BYTES", 1)  # a layout the package does not show
    decoders._decoder.cache_clear()
    try:
        with Image.open(path) as picture:
            fast = decoders.decoded(picture, path.read_bytes(), 4)
        assert fast is not None
        assert _same(_both(path)[0], fast)
    finally:
        decoders._decoder.cache_clear()


@needs_webp
def test_a_damaged_webp_is_named_damaged_when_scaled(tmp_path: Path) -> None:
    path = _saved(tmp_path, _drawing("RGB", (900, 700)), "a.webp", quality=80)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptFile):
        perceptual.image_fingerprint(path)


def test_a_missing_decoder_leaves_the_picture_to_pillow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _saved(tmp_path, _drawing("RGB"), "a.png")
    monkeypatch.setitem(decoders._FACTORIES, "PNG", lambda: None)
    decoders._decoder.cache_clear()
    try:
        with Image.open(path) as picture:
            assert decoders.decoded(picture, path.read_bytes()) is None
        assert perceptual.image_fingerprint(path).value
    finally:
        decoders._decoder.cache_clear()


def test_a_picture_read_from_memory_is_decoded_too() -> None:
    buffer = io.BytesIO()
    _drawing("RGBA").save(buffer, "PNG")
    fast = decoders.decoded(Image.open(io.BytesIO(buffer.getvalue())), buffer.getvalue())
    assert fast is None or _same(Image.open(io.BytesIO(buffer.getvalue())), fast)


def _orientation_six() -> bytes:
    exif = Image.Exif()
    exif[0x0112] = 6  # shown turned a quarter clockwise
    return exif.tobytes()


def _chunk(kind: bytes, body: bytes) -> bytes:
    import struct
    import zlib

    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@pytest.mark.parametrize(
    "where", ["before the pixels", "after the pixels", "as ImageMagick's text"]
)
def test_a_pngs_exif_orientation_is_found_wherever_it_is(tmp_path: Path, where: str) -> None:
    upright = _drawing("RGB", (120, 80))
    expected = perceptual.image_fingerprint(_saved(tmp_path, upright, "upright.png"))
    stored = upright.transpose(Image.Transpose.ROTATE_90)  # what orientation 6 turns upright
    path = tmp_path / "turned.png"
    if where == "before the pixels":
        stored.save(path, exif=_orientation_six())
    else:
        plain = _saved(tmp_path, stored, "plain.png").read_bytes()
        end = plain.rindex(b"IEND") - 4
        if where == "after the pixels":
            extra = _chunk(b"eXIf", _orientation_six())
        else:
            raw = b"Exif\0\0" + _orientation_six()
            text = f"\nexif\n{len(raw):8d}\n{raw.hex()}\n".encode()
            extra = _chunk(b"tEXt", b"Raw profile type exif\0" + text)
        path.write_bytes(plain[:end] + extra + plain[end:])
    turned = perceptual.image_fingerprint(path)
    assert (turned.width, turned.height) == (120, 80)
    assert turned.value == expected.value
