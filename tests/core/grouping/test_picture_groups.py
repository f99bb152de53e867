"""Scans of pictures: the hash proposes, the thumbnails decide, and the figure shown is theirs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.model import DEFAULT_IMAGE_THRESHOLD, EditCode, Kind, ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan

Badge = Callable[[ImageDraw.ImageDraw], object]


def _options(root: Path, **extra: Any) -> ScanOptions:  # more of ScanOptions's fields
    return ScanOptions(roots=(root,), kinds=frozenset({Kind.IMAGE}), use_cache=False, jobs=1,
                       **extra)  # fmt: skip


def _names(result: ScanResult) -> list[list[str]]:
    return [sorted(Path(m.path).name for m in g.members) for g in result.groups]


def _page(badge: Badge) -> Image.Image:
    """A document icon (a page with lines, transparent around it) with a badge, as themes
    draw one per file type: the badges are all that tells such icons apart."""
    im = Image.new("RGBA", (128, 128), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.rectangle((24, 8, 104, 120), fill=(250, 250, 250, 255), outline=(120, 120, 120, 255))
    for y in range(24, 100, 10):
        draw.line((34, y, 94, y), fill=(150, 150, 150, 255), width=2)
    badge(draw)
    return im


BADGES: dict[str, Badge] = {
    "red-circle.png": lambda d: d.ellipse((60, 70, 110, 120), fill=(220, 40, 40, 255)),
    "green-circle.png": lambda d: d.ellipse((60, 70, 110, 120), fill=(40, 160, 40, 255)),
    "blue-square.png": lambda d: d.rectangle((62, 72, 108, 118), fill=(40, 80, 220, 255)),
}


def test_a_detailed_picture_and_its_half_size_copy_are_one_group(tmp_path: Path) -> None:
    big = Image.effect_mandelbrot((800, 600), (-2.0, -1.2, 1.0, 1.2), 100).convert("RGB")
    big.save(tmp_path / "mandelbrot.jpg")  # JPEG at Pillow's default quality, 75
    big.resize((400, 300), Image.Resampling.LANCZOS).save(tmp_path / "mandelbrot-small.jpg")
    result = scan.run(_options(tmp_path))
    assert _names(result) == [["mandelbrot-small.jpg", "mandelbrot.jpg"]]
    (group,) = result.groups
    assert group.members[1].similarity >= ScanOptions(roots=()).image_similarity


def test_different_icons_within_the_radius_are_told_apart(tmp_path: Path) -> None:
    for name, badge in BADGES.items():
        _page(badge).save(tmp_path / name)
    _page(BADGES["red-circle.png"]).resize((64, 64), Image.Resampling.LANCZOS).save(
        tmp_path / "red-circle-64.png"
    )
    values = [imagesim.image_fingerprint(tmp_path / name).value for name in BADGES]
    # the hash alone would group all three: they are within the radius of each other
    assert all((a ^ b).bit_count() <= DEFAULT_IMAGE_THRESHOLD for a in values for b in values)
    assert len(scan.run(_options(tmp_path, image_similarity=0.0)).groups[0].members) == 4

    result = scan.run(_options(tmp_path))
    assert _names(result) == [["red-circle-64.png", "red-circle.png"]]


def test_the_similarity_shown_is_the_verified_one(tmp_path: Path) -> None:
    big = Image.effect_mandelbrot((640, 480), (-2.0, -1.2, 1.0, 1.2), 100).convert("RGB")
    big.save(tmp_path / "a.png")
    big.resize((320, 240), Image.Resampling.LANCZOS).save(tmp_path / "b.jpg", quality=80)
    (group,) = scan.run(_options(tmp_path)).groups
    rep, member = group.members
    expected = imagecheck.similarity(
        imagesim.image_fingerprint(rep.path).descriptor,
        imagesim.image_fingerprint(member.path).descriptor,
    )
    assert member.similarity == expected
    assert member.similarity != 1 - member.distance / 64


def test_mirrored_copies_are_verified_when_asked_for(tmp_path: Path) -> None:
    big = Image.effect_mandelbrot((640, 480), (-2.0, -1.2, 1.0, 1.2), 100).convert("RGB")
    big.save(tmp_path / "a.png")
    big.transpose(Image.Transpose.ROTATE_90).save(tmp_path / "turned.png")
    assert scan.run(_options(tmp_path)).groups == ()
    (group,) = scan.run(_options(tmp_path, image_invariance=True)).groups
    assert group.members[1].similarity >= ScanOptions(roots=()).image_similarity
    # the bits shown are those of the turned copy, which the search matched (not some 25)
    assert group.members[1].distance <= ScanOptions(roots=()).image_threshold


DOCS = Path(__file__).resolve().parents[3] / "docs"


def _copies(source: Path, folder: Path) -> None:
    """A screenshot and five copies a person makes of it: half size, JPEG, grey, brighter,
    cut at the right and bottom."""
    im = Image.open(source).convert("RGB")
    folder.mkdir()
    im.save(folder / "original.png")
    w, h = im.size
    im.resize((w // 2, h // 2), Image.Resampling.LANCZOS).save(folder / "half.png")
    im.save(folder / "copy.jpg", quality=80)
    im.convert("L").save(folder / "grey.png")
    im.point(lambda v: min(255, round(v * 1.15))).save(folder / "brighter.png")
    im.crop((0, 0, round(w * 0.93), round(h * 0.95))).save(folder / "crop.png")


def test_two_screenshots_of_one_window_each_keep_their_copies(tmp_path: Path) -> None:
    """The app's window showing its plan and showing its undo: one layout, other words. Each
    screenshot's copies pass against the other screenshot too; they are more like their
    own, so each gets a group of its own, kept as it was taken."""
    for name in ("xvfb-plan", "xvfb-undo"):
        _copies(DOCS / f"{name}.png", tmp_path / name)
    result = scan.run(_options(tmp_path))
    copies = ["brighter.png", "copy.jpg", "crop.png", "grey.png", "half.png", "original.png"]
    assert _names(result) == [copies, copies]
    for group in result.groups:
        folders = {Path(m.path).parent.name for m in group.members}
        assert len(folders) == 1
        assert Path(group.members[0].path).name == "original.png"


def test_a_crop_of_a_nearly_grey_screenshot_is_not_its_coloured_original(tmp_path: Path) -> None:
    """A grey window with a few small coloured icons: cut at two sides it still holds the
    same colours, so nothing names it coloured or the whole one greyscale, and the whole
    one is kept."""
    _copies(DOCS / "xvfb-plan.png", tmp_path / "plan")
    result = scan.run(_options(tmp_path))
    (group,) = result.groups
    assert Path(group.members[0].path).name == "original.png"
    crop = next(m for m in group.members if Path(m.path).name == "crop.png")
    codes = {edit.code for edit in crop.edits}
    assert EditCode.CROPPED in codes
    assert not codes & {EditCode.COLOURED, EditCode.GREYSCALE, EditCode.TINTED}
