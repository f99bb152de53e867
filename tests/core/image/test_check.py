"""The second check of pictures: thumbnails made in the decode pass, compared pixel by pixel."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageOps
from scan_helpers import assert_refused_as_copy
from test_perceptual import icon, photo

from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.image.check import DESCRIPTOR_BYTES, pair_similarity, similarity
from dupfinder.core.model import DEFAULT_IMAGE_SIMILARITY

#: Verified similarity of copies of one picture (the scan's default is below this).
SAME = 0.9
#: Verified similarity that different pictures must stay below.
DIFFERENT = 0.8


@pytest.fixture(params=["numpy", "compiled"])
def check_engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both engines of the check (the compiled one where it was built)."""
    engine: str = request.param
    if engine == "compiled" and imagecheck._kernel() is None:
        pytest.skip("the compiled check was not built")
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, engine)
    return engine


def descriptor_of(path: Path) -> bytes:
    return imagesim.image_fingerprint(path).descriptor


def saved(im: Image.Image, path: Path, **options: Any) -> Path:  # PIL's writers' options
    im.save(path, **options)
    return path


def test_descriptor_is_made_in_the_fingerprint_pass(tmp_path: Path) -> None:
    path = saved(photo(), tmp_path / "a.jpg", quality=90)
    found = imagesim.image_fingerprint(path)
    assert len(found.descriptor) == DESCRIPTOR_BYTES
    assert found.descriptor == imagesim.load_working_image(path).descriptor()
    assert imagecheck.CHECK_VERSION in imagesim.ALGORITHM_VERSION
    head = imagecheck.header(np.frombuffer(found.descriptor, np.uint8))
    assert head.format is imagecheck.Format.JPEG
    assert 85 <= head.quality <= 95
    assert head.colour
    assert not head.graphic
    assert not head.transparent
    small = imagesim.image_fingerprint(saved(icon(), tmp_path / "i.png"))
    icon_head = imagecheck.header(np.frombuffer(small.descriptor, np.uint8))
    assert icon_head.graphic
    assert icon_head.format is imagecheck.Format.PNG
    rows = [np.frombuffer(d, np.uint8) for d in (found.descriptor, small.descriptor)]
    assert 0.0 <= float(pair_similarity(rows[0], rows[1])[0]) <= 1.0


def test_colour_jpeg_hash_is_that_of_its_grey_decode(tmp_path: Path) -> None:
    """Colour JPEGs are decoded as YCbCr for the chroma thumbnail; their Y is what a
    greyscale decode gives, so the hash is unchanged."""
    path = saved(photo(seed=9, size=(1200, 800)), tmp_path / "a.jpg", quality=90)
    with Image.open(path) as im:
        im.draft("L", (imagesim.WORKING_SIZE, imagesim.WORKING_SIZE))
        grey = im.convert("L")
    expected = imagesim.hash_working(
        grey.resize((64, 64), Image.Resampling.LANCZOS), imagesim.DEFAULT_ALGORITHM
    )
    assert imagesim.image_fingerprint(path).value == expected


@pytest.mark.parametrize(
    ("name", "edit", "options"),
    [
        ("half.jpg", lambda im: im.resize((240, 160), Image.Resampling.LANCZOS), {"quality": 90}),
        ("low.jpg", lambda im: im, {"quality": 50}),
        ("bright.png", lambda im: ImageEnhance.Brightness(im).enhance(1.15), {}),
        ("grey.jpg", lambda im: im.convert("L"), {"quality": 90}),
        ("crop.jpg", lambda im: im.crop((5, 3, 475, 317)), {"quality": 90}),
    ],
)
def test_copies_are_verified_similar(
    tmp_path: Path, name: str, edit: Callable[[Image.Image], Image.Image], options: dict[str, Any]
) -> None:
    master = saved(photo(seed=4), tmp_path / "master.png")
    copy = saved(edit(photo(seed=4)), tmp_path / name, **options)
    assert similarity(descriptor_of(master), descriptor_of(copy)) >= SAME


