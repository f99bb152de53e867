"""The app without Qt: scans, marks and keepers, actions and undo, decisions, through a fake
view and a synchronous job runner."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fake_view import enabled, fixed_scan, make_app, member, result_of
from import_graph import modules_loaded_by, qt_modules

from dupfinder.app.i18n import english
from dupfinder.app.jobs import ExportFormat, JobKind, SyncRunner, with_suffix
from dupfinder.app.listing import group_numbers
from dupfinder.core.actions import Action, ActionKind
from dupfinder.core.model import ScanOptions, ScanResult

WORDS = "river bridge garden window morning evening kitchen market letter station".split()


def essay(seed: int) -> str:
    return " ".join(WORDS[(seed * 7 + i * i) % len(WORDS)] + str(i % 13) for i in range(300))


def write_docs(folder: Path) -> dict[str, Path]:
    """Two near-duplicate pairs of documents."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for seed in (1, 2):
        text = essay(seed)
        files[f"a{seed}"] = folder / f"doc{seed}.txt"
        files[f"b{seed}"] = folder / f"doc{seed}-copy.txt"
        files[f"a{seed}"].write_text(text, encoding="utf-8")
        files[f"b{seed}"].write_text(text.replace("river0", "lake0", 1), encoding="utf-8")
    return files


def options(folder: Path) -> ScanOptions:
    return ScanOptions(roots=(folder,), jobs=1, use_cache=False)


def test_the_app_layer_imports_no_qt() -> None:
    code = "import dupfinder.app.controller, dupfinder.app.jobs"
    assert qt_modules(modules_loaded_by(code)) == []


def test_english_fills_counts_and_plurals() -> None:
    assert english("%Ln file(s)", 1) == "1 file"
    assert english("%Ln file(s)", 5815) == "5,815 files"
    assert english("%n match(es)", 2) == "2 matches"
    assert english("no count (s)") == "no count (s)"


def test_what_the_scan_says_once_is_in_its_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dupfinder.core.media import tools

    monkeypatch.setattr(tools, "find_tools", lambda: None)
    (tmp_path / "music").mkdir()
    (tmp_path / "music" / "song.mp3").write_bytes(b"ID3" + bytes(300))
    app, view = make_app(tmp_path)
    assert app.scan(options(tmp_path / "music"), ())
    assert view.message.endswith(" " + tools.MISSING_TOOLS_HINT)


def test_scan_mark_trash_and_undo_through_a_fake_view(tmp_path: Path) -> None:
    files = write_docs(tmp_path / "docs")
    app, view = make_app(tmp_path)
    assert not enabled(app).undo  # nothing to undo at start
    assert app.scan(options(tmp_path / "docs"), ())
    assert view.loads == 1
    assert app.totals()[0] == 2
    assert "Found 2 groups" in view.message
    app.mark_all()
    assert len(app.marks) == 2
    assert all(app.keeper(g).path not in app.marks for g in range(2))
    assert enabled(app).act
    assert app.act(Action(ActionKind.TRASH))
    assert len(view.reviews) == 1
    assert "moved to the trash" in view.message
    assert "freed" not in view.message
    assert app.totals()[0] == 0  # both groups lost a member
    gone = [p for p in files.values() if not p.exists()]
    assert len(gone) == 2
    assert enabled(app).undo
    app.undo()
    assert "Put back the 2 files moved to the trash" in view.questions[-1]
    assert all(p.exists() for p in files.values())
    assert app.totals()[0] == 2
    assert not enabled(app).undo  # the journal has nothing left to undo
    assert "2 files put back" in view.message


def test_undo_with_nothing_to_undo_asks_nothing(tmp_path: Path) -> None:
    app, view = make_app(tmp_path)
    app.undo()
    assert view.questions == []
    assert view.message == "Nothing to undo."


