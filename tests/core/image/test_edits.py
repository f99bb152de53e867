"""What changed, named: each edit a person makes to a real picture (made here with Pillow) is
named by its code, with its numbers, and copies with no such edit are not given it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageEnhance, ImageFont, ImageOps

from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.model import Edit, EditCode, Side

WALLPAPERS = Path("/usr/share/backgrounds")
ICON = Path("/usr/share/icons/oxygen/base/256x256/places/folder-green.png")
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def _photo() -> Image.Image:
    """A photo in many colours (a ladybird on a leaf, from mate-backgrounds)."""
    path = WALLPAPERS / "mate" / "nature" / "LadyBird.jpg"
    if not path.is_file():
        pytest.skip(f"{path} is not installed")
    with Image.open(path) as im:
        picture = ImageOps.exif_transpose(im).convert("RGB")
    return picture.resize((800, round(800 * picture.height / picture.width)))


def _icon() -> Image.Image:
    if not ICON.is_file():
        pytest.skip(f"{ICON} is not installed")
    with Image.open(ICON) as im:
        return im.convert("RGBA")


def _edits(
    tmp_path: Path, kept: Image.Image, other: Image.Image, name: str, **options: Any
) -> tuple[Edit, ...]:
    a_path, b_path = tmp_path / "kept.png", tmp_path / name
    kept.save(a_path)
    other.save(b_path, **options)
    a, b = imagesim.image_fingerprint(a_path), imagesim.image_fingerprint(b_path)
    return imagecheck.edits(
        np.frombuffer(a.descriptor, np.uint8),
        np.frombuffer(b.descriptor, np.uint8),
        (a.width, a.height),
        (b.width, b.height),
    )


def _codes(edits: tuple[Edit, ...]) -> set[EditCode]:
    return {e.code for e in edits}


def _caption(im: Image.Image) -> Image.Image:
    out = im.copy()
    w, h = out.size
    font = ImageFont.truetype(str(FONT), h // 10) if FONT.is_file() else None
    ImageDraw.Draw(out).text((0.55 * w, 0.8 * h), "DRAFT", fill=(230, 20, 20), font=font)
    return out


PHOTO_EDITS: list[tuple[str, Callable[[Image.Image], Image.Image], dict[str, Any], EditCode]] = [
    ("half.png", lambda im: im.resize((400, im.height // 2)), {}, EditCode.SMALLER),
    ("grey.png", lambda im: im.convert("L"), {}, EditCode.GREYSCALE),
    ("crop.png", lambda im: im.crop((0, 0, 720, im.height)), {}, EditCode.CROPPED),
    ("pad.png", lambda im: ImageOps.expand(im, 40, "white"), {}, EditCode.PADDED),
    ("dark.png", lambda im: ImageEnhance.Brightness(im).enhance(0.6), {}, EditCode.DARKER),
    ("flat.png", lambda im: ImageEnhance.Contrast(im).enhance(0.5), {}, EditCode.LESS_CONTRAST),
    ("q50.jpg", lambda im: im, {"quality": 50}, EditCode.REENCODED),
    ("copy.webp", lambda im: im, {"quality": 90}, EditCode.REENCODED),
    ("text.png", _caption, {}, EditCode.MARKED),
    (
        "sepia.png",
        lambda im: ImageOps.colorize(im.convert("L"), (40, 26, 13), (255, 240, 192)),
        {},
        EditCode.TINTED,
    ),
]


@pytest.mark.parametrize(("name", "edit", "options", "code"), PHOTO_EDITS)
def test_each_edit_of_a_photo_is_named(
    tmp_path: Path,
    name: str,
    edit: Callable[[Image.Image], Image.Image],
    options: dict[str, Any],
    code: EditCode,
) -> None:
    master = _photo()
    assert code in _codes(_edits(tmp_path, master, edit(master), name, **options))


def test_the_numbers_of_an_edit_are_given(tmp_path: Path) -> None:
    master = _photo()
    found = _edits(tmp_path, master, master.resize((400, master.height // 2)), "half.jpg")
    smaller = next(e for e in found if e.code is EditCode.SMALLER)
    assert (smaller.width, smaller.of_width) == (400, 800)
    assert smaller.label() == f"smaller: 400 × {master.height // 2} of 800 × {master.height}"
    jpeg = next(e for e in found if e.code is EditCode.REENCODED)
    assert jpeg.format == "JPEG"
    assert 70 <= jpeg.quality <= 80
    crop = _edits(tmp_path, master, master.crop((80, 0, 800, master.height)), "crop.png")
    cropped = next(e for e in crop if e.code is EditCode.CROPPED)
    assert cropped.sides == (Side.LEFT,)
    assert 7 <= cropped.percent <= 13


def test_a_crop_is_not_named_smaller_and_a_resized_crop_is(tmp_path: Path) -> None:
    """A crop or a padding changes the file's size, not the scale of what it shows: only a
    copy whose pixels show the picture larger or smaller is named so."""
    master = _photo()
    w, h = master.size
    crop = master.crop((0, 0, int(0.85 * w), h))
    assert _codes(_edits(tmp_path, master, crop, "crop.png")) == {EditCode.CROPPED}
    padded = ImageOps.expand(master, 40, "white")
    assert EditCode.LARGER not in _codes(_edits(tmp_path, master, padded, "pad.png"))
    both = _codes(_edits(tmp_path, master, crop.resize((crop.width // 2, h // 2)), "both.png"))
    assert {EditCode.CROPPED, EditCode.SMALLER} <= both


def test_an_unedited_copy_has_no_edits(tmp_path: Path) -> None:
    master = _photo()
    assert _edits(tmp_path, master, master.copy(), "same.png") == ()


def test_a_flattened_and_a_grey_icon_are_named(tmp_path: Path) -> None:
    master = _icon()
    flat = Image.alpha_composite(Image.new("RGBA", master.size, "white"), master).convert("RGB")
    found = _codes(_edits(tmp_path, master, flat, "flat.jpg", quality=85))
    assert {EditCode.TRANSPARENCY_REMOVED, EditCode.REENCODED} <= found
    assert EditCode.GREYSCALE in _codes(_edits(tmp_path, master, master.convert("LA"), "g.png"))
    half = _edits(tmp_path, master, master.resize((128, 128)), "half.png")
    assert [e.label() for e in half] == ["smaller: 128 × 128 of 256 × 256"]
    back = _edits(tmp_path, flat, master, "back.png")
    assert EditCode.TRANSPARENCY_ADDED in _codes(back)
    assert EditCode.CONVERTED not in _codes(back)  # PNG to PNG


def test_a_scan_names_each_members_edits_against_its_keeper(tmp_path: Path) -> None:
    from dupfinder.core.model import Kind, ScanOptions
    from dupfinder.core.scan import pipeline as scan

    master = _photo()
    master.save(tmp_path / "ladybird.png")
    master.convert("L").save(tmp_path / "grey.png")
    master.resize((400, master.height // 2)).save(tmp_path / "small.jpg", quality=70)
    options = ScanOptions(roots=(tmp_path,), kinds=frozenset({Kind.IMAGE}), use_cache=False, jobs=1)
    (group,) = scan.run(options).groups
    keeper, *others = group.members
    assert keeper.path.endswith("ladybird.png")
    assert keeper.edits == ()
    named = {m.path.rsplit("/", 1)[-1]: _codes(m.edits) for m in others}
    assert named["grey.png"] == {EditCode.GREYSCALE}
    assert {EditCode.SMALLER, EditCode.REENCODED} <= named["small.jpg"]


@pytest.mark.parametrize(
    ("large", "small", "relative"),
    [
        ("256x256", "128x128", "devices/computer-laptop.png"),
        ("128x128", "48x48", "apps/kthesaurus.png"),
        ("64x64", "32x32", "apps/ark.png"),
    ],
)
def test_an_icons_own_drawing_at_another_size_is_smaller_not_marked(
    large: str, small: str, relative: str
) -> None:
    """A theme's smaller drawing of an icon differs from the larger one all round its soft
    edges: that is its size, not a mark (the mark is told against the layout with those
    edges counted)."""
    theme = ICON.parents[2]
    paths = [theme / size / relative for size in (large, small)]
    if not all(path.is_file() for path in paths):
        pytest.skip(f"{relative} is not installed at {large} and {small}")
    a, b = (imagesim.image_fingerprint(path) for path in paths)
    named = imagecheck.edits(
        np.frombuffer(a.descriptor, np.uint8),
        np.frombuffer(b.descriptor, np.uint8),
        (a.width, a.height),
        (b.width, b.height),
    )
    assert EditCode.SMALLER in _codes(named)
    assert EditCode.MARKED not in _codes(named)


DOCS = Path(__file__).resolve().parents[3] / "docs"


def _screenshot(name: str) -> Image.Image:
    with Image.open(DOCS / name) as im:
        return im.convert("RGB")


@pytest.mark.parametrize(
    ("name", "box"),
    [
        ("screenshot-zh.png", (0.0, 0.0, 0.9, 0.9)),
        ("xvfb-music.png", (0.0, 0.0, 0.9, 0.9)),
        ("xvfb-music.png", (0.0, 0.025, 1.0, 0.975)),
        ("xvfb-plan-links.png", (0.025, 0.025, 1.0, 1.0)),
        ("screenshot-similar.png", (0.025, 0.025, 1.0, 1.0)),
    ],
)
def test_a_cut_screenshot_is_cropped_not_marked(
    tmp_path: Path, name: str, box: tuple[float, float, float, float]
) -> None:
    """A cut moves every block of a busy window a little; a mark is a few blocks far above
    the rest (these cuts of the app's own screenshots were named marked)."""
    shot = _screenshot(name)
    w, h = shot.size
    cut = shot.crop((int(box[0] * w), int(box[1] * h), int(box[2] * w), int(box[3] * h)))
    codes = _codes(_edits(tmp_path, shot, cut, "cut.png"))
    assert EditCode.CROPPED in codes
    assert EditCode.MARKED not in codes
    # the kept one's region, resampled onto the cut's grid, is blurred: no more contrast
    assert EditCode.MORE_CONTRAST not in codes


@pytest.mark.parametrize("name", ["screenshot-2x.png", "xvfb-undo.png", "xvfb-plan.png"])
def test_a_caption_on_a_screenshot_is_a_mark(tmp_path: Path, name: str) -> None:
    shot = _screenshot(name)
    assert EditCode.MARKED in _codes(_edits(tmp_path, shot, _caption(shot), "caption.png"))


def test_a_caption_in_an_icons_empty_corner_does_not_make_it_larger(tmp_path: Path) -> None:
    """The caption moves the icon's plain border; the file is the very same size, and a
    "larger: 256 × 256 of 256 × 256" would say nothing."""
    icon = _icon()
    stamped = icon.copy()
    font = ImageFont.truetype(str(FONT), icon.height // 12) if FONT.is_file() else None
    ImageDraw.Draw(stamped).text(
        (0.04 * icon.width, 0.88 * icon.height), "DRAFT", fill=(230, 20, 20), font=font
    )
    codes = _codes(_edits(tmp_path, icon, stamped, "stamped.png"))
    assert not codes & {EditCode.SMALLER, EditCode.LARGER}


@pytest.mark.parametrize(
    ("relative", "corner", "word"),
    [
        ("places/folder-green.png", (0.04, 0.88), "DRAFT"),
        ("apps/accessories-calculator.png", (0.6, 0.04), "v2"),
        ("devices/computer-laptop.png", (0.04, 0.04), "© Ana"),
    ],
)
def test_a_caption_in_an_icons_empty_margin_is_a_mark_not_a_framing(
    tmp_path: Path, relative: str, corner: tuple[float, float], word: str
) -> None:
    """Text put in an icon's transparent margin makes the picture reach into its border on
    those sides: that is the caption, not "more around the edges" and "border removed"."""
    path = ICON.parents[1] / relative
    if not path.is_file() or not FONT.is_file():
        pytest.skip(f"{path} or {FONT} is not installed")
    with Image.open(path) as im:
        icon = im.convert("RGBA")
    stamped = icon.copy()
    font = ImageFont.truetype(str(FONT), icon.height // 10)
    where = (corner[0] * icon.width, corner[1] * icon.height)
    ImageDraw.Draw(stamped).text(where, word, fill=(230, 20, 20), font=font)
    found = _edits(tmp_path, icon, stamped, "stamped.png")
    assert EditCode.MARKED in _codes(found)
    assert not _codes(found) & {EditCode.UNCROPPED, EditCode.BORDER_REMOVED}


def test_an_icon_and_its_tight_crop_are_framed_not_marked(tmp_path: Path) -> None:
    """The whole icon against a crop of it into its drawing (a canvas of the same shape):
    it shows more on every side with more border, which is no mark."""
    icon = _icon()
    w, h = icon.size
    tight = icon.crop((round(0.12 * w), round(0.12 * h), round(0.88 * w), round(0.88 * h)))
    codes = _codes(_edits(tmp_path, tight, icon, "whole.png"))
    assert EditCode.UNCROPPED in codes
    assert EditCode.MARKED not in codes


@pytest.mark.parametrize(
    "relative",
    [
        "mimetypes/text-x-po.png",
        "mimetypes/text-xml.png",
        "mimetypes/libreoffice-database.png",
        "mimetypes/audio-x-monkey.png",
    ],
)
def test_a_cut_icon_is_cropped_not_marked(tmp_path: Path, relative: str) -> None:
    """A cut into an icon's drawing lowers its detail figure over many blocks; a mark is a few
    blocks far above the rest (these cuts of oxygen's icons were named marked)."""
    path = ICON.parents[1] / relative
    if not path.is_file():
        pytest.skip(f"{path} is not installed")
    with Image.open(path) as im:
        icon = im.convert("RGBA")
    w, h = icon.size
    for box in ((w // 10, h // 10, w, h), (0, 0, w - w // 10, h - h // 10)):
        codes = _codes(_edits(tmp_path, icon, icon.crop(box), "cut.png"))
        assert EditCode.MARKED not in codes
        assert codes & {EditCode.CROPPED, EditCode.BORDER_REMOVED}


@pytest.mark.parametrize(
    "relative", ["apps/preferences-desktop-display.png", "places/network-server-database.png"]
)
def test_a_jpeg_of_an_icon_shows_no_more_around_the_edges(tmp_path: Path, relative: str) -> None:
    """Flattened over white and compressed, an icon's edge blurs into the background: that
    halo is not more picture around the edges."""
    path = ICON.parents[1] / relative
    if not path.is_file():
        pytest.skip(f"{path} is not installed")
    with Image.open(path) as im:
        icon = im.convert("RGBA")
    flat = Image.alpha_composite(Image.new("RGBA", icon.size, "white"), icon).convert("RGB")
    codes = _codes(_edits(tmp_path, icon, flat, "flat.jpg", quality=60))
    assert {EditCode.TRANSPARENCY_REMOVED, EditCode.REENCODED} <= codes
    assert EditCode.UNCROPPED not in codes


def test_a_tone_edit_of_an_icon_is_told_on_its_drawing(tmp_path: Path) -> None:
    """Darkening an icon darkens its drawing and leaves the white it is shown over: told on
    the shown picture that read as more contrast; on the drawing, as the edit made it."""
    icon = _icon()
    rgb, alpha = icon.convert("RGB"), icon.getchannel("A")
    darker = ImageEnhance.Brightness(rgb).enhance(0.75).convert("RGBA")
    darker.putalpha(alpha)
    codes = _codes(_edits(tmp_path, icon, darker, "darker.png"))
    assert EditCode.DARKER in codes
    assert EditCode.MORE_CONTRAST not in codes
    flatter = ImageEnhance.Contrast(rgb).enhance(0.7).convert("RGBA")
    flatter.putalpha(alpha)
    assert EditCode.LESS_CONTRAST in _codes(_edits(tmp_path, icon, flatter, "flat.png"))


def test_a_sepia_copy_of_a_grey_picture_is_tinted(tmp_path: Path) -> None:
    """One hue put on a picture without colour is a tint, as it is on a coloured one;
    "coloured" is for a picture in many hues where the kept one has none."""
    grey = _photo().convert("L")
    sepia = ImageOps.colorize(grey, (40, 26, 13), (255, 240, 192))
    codes = _codes(_edits(tmp_path, grey.convert("RGB"), sepia, "sepia.png"))
    assert EditCode.TINTED in codes
    assert EditCode.COLOURED not in codes