def test_a_detailed_picture_and_its_half_size_copy_are_similar(tmp_path: Path) -> None:
    big = Image.effect_mandelbrot((800, 600), (-2.0, -1.2, 1.0, 1.2), 100).convert("RGB")
    a = saved(big, tmp_path / "big.jpg", quality=90)
    b = saved(big.resize((400, 300), Image.Resampling.LANCZOS), tmp_path / "small.jpg")
    assert similarity(descriptor_of(a), descriptor_of(b)) >= SAME


def test_different_pictures_are_not(tmp_path: Path) -> None:
    a = saved(photo(seed=1), tmp_path / "a.png")
    b = saved(photo(seed=2), tmp_path / "b.png")
    assert similarity(descriptor_of(a), descriptor_of(b)) < DIFFERENT


def _emblem(colour: tuple[int, int, int], box: tuple[int, int, int, int]) -> Image.Image:
    """The test icon with a small badge: icons of one theme differ by such details."""
    im = icon()
    ImageDraw.Draw(im).ellipse(box, fill=(*colour, 255))
    return im


def test_an_icon_in_other_colours_is_a_different_icon(tmp_path: Path) -> None:
    blue = icon()
    pixels = np.asarray(blue).copy()
    pixels[..., [0, 2]] = pixels[..., [2, 0]]  # swap red and blue: same drawing, other colours
    a = saved(blue, tmp_path / "blue.png")
    b = saved(Image.fromarray(pixels, "RGBA"), tmp_path / "orange.png")
    assert similarity(descriptor_of(a), descriptor_of(b)) < DIFFERENT


def test_a_flattened_icon_matches_its_transparent_original(tmp_path: Path) -> None:
    original = icon()
    flat = Image.alpha_composite(Image.new("RGBA", original.size, "white"), original)
    a = saved(original, tmp_path / "icon.png")
    b = saved(flat.convert("RGB"), tmp_path / "flat.jpg", quality=90)
    assert similarity(descriptor_of(a), descriptor_of(b)) >= SAME


def _descriptor(grey: np.ndarray, flags: int = 0, side: int = 255) -> np.ndarray:
    """A descriptor of a grey thumbnail with no colour."""
    head = np.array([flags, 0, 1, side, 0, 0, 0, 0], dtype=np.uint8)
    neutral = np.full(2 * imagecheck.CHROMA_SIDE**2, 128, dtype=np.uint8)
    opaque = np.full(imagecheck.ALPHA_SIDE**2, 255, dtype=np.uint8)
    return np.concatenate([head, grey.astype(np.uint8).reshape(-1), neutral, opaque])


def _smooth(seed: int) -> np.ndarray:
    """A 32 x 32 grey picture of a few soft blobs (thumbnails of real pictures are smooth)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:32, 0:32] / 32.0
    out = np.zeros((32, 32))
    for _ in range(6):
        cx, cy, r, w = rng.random(4)
        out += (w - 0.5) * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (0.02 + 0.05 * r))
    return np.clip(128 + 120 * out / np.abs(out).max(), 0, 255)


def test_tone_does_not_count_but_layout_does() -> None:
    grey = _smooth(5)
    a = _descriptor(grey)
    darker = _descriptor(grey * 0.5 + 10)
    gamma = _descriptor(255 * (grey / 255) ** 0.6)
    other = _descriptor(_smooth(6))
    assert similarity(a, darker) >= 0.98
    assert similarity(a, gamma) >= SAME
    assert similarity(a, a) == pytest.approx(1.0, abs=1e-4)
    assert similarity(a, other) < 0.5


def test_a_negative_is_not_a_copy(check_engine: str, tmp_path: Path) -> None:
    """A tone edit keeps the order of tones: a grey photo's negative was 99.7 % alike (a
    falling curve mapped one onto the other), and a dark theme's white glyph passed as a copy
    of the light theme's black one. Both read as another picture; a darker copy still does."""
    grey = photo(4).convert("L")
    original = descriptor_of(saved(grey, tmp_path / "grey.png"))
    negative = descriptor_of(saved(ImageOps.invert(grey), tmp_path / "negative.png"))
    darker = descriptor_of(saved(grey.point(lambda v: v * 0.6), tmp_path / "darker.png"))
    assert similarity(original, negative) < DIFFERENT
    assert similarity(negative, original) < DIFFERENT
    assert similarity(original, darker) >= SAME
    glyph = Image.new("LA", (64, 64), (0, 0))
    ImageDraw.Draw(glyph).polygon([(10, 54), (32, 8), (54, 54), (32, 40)], fill=(0, 255))
    white = Image.merge("LA", (ImageOps.invert(glyph.getchannel("L")), glyph.getchannel("A")))
    black_glyph = descriptor_of(saved(glyph, tmp_path / "black.png"))
    white_glyph = descriptor_of(saved(white, tmp_path / "white.png"))
    assert similarity(black_glyph, white_glyph) < DIFFERENT


