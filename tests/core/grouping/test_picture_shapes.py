"""Pictures of other shapes are never grouped, listed as alike, or removed as copies: the
scan, files like one (``scan.similar``) and an action's proof rule alike."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw
from scan_helpers import assert_refused_as_copy

from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.scan.similar import similar


def _outline(path: Path, width: int, height: int) -> Path:
    """A rounded outline on transparency, as a theme draws a checkbox, a tablet or a screen:
    the square thumbnails the check compares cannot tell one width from another."""
    im = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    ImageDraw.Draw(im).rounded_rectangle(
        (2, 2, width - 3, height - 3), 8, outline=(40, 40, 40, 255), width=5
    )
    im.save(path)
    return path


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "icons"
    folder.mkdir()
    _outline(folder / "checkbox.png", 64, 64)
    _outline(folder / "checkbox-large.png", 128, 128)
    _outline(folder / "tablet.png", 104, 64)
    return folder


def _options(root: Path) -> ScanOptions:
    return ScanOptions(roots=(root,), kinds=frozenset({Kind.IMAGE}), use_cache=False, jobs=1)


def test_a_scan_never_groups_a_square_and_a_wide_outline(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    result = scan.run(_options(folder))
    names = [sorted(Path(m.path).name for m in g.members) for g in result.groups]
    assert names == [["checkbox-large.png", "checkbox.png"]]


def test_files_like_a_square_outline_hold_no_wide_one(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    found = similar(folder / "checkbox.png", [folder], _options(folder))
    assert [Path(m.path).name for m in found.matches] == ["checkbox-large.png"]


def test_a_results_file_calling_a_wide_outline_a_copy_removes_nothing(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    keep, other = folder / "checkbox.png", folder / "tablet.png"
    assert_refused_as_copy(keep, other, tmp_path / "journal.jsonl")
