"""Two small drawings of one size are never grouped, listed as alike, or removed as copies
(``image.check.drawn_apart``): the scan, files like one (``scan.similar``) and an action's
proof rule alike, while an edited copy of such a drawing is still found."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageOps
from scan_helpers import member_at

from dupfinder.core.actions import make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.fingerprints.digest import digest_of
from dupfinder.core.image import check as imagecheck
from dupfinder.core.model import EditCode, Group, Kind, ScanOptions, ScanResult
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
    before = digest_of(other.read_bytes())
    copy = dataclasses.replace(member_at(other, Kind.IMAGE), similarity=0.95)
    group = Group(Kind.IMAGE, (member_at(keep, Kind.IMAGE), copy))
    plan = make_plan(ScanResult((group,)), {str(other)})
    report = apply(plan, journal=Journal(tmp_path / "journal.jsonl"))
    assert [o.status for o in report.outcomes] == ["skipped"], report
    assert digest_of(other.read_bytes()) == before


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