def test_a_results_file_calling_a_negative_a_copy_removes_nothing(tmp_path: Path) -> None:
    """A scan never proposes a negative (its hash is some 60 bits away), but a results file
    may claim anything: the proof at the moment of acting runs the check, which let the
    negative pass at 99.7 % and removed it."""
    grey = photo(4).convert("L")
    keep = saved(grey, tmp_path / "photo.png")
    negative = saved(ImageOps.invert(grey), tmp_path / "photo-negative.png")
    assert_refused_as_copy(keep, negative, tmp_path / "journal.jsonl")


def test_a_falling_tone_curve_is_fitted_as_one_level() -> None:
    """The reference's curve: rising levels are fitted through the cubic, falling ones (a
    negative) get the one level that keeps the order, the mean of the other's levels."""
    fa = np.linspace(0.1, 0.9, 16)[None, :]
    fit = np.ones_like(fa, dtype=bool)
    ones = np.ones_like(fa)
    rising = imagecheck._curve(fa, 0.5 * fa + 0.2, fit, ones, fa)
    falling = imagecheck._curve(fa, 1.0 - fa, fit, ones, fa)
    np.testing.assert_allclose(rising, 0.5 * fa + 0.2, atol=1e-4)
    np.testing.assert_allclose(falling, np.full_like(fa, 0.5), atol=1e-4)


@pytest.mark.parametrize(("base", "factor"), [(150, 1.2), (140, 1.3)])
def test_a_brighter_copy_whose_light_parts_clip_to_white_is_a_copy(
    check_engine: str, base: float, factor: float
) -> None:
    """Brightening a light picture (a screenshot, a page) takes a third to a half of it past
    white: a clipped level is only a bound, so no single curve maps the copy back, and the
    fit leaves it out (these copies were 84 % and 80 % alike)."""
    light = base + 0.55 * _smooth(5)
    brighter = np.minimum(255.0, light * factor)
    assert 0.3 < (brighter >= 253).mean() < 0.5
    assert similarity(_descriptor(light), _descriptor(brighter)) >= SAME
    assert similarity(_descriptor(brighter), _descriptor(light)) >= SAME


def test_a_picture_clipped_over_most_of_it_bounds_nothing() -> None:
    """Where bounds would cover more than half of the fitted cells, too little is left to fit
    a curve to: clipped cells are then levels like any other (a blown-out disc with dark
    corners, a brightened wallpaper, once passed as a retina photo)."""
    fa = np.linspace(0.0, 1.0, 20)[None, :]
    mostly_white = np.where(np.arange(20) < 4, fa, 1.0)
    fit = np.ones_like(fa, dtype=bool)
    white = mostly_white >= imagecheck._CLIPPED / 255.0
    censored = imagecheck._censored_fit(fa, mostly_white, fit, np.zeros_like(fit), white)
    plain = imagecheck._censored_fit(fa, mostly_white, fit, np.zeros_like(fit), ~fit)
    assert white.mean() > imagecheck._MOST_BOUNDS
    np.testing.assert_allclose(censored, plain)


def test_white_is_a_bound_not_a_free_pass(check_engine: str) -> None:
    """A clipped cell agrees only where the curve reaches white: a picture with a corner
    painted white, or a blank page, is not a brighter copy."""
    light = 150 + 0.55 * _smooth(5)
    painted = light.copy()
    painted[:12, :12] = 255
    blank = np.full_like(light, 255.0)
    assert similarity(_descriptor(light), _descriptor(painted)) < DIFFERENT
    assert similarity(_descriptor(light), _descriptor(blank)) < DIFFERENT