def test_rules_and_mark_all_act_on_the_groups_shown(tmp_path: Path) -> None:
    result = result_of(
        (member("/d/gpl-2.txt", 1, mtime=1), member("/d/gpl-2-copy.txt", 3, mtime=2)),
        (member("/d/mit.txt", 7, mtime=1), member("/d/mit-copy.txt", 15, mtime=2)),
        (member("/d/bsd.txt", 31, mtime=1), member("/d/bsd-copy.txt", 63, mtime=2)),
    )
    app, view = make_app(tmp_path, scan_function=fixed_scan(result))
    app.scan(options(tmp_path), ())
    app.set_filter("gpl-2")
    app.apply_keep_rule("oldest")
    assert app.marks.paths() == {"/d/gpl-2-copy.txt"}
    assert "Changed only in the 1 group shown." in view.message
    app.set_filter("")
    app.mark_all()
    assert len(app.marks) == 3
    app.set_filter("mit")
    app.mark_none()
    assert app.marks.paths() == {"/d/gpl-2-copy.txt", "/d/bsd-copy.txt"}
    app.invert_marks()
    assert "/d/mit.txt" in app.marks
    assert "/d/mit-copy.txt" in app.marks
    assert "/d/bsd-copy.txt" in app.marks  # outside the view: untouched


def test_the_confirmation_counts_marked_files_the_filter_hides(tmp_path: Path) -> None:
    result = result_of(
        (member("/d/a.txt", 1), member("/d/a2.txt", 3)),
        (member("/d/b.txt", 7), member("/d/b2.txt", 15)),
    )
    view_app, view = make_app(tmp_path, scan_function=fixed_scan(result))
    view.confirm = False
    view_app.scan(options(tmp_path), ())
    view_app.mark_all()
    view_app.set_filter("a2")
    assert not view_app.act(Action(ActionKind.TRASH))
    assert view.reviews[0].outside_view == 1


def test_a_group_with_every_member_marked_names_no_missing_option(tmp_path: Path) -> None:
    result = result_of((member("/d/a.txt", 1), member("/d/b.txt", 3)))
    app, view = make_app(tmp_path, scan_function=fixed_scan(result))
    app.scan(options(tmp_path), ())
    app.toggle(["/d/a.txt", "/d/b.txt"])
    assert not app.act(Action(ActionKind.TRASH))
    _title, text = view.told[-1]
    assert "force" not in text
    assert "Every file of group 1 is marked" in text


def test_keeper_can_be_any_member_and_mark_all_spares_it(tmp_path: Path) -> None:
    result = result_of((member("/d/a.txt", 1), member("/d/b.txt", 3), member("/d/c.txt", 7)))
    app, _view = make_app(tmp_path, scan_function=fixed_scan(result))
    app.scan(options(tmp_path), ())
    assert app.keeper(0).path == "/d/a.txt"
    app.mark_all()
    app.make_keeper(0, "/d/c.txt")
    assert app.keeper(0).path == "/d/c.txt"
    assert app.marks.paths() == {"/d/a.txt", "/d/b.txt"}
    app.apply_keep_rule("newest")  # a rule moves the keeper to what it keeps
    assert app.keeper(0).path not in app.marks


def test_mark_in_folder_never_marks_a_whole_group(tmp_path: Path) -> None:
    result = result_of(
        (member("/x/a.txt", 1), member("/y/a.txt", 3)),
        (member("/x/b.txt", 7), member("/x/b2.txt", 15)),
    )
    app, _view = make_app(tmp_path, scan_function=fixed_scan(result))
    app.scan(options(tmp_path), ())
    app.mark_in_folder("/x")
    assert app.marks.paths() == {"/x/a.txt", "/x/b2.txt"}


