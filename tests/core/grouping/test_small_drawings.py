"""Two small drawings of one size are never grouped, listed as alike, or removed as copies
(``image.check.drawn_apart``): the scan, files like one (``scan.similar``) and an action's
proof rule alike, while an edited copy of such a drawing is still found."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageOps
from scan_helpers import assert_refused_as_copy, member_at

from dupfinder.core.grouping import drawings
from dupfinder.core.grouping.groups import second_check
from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.model import EditCode, Group, Kind, Member, ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.scan.similar import similar

SIDE = 24
TANGO = Path("/usr/share/icons/Tango/32x32/actions")


def _battery(level: float) -> Image.Image:
    """A 24-pixel battery as a theme draws its levels: one outline, a bar of another length."""
    im = Image.new("RGBA", (SIDE, SIDE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.rectangle((2, 6, SIDE - 5, SIDE - 7), outline=(40, 40, 40, 255), width=2)
    draw.rectangle((SIDE - 4, SIDE // 2 - 2, SIDE - 3, SIDE // 2 + 1), fill=(40, 40, 40, 255))
    draw.rectangle((5, 9, 5 + int((SIDE - 10) * level), SIDE - 10), fill=(40, 160, 40, 255))
    return im


def _grey(im: Image.Image) -> Image.Image:
    grey = ImageOps.grayscale(im.convert("RGB")).convert("RGBA")
    grey.putalpha(im.getchannel("A"))
    return grey


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "icons"
    folder.mkdir()
    _battery(0.5).save(folder / "battery-half.png")
    _grey(_battery(0.5)).save(folder / "battery-half-grey.png")
    _battery(0.6).save(folder / "battery-good.png")
    return folder


def _options(root: Path) -> ScanOptions:
    return ScanOptions(roots=(root,), kinds=frozenset({Kind.IMAGE}), use_cache=False, jobs=1)


def _names(result: ScanResult) -> list[list[str]]:
    return sorted(sorted(Path(m.path).name for m in g.members) for g in result.groups)


def test_a_scan_keeps_another_level_of_a_battery_out_and_its_grey_copy_in(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path)
    result = scan.run(_options(folder))
    assert _names(result) == [["battery-half-grey.png", "battery-half.png"]]
    (group,) = result.groups
    assert [e.code for e in group.members[1].edits] == [EditCode.GREYSCALE]


def test_without_the_rule_the_check_would_call_the_two_levels_one_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the rule is there for: the check passes the two levels as alike."""
    monkeypatch.setattr(imagecheck, "drawn_apart", lambda *_: False)
    result = scan.run(_options(_folder(tmp_path)))
    assert _names(result) == [["battery-good.png", "battery-half-grey.png", "battery-half.png"]]


def test_files_like_a_battery_hold_its_grey_copy_and_no_other_level(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    found = similar(folder / "battery-half.png", [folder], _options(folder))
    assert [Path(m.path).name for m in found.matches] == ["battery-half-grey.png"]


def test_a_results_file_calling_another_level_a_copy_removes_nothing(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    keep, other = folder / "battery-half.png", folder / "battery-good.png"
    assert_refused_as_copy(keep, other, tmp_path / "journal.jsonl")


@pytest.mark.skipif(not TANGO.is_dir(), reason="needs the Tango icon theme")
def test_a_themes_text_alignments_are_four_drawings(tmp_path: Path) -> None:
    """Tango's 32-pixel justify icons: lines of text aligned four ways, which the check
    passes as alike (0.89 to 0.90)."""
    folder = tmp_path / "tango"
    folder.mkdir()
    for way in ("center", "fill", "left", "right"):
        name = f"format-justify-{way}.png"
        (folder / name).write_bytes((TANGO / name).read_bytes())
    assert scan.run(_options(folder)).groups == ()


def _drawings_check(paths: list[Path]) -> tuple[drawings.PictureCheck, dict[str, Member]]:
    """The rule's view of a scan of ``paths``: descriptors, the scan's measure, members."""
    found = {str(p): imagesim.image_fingerprint(p) for p in paths}
    check = second_check(Kind.IMAGE, _options(paths[0].parent))
    assert check is not None

    def descriptors(at: Sequence[str]) -> np.ndarray:
        return imagecheck.padded(np.array([list(found[p].descriptor) for p in at], np.uint8))

    members = {
        path: dataclasses.replace(
            member_at(Path(path), Kind.IMAGE, f.value), width=f.width, height=f.height
        )
        for path, f in found.items()
    }
    return drawings.PictureCheck(descriptors, check.measure, check.threshold), members


def _group_of(members: list[Member], check: drawings.PictureCheck) -> Group:
    """A group around the first member, each other's similarity to it as the scan's."""
    rows = check.descriptors([m.path for m in members])
    measured = np.asarray(check.measure(rows[1:], np.broadcast_to(rows[0], rows[1:].shape)))
    rest = [
        dataclasses.replace(m, similarity=float(s))
        for m, s in zip(members[1:], measured, strict=True)
    ]
    return Group(Kind.IMAGE, (dataclasses.replace(members[0], similarity=1.0), *rest))


def test_a_drawing_that_leaves_takes_its_own_grey_copy_into_a_group_of_its_own(
    tmp_path: Path,
) -> None:
    """One star holding two levels of a battery and a grey copy of each: the kept picture
    passes the other level's grey copy ("greyscale" names that difference), so the other
    level leaves with it, and the two form a group of their own."""
    folder = _folder(tmp_path)
    _grey(_battery(0.6)).save(folder / "battery-good-grey.png")
    names = ["battery-half", "battery-half-grey", "battery-good", "battery-good-grey"]
    check, members = _drawings_check([folder / f"{n}.png" for n in names])
    group = _group_of([members[str(folder / f"{n}.png")] for n in names], check)
    out = drawings.other_drawings_removed([group], [0], check)
    assert sorted(sorted(Path(m.path).stem for m in g.members) for g in out) == [
        ["battery-good", "battery-good-grey"],
        ["battery-half", "battery-half-grey"],
    ]
    (formed,) = (g for g in out if g.members[0].path.endswith("battery-good.png"))
    assert [e.code for e in formed.members[1].edits] == [EditCode.GREYSCALE]
    assert formed.members[1].similarity >= imagecheck.EXPLAINED


def test_a_group_holding_a_larger_picture_keeps_its_small_renderings(tmp_path: Path) -> None:
    """Two renderings of one larger picture at the kept one's size (a theme's own drawing,
    a resize) differ by pixels no edit names: with the larger picture in the group, neither
    leaves."""
    folder = _folder(tmp_path)
    _battery(0.5).resize((48, 48), Image.Resampling.LANCZOS).save(folder / "battery-large.png")
    names = ["battery-half", "battery-good", "battery-large"]
    check, members = _drawings_check([folder / f"{n}.png" for n in names])
    group = _group_of([members[str(folder / f"{n}.png")] for n in names], check)
    assert drawings.other_drawings_removed([group], [0], check) == [group]
    without = Group(Kind.IMAGE, group.members[:2])
    assert drawings.other_drawings_removed([without], [0], check) == []
