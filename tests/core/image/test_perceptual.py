"""Image fingerprints on real files written here: formats, edits, bad input, pinned values."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import imagehash
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageEnhance, ImageOps, features

from dupfinder.core.errors import (
    CorruptFile,
    FileProblem,
    TooLarge,
    TooLittleContent,
    UnsupportedFile,
)
from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.image.perceptual import (
    ALGORITHM_VERSION,
    DEFAULT_ALGORITHM,
    VARIANT_TRANSFORMS,
    ImageFingerprint,
    hash_bits_to_int,
    hash_working,
    image_fingerprint,
    load_working_image,
)

CLOSE = 6  # bits: same picture after a lossless or near-lossless change
NEAR = 10  # bits: the default radius; real edits must land inside it
FAR = 20  # bits: unrelated pictures are at least this far apart


def dist(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def photo(seed: int = 1, size: tuple[int, int] = (480, 320)) -> Image.Image:
    """A natural-looking picture: smooth colour noise at several scales plus a few shapes."""
    rng = np.random.default_rng(seed)
    acc = np.zeros((size[1], size[0], 3))
    for cells, weight in ((3, 1.0), (7, 0.5), (17, 0.25), (41, 0.12)):
        small = rng.random((cells, max(2, cells * size[0] // size[1]), 3)).astype(np.float32)
        layer = Image.fromarray((small * 255).astype(np.uint8), "RGB")
        acc += weight * np.asarray(layer.resize(size, Image.Resampling.BICUBIC), dtype=np.float64)
    acc = 255 * (acc - acc.min()) / (acc.max() - acc.min())
    im = Image.fromarray(acc.astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(im)
    for _ in range(4):
        x, y = int(rng.integers(0, size[0] - 60)), int(rng.integers(0, size[1] - 60))
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        draw.ellipse((x, y, x + 50, y + 40), fill=colour)
    return im


def icon(size: int = 256) -> Image.Image:
    """A shape with soft edges on a transparent background, like an application icon."""
    im = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    s = size / 256
    draw.rounded_rectangle((30 * s, 40 * s, 220 * s, 210 * s), 30 * s, fill=(40, 90, 200, 255))
    draw.ellipse((80 * s, 70 * s, 180 * s, 170 * s), fill=(250, 200, 40, 230))
    draw.polygon(
        [(20 * s, 230 * s), (120 * s, 120 * s), (140 * s, 240 * s)], fill=(200, 30, 30, 160)
    )
    return im


def save(im: Image.Image, path: Path, **options: Any) -> Path:  # PIL's writers' options
    im.save(path, **options)
    return path


def fp(path: Path, **kwargs: bool) -> ImageFingerprint:
    return image_fingerprint(path, **kwargs)


@pytest.fixture
def master(tmp_path: Path) -> Path:
    return save(photo(), tmp_path / "master.png")


# --- value type and bit order ------------------------------------------------------------------


def test_bit_order_matches_imagehash_hex_and_cells() -> None:
    bits = np.zeros((8, 8), dtype=bool)
    bits[0, 0] = True  # most significant
    bits[7, 7] = True  # least significant
    bits[1, 2] = True  # bit 63 - 10
    value = hash_bits_to_int(bits)
    assert value == (1 << 63) | 1 | (1 << 53)
    assert f"{value:016x}" == str(imagehash.ImageHash(bits))
    with pytest.raises(ValueError, match="64 hash bits"):
        hash_bits_to_int(np.zeros(32, dtype=bool))


def test_every_algorithm_matches_imagehash_hex(master: Path) -> None:
    working = load_working_image(master).image
    assert f"{hash_working(working, 'phash'):016x}" == str(imagehash.phash(working))
    assert f"{hash_working(working, 'dhash'):016x}" == str(imagehash.dhash(working))
    for name in imagesim.ALGORITHMS:
        assert 0 <= hash_working(working, name) < 1 << 64
    with pytest.raises(ValueError, match="unknown image hash"):
        hash_working(working, "ahash")


def test_fingerprint_is_plain_values(master: Path) -> None:
    result = fp(master)
    assert isinstance(result.value, int)
    assert 0 <= result.value < 1 << 64
    assert (result.width, result.height) == (480, 320)
    assert result.variants == ()
    assert DEFAULT_ALGORITHM in ALGORITHM_VERSION
    with pytest.raises(AttributeError):
        result.value = 0  # type: ignore[misc]  # frozen, as the test shows


# --- pinned values: a Pillow / imagehash / libjpeg upgrade must not drift silently -------------

GOLDEN = {  # (pHash, default hash) of photo(seed=2024, size=(640, 480))
    "png": (0xC44F31DE52A58B99, 0xC44F31DE67E3619E),
    "jpeg": (0xC44F31DE52A58B99, 0xC44F31DE67E3619E),
}


@pytest.mark.parametrize("fmt", sorted(GOLDEN))
def test_golden_hashes(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"golden.{fmt}"
    photo(seed=2024, size=(640, 480)).save(path, quality=90)
    working = load_working_image(path).image
    got = (hash_working(working, "phash"), hash_working(working, DEFAULT_ALGORITHM))
    assert tuple(f"{v:016x}" for v in got) == tuple(f"{v:016x}" for v in GOLDEN[fmt])


# --- formats -----------------------------------------------------------------------------------


def _heif_can_write() -> bool:
    try:
        import pillow_heif  # the encoder, for test pictures only (the product decodes with pi-heif)
    except ImportError:
        return False
    imagesim._register_heif()  # first: a later registration would take the encoder back
    pillow_heif.register_heif_opener()
    buf = io.BytesIO()
    try:
        Image.new("RGB", (16, 16)).save(buf, format="HEIF")
    except (OSError, KeyError, ValueError):
        return False
    return True


FORMATS = [
    ("jpg", {"quality": 90}),
    ("png", {}),
    ("webp", {"quality": 90}),
    ("gif", {}),
    ("bmp", {}),
    ("tiff", {}),
    pytest.param(
        "heic",
        {"quality": 90},
        marks=pytest.mark.skipif(not _heif_can_write(), reason="no HEIF encoder"),
    ),
    pytest.param(
        "avif",
        {"quality": 90},
        marks=pytest.mark.skipif(not features.check("avif"), reason="Pillow without AVIF"),
    ),
]


@pytest.mark.parametrize(("suffix", "options"), FORMATS)
def test_format_round_trip_is_close(
    tmp_path: Path, master: Path, suffix: str, options: dict[str, object]
) -> None:
    copy = save(photo(), tmp_path / f"copy.{suffix}", **options)
    a, b = fp(master), fp(copy)
    assert (b.width, b.height) == (480, 320)
    assert dist(a.value, b.value) <= CLOSE


def test_drafted_jpeg_matches_its_full_decode(tmp_path: Path) -> None:
    """A 6x-reduced JPEG decode and the PNG of its full decode hash through equal pipelines."""
    jpeg = save(photo(size=(1600, 1200)), tmp_path / "big.jpg", quality=92)
    with Image.open(jpeg) as im:
        png = save(im.convert("RGB"), tmp_path / "big.png")
    assert dist(fp(jpeg).value, fp(png).value) <= 4


def test_high_bit_depth_and_cmyk(tmp_path: Path, master: Path) -> None:
    grey = np.asarray(photo().convert("L"), dtype=np.uint16) * 257
    deep = save(Image.fromarray(grey), tmp_path / "deep.png")
    assert dist(fp(deep).value, fp(master).value) <= CLOSE
    cmyk = save(photo().convert("CMYK"), tmp_path / "cmyk.jpg", quality=92)
    assert dist(fp(cmyk).value, fp(master).value) <= CLOSE


def test_tiny_image_is_hashed(tmp_path: Path) -> None:
    small = save(icon(48), tmp_path / "small.png")
    big = save(icon(256), tmp_path / "big.png")
    assert dist(fp(small).value, fp(big).value) <= NEAR


# --- edits ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "edit",
    [
        lambda im: im.resize((240, 160), Image.Resampling.LANCZOS),
        lambda im: im.resize((120, 80), Image.Resampling.BILINEAR),
        lambda im: ImageEnhance.Brightness(im).enhance(1.1),
        lambda im: ImageEnhance.Contrast(im).enhance(0.9),
        lambda im: im.convert("L"),
        lambda im: im.crop((5, 3, 475, 317)),
    ],
    ids=["resize50", "resize25", "brighter", "less-contrast", "grey", "crop2"],
)
def test_edited_copies_stay_near(
    tmp_path: Path, master: Path, edit: Callable[[Image.Image], Image.Image]
) -> None:
    copy = save(edit(photo()), tmp_path / "edit.jpg", quality=70)
    assert dist(fp(copy).value, fp(master).value) <= NEAR


@pytest.mark.parametrize(
    ("orientation", "stored"),
    [
        (3, Image.Transpose.ROTATE_180),
        (6, Image.Transpose.ROTATE_90),
        (8, Image.Transpose.ROTATE_270),
        (2, Image.Transpose.FLIP_LEFT_RIGHT),
    ],
)
def test_exif_orientation_is_applied(
    tmp_path: Path, master: Path, orientation: int, stored: Image.Transpose
) -> None:
    exif = Image.Exif()
    exif[0x0112] = orientation
    path = tmp_path / "rotated.jpg"
    photo().transpose(stored).save(path, quality=95, exif=exif.tobytes())
    plain = save(photo(), tmp_path / "plain.jpg", quality=95)
    result = fp(path)
    assert (result.width, result.height) == (480, 320)
    assert dist(result.value, fp(plain).value) <= 4
    assert dist(result.value, fp(master).value) <= CLOSE


def test_alpha_matches_flattened_copy(tmp_path: Path) -> None:
    rgba = icon()
    original = save(rgba, tmp_path / "icon.png")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    flat = Image.alpha_composite(white, rgba).convert("RGB")
    assert dist(fp(original).value, fp(save(flat, tmp_path / "flat.jpg", quality=90)).value) <= 4
    gif = save(rgba, tmp_path / "icon.gif")  # palette with one transparent index
    with Image.open(gif) as im:
        assert im.mode == "P"
        assert "transparency" in im.info
    # GIF transparency is all or nothing, so the translucent shapes change: near, not close.
    assert dist(fp(original).value, fp(gif).value) <= NEAR


PENDRIVE = Path(
    "/usr/share/icons/oxygen/base/256x256/devices/drive-removable-media-usb-pendrive.png"
)


def _grey_thumbnail(found: ImageFingerprint) -> bytes:
    header = imagecheck.HEADER_BYTES
    return found.descriptor[header : header + imagecheck.GREY_SIDE**2]


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_white_padding_around_a_transparent_margin_is_trimmed_with_it(
    tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An icon padded with opaque white, as an editor's "canvas size" does: its border is
    found and cut off at the stored size, before the picture is reduced, so the copy shows
    the original's drawing pixel for pixel (reduced first, the padding and the transparent
    margin inside it blended into half-opaque white, where the trim stopped: 8 % alike)."""
    if not PENDRIVE.is_file():
        pytest.skip(f"{PENDRIVE} is not installed")
    monkeypatch.setenv("DUPFINDER_PICTURE_DIRECT", engine)
    with Image.open(PENDRIVE) as opened:
        drawing = opened.convert("RGBA")
    pad = 13  # not a multiple of the reduction's 4
    padded = Image.new("RGBA", (drawing.width + 2 * pad, drawing.height + 2 * pad), "white")
    padded.paste(drawing, (pad, pad))
    original = fp(save(drawing, tmp_path / "icon.png"))
    copy = fp(save(padded, tmp_path / "padded.png"))
    assert copy.value == original.value
    assert _grey_thumbnail(copy) == _grey_thumbnail(original)
    margins = imagecheck.header(np.frombuffer(original.descriptor, np.uint8)).margins
    padded_margins = imagecheck.header(np.frombuffer(copy.descriptor, np.uint8)).margins
    for share, padded_share in zip(margins, padded_margins, strict=True):
        assert abs(padded_share * padded.width - pad - share * drawing.width) <= 1


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
@pytest.mark.parametrize("colour", ["white", "black"])
def test_a_photo_with_a_border_added_is_its_photo(
    tmp_path: Path, engine: str, colour: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A border added around a photo (a frame, a print's white margin) of a width the
    reduction does not divide: trimmed at the stored size, the photo inside is reduced as the
    original was, and both have one fingerprint."""
    monkeypatch.setenv("DUPFINDER_PICTURE_DIRECT", engine)
    master = photo()
    framed = ImageOps.expand(master, 37, colour)
    original = fp(save(master, tmp_path / "photo.png"))
    copy = fp(save(framed, tmp_path / "framed.png"))
    assert copy.value == original.value
    assert _grey_thumbnail(copy) == _grey_thumbnail(original)


@pytest.mark.parametrize("engine", ["compiled", "numpy"])
def test_a_brighter_copy_of_a_light_icon_keeps_its_outline(
    tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a white canvas the border is what is transparent (or opaque white): a light
    icon's half-opaque edge, made white by brightening, is still its outline."""
    monkeypatch.setenv("DUPFINDER_PICTURE_DIRECT", engine)
    light = Image.new("RGBA", (256, 256), (0, 0, 0, 0))
    ImageDraw.Draw(light).rounded_rectangle((40, 30, 215, 225), 40, fill=(215, 215, 215, 255))
    light = light.resize((64, 64), Image.Resampling.LANCZOS).resize((256, 256))  # soft edges
    rgb, alpha = light.convert("RGB"), light.getchannel("A")
    brighter = ImageEnhance.Brightness(rgb).enhance(1.25)
    brighter.putalpha(alpha)
    a = fp(save(light, tmp_path / "light.png"))
    b = fp(save(brighter, tmp_path / "brighter.png"))
    margins = imagecheck.header(np.frombuffer(a.descriptor, np.uint8)).margins
    assert imagecheck.header(np.frombuffer(b.descriptor, np.uint8)).margins == margins


def test_white_art_on_transparency_is_not_flat(tmp_path: Path) -> None:
    im = Image.new("RGBA", (300, 200), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.ellipse((40, 30, 160, 150), fill=(255, 255, 255, 255))
    draw.rectangle((190, 60, 280, 180), fill=(255, 255, 255, 200))
    path = save(im, tmp_path / "overlay.png")
    other = save(im.transpose(Image.Transpose.FLIP_LEFT_RIGHT), tmp_path / "other.png")
    assert dist(fp(path).value, fp(other).value) >= FAR // 2


def test_different_pictures_are_far(tmp_path: Path, master: Path) -> None:
    others = [save(photo(seed), tmp_path / f"other{seed}.jpg", quality=85) for seed in (2, 3, 4)]
    for other in others:
        assert dist(fp(other).value, fp(master).value) >= FAR


# --- invariance ----------------------------------------------------------------------------------


def test_variants_match_mirrored_and_rotated_copies(tmp_path: Path, master: Path) -> None:
    result = fp(master, invariant=True)
    assert len(result.variants) == len(VARIANT_TRANSFORMS)
    for index, op in enumerate(VARIANT_TRANSFORMS):
        copy = save(photo().transpose(op), tmp_path / f"variant{index}.jpg", quality=90)
        assert dist(fp(copy).value, result.variants[index]) <= CLOSE
    mirrored = fp(tmp_path / "variant0.jpg")
    assert dist(mirrored.value, result.value) > NEAR  # without invariance they would not group
    assert fp(master, invariant=True).value == fp(master).value


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize("colour", [(0, 0, 0), (255, 255, 255), (120, 40, 200)])
def test_flat_images_are_refused(tmp_path: Path, colour: tuple[int, int, int]) -> None:
    path = save(Image.new("RGB", (400, 300), colour), tmp_path / "flat.jpg", quality=80)
    with pytest.raises(TooLittleContent, match="flat or nearly blank"):
        fp(path)


def test_nearly_blank_image_is_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    noise = (250 + rng.integers(-2, 3, (300, 400))).astype(np.uint8)
    with pytest.raises(TooLittleContent):
        fp(save(Image.fromarray(noise, "L"), tmp_path / "paper.png"))
    clear = save(Image.new("RGBA", (200, 200), (0, 0, 0, 0)), tmp_path / "clear.png")
    with pytest.raises(TooLittleContent):
        fp(clear)


@pytest.mark.parametrize(("suffix", "keep"), [("jpg", 0.5), ("png", 0.5), ("webp", 0.6)])
def test_truncated_files_are_corrupt(tmp_path: Path, suffix: str, keep: float) -> None:
    whole = save(photo(size=(800, 600)), tmp_path / f"whole.{suffix}")
    data = whole.read_bytes()
    cut = tmp_path / f"cut.{suffix}"
    cut.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(CorruptFile, match="damaged or truncated"):
        fp(cut)


def test_garbage_with_image_suffix(tmp_path: Path) -> None:
    path = tmp_path / "fake.jpg"
    path.write_bytes(b"this is not a picture at all\n" * 40)
    with pytest.raises(UnsupportedFile):
        fp(path)
    header_only = tmp_path / "header.png"
    header_only.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20)
    with pytest.raises(FileProblem):
        fp(header_only)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(FileProblem, match="cannot read"):
        fp(tmp_path / "nope.png")
    with pytest.raises(FileProblem, match="cannot read"):
        fp(tmp_path)


@pytest.mark.parametrize("limit", [100_000, 60_000])  # warning range, then error range
def test_decompression_bomb_is_too_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    path = save(photo(size=(400, 300)), tmp_path / "big.png")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", limit)
    with pytest.raises(TooLarge, match="120000 pixels"):
        fp(path)


def test_declared_huge_png_is_too_large(tmp_path: Path) -> None:
    """A tiny file whose header claims 100k x 100k pixels is refused before any decoding."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b""))
    path = tmp_path / "bomb.png"
    path.write_bytes(data + chunk(b"IEND", b""))
    with pytest.raises(TooLarge):
        fp(path)
