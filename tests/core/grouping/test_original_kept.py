"""The picture kept is the original, not its edited copy: a border added, a crop or lost
colours are invisible to the order that suggests a keeper (a padded copy has more pixels),
but the edits named against the keeper tell them, and the original takes its place."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image, ImageDraw, ImageFont, ImageOps

from dupfinder.core.grouping import groups
from dupfinder.core.image.perceptual import image_fingerprint
from dupfinder.core.model import (
    DEFAULT_IMAGE_SIMILARITY,
    Edit,
    EditCode,
    Fingerprint,
    Group,
    KeepReason,
    Kind,
    Member,
    ScanOptions,
    ScanResult,
)
from dupfinder.core.scan import pipeline as scan

PHOTO = Path("/usr/share/backgrounds/mate/nature/LadyBird.jpg")


def _photo() -> Image.Image:
    if not PHOTO.is_file():
        pytest.skip(f"{PHOTO} is not installed")
    with Image.open(PHOTO) as im:
        picture = ImageOps.exif_transpose(im).convert("RGB")
    return picture.resize((800, round(800 * picture.height / picture.width)))


def _scan(root: Path, **extra: Any) -> ScanResult:
    options = ScanOptions(
        roots=(root,), kinds=frozenset({Kind.IMAGE}), use_cache=False, jobs=1, **extra
    )
    return scan.run(options)


def _kept(result: ScanResult) -> str:
    (group,) = result.groups
    return Path(group.members[0].path).name


def _padded(im: Image.Image) -> Image.Image:
    return ImageOps.expand(im, border=im.width // 10, fill="white")


def test_the_original_is_kept_over_its_copy_with_a_border(tmp_path: Path) -> None:
    photo = _photo()
    photo.save(tmp_path / "ladybird.png")
    _padded(photo).save(tmp_path / "ladybird-framed.png")  # more pixels: first by the order
    result = _scan(tmp_path)
    assert _kept(result) == "ladybird.png"
    (group,) = result.groups
    assert group.reasons[0] is KeepReason.ORIGINAL_PICTURE
    copy = group.members[1]
    assert EditCode.PADDED in {e.code for e in copy.edits}  # named against the new keeper
    assert copy.similarity < 1.0
    assert group.members[0].similarity == 1.0


def test_the_colour_original_is_kept_over_its_grey_copy(tmp_path: Path) -> None:
    photo = _photo()
    ImageOps.grayscale(photo).convert("RGB").save(tmp_path / "a.png")  # lossless: first
    photo.save(tmp_path / "b.jpg", quality=92)
    result = _scan(tmp_path)
    assert _kept(result) == "b.jpg"
    (group,) = result.groups
    assert EditCode.GREYSCALE in {e.code for e in group.members[1].edits}


def test_the_whole_picture_is_kept_over_its_crop(tmp_path: Path) -> None:
    photo = _photo()
    w, h = photo.size
    # the crop scaled up past the original's size: more pixels, first by the order
    photo.crop((w // 10, h // 10, w, h)).resize((w * 5 // 4, h * 5 // 4)).save(tmp_path / "a.png")
    photo.save(tmp_path / "b.png")
    result = _scan(tmp_path)
    assert _kept(result) == "b.png"


def test_a_small_preview_that_shows_more_is_not_kept_over_the_picture(tmp_path: Path) -> None:
    """A wallpaper at full size (16:9) and its small preview of the whole 16:10 scene (as
    Plasma's wallpapers ship them): the preview is 'uncropped' against it, but in a sixteenth
    of the pixels it is a reduced copy, and the picture a person keeps is the large one."""
    scene = _photo().resize((1600, 1000))
    scene.crop((0, 50, 1600, 950)).save(tmp_path / "b.png")
    scene.resize((400, 250), Image.Resampling.LANCZOS).save(tmp_path / "a.png")
    result = _scan(tmp_path)
    assert _kept(result) == "b.png"
    (group,) = result.groups
    assert KeepReason.ORIGINAL_PICTURE not in group.reasons
    assert {EditCode.SMALLER, EditCode.UNCROPPED} <= {e.code for e in group.members[1].edits}


def test_a_copy_in_a_reference_folder_stays_kept(tmp_path: Path) -> None:
    photo = _photo()
    (tmp_path / "ref").mkdir()
    (tmp_path / "mine").mkdir()
    _padded(photo).save(tmp_path / "ref" / "ladybird.png")
    photo.save(tmp_path / "mine" / "ladybird.png")
    result = _scan(tmp_path, references=(tmp_path / "ref",))
    (group,) = result.groups
    assert Path(group.members[0].path).parent.name == "ref"
    assert KeepReason.ORIGINAL_PICTURE not in group.reasons


def test_a_keeper_taken_over_must_still_reach_every_member(tmp_path: Path) -> None:
    """A grey drawing groups with two colours of it, each checked against the grey one; the
    first colour must not take its place when the other colour is not alike to it (the
    other would then be called its duplicate at a similarity under the scan's)."""
    folder = Path("/usr/share/icons/oxygen/base/32x32/places")
    names = ("folder-grey.png", "folder-cyan.png", "folder-violet.png")
    if not all((folder / name).is_file() for name in names):
        pytest.skip(f"{folder} is not installed")
    for name in names:
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    result = _scan(tmp_path)
    assert result.groups
    for group in result.groups:
        assert all(m.similarity >= DEFAULT_IMAGE_SIMILARITY for m in group.members[1:])


FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
ICON = Path("/usr/share/icons/oxygen/base/256x256/places/folder-green.png")


def _captioned(im: Image.Image, where: tuple[float, float], share: int = 10) -> Image.Image:
    """``im`` with "DRAFT" written at ``where`` (shares of its size), a ``share``-th of its
    height, as people stamp a copy."""
    if not FONT.is_file():
        pytest.skip(f"{FONT} is not installed")
    out = im.copy()
    font = ImageFont.truetype(str(FONT), out.height // share)
    ImageDraw.Draw(out).text(
        (where[0] * out.width, where[1] * out.height), "DRAFT", fill=(230, 20, 20), font=font
    )
    return out


def _older(path: Path, seconds: int) -> None:
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 1_000_000_000))


def test_the_original_is_kept_over_its_newer_copy_with_a_caption(tmp_path: Path) -> None:
    """The caption's own bytes make the copy the larger file of the same size: of two
    pictures a mark apart, the older is the original."""
    photo = _photo()
    photo.save(tmp_path / "ladybird.png", compress_level=9)
    _captioned(photo, (0.55, 0.8)).save(tmp_path / "ladybird-stamped.png", compress_level=1)
    _older(tmp_path / "ladybird.png", 3600)
    assert (tmp_path / "ladybird-stamped.png").stat().st_size > (
        tmp_path / "ladybird.png"
    ).stat().st_size
    result = _scan(tmp_path)
    assert _kept(result) == "ladybird.png"


def test_an_icon_is_kept_over_its_newer_copy_captioned_in_an_empty_corner(
    tmp_path: Path,
) -> None:
    """A caption in an icon's transparent corner fills part of its plain border: the copy
    reaches further than the icon, which is no sign that the icon was cut from it."""
    if not ICON.is_file():
        pytest.skip(f"{ICON} is not installed")
    with Image.open(ICON) as im:
        icon = im.convert("RGBA")
    icon.save(tmp_path / "folder.png")
    _captioned(icon, (0.04, 0.88), 12).save(tmp_path / "folder-stamped.png")
    _older(tmp_path / "folder.png", 3600)
    result = _scan(tmp_path)
    assert _kept(result) == "folder.png"


def test_an_icon_is_kept_over_its_newer_copy_cut_into_its_margin(tmp_path: Path) -> None:
    """Cutting an icon's transparent margin leaves the copy less plain border, as padding the
    icon would leave the icon: the border alone does not say which came first, and the
    older is the original."""
    if not ICON.is_file():
        pytest.skip(f"{ICON} is not installed")
    with Image.open(ICON) as im:
        icon = im.convert("RGBA")
    icon.save(tmp_path / "folder.png")
    icon.crop((20, 20, 256, 256)).save(tmp_path / "folder-cut.png")
    _older(tmp_path / "folder.png", 3600)
    result = _scan(tmp_path)
    assert _kept(result) == "folder.png"


OXYGEN = Path("/usr/share/icons/oxygen/base/256x256")


def _oxygen(relative: str) -> Image.Image:
    path = OXYGEN / relative
    if not path.is_file():
        pytest.skip(f"{path} is not installed")
    with Image.open(path) as im:
        return im.convert("RGBA")


def _flattened(icon: Image.Image) -> Image.Image:
    return Image.alpha_composite(Image.new("RGBA", icon.size, "white"), icon).convert("RGB")


def test_a_jpeg_of_an_icon_is_never_kept_over_the_icon(tmp_path: Path) -> None:
    """A JPEG's blurred border reads as 'more around the edges' against the icon, which was
    taken for the sign of an original: the flattened copy was kept over the transparent
    PNG it was made from."""
    icon = _oxygen("apps/preferences-desktop-display.png")
    icon.save(tmp_path / "a.png")
    _flattened(icon).save(tmp_path / "b.jpg", quality=60)
    os.utime(tmp_path / "b.jpg", ns=(1, 1))  # older, even
    result = _scan(tmp_path)
    assert _kept(result) == "a.png"


def test_the_icon_is_kept_when_its_jpeg_links_every_copy(tmp_path: Path) -> None:
    """Flattened over white, the JPEG of an icon passes against every other copy and becomes
    the group's centre, while a cut of the icon does not reach the icon itself. The icon is
    kept (it has the transparency the JPEG lost); the cut, checked around the JPEG only, is
    left out rather than called a copy of the icon."""
    icon = _oxygen("apps/accessories-calculator.png")
    icon.save(tmp_path / "calculator.png")
    _flattened(icon).save(tmp_path / "calculator-flat.jpg", quality=85)
    icon.resize((128, 128), Image.Resampling.LANCZOS).save(tmp_path / "calculator-128.png")
    icon.convert("LA").save(tmp_path / "calculator-grey.png")
    icon.crop((20, 20, icon.width, icon.height)).save(tmp_path / "calculator-cut.png")
    result = _scan(tmp_path)
    kept = [Path(g.members[0].path).name for g in result.groups]
    assert "calculator.png" in kept
    assert not any(name.endswith(".jpg") for name in kept)
    (group,) = (g for g in result.groups if Path(g.members[0].path).name == "calculator.png")
    threshold = DEFAULT_IMAGE_SIMILARITY
    assert all(m.similarity >= threshold for m in group.members)


def test_a_sepia_copy_is_not_kept_over_the_grey_picture_it_was_toned_from(
    tmp_path: Path,
) -> None:
    """A tint put on a grey picture was read as colour the keeper lacked, a sign of the
    original: the newer sepia copy was kept."""
    grey = _photo().convert("L")
    grey.save(tmp_path / "a.png")
    ImageOps.colorize(grey, (40, 26, 13), (255, 240, 192)).save(tmp_path / "b.png")
    os.utime(tmp_path / "a.png", ns=(1_000_000_000, 1_000_000_000))
    assert _kept(_scan(tmp_path)) == "a.png"


def _member(
    name: str, side: int, mtime_ns: int, *codes: EditCode, size: int | None = None
) -> Member:
    return Member(
        f"/pictures/{name}",
        side * side if size is None else size,
        mtime_ns,
        0,
        Fingerprint(Kind.IMAGE, 0),
        width=side,
        height=side,
        edits=tuple(Edit(code) for code in codes),
    )


def test_of_the_pictures_a_flattened_keeper_was_made_from_the_unedited_one_is_kept() -> None:
    """A small JPEG of an icon passes against every copy and becomes the centre; every copy
    that kept the transparency is then a picture it could have been flattened from (the
    edits as the check names them on the picture benchmark). The one with the most pixels
    among them was kept: the icon framed in a white border."""
    added = (EditCode.LARGER, EditCode.TRANSPARENCY_ADDED, EditCode.CONVERTED)
    keeper = _member("calculator-small.jpg", 128, 3)
    group = Group(
        Kind.IMAGE,
        (
            keeper,
            _member("calculator-grey.png", 256, 2, EditCode.GREYSCALE, *added),
            _member("calculator-framed.png", 282, 1, EditCode.PADDED, *added),
            _member("calculator.png", 256, 0, *added),
        ),
    )
    kept = groups._original_kept(group, ())
    assert Path(kept.members[0].path).name == "calculator.png"
    assert kept.reasons[0] is KeepReason.ORIGINAL_PICTURE


def test_a_half_size_centre_gives_way_to_the_full_size_picture() -> None:
    """A half-size copy links copies made by two edits that fail against the full drawing,
    so it became the star's centre; the order that suggests keepers puts the full size
    first, and nothing in its edits says it is a copy."""
    group = Group(
        Kind.IMAGE,
        (
            _member("hills-half.png", 128, 5),
            _member("hills-grey.png", 256, 3, EditCode.GREYSCALE, EditCode.LARGER),
            _member("hills-dark.png", 256, 2, EditCode.DARKER, EditCode.LARGER),
            _member("hills.png", 256, 0, EditCode.LARGER),
        ),
    )
    kept = groups._original_kept(group, ())
    assert Path(kept.members[0].path).name == "hills.png"


def test_a_half_size_centre_gives_way_to_the_icon_read_as_a_crop_of_it() -> None:
    """Told against its own half-size resize, an icon reads as "larger, cropped 5 %": the
    resize's soft edges look like more margin (oxygen's battery on the picture benchmark).
    A crop has fewer pixels than what it was cut from, so at twice the pixels or more the
    framing does not call the icon a copy, and it is kept."""
    group = Group(
        Kind.IMAGE,
        (
            _member("battery-half.png", 64, 5),
            _member("battery-half-sepia.png", 64, 3, EditCode.TINTED),
            _member("battery.png", 128, 0, EditCode.LARGER, EditCode.CROPPED),
        ),
    )
    kept = groups._original_kept(group, ())
    assert Path(kept.members[0].path).name == "battery.png"


def test_a_crop_not_twice_the_keeper_s_pixels_is_still_a_copy() -> None:
    """Framing told at nearly one scale still says which is the copy: a crop that has more
    pixels than the keeper, but not twice as many, is not kept over it."""
    group = Group(
        Kind.IMAGE,
        (
            _member("battery-half.png", 100, 5),
            _member("battery-cut.png", 128, 0, EditCode.LARGER, EditCode.CROPPED),
        ),
    )
    assert groups._original_kept(group, ()) is group


def test_a_brightened_copy_saved_with_more_bytes_is_not_taken_for_the_original() -> None:
    """A lossy copy's bytes per pixel say nothing of which of two edited pictures came
    first: the order's age decides, and the keeper, older, stays."""
    group = Group(
        Kind.IMAGE,
        (
            _member("hills.jpg", 256, 0, size=20_000),
            _member("hills-bright.jpg", 256, 1, EditCode.BRIGHTER, size=40_000),
        ),
    )
    assert groups._original_kept(group, ()) is group


ELEMENTARY = Path("/usr/share/icons/elementary-xfce/places/128/user-desktop.png")


class _Descriptors:
    """The one method of ``OutcomeColumns`` that ``groups._sources`` reads: each row's
    descriptor, made from a picture as a scan makes it."""

    def __init__(self, pictures: list[Image.Image], folder: Path) -> None:
        rows = []
        for i, picture in enumerate(pictures):
            path = folder / f"{i}.png"
            picture.save(path)
            rows.append(np.frombuffer(image_fingerprint(str(path)).descriptor, np.uint8))
        self._rows = np.stack(rows)

    def padded_sketches(self, rows: npt.NDArray[np.intp], width: int) -> npt.NDArray[np.uint8]:
        return self._rows[rows, :width]


def _icon() -> Image.Image:
    if not ELEMENTARY.is_file():
        pytest.skip(f"{ELEMENTARY} is not installed")
    with Image.open(ELEMENTARY) as im:
        return im.convert("RGBA")


def _sourced(tmp_path: Path, pictures: dict[str, Image.Image], first: str) -> str:
    """Which of ``pictures`` (by name, the oldest first) ``groups._sources`` keeps when the
    one named ``first`` is the candidate the old keeper's edits put first."""
    names = list(pictures)
    members = [
        Member(
            f"/pictures/{name}",
            1,
            i,
            0,
            Fingerprint(Kind.IMAGE, 0),
            width=pictures[name].width,
            height=pictures[name].height,
        )
        for i, name in enumerate(names)
    ]
    outcomes = _Descriptors(list(pictures.values()), tmp_path)
    ranked = sorted(members, key=lambda m: Path(m.path).name != first)
    rows = {0: {m.path: i for i, m in enumerate(members)}}
    check = groups.picture_check(ScanOptions(roots=(tmp_path,)))
    chosen = groups._sources({0: ranked}, rows, {0: ()}, outcomes, check)  # type: ignore[arg-type]
    return Path(chosen[0].path).name


def test_of_two_pictures_that_read_alike_against_a_crop_the_unframed_one_is_kept(
    tmp_path: Path,
) -> None:
    """Against a crop of an icon (the centre of a star of its copies), the icon and its copy
    framed in white both read as "uncropped" and "padded", and the framed one, with more
    pixels, came first: compared with each other, it is the icon with a border added."""
    icon = _icon()
    frame = Image.new("RGBA", (icon.width + 14, icon.height + 14), "white")
    frame.paste(icon, (7, 7))
    pictures = {"icon.png": icon, "icon-framed.png": frame}
    assert _sourced(tmp_path, pictures, first="icon-framed.png") == "icon.png"


def test_a_toned_centre_s_own_tone_copy_gives_way_to_the_original(tmp_path: Path) -> None:
    """A sepia copy of a half-size sepia centre reads as no change but "larger", the
    original as toned: compared with each other, the sepia one is the original toned."""
    photo = _photo()
    sepia = ImageOps.colorize(photo.convert("L"), (40, 26, 13), (255, 240, 192))
    pictures = {"ladybird.png": photo, "ladybird-sepia.png": sepia}
    assert _sourced(tmp_path, pictures, first="ladybird-sepia.png") == "ladybird.png"


def test_a_quarter_size_copy_never_replaces_the_candidate_it_was_made_from(
    tmp_path: Path,
) -> None:
    """A quarter-size copy may read as uncropped against the full icon (a resampled margin),
    a sign of the original: a picture with a quarter of the pixels is still a reduced copy."""
    icon = _icon()
    small = icon.resize((icon.width // 2, icon.height // 2), Image.Resampling.LANCZOS)
    pictures = {"icon.png": icon, "icon-small.png": small}
    assert _sourced(tmp_path, pictures, first="icon.png") == "icon.png"
