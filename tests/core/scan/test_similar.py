"""Find files like this one: through the core function and the command line."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest
from scan_helpers import edit, essay, picture, write

from dupfinder.cli import main
from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.scan.similar import NoFolders, measure, similar


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    base = essay(1)
    write(root / "report.txt", base)
    write(root / "drafts" / "report-v2.md", edit(base, 3, changes=2))
    write(root / "other.txt", essay(2))
    image = picture(5)
    image.save(root / "beach.png")
    image.resize((160, 120)).save(root / "beach-small.jpg", quality=85)
    picture(6).save(root / "forest.png")
    return root


def options(tmp_path: Path) -> ScanOptions:
    return ScanOptions(roots=(), cache_dir=tmp_path / "cache", jobs=1)


def test_a_document_finds_its_edit_and_nothing_else(folder: Path, tmp_path: Path) -> None:
    result = similar(folder / "report.txt", [folder], options(tmp_path))
    assert result.kind is Kind.TEXT
    assert [Path(m.path).name for m in result.matches] == ["report-v2.md"]  # never itself
    match = result.matches[0]
    assert 0.5 < match.similarity < 1.0
    assert 0 < match.distance <= 8


def test_a_picture_finds_its_resized_copy(folder: Path, tmp_path: Path) -> None:
    result = similar(folder / "beach.png", [folder], options(tmp_path))
    assert result.kind is Kind.IMAGE
    assert [Path(m.path).name for m in result.matches] == ["beach-small.jpg"]


def test_the_similarity_is_the_scans_for_either_kind(folder: Path, tmp_path: Path) -> None:
    """Files like one accept and score pairs by the same second check as a scan's groups."""
    groups = scan.run(ScanOptions(roots=(folder,), cache_dir=tmp_path / "cache", jobs=1)).groups
    for target in ("report.txt", "beach.png"):
        group = next(g for g in groups if Path(g.members[0].path).name == target)
        shown = {Path(m.path).name: m.similarity for m in group.members[1:]}
        found = similar(folder / target, [folder], options(tmp_path))
        assert {Path(m.path).name: m.similarity for m in found.matches} == shown
        if target == "beach.png":  # the thumbnails' figure, not the share of equal hash bits
            assert all(m.similarity != 1 - m.distance / 64 for m in found.matches)