def test_not_a_duplicate_takes_one_file_out_and_can_be_forgotten(tmp_path: Path) -> None:
    identical = [member(f"/etc/gnupg/f{i}", 0xF0F0) for i in range(11)]
    krb5 = [member(f"/etc/krb5/k{i}", 0xF0F1) for i in range(5)]
    odd = member("/etc/unrelated", 0xF0F3)
    result = result_of((*identical, *krb5, odd))
    app, view = make_app(tmp_path, scan_function=fixed_scan(result))
    app.scan(options(tmp_path), ())
    app.not_duplicate_member(0, odd)
    assert app.totals()[:2] == (1, 16)  # the 16 real duplicates stay
    assert "Updating" not in view.message
    assert "not a duplicate" in view.message
    app.scan(options(tmp_path), ())  # remembered across scans
    assert app.totals()[:2] == (1, 16)
    assert len(app.decisions_list()) == 1
    app.forget_decisions([0])
    assert app.totals()[:2] == (1, 17)


def test_not_a_duplicate_of_the_kept_file_breaks_one_link(tmp_path: Path) -> None:
    a, b = member("/d/a", 1), member("/d/b", 3)
    result = result_of((a, b), (member("/d/c", 7), member("/d/d", 15), member("/d/e", 31)))
    app, _view = make_app(tmp_path, scan_function=fixed_scan(result))
    app.scan(options(tmp_path), ())
    app.not_duplicate_pair(0, b)
    assert app.totals()[0] == 1  # a pair split: no group left of it
    keeper = app.keeper(0)
    app.not_duplicate_pair(0, keeper)  # the kept file itself: nothing to break
    assert len(app.decisions_list()) == 1


def test_stale_texts_are_replaced(tmp_path: Path) -> None:
    result = result_of((member("/d/a", 1), member("/d/b", 3)))
    app, view = make_app(tmp_path, scan_function=fixed_scan(result))
    app.scan(options(tmp_path), ())
    app.mark_all()
    assert "1 file marked" in view.message
    app.mark_none()
    assert view.message == "No file marked."
    app.remove_from_results(["/d/b"])
    assert view.message == "1 file removed from the results."
    assert app.totals()[0] == 0


def test_save_and_export_add_the_extension(tmp_path: Path) -> None:
    result = result_of((member("/d/a", 1), member("/d/b", 3)))
    app, view = make_app(tmp_path, scan_function=fixed_scan(result))
    app.scan(options(tmp_path), ())
    app.save(str(tmp_path / "scan1"))
    app.export(str(tmp_path / "scan1"), ExportFormat.CSV)
    app.export(str(tmp_path / "other.JSON"), ExportFormat.JSON)
    assert (tmp_path / "scan1.json").exists()
    assert (tmp_path / "scan1.csv").exists()
    assert (tmp_path / "other.JSON").exists()
    assert with_suffix("a.tar", ".json") == "a.tar.json"
    assert any("scan1.csv" in m for m in view.messages)


def test_group_numbers_stay_put_between_scans() -> None:
    first = result_of(
        (member("/d/big1", 1), member("/d/big2", 3), member("/d/big3", 7)),
        (member("/d/s1", 15), member("/d/s2", 31)),
    )
    numbers = group_numbers(first, {})
    assert numbers["/d/s1"] == 2
    # rescanned: a new group sorts first, and the big group lost a file
    second = result_of(
        (member("/d/new1", 63), member("/d/new2", 127), member("/d/new3", 255)),
        (member("/d/s1", 15), member("/d/s2", 31)),
        (member("/d/big1", 1), member("/d/big2", 3)),
    )
    again = group_numbers(second, numbers)
    assert again["/d/s1"] == 2
    assert again["/d/big1"] == 1
    assert again["/d/new1"] == 3


def test_one_job_at_a_time_and_its_kind_is_known(tmp_path: Path) -> None:
    seen: list[JobKind | None] = []
    app, view = make_app(tmp_path)

    def scan_and_look(_o: object, _p: object, _c: object) -> ScanResult:
        seen.append(app.job)
        assert not app.scan(options(tmp_path), ())  # refused while running
        return ScanResult()

    app.scan_function = scan_and_look
    app.scan(options(tmp_path), ())
    assert seen == [JobKind.SCAN]
    assert app.job is None
    assert "Wait for the running task" in view.messages[1]


