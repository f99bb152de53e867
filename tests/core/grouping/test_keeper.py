"""The representative is the file a person would keep."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image
from scan_helpers import essay, picture, write

from dupfinder.core.grouping.keeper import (
    copy_marks,
    keeper_key,
    member_key,
    reasons,
    suggested,
)
from dupfinder.core.model import (
    Fingerprint,
    Group,
    KeepReason,
    Kind,
    Member,
    Phase,
    Progress,
    ScanOptions,
)
from dupfinder.core.results.report import result_from_dict, write_json, write_text
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


@pytest.mark.parametrize(
    ("path", "document", "picture"),
    [
        ("/d/report (1)\n", 1, 1),  # a name may end in a newline
        ("/d/scan-800x600\n", 1, 0),
        ("/d/scan-٨٠٠x٦٠٠", 1, 0),  # any digits
        ("/p/photo_q٤٠.jpg", 1, 1),
        ("/p/photo@2X.png", 1, 0),
        ("/p/photo-800X600.jpg", 1, 0),
        ("/d/report [2]", 1, 1),
        ("/d/notes (draft 2)", 2, 2),
        ("/d/コピー of 報告 (1)", 2, 2),
        ("/d/report (1) final", 0, 0),
        ("/d/photo_q40 edit 7", 0, 0),
    ],
)
def test_marks_at_the_end_of_a_name_count_once(path: str, document: int, picture: int) -> None:
    assert (copy_marks(path), copy_marks(path, picture=True)) == (document, picture)


def test_the_rule_in_order() -> None:
    original = keeper_key("/d/a/report.txt", 10, 5, 0)
    assert keeper_key("/d/a/report (1).txt", 99, 1, 0) > original  # name before age and size
    assert keeper_key("/d/a/b/report.txt", 10, 1, 0) < original  # older before shallower
    assert keeper_key("/d/a/b/report.txt", 10, 5, 0) > original  # then shallower
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
    assert KeepReason.REFERENCE in text_group.reasons


def image(path: str, size: int, width: int, height: int, mtime_ns: int = 1_000) -> Member:
    return Member(path, size, mtime_ns, 0, Fingerprint(Kind.IMAGE, 1), width, height)


def test_a_size_in_a_pictures_name_is_no_copy_mark() -> None:
    # the painting's 16 MB original names its own size; its 1 MB copy does not
    original = image("/art/painting_5640x3172.jpg", 16_000_000, 5640, 3172, mtime_ns=2)
    copy = image("/art/painting.jpg", 1_000_000, 1920, 1080, mtime_ns=1)
    assert copy_marks(original.path, picture=True) == 0
    assert copy_marks("/d/notes-800x600.txt") == 1  # a document's name is all there is
    group = suggested(Group(Kind.IMAGE, (copy, original)))
    assert group.members[0] is copy  # a near group keeps its centre: only twins may swap
    assert member_key(original) < member_key(copy)
    assert (
        reasons(original, (original, copy))
        == (
            KeepReason.NO_COPY_MARKS,  # neither has any: not a merit
            KeepReason.MOST_PIXELS,
            KeepReason.LARGEST,
        )[1:]
    )


def test_same_pixels_the_less_compressed_and_the_lossless_go_first() -> None:
    original = image("/p/IMG_2041.jpg", 183_000, 1280, 1024, mtime_ns=5)
    q40 = image("/p/IMG_2041-b.jpg", 57_000, 1280, 1024, mtime_ns=1)  # older, no mark
    assert member_key(original) < member_key(q40)
    assert reasons(original, (original, q40)) == (
        KeepReason.LEAST_COMPRESSED,
        KeepReason.LARGEST,
    )
    png = image("/p/IMG_2041.png", 90_000, 1280, 1024, mtime_ns=9)
    assert member_key(png) < member_key(original)
    assert KeepReason.LOSSLESS in reasons(png, (png, original, q40))
    assert copy_marks("/p/IMG_2041_q40.jpg", picture=True) == 1


def test_identical_files_keep_the_original_name_not_the_oldest_copy(tmp_path: Path) -> None:
    data = bytes(range(256)) * 64
    (tmp_path / "music").mkdir()
    copy = tmp_path / "music" / "song (1).flac"
    original = tmp_path / "music" / "song.flac"
    copy.write_bytes(data)
    original.write_bytes(data)
    os.utime(copy, ns=(10**18, 10**18))
    os.utime(original, ns=(2 * 10**18, 2 * 10**18))  # the copy is older
    result = scan.run(ScanOptions(roots=(tmp_path,), use_cache=False, jobs=1))
    (group,) = result.groups
    assert group.representative.path == str(original)
    assert group.reasons == (KeepReason.NO_COPY_MARKS,)


def test_reasons_name_every_merit_in_order() -> None:
    keeper = Member("/d/GPL-3.txt", 35_149, 1_000, 0, Fingerprint(Kind.TEXT, 1))
    notes = Member("/d/GPL-3 (my notes).txt", 35_000, 2_000, 3, Fingerprint(Kind.TEXT, 2))
    deeper = Member("/d/a/GPL-3.txt", 35_149, 1_000, 0, Fingerprint(Kind.TEXT, 1))
    assert reasons(keeper, (keeper, notes, deeper)) == (
        KeepReason.NO_COPY_MARKS,  # better than the notes, as good as the one deeper
        KeepReason.OLDEST,
        KeepReason.SHALLOWEST,
        KeepReason.LARGEST,
    )
    assert reasons(keeper, (keeper, deeper)) == (KeepReason.SHALLOWEST,)
    alike = Member("/e/GPL-3.txt", 35_149, 1_000, 0, Fingerprint(Kind.TEXT, 1))
    assert reasons(keeper, (keeper, alike)) == ()


def test_the_reasons_travel_in_the_json_and_older_results_still_read(tmp_path: Path) -> None:
    text = essay(9)
    write(tmp_path / "GPL-3 (my notes).txt", text + "\nMy notes.\n")
    write(tmp_path / "GPL-3.txt", text)
    result = scan.run(ScanOptions(roots=(tmp_path,), use_cache=False, jobs=1))
    (group,) = result.groups
    assert KeepReason.NO_COPY_MARKS in group.reasons
    out = io.StringIO()
    write_json(result, out)
    data = json.loads(out.getvalue())
    assert data["groups"][0]["keeper_reasons"] == [str(r) for r in group.reasons]
    assert result_from_dict(data).groups[0].reasons == group.reasons
    table = io.StringIO()
    write_text(result, table)
    assert "  kept (*) as the original: no copy marks" in table.getvalue().splitlines()[1]
    del data["groups"][0]["keeper_reasons"]  # a result written before the field existed
    assert result_from_dict(data).groups[0].reasons == ()
    data["groups"][0]["keeper_reasons"] = ["oldest", "a-reason-from-a-later-version"]
    assert result_from_dict(data).groups[0].reasons == (KeepReason.OLDEST,)


def test_grouping_one_kind_moves_the_count_between_its_steps(tmp_path: Path) -> None:
    """Comparing pictures (turned and mirrored, a long step) must not sit at "0 of N"."""
    for seed in range(4):
        picture(seed, (160, 120)).save(tmp_path / f"p{seed}.png")
        picture(seed, (160, 120)).transpose(Image.Transpose.FLIP_LEFT_RIGHT).save(
            tmp_path / f"p{seed}-mirrored.png"
        )
    seen: list[Progress] = []
    options = ScanOptions(
        roots=(tmp_path,), use_cache=False, jobs=1, image_invariance=True, identical=False
    )
    scan.run(options, seen.append)
    counts = [p.done for p in seen if p.phase is Phase.COMPARING]
    assert counts[0] == 0
    assert counts[-1] == 8
    assert any(0 < done < 8 for done in counts), counts