def test_a_target_outside_the_folders(folder: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere" / "copy.txt", (folder / "report.txt").read_text())
    names = [Path(m.path).name for m in similar(outside, [folder], options(tmp_path)).matches]
    assert names == ["report.txt", "report-v2.md"]  # the exact copy first


def test_the_named_file_is_searched_for_whatever_the_filters(folder: Path, tmp_path: Path) -> None:
    """Patterns, size limits and hidden-file rules choose what is searched, never the file
    a person asked about: an excluded, hidden or too large target is still read."""
    hidden = write(folder / ".report-hidden.txt", (folder / "report.txt").read_text())
    narrow = dataclasses.replace(options(tmp_path), exclude=("report*",), max_size=10)
    result = similar(folder / "report.txt", [folder], narrow)
    assert result.kind is Kind.TEXT
    assert result.matches == ()  # its copies fall under the same filters
    wide = dataclasses.replace(options(tmp_path), exclude=("*.md",))
    result = similar(hidden, [folder], wide)
    assert [Path(m.path).name for m in result.matches] == ["report.txt"]


def test_without_folders_the_last_scan_is_searched(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(NoFolders):
        similar(folder / "report.txt", (), options(tmp_path))
    scan.run(ScanOptions(roots=(folder,), cache_dir=tmp_path / "cache", jobs=1))
    result = similar(folder / "report.txt", (), options(tmp_path))
    assert result.folders == (str(folder.absolute()),)
    assert [Path(m.path).name for m in result.matches] == ["report-v2.md"]


def test_an_unreadable_target_is_reported(folder: Path, tmp_path: Path) -> None:
    tiny = write(tmp_path / "tiny.txt", "a few words")
    result = similar(tiny, [folder], options(tmp_path))
    assert result.kind is None
    assert not result.matches
    assert [e.code for e in result.errors] == ["too-little-content"]


def test_command_line_text_and_json(folder: Path, tmp_path: Path) -> None:
    cache = ["--cache-dir", str(tmp_path / "cache")]
    out, err = io.StringIO(), io.StringIO()
    assert main(["similar", str(folder / "report.txt"), str(folder), *cache], out, err) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("1 file like ")
    assert lines[1].endswith("report-v2.md")
    out = io.StringIO()
    args = ["similar", str(folder / "beach.png"), str(folder), "--format", "json", *cache]
    assert main(args, out, err) == 0
    document = json.loads(out.getvalue())
    assert document["kind"] == "image"
    assert [Path(m["path"]).name for m in document["matches"]] == ["beach-small.jpg"]
    assert 0 < document["matches"][0]["similarity"] <= 1


def test_command_line_without_folders_or_scan_is_a_usage_error(tmp_path: Path) -> None:
    target = write(tmp_path / "a.txt", essay(3))
    err = io.StringIO()
    code = main(["similar", str(target), "--cache-dir", str(tmp_path / "c")], io.StringIO(), err)
    assert code == 2
    assert "name the folders" in err.getvalue()


def test_the_matches_as_a_group_for_a_list_or_a_plan(folder: Path, tmp_path: Path) -> None:
    result = similar(folder / "beach.png", [folder], options(tmp_path))
    assert result.group is not None
    target, match = result.group.members
    assert (Path(target.path).name, target.similarity, target.distance) == ("beach.png", 1.0, 0)
    assert match.path == result.matches[0].path
    assert match.similarity == result.matches[0].similarity
    info = Path(match.path).stat()
    assert (match.dev, match.ino, match.size) == (info.st_dev, info.st_ino, info.st_size)
    assert (match.width, match.height) == (160, 120)
    assert result.group.kind is Kind.IMAGE
    alone = similar(folder / "forest.png", [folder], options(tmp_path))
    assert alone.kind is Kind.IMAGE
    assert alone.matches == ()
    assert alone.group is None


def test_a_missing_file_says_so(tmp_path: Path, folder: Path) -> None:
    result = similar(tmp_path / "nonexistent.txt", [folder], options(tmp_path))
    assert result.kind is None
    assert result.problem == "cannot open: no such file"
    out = io.StringIO()
    args = ["similar", str(tmp_path / "nonexistent.txt"), str(folder)]
    assert main([*args, "--cache-dir", str(tmp_path / "cache")], out, io.StringIO()) == 1
    assert out.getvalue() == f"{tmp_path / 'nonexistent.txt'}: cannot open: no such file\n"


def test_byte_identical_copies_read_identical_and_come_first(folder: Path, tmp_path: Path) -> None:
    (folder / "report copy.txt").write_bytes((folder / "report.txt").read_bytes())
    result = similar(folder / "report.txt", [folder], options(tmp_path))
    assert [(Path(m.path).name, m.identical) for m in result.matches] == [
        ("report copy.txt", True),
        ("report-v2.md", False),
    ]
    assert result.matches[0].similarity == 1.0
    assert result.group is not None
    target, copy, edit_ = result.group.members
    assert target.content_hash is not None
    assert copy.content_hash == target.content_hash
    assert edit_.content_hash is None
    out = io.StringIO()
    cache = ["--cache-dir", str(tmp_path / "cache")]
    main(["similar", str(folder / "report.txt"), str(folder), *cache], out, io.StringIO())
    assert "identical" in out.getvalue().splitlines()[1]


def test_matches_come_most_similar_first(folder: Path, tmp_path: Path) -> None:
    base = (folder / "report.txt").read_text()
    for changes in (12, 2, 6):
        write(folder / f"edited-{changes}.txt", edit(base, changes, changes=changes))
    found = similar(folder / "report.txt", [folder], options(tmp_path)).matches
    figures = [m.similarity for m in found]
    assert len(found) >= 4
    assert figures == sorted(figures, reverse=True)


def test_documents_are_compared_whatever_their_simhash_distance(
    folder: Path, tmp_path: Path
) -> None:
    """A single query meets every document's sketch: a radius of 0 bits still finds the
    edited report, as the scan's sketch bands would."""
    narrow = dataclasses.replace(options(tmp_path), text_threshold=0)
    result = similar(folder / "report.txt", [folder], narrow)
    assert [Path(m.path).name for m in result.matches] == ["report-v2.md"]
    assert result.matches[0].distance > 0


def test_measure_against_a_new_keeper(folder: Path, tmp_path: Path) -> None:
    (folder / "report copy.txt").write_bytes((folder / "report.txt").read_bytes())
    measured = measure(
        str(folder / "drafts" / "report-v2.md"),
        [str(folder / "report.txt"), str(folder / "report copy.txt"), str(folder / "other.txt")],
        options(tmp_path),
    )
    by_name = {Path(m.path).name: m for m in measured}
    scan_says = similar(folder / "drafts" / "report-v2.md", [folder], options(tmp_path))
    assert by_name["report.txt"].similarity == scan_says.matches[0].similarity
    assert by_name["report copy.txt"].similarity == by_name["report.txt"].similarity
    assert not by_name["report.txt"].identical
    assert by_name["other.txt"].similarity < 0.5
    again = measure(str(folder / "report.txt"), [str(folder / "report copy.txt")])
    assert [(Path(m.path).name, m.identical, m.similarity) for m in again] == [
        ("report copy.txt", True, 1.0)
    ]


COPYRIGHTS = sorted(Path("/usr/share/doc").glob("*/copyright"))


@pytest.mark.skipif(len(COPYRIGHTS) < 100, reason="needs Debian's /usr/share/doc")
def test_files_like_each_member_find_its_group_mates_on_a_real_folder(tmp_path: Path) -> None:
    """A copy of real documents (licences that share boilerplate, so groups of look-alikes)
    with planted byte copies, edits, notes and CJK-named copies: for every member of every
    group the scan forms, files like it include each member the scan verified against it
    (the representative against all, the others against the representative), with the
    scan's similarity, and its byte-identical mates marked identical."""
    root = tmp_path / "doc"
    picked = COPYRIGHTS[::5][:140]
    for source in picked:
        target = root / source.parent.name / "copyright"
        target.parent.mkdir(parents=True)
        target.write_bytes(source.read_bytes())
    planted = root / "planted"
    planted.mkdir()
    for n, source in enumerate(picked[:30:3]):
        text = source.read_text(errors="replace")
        name = source.parent.name
        (planted / f"{name}.txt").write_bytes(source.read_bytes())  # a byte copy
        write(planted / f"{name} (my notes).txt", edit(text, n, changes=3) + "\nMy notes.\n")
        write(planted / f"{name}-コピー.txt", edit(text, n + 100, changes=1))
    cached = ScanOptions(roots=(root,), cache_dir=tmp_path / "cache", jobs=1)
    groups = [g for g in scan.run(cached).groups if g.kind is Kind.TEXT]
    assert len(groups) >= 10
    ask = dataclasses.replace(cached, roots=())
    checked = 0
    for group in groups:
        keeper, *rest = group.members
        found = {m.path: m for m in similar(keeper.path, [root], ask).matches}
        for member in rest:
            assert member.path in found, (keeper.path, member.path)
            assert found[member.path].similarity == pytest.approx(member.similarity)
            assert found[member.path].identical == group.same_bytes_as_keeper(member)
        for member in rest:
            back = {m.path: m for m in similar(member.path, [root], ask).matches}
            assert keeper.path in back, (member.path, keeper.path)
            assert back[keeper.path].identical == group.same_bytes_as_keeper(member)
            checked += 1
    assert checked >= 30


def test_a_one_word_file_says_one_word(folder: Path, tmp_path: Path) -> None:
    single = write(tmp_path / "single.txt", "hello\n")
    result = similar(single, [folder], options(tmp_path))
    assert result.problem == "too little text to compare (1 word; at least 20 needed)"