def test_a_crop_is_found_and_aligned(tmp_path: Path) -> None:
    master = photo(seed=4)  # 480 x 320
    a = descriptor_of(saved(master, tmp_path / "master.png"))
    b = descriptor_of(saved(master.crop((0, 29, 437, 320)), tmp_path / "crop.png"))
    found = imagecheck.compare(np.frombuffer(a, np.uint8), np.frombuffer(b, np.uint8))
    assert found.b_in_a[0]
    assert found.offset_x[0] == pytest.approx(0.0, abs=0.02)
    assert found.scale_x[0] == pytest.approx(437 / 480, abs=0.02)
    assert found.offset_y[0] == pytest.approx(29 / 320, abs=0.02)
    assert found.similarity[0] >= DEFAULT_IMAGE_SIMILARITY


def test_missing_descriptor_is_unrelated_and_shapes_are_checked() -> None:
    a = _descriptor(_smooth(8))
    zeros = np.zeros(DESCRIPTOR_BYTES, dtype=np.uint8)
    found = pair_similarity(np.stack([a, a]), np.stack([zeros, a]))
    assert found[0] == 0.0
    assert found[1] == pytest.approx(1.0, abs=1e-4)
    with pytest.raises(ValueError, match="descriptors must be"):
        pair_similarity(a[:10], a[:10])


