"""Which file each group keeps, in the app: rules, the suggested keeper brought back, the
reasons shown, marks kept across a rescan, and similarities measured against a new keeper."""

from __future__ import annotations

import os
from pathlib import Path

from fake_view import fixed_scan, make_app, result_of
from scan_helpers import edit, essay, write

from dupfinder.app.listing import Column, Listing, SortKey, prepare
from dupfinder.core.model import Fingerprint, KeepReason, Kind, Member, ScanOptions


def text(path: str, value: int, size: int = 100, mtime: int = 1) -> Member:
    return Member(path, size, mtime * 10**9, 0, Fingerprint(Kind.TEXT, value))


def options(folder: Path) -> ScanOptions:
    return ScanOptions(roots=(folder,), jobs=1, cache_dir=folder.parent / "cache")


def gpl_result() -> tuple[Member, ...]:
    """Four originals, all as old, and an edited copy that sorts first by path."""
    originals = tuple(text(f"/d/{n}/GPL-3.txt", 1, size=35_149) for n in "bcde")
    notes = text("/d/GPL-3 (my notes).txt", 3, size=35_300)
    return (*originals, notes)


def test_mark_none_and_mark_suggested_bring_the_suggested_keeper_back(tmp_path: Path) -> None:
    members = gpl_result()
    app, _view = make_app(tmp_path, scan_function=fixed_scan(result_of(members)))
    app.scan(options(tmp_path), ())
    app.make_keeper(0, members[-1].path)
    assert app.keeper(0) is app.listing.groups[0].members[-1]
    app.mark_none()
    assert app.keeper(0).path == members[0].path  # the original, not the notes
    assert len(app.marks) == 0
    app.apply_keep_rule("largest")  # the notes made the copy larger: it is kept
    assert app.keeper(0).path == members[-1].path
    app.mark_suggested()
    assert app.keeper(0).path == members[0].path
    assert app.marks.paths() == {m.path for m in members[1:]}


def test_a_rule_that_cannot_rank_documents_leaves_their_keeper_alone(tmp_path: Path) -> None:
    members = gpl_result()
    app, view = make_app(tmp_path, scan_function=fixed_scan(result_of(members)))
    app.scan(options(tmp_path), ())
    app.apply_keep_rule("resolution")
    assert app.keeper(0).path == members[0].path
    assert members[-1].path in app.marks
    assert "cannot rank 1 group" in view.message
    app.make_keeper(0, members[2].path)  # the person's choice stays too
    app.apply_keep_rule("resolution")
    assert app.keeper(0).path == members[2].path
    app.apply_keep_rule("oldest")  # all as old: the suggested order, never the path
    assert app.keeper(0).path == members[0].path
    assert members[-1].path in app.marks


def test_the_list_says_why_a_file_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    base = essay(5)
    original = write(folder / "GPL-3.txt", base)
    notes = write(folder / "GPL-3 (my notes).txt", base + "\nMy notes.\n")
    os.utime(original, ns=(10**18, 10**18))
    app, _view = make_app(tmp_path)
    app.scan(options(folder), ())
    assert app.keeper_reason(0) == "Kept as the original: no copy marks, oldest"
    app.apply_keep_rule("largest")
    assert app.keeper(0).path == str(notes)
    assert app.keeper_reason(0) == "Kept by “Keep the largest”: largest"
    app.make_keeper(0, str(original))
    assert app.keeper_reason(0) == "Kept: your choice: no copy marks, oldest"
    app.mark_none()
    assert app.keeper_reason(0).startswith("Kept as the original")


