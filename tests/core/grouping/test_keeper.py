"""The representative is the file a person would keep."""

from __future__ import annotations

from pathlib import Path

import pytest
from scan_helpers import essay, picture, write

from dupfinder.core.grouping.keeper import copy_marks, keeper_key
from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan import pipeline as scan


@pytest.mark.parametrize(
    "path",
    [
        "/d/GPL-2.txt",
        "/d/report.docx",
        "/p/Aqua.jpg",
        "/p/IMG_2041.jpg",
        "/d/2023-report.md",
        "/d/Old Man and the Sea.txt",
        "/d/泡茶笔记.txt",
        "/d/散歩の記録.txt",
    ],
)
def test_originals_carry_no_marks(path: str) -> None:
    assert copy_marks(path) == 0


@pytest.mark.parametrize(
    "path",
    [
        "/d/GPL-2 (my notes).txt",
        "/d/report (1).docx",
        "/d/report - Copy.docx",
        "/d/Kopie von report.docx",
        "/d/report.docx.bak",
        "/d/report.txt~",
        "/p/Backup 2023/Aqua.jpg",
        "/p/Aqua-grey.png",
        "/p/hills-camera-rotated.jpg",
        "/d/report-modified.docx",
        "/d/泡茶笔记-修改.txt",
        "/d/报告 - 副本.docx",
        "/d/散歩の記録-コピー.txt",
        "/d/报告 拷贝.txt",
        "/p/Aqua_small.jpg",
        "/p/Aqua-800x600.jpg",
        "/p/old/Aqua.jpg",
    ],
)
def test_copies_and_edits_are_marked(path: str) -> None:
    assert copy_marks(path) >= 1


def test_the_rule_in_order() -> None:
    original = keeper_key("/d/a/report.txt", 10, 5, 0)
    assert keeper_key("/d/a/report (1).txt", 99, 1, 0) > original  # name before age and size
    assert keeper_key("/d/a/b/report.txt", 10, 1, 0) > original  # shallower first
    assert keeper_key("/d/a/report2.txt", 10, 9, 0) > keeper_key("/d/a/report3.txt", 10, 5, 0)
    big = keeper_key("/p/x/big.jpg", 10, 9, 800 * 600)
    assert keeper_key("/p/big.jpg", 10, 1, 400 * 300) > big  # pixels before depth and age
    assert keeper_key("/z/deep/er/copy of report.txt", 1, 9, 0, ["/z"]) < original


def test_scan_suggests_the_original_and_prefers_reference_folders(tmp_path: Path) -> None:
    text = essay(7)
    write(tmp_path / "docs" / "GPL-2 (my notes).txt", text + "\nMy notes: read again.\n")
    write(tmp_path / "docs" / "GPL-2.txt", text)
    write(tmp_path / "docs" / "Backup 2023" / "GPL-2.txt", text)
    picture(3, (800, 600)).save(tmp_path / "docs" / "Aqua.png")
    picture(3, (800, 600)).convert("L").save(tmp_path / "docs" / "Aqua-grey.png")
    picture(3, (400, 300)).save(tmp_path / "docs" / "Aqua-small.png")
    options = ScanOptions(roots=(tmp_path,), use_cache=False, jobs=1)
    result = scan.run(options)
    reps = {g.kind: Path(g.representative.path) for g in result.groups}
    assert reps[Kind.TEXT] == tmp_path / "docs" / "GPL-2.txt"
    assert reps[Kind.IMAGE] == tmp_path / "docs" / "Aqua.png"
    backup = tmp_path / "docs" / "Backup 2023"
    again = scan.run(ScanOptions(roots=(tmp_path,), use_cache=False, jobs=1, references=(backup,)))
    text_group = next(g for g in again.groups if g.kind is Kind.TEXT)
    assert Path(text_group.representative.path) == backup / "GPL-2.txt"