def _labelled(text_box: tuple[int, int, int, int]) -> Image.Image:
    """A 128 px document icon with a small dark label: icons of one theme differ by such."""
    im = Image.new("RGBA", (128, 128), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.rectangle((24, 8, 104, 120), fill=(250, 250, 250, 255), outline=(120, 120, 120, 255))
    for y in range(24, 80, 10):
        draw.line((34, y, 94, y), fill=(150, 150, 150, 255), width=2)
    draw.rectangle((40, 92, 88, 112), fill=(60, 60, 160, 255))
    draw.rectangle(text_box, fill=(255, 255, 255, 255))  # the label's "text"
    return im


def _graphic(d: bytes, graphic: bool) -> bytes:
    """The descriptor with its graphic flag set or cleared (photos get no detail check)."""
    flags = d[0] | 4 if graphic else d[0] & ~4
    return bytes([flags]) + d[1:]


def test_icons_are_graphics_and_photos_are_not(tmp_path: Path) -> None:
    small = descriptor_of(saved(_labelled((44, 96, 50, 108)), tmp_path / "icon.png"))
    large = descriptor_of(saved(photo(), tmp_path / "photo.jpg"))
    assert imagecheck.header(np.frombuffer(small, np.uint8)).graphic
    assert imagecheck.header(np.frombuffer(small, np.uint8)).transparent
    assert not imagecheck.header(np.frombuffer(large, np.uint8)).graphic


def test_a_label_difference_on_one_icon_is_seen_in_detail(tmp_path: Path) -> None:
    a = descriptor_of(saved(_labelled((44, 96, 50, 108)), tmp_path / "a.png"))
    b = descriptor_of(saved(_labelled((78, 96, 84, 108)), tmp_path / "b.png"))
    # as photos (the layout alone) they are one picture with a mark; as icons they differ
    assert similarity(_graphic(a, False), _graphic(b, False)) >= DEFAULT_IMAGE_SIMILARITY
    assert similarity(a, b) < DEFAULT_IMAGE_SIMILARITY


@pytest.mark.parametrize(
    ("name", "edit", "options"),
    [
        ("half.png", lambda im: im.resize((64, 64), Image.Resampling.LANCZOS), {}),
        ("flat.jpg", lambda im: _flattened(im), {"quality": 85}),
        ("flat.webp", lambda im: _flattened(im), {"quality": 80}),
    ],
)
def test_copies_of_an_icon_match_in_detail(
    tmp_path: Path, name: str, edit: Callable[[Image.Image], Image.Image], options: dict[str, Any]
) -> None:
    master = _labelled((44, 96, 50, 108))
    a = descriptor_of(saved(master, tmp_path / "icon.png"))
    b = descriptor_of(saved(edit(master), tmp_path / name, **options))
    assert similarity(a, b) >= DEFAULT_IMAGE_SIMILARITY


def _drawn_large(text_box: tuple[int, int, int, int]) -> Image.Image:
    """The labelled document icon drawn at 512 px, past the small-picture side."""
    return _labelled(text_box).resize((512, 512), Image.Resampling.NEAREST)


def test_a_label_difference_on_a_large_transparent_icon_is_seen_in_detail(
    tmp_path: Path,
) -> None:
    a = descriptor_of(saved(_drawn_large((44, 96, 50, 108)), tmp_path / "a.png"))
    b = descriptor_of(saved(_drawn_large((78, 96, 84, 108)), tmp_path / "b.png"))
    assert imagecheck.header(np.frombuffer(a, np.uint8)).graphic
    assert similarity(a, b) < DEFAULT_IMAGE_SIMILARITY


def test_a_large_transparent_icon_matches_its_half_size_copy(tmp_path: Path) -> None:
    master = _drawn_large((44, 96, 50, 108))
    half = master.resize((256, 256), Image.Resampling.LANCZOS)
    a = descriptor_of(saved(master, tmp_path / "icon.png"))
    b = descriptor_of(saved(half, tmp_path / "half.png"))
    assert similarity(a, b) >= SAME


def test_only_transparent_pixels_make_a_large_picture_an_icon(tmp_path: Path) -> None:
    opaque = photo().convert("RGBA")  # an alpha channel, every pixel opaque: a photo
    holed = opaque.copy()
    holed.putpixel((0, 0), (0, 0, 0, 0))
    opaque_head = imagecheck.header(
        np.frombuffer(descriptor_of(saved(opaque, tmp_path / "opaque.png")), np.uint8)
    )
    holed_head = imagecheck.header(
        np.frombuffer(descriptor_of(saved(holed, tmp_path / "holed.png")), np.uint8)
    )
    assert not opaque_head.graphic
    assert not opaque_head.transparent
    assert holed_head.graphic
    assert holed_head.transparent


def _flattened(im: Image.Image) -> Image.Image:
    return Image.alpha_composite(Image.new("RGBA", im.size, "white"), im).convert("RGB")


OXYGEN = Path("/usr/share/icons/oxygen/base/64x64")
DIFFERENT_ICONS = [
    ("emotes/face-smile.png", "emotes/face-wink.png"),
    ("places/folder-grey.png", "places/folder-green.png"),
    ("mimetypes/libreoffice-oasis-formula.png", "mimetypes/libreoffice-oasis-presentation.png"),
]


def _installed_icon(tmp_path: Path, relative: str) -> Path:
    source = OXYGEN / relative
    if not source.is_file():
        pytest.skip(f"{source} is not installed")
    copy = tmp_path / source.name
    copy.write_bytes(source.read_bytes())
    return copy


@pytest.mark.parametrize(("first", "second"), DIFFERENT_ICONS)
def test_different_installed_icons_of_one_theme_are_told_apart(
    tmp_path: Path, first: str, second: str
) -> None:
    a = descriptor_of(_installed_icon(tmp_path, first))
    b = descriptor_of(_installed_icon(tmp_path, second))
    assert similarity(a, b) < DEFAULT_IMAGE_SIMILARITY


def test_copies_of_an_installed_icon_match(tmp_path: Path) -> None:
    path = _installed_icon(tmp_path, "emotes/face-smile.png")
    with Image.open(path) as im:
        icon_image = im.convert("RGBA")
    half = saved(icon_image.resize((32, 32), Image.Resampling.LANCZOS), tmp_path / "half.png")
    jpeg = saved(_flattened(icon_image), tmp_path / "flat.jpg", quality=85)
    own = descriptor_of(path)
    assert similarity(own, descriptor_of(half)) >= SAME
    assert similarity(own, descriptor_of(jpeg)) >= SAME


def _sepia(im: Image.Image) -> Image.Image:
    """A sepia print of a transparent icon, as photo editors tint one."""
    tinted = ImageOps.colorize(im.convert("L"), (40, 26, 13), (255, 240, 192)).convert("RGBA")
    tinted.putalpha(im.getchannel("A"))
    return tinted


@pytest.mark.parametrize("relative", ["places/folder-green.png", "places/folder-blue.png"])
@pytest.mark.parametrize("side", [48, 22])
def test_a_sepia_copy_of_a_small_icon_of_one_hue_matches_it(
    tmp_path: Path, relative: str, side: int, check_engine: str
) -> None:
    """A tint is made of a drawing of any colour: a green icon's sepia copy is its copy."""
    source = Path(f"/usr/share/icons/oxygen/base/{side}x{side}") / relative
    if not source.is_file():
        pytest.skip(f"{source} is not installed")
    with Image.open(source) as im:
        original = im.convert("RGBA")
    a = saved(original, tmp_path / "original.png")
    b = saved(_sepia(original), tmp_path / "sepia.png")
    assert similarity(descriptor_of(a), descriptor_of(b)) >= DEFAULT_IMAGE_SIMILARITY


def test_an_icon_of_one_hue_and_its_drawing_in_many_hues_are_different(
    tmp_path: Path, check_engine: str
) -> None:
    """One drawing coloured another way (a green and a pink-and-orange button of one theme)
    is another icon: a strong hue is not a tint, so it must agree with the other's colours."""
    path = _installed_icon(tmp_path, "places/folder-green.png")
    with Image.open(path) as im:
        green = im.convert("RGBA")
    grey = green.convert("L")
    half = green.width // 2
    left = ImageOps.colorize(grey, (60, 0, 60), (255, 120, 220)).crop((0, 0, half, green.height))
    right = ImageOps.colorize(grey, (80, 30, 0), (255, 190, 60)).crop(
        (half, 0, green.width, green.height)
    )
    recoloured = Image.new("RGB", green.size)
    recoloured.paste(left, (0, 0))
    recoloured.paste(right, (half, 0))
    recoloured = recoloured.convert("RGBA")
    recoloured.putalpha(green.getchannel("A"))
    b = saved(recoloured, tmp_path / "pink-orange.png")
    assert similarity(descriptor_of(path), descriptor_of(b)) < DEFAULT_IMAGE_SIMILARITY


def _document_icon() -> Image.Image:
    """A light page with grey lines, an outline and a soft shadow on a transparent layer, as
    a theme's document icon is drawn."""
    page = Image.new("RGBA", (256, 256), (0, 0, 0, 0))
    shadow = Image.new("RGBA", (256, 256), (0, 0, 0, 0))
    ImageDraw.Draw(shadow).rounded_rectangle((52, 30, 212, 240), 10, fill=(0, 0, 0, 90))
    page = Image.alpha_composite(page, shadow.filter(ImageFilter.GaussianBlur(6)))
    draw = ImageDraw.Draw(page)
    draw.rounded_rectangle(
        (48, 24, 208, 232), 8, fill=(246, 245, 244, 255), outline=(154, 153, 150, 255), width=3
    )
    for y in range(60, 210, 18):
        draw.line((72, y, 184 - (y % 36), y), fill=(119, 118, 123, 255), width=5)
    return page


@pytest.mark.parametrize(
    "edit",
    [
        lambda x: ImageEnhance.Brightness(x).enhance(0.75),
        lambda x: ImageEnhance.Brightness(x).enhance(1.25),
        lambda x: ImageEnhance.Contrast(x).enhance(0.7),
        lambda x: ImageEnhance.Contrast(x).enhance(1.4),
    ],
    ids=["darker", "brighter", "less-contrast", "more-contrast"],
)
def test_a_tone_edit_of_a_transparent_icons_colours_is_a_copy(
    tmp_path: Path, edit: Callable[[Image.Image], Image.Image]
) -> None:
    """An editor darkens or brightens an icon's colours and keeps its opacity: over white, the
    page and its soft edges move apart (a darker copy was 56 % alike), so the tone curve is
    also fitted to the colours under the opacity thumbnail."""
    original = _document_icon()
    edited = edit(original.convert("RGB")).convert("RGBA")
    edited.putalpha(original.getchannel("A"))
    a = descriptor_of(saved(original, tmp_path / "page.png"))
    b = descriptor_of(saved(edited, tmp_path / "edited.png"))
    assert similarity(a, b) >= DEFAULT_IMAGE_SIMILARITY


@pytest.mark.parametrize(
    ("relative", "edit"),
    [
        ("places/folder-green.png", lambda x: ImageEnhance.Contrast(x).enhance(0.6)),
        (
            "mimetypes/application-vnd.oasis.opendocument.formula-template.png",
            lambda x: ImageEnhance.Brightness(x).enhance(0.7),
        ),
        (
            "mimetypes/application-vnd.oasis.opendocument.text.png",
            lambda x: ImageEnhance.Brightness(x).enhance(0.7),
        ),
    ],
    ids=["duller-folder", "darker-template", "darker-document"],
)
def test_a_darker_or_duller_copy_whose_colours_fall_to_a_tint_is_a_copy(
    tmp_path: Path, relative: str, edit: Callable[[Image.Image], Image.Image], check_engine: str
) -> None:
    """Darkening a pale icon or taking its contrast down weakens its colours to one faint hue
    (a tint), yet they are its own colours: its transparent edges are still fitted under
    their opacity (these were 66 % to 83 % alike)."""
    path = _installed_icon(tmp_path, relative)
    with Image.open(path) as im:
        original = im.convert("RGBA")
    edited = edit(original.convert("RGB")).convert("RGBA")
    edited.putalpha(original.getchannel("A"))
    b = saved(edited, tmp_path / "edited.png")
    assert similarity(descriptor_of(path), descriptor_of(b)) >= DEFAULT_IMAGE_SIMILARITY


def _drawn_at(tmp_path: Path, size: str, relative: str) -> Path:
    """Oxygen's own drawing of an icon at ``size`` (e.g. "48x48"), copied."""
    source = OXYGEN.parent / size / relative
    if not source.is_file():
        pytest.skip(f"{source} is not installed")
    copy = tmp_path / f"{size}-{source.name}"
    copy.write_bytes(source.read_bytes())
    return copy


@pytest.mark.parametrize(
    ("small", "large", "relative"),
    [
        ("64x64", "256x256", "places/folder-green.png"),
        ("48x48", "128x128", "categories/applications-all.png"),
        ("22x22", "48x48", "actions/application-exit.png"),
    ],
)
def test_an_icons_own_drawing_at_another_size_is_its_copy(
    tmp_path: Path, small: str, large: str, relative: str, check_engine: str
) -> None:
    """A theme draws each size of an icon anew, its soft edges where that size's pixel grid
    puts them: those cells are left out of the layout's fit and agree in the detail, so the
    drawing is found at its other sizes (these were 73 % to 78 % alike)."""
    a = descriptor_of(_drawn_at(tmp_path, small, relative))
    b = descriptor_of(_drawn_at(tmp_path, large, relative))
    assert similarity(a, b) >= DEFAULT_IMAGE_SIMILARITY


@pytest.mark.parametrize(
    ("small", "large", "first", "second"),
    [
        ("48x48", "128x128", "emotes/face-smile.png", "emotes/face-wink.png"),
        ("32x32", "64x64", "emotes/face-smile.png", "emotes/face-wink.png"),
        ("48x48", "128x128", "devices/drive-harddisk.png", "devices/drive-optical.png"),
        ("64x64", "256x256", "places/folder-grey.png", "places/folder-green.png"),
    ],
)
def test_look_alike_icons_drawn_at_two_sizes_stay_apart(
    tmp_path: Path, small: str, large: str, first: str, second: str, check_engine: str
) -> None:
    """Only the soft edges are let off: a wink where the other smiles is inside the drawing,
    whatever the sizes."""
    a = descriptor_of(_drawn_at(tmp_path, small, first))
    b = descriptor_of(_drawn_at(tmp_path, large, second))
    assert similarity(a, b) < DEFAULT_IMAGE_SIMILARITY


def test_the_soft_edges_of_a_drawing_without_colours_are_its_drawing(
    tmp_path: Path, check_engine: str
) -> None:
    """A glyph in one grey (a battery's level, a padlock open or shut) is drawn by its edges,
    so they count at any size; the same drawing in colour has them left out."""
    small = _drawn_at(tmp_path, "64x64", "places/folder-green.png")
    large = _drawn_at(tmp_path, "256x256", "places/folder-green.png")
    coloured = imagecheck.compare(
        np.frombuffer(descriptor_of(small), np.uint8), np.frombuffer(descriptor_of(large), np.uint8)
    )
    assert coloured.layout[0] > coloured.whole_layout[0] + 0.01
    greys = []
    for path in (small, large):
        with Image.open(path) as im:
            greys.append(saved(im.convert("LA"), tmp_path / f"grey-{path.name}"))
    grey = imagecheck.compare(
        np.frombuffer(descriptor_of(greys[0]), np.uint8),
        np.frombuffer(descriptor_of(greys[1]), np.uint8),
    )
    assert grey.layout[0] == pytest.approx(grey.whole_layout[0])


DOCS = Path(__file__).resolve().parents[3] / "docs"


@pytest.mark.parametrize(
    ("name", "share"),
    [
        ("xvfb-drop-copy.png", 0.05),
        ("xvfb-icon-enlarged.png", 0.05),
        ("xvfb-icon-enlarged.png", 0.10),
        ("xvfb-new-keeper.png", 0.10),
        ("screenshot-zh.png", 0.10),
    ],
)
def test_a_screenshot_cut_at_its_top_and_left_keeps_its_colours(
    tmp_path: Path, name: str, share: float, check_engine: str
) -> None:
    """The app's own screenshots, cut at the top and left as a person trims a window's edge:
    a thin coloured row (the selected file) that sat on a chroma cell's edge moves into the
    next cell, which the colour figure took for other colours (these were 40 % to 75 % alike
    before the chroma was softened by a cell either way)."""
    source = DOCS / name
    with Image.open(source) as im:
        shot = im.convert("RGB")
    width, height = shot.size
    cut = shot.crop((int(width * share), int(height * share), width, height))
    b = saved(cut, tmp_path / "cut.png")
    assert similarity(descriptor_of(source), descriptor_of(b)) >= DEFAULT_IMAGE_SIMILARITY


ADWAITA_STATUS = Path("/usr/share/icons/Adwaita/96x96/status")


@pytest.mark.parametrize("level", ["battery-level-0", "battery-level-10"])
def test_a_battery_at_another_level_is_not_a_copy(level: str) -> None:
    """Faint symbolic icons of one family differ in one bar: a battery at 10 % is not a copy
    of the one at 80 % (a looser tone fit for transparent edges once let them pass)."""
    full = ADWAITA_STATUS / "battery-level-80-charging-symbolic.symbolic.png"
    other = ADWAITA_STATUS / f"{level}-charging-symbolic.symbolic.png"
    if not (full.is_file() and other.is_file()):
        pytest.skip("Adwaita's symbolic battery icons are not installed")
    a = imagesim.image_fingerprint(full).descriptor
    b = imagesim.image_fingerprint(other).descriptor
    assert similarity(a, b) < DEFAULT_IMAGE_SIMILARITY


def test_pictures_that_hold_colour_are_told_from_grey_and_tinted_ones(tmp_path: Path) -> None:
    """A photo holds colours the check compares; its grey and sepia copies do not (they pass
    against any colourway: ``grouping.split`` parts colourways by the others)."""
    master = photo()
    sepia = ImageOps.colorize(master.convert("L"), (40, 26, 13), (255, 240, 192))
    rows = [
        descriptor_of(saved(picture, tmp_path / name))
        for name, picture in (
            ("colour.png", master),
            ("grey.png", master.convert("L")),
            ("sepia.png", sepia),
        )
    ]
    held = imagecheck.holds_colour(np.stack([np.frombuffer(r, np.uint8) for r in rows]))
    assert held.tolist() == [True, False, False]