def test_a_cancelled_scan_says_how_far_it_got(tmp_path: Path) -> None:
    from dupfinder.core.model import Phase, Progress, ProgressCallback, ScanStats

    app, view = make_app(tmp_path)

    def stopped(_o: object, progress: ProgressCallback, _c: object) -> ScanResult:
        progress(Progress(Phase.FINGERPRINTING, 5736, 14017))
        return ScanResult(stats=ScanStats(files_seen=14017, cancelled=True))

    app.scan_function = stopped
    app.scan(options(tmp_path), ())
    assert view.message == "Scan stopped after fingerprinting 5,736 of 14,017 files."


@pytest.mark.parametrize(
    ("last", "said"),
    [
        (None, "Scan stopped."),
        (("walking", 1200, None), "Scan stopped after finding 1,200 files."),
        (("walking", 1, None), "Scan stopped after finding 1 file."),
        (("identical", 20, 300), "Scan stopped after comparing the bytes of 20 of 300 files."),
        # grouping counts files too: "0 of 3" had read as three files when it meant kinds
        (("comparing", 0, 62257), "Scan stopped while grouping 62,257 files."),
    ],
)
def test_a_cancelled_scan_says_how_far_it_got_in_each_phase(
    tmp_path: Path, last: tuple[str, int, int | None] | None, said: str
) -> None:
    from dupfinder.core.model import Phase, Progress, ProgressCallback, ScanStats

    app, view = make_app(tmp_path)

    def stopped(_o: object, progress: ProgressCallback, _c: object) -> ScanResult:
        if last is not None:
            phase, done, total = last
            progress(Progress(Phase(phase), done, total))
        return ScanResult(stats=ScanStats(files_seen=62257, cancelled=True))

    app.scan_function = stopped
    app.scan(options(tmp_path), ())
    assert view.message == said


def test_failures_reach_the_view(tmp_path: Path) -> None:
    app, view = make_app(tmp_path)

    def broken(_o: object, _p: object, _c: object) -> ScanResult:
        raise PermissionError(13, "Permission denied", "/secret")

    app.scan_function = broken
    app.scan(options(tmp_path), ())
    assert "Permission denied" in view.told[-1][1]
    assert app.job is None


def test_sync_runner_cancel_sets_the_event() -> None:
    runner = SyncRunner()
    runner.cancel()
    assert runner.cancel_event.is_set()


@pytest.mark.skipif(os.name != "posix", reason="permissions")
def test_enabled_follows_the_current_row(tmp_path: Path) -> None:
    a, b = member("/d/a", 1), member("/d/b", 3)
    app, _view = make_app(tmp_path, scan_function=fixed_scan(result_of((a, b))))
    assert not enabled(app).mark
    assert not enabled(app).save
    app.scan(options(tmp_path), ())
    assert enabled(app).mark
    assert enabled(app).save
    assert not enabled(app).act
    on_keeper = enabled(app, 0, app.keeper(0))
    assert not on_keeper.not_pair
    assert on_keeper.not_member
    assert on_keeper.file
    assert enabled(app, 0, b).not_pair


def test_plan_text_counts_with_separators_and_names_hidden_files() -> None:
    from dupfinder.app.wording import plan_text
    from dupfinder.core.actions import make_plan

    groups = [(member(f"/d/{g}a", 1 + 2 * g), member(f"/d/{g}b", 2 + 2 * g)) for g in range(1001)]
    result = result_of(*groups)
    plan = make_plan(result, [b.path for _, b in groups], Action(ActionKind.TRASH))
    text = plan_text(plan, outside_view=1000)
    assert "1,001 files kept" in text
    assert "1,000 of the files are in groups the filter hides" in text
    assert "trash" in text
