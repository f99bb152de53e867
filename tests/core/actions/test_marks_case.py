"""``--keep in:DIR`` where the system's file systems ignore case (Windows, macOS; simulated
here by switching ``core.filesystem``'s flag): ``in:~/photos`` protects ``~/Photos/a.jpg``
there, and only the folder spelt alike on Linux."""

from __future__ import annotations

from pathlib import Path

import pytest

from dupfinder.core import filesystem
from dupfinder.core.actions.marks import parse_rule, reference_folder_problem, select
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult


def _result(*paths: Path) -> ScanResult:
    members = tuple(
        Member(str(p), 10, 10**18 + i, 0, Fingerprint(Kind.TEXT, 1)) for i, p in enumerate(paths)
    )
    return ScanResult((Group(Kind.TEXT, members),))


@pytest.mark.parametrize("ignore_case", [True, False])
def test_a_reference_folder_spelt_in_another_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ignore_case: bool
) -> None:
    monkeypatch.setattr(filesystem, "NAMES_IGNORE_CASE", ignore_case)
    outside, first, second = (
        tmp_path / "Downloads" / "a.txt",
        tmp_path / "Photos" / "a.txt",
        tmp_path / "Photos" / "b.txt",
    )
    rule = parse_rule(f"in:{tmp_path / 'PHOTOS'}")
    selected = select(_result(outside, first, second), [rule])
    if ignore_case:  # both files in the folder are protected; the one outside goes
        assert selected == {str(outside)}
    else:  # another folder: it protects nothing, and the first member stays
        assert selected == {str(first), str(second)}


def test_a_reference_folder_inside_a_root_spelt_in_another_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "Photos" / "Holiday").mkdir(parents=True)
    rule = parse_rule(f"in:{tmp_path / 'Photos' / 'Holiday'}")
    root = str(tmp_path / "photos")
    monkeypatch.setattr(filesystem, "NAMES_IGNORE_CASE", True)
    assert reference_folder_problem([rule], [root], []) is None
    monkeypatch.setattr(filesystem, "NAMES_IGNORE_CASE", False)
    assert "is not inside a scanned folder" in str(reference_folder_problem([rule], [root], []))