def test_a_rescan_keeps_the_marks_of_unchanged_files(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    for seed in (1, 2):
        base = essay(seed)
        write(folder / f"doc{seed}.txt", base)
        write(folder / f"doc{seed} copy.txt", edit(base, seed))
    app, view = make_app(tmp_path)
    app.scan(options(folder), ())
    app.mark_all()
    assert app.marks.paths() == {str(folder / "doc1 copy.txt"), str(folder / "doc2 copy.txt")}
    app.make_keeper(1, str(folder / "doc2 copy.txt"))
    g = app.listing.prepared.group_of[str(folder / "doc2.txt")]
    app.scan(options(folder), ())
    assert str(folder / "doc1 copy.txt") in app.marks
    assert app.keeper(app.listing.prepared.group_of[str(folder / "doc2.txt")]).path == str(
        folder / "doc2 copy.txt"
    )
    assert "2 marks kept from before the scan." in view.message
    assert g in (0, 1)
    write(folder / "doc1 copy.txt", edit(essay(1), 9) + " changed since")
    app.scan(options(folder), ())
    assert str(folder / "doc1 copy.txt") not in app.marks
    assert "1 mark dropped: those files changed or are in no group now." in view.message


def test_a_new_keeper_is_what_the_others_are_measured_against(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    base = essay(3, words=600)
    write(folder / "report.txt", base)
    write(folder / "report-v2.txt", edit(base, 1, changes=4))
    write(folder / "report-v3.txt", edit(edit(base, 1, changes=4), 2, changes=12))
    app, _view = make_app(tmp_path)
    app.scan(options(folder), ())
    (group,) = app.listing.groups
    assert len(group.members) == 3
    suggested = group.members[0]
    other = next(m for m in group.members if m.path.endswith("v3.txt"))
    assert app.marks.measured(0, suggested.path) is None
    app.make_keeper(0, str(folder / "report-v2.txt"))
    against_new = app.marks.measured(0, suggested.path)
    assert against_new is not None
    assert against_new.similarity < 1.0  # the old keeper is no longer "100 %"
    v3 = app.marks.measured(0, other.path)
    assert v3 is not None
    assert v3.similarity != other.similarity  # measured against v2, not the original
    assert v3.similarity > other.similarity  # v3 was made from v2


def test_sorted_by_size_a_groups_files_stay_most_similar_first() -> None:
    """The list's default sort (Size, largest first) orders the groups by what they free;
    within a group the files stay most similar first, as files like one are listed."""
    members = (
        text("/d/target.txt", 1, size=500),
        Member("/d/close.txt", 100, 10**9, 1, Fingerprint(Kind.TEXT, 2), similarity=0.95),
        Member("/d/far.txt", 900, 10**9, 5, Fingerprint(Kind.TEXT, 3), similarity=0.72),
        Member("/d/middle.txt", 300, 10**9, 3, Fingerprint(Kind.TEXT, 4), similarity=0.85),
    )
    prepared = prepare(result_of(members), None, SortKey(Column.SIZE, descending=True))
    listing = Listing()
    listing.sort = SortKey(Column.SIZE, descending=True)
    listing.load(prepared)
    shown = [members[listing.source_member(0, row)].path for row in range(len(members))]
    assert shown == ["/d/target.txt", "/d/close.txt", "/d/far.txt", "/d/middle.txt"]
    listing.set_sort(SortKey(Column.MODIFIED))  # a member's own column still orders them
    listing.set_sort(SortKey(Column.NAME))
    names = [members[listing.source_member(0, row)].path for row in range(len(members))]
    assert names == ["/d/target.txt", "/d/close.txt", "/d/far.txt", "/d/middle.txt"][:1] + sorted(
        ["/d/close.txt", "/d/far.txt", "/d/middle.txt"]
    )


def test_a_result_without_reasons_gets_them_in_the_list(tmp_path: Path) -> None:
    """A result read from an older file (or a group remade by a decision) names why its
    keeper is kept all the same, and a saved result carries the reasons."""
    members = gpl_result()
    app, _view = make_app(tmp_path, scan_function=fixed_scan(result_of(members)))
    app.scan(options(tmp_path), ())
    assert app.listing.groups[0].reasons == (KeepReason.NO_COPY_MARKS,)
    assert app.keeper_reason(0) == "Kept as the original: no copy marks"
