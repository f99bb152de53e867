"""Patterns where the system's file systems ignore case (Windows, macOS; simulated here by
switching ``core.filesystem``'s flag): ``*.jpg`` is ``IMG_1.JPG`` there, as the system finds it,
and still only that on Linux."""

from __future__ import annotations

from pathlib import Path

import pytest

from dupfinder.core import filesystem
from dupfinder.core.model import ScanOptions
from dupfinder.core.scan.patterns import path_patterns
from dupfinder.core.scan.walk import walk


def _tree(root: Path) -> None:
    for name in ("IMG_1.JPG", "img_2.jpg", "notes.txt", "Build/out.txt", "Keep.TXT"):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"the words of {name} " * 20)


def _listed(root: Path, **patterns: tuple[str, ...]) -> list[str]:
    options = ScanOptions(roots=(root,), identical=True, **patterns)  # type: ignore[arg-type]
    return sorted(Path(e.path).relative_to(root).as_posix() for e in walk(options))


@pytest.mark.parametrize(("ignore_case", "matched"), [(True, True), (False, False)])
def test_a_pattern_matches_names_as_the_system_compares_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ignore_case: bool, matched: bool
) -> None:
    monkeypatch.setattr(filesystem, "NAMES_IGNORE_CASE", ignore_case)
    patterns = path_patterns(("*.jpg", "build/"), (str(tmp_path),))
    assert patterns.matches(str(tmp_path / "IMG_1.JPG")) is matched
    assert patterns.matches(str(tmp_path / "Build"), is_dir=True) is matched
    assert patterns.matches(str(tmp_path / "img_2.jpg"))  # the same case always matches


def test_the_walk_excludes_and_includes_without_regard_to_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path)
    monkeypatch.setattr(filesystem, "NAMES_IGNORE_CASE", True)
    assert _listed(tmp_path, exclude=("*.txt", "!keep.txt")) == [
        "IMG_1.JPG",
        "Keep.TXT",
        "img_2.jpg",
    ]
    assert _listed(tmp_path, include=("*.JPG",)) == ["IMG_1.JPG", "img_2.jpg"]


def test_on_linux_case_still_tells_names_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path)
    monkeypatch.setattr(filesystem, "NAMES_IGNORE_CASE", False)
    assert _listed(tmp_path, include=("*.JPG",)) == ["IMG_1.JPG"]
