"""The picture kept is the original, not its edited copy: a border added, a crop or lost
colours are invisible to the order that suggests a keeper (a padded copy has more pixels),
but the edits named against the keeper tell them, and the original takes its place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageOps

from dupfinder.core.model import (
    DEFAULT_IMAGE_SIMILARITY,
    EditCode,
    KeepReason,
    Kind,
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
