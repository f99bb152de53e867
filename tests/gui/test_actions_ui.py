"""Keep and delete through the window: marks, confirm with the plan, trash, report, undo.

The trash is redirected (XDG_DATA_HOME, set in tests/conftest.py before send2trash is
imported); dialogs that would block are replaced by their accepted outcome.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from gui_helpers import scan_folder, wait_idle, write_text_corpus
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from dupfinder.app.jobs import ExportFormat
from dupfinder.gui.dialogs import PlanDialog, ReportDialog
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.results_model import MEMBER_ROLE


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[object]]:
    """Accept every plan; collect the report dialogs instead of showing them."""
    seen: dict[str, list[object]] = {"plans": [], "reports": []}

    def accept(self: PlanDialog) -> int:
        seen["plans"].append(self)
        return PlanDialog.DialogCode.Accepted

    monkeypatch.setattr(PlanDialog, "exec", accept)
    monkeypatch.setattr(MainWindow, "_show_report", lambda self, d: seen["reports"].append(d))
    monkeypatch.setattr(MainWindow, "_ask", lambda self, title, text: True)
    return seen


def trash_folder() -> Path:
    return Path(os.environ["XDG_DATA_HOME"]) / "Trash" / "files"


def test_mark_with_space_trash_with_delete_then_undo(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, dialogs: dict[str, list[object]]
) -> None:
    files = write_text_corpus(tmp_path / "docs")
    scan_folder(qtbot, window, tmp_path / "docs")
    window.show()
    groups_before = window.model.totals()[0]
    member_index = window.model.index_of_path(str(files["edited"]))
    group = window.model.group_at(member_index)
    assert group is not None
    victim = next(m for m in group.members if m.path != group.representative.path)
    index = window.model.index_of_path(victim.path)
    window.view.setFocus()
    window.view.setCurrentIndex(index)
    qtbot.keyClick(window.view, Qt.Key.Key_Space)
    assert window.model.marks() == {victim.path}
    assert "1 marked" in window.totals_label.text()

    qtbot.keyClick(window.view, Qt.Key.Key_Delete)
    wait_idle(qtbot, window)
    plan_dialog = dialogs["plans"][0]
    assert isinstance(plan_dialog, PlanDialog)
    assert plan_dialog.planned_paths() == [victim.path]
    kept = plan_dialog.table.topLevelItem(0)
    assert kept is not None
    assert group.representative.path in kept.text(0)
    assert not Path(victim.path).exists()
    assert Path(group.representative.path).exists()
    assert any(p.name == Path(victim.path).name for p in trash_folder().iterdir())
    report = dialogs["reports"][0]
    assert isinstance(report, ReportDialog)
    assert [r.status for r in report.rows] == ["done"]
    assert window.model.marks() == frozenset()
    if len(group.members) == 2:
        assert window.model.totals()[0] == groups_before - 1
    assert window.model.index_of_path(victim.path).isValid() is False

    window.commands.undo.trigger()
    wait_idle(qtbot, window)
    assert Path(victim.path).exists()
    assert window.model.index_of_path(victim.path).isValid()
    assert window.model.totals()[0] == groups_before
    undo_report = dialogs["reports"][1]
    assert isinstance(undo_report, ReportDialog)
    assert [r.status for r in undo_report.rows] == ["restored"]


def test_keep_rule_marks_all_but_one_and_trash_leaves_one_per_group(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, dialogs: dict[str, list[object]]
) -> None:
    files = write_text_corpus(tmp_path / "docs")
    os.utime(files["edited"], ns=(1, 1))  # the oldest: the one to keep
    scan_folder(qtbot, window, tmp_path / "docs")
    window.apply_keep_rule("oldest")
    wait_idle(qtbot, window)
    result = window.model.result()
    assert len(window.model.marks()) == sum(len(g.members) - 1 for g in result.groups)
    assert str(files["edited"]) not in window.model.marks()
    window.commands.trash.trigger()
    wait_idle(qtbot, window)
    assert files["edited"].exists()
    assert not files["original"].exists()
    for group in result.groups:
        assert sum(Path(m.path).exists() for m in group.members) == 1
    assert window.model.totals()[0] == 0
    # the scan did find groups: an empty list now means they were all handled
    assert window.view.placeholder == "No groups left to review: each was acted on or set aside."


def test_reference_folder_files_are_locked_and_kept(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, dialogs: dict[str, list[object]]
) -> None:
    files = write_text_corpus(tmp_path / "docs")
    archive = tmp_path / "archive"
    archive.mkdir()
    copy = archive / "essay-archived.txt"
    copy.write_bytes(files["original"].read_bytes())
    window.panel.add_folders([str(tmp_path / "docs")])
    window.panel.folders.add_folder(str(archive), reference=True)
    window.start_scan()
    wait_idle(qtbot, window)
    assert window.model.is_protected(str(copy))
    window.apply_keep_rule("newest")
    wait_idle(qtbot, window)
    assert str(copy) not in window.model.marks()
    assert str(files["original"]) in window.model.marks()


def test_an_action_failure_shows_the_problem_list(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, dialogs: dict[str, list[object]]
) -> None:
    files = write_text_corpus(tmp_path / "docs")
    scan_folder(qtbot, window, tmp_path / "docs")
    index = window.model.index_of_path(str(files["edited"]))
    group = window.model.group_at(index)
    assert group is not None
    others = [m.path for m in group.members if m.path != group.representative.path]
    window.model.set_marks(others)
    changed = Path(others[0])
    changed.write_text(
        changed.read_text(encoding="utf-8") + "\nadded after the scan\n", encoding="utf-8"
    )
    # Moving into a "folder" that is a regular file fails for every file that gets that far.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    from dupfinder.core.actions import Action, ActionKind

    window.act_on_marked(Action(ActionKind.MOVE, str(blocker)))
    wait_idle(qtbot, window)
    report = dialogs["reports"][0]
    assert isinstance(report, ReportDialog)
    assert report.problems
    reasons = {r.path: r.reason for r in report.problems}
    assert "changed since the scan" in reasons[str(changed)]
    assert all(reason for reason in reasons.values())
    table = report.table
    assert table.topLevelItemCount() == len(report.rows)
    first = table.topLevelItem(0)
    assert first is not None
    assert first.text(0) in ("failed", "skipped")
    assert changed.exists()
    assert window.model.index_of_path(str(changed)).isValid()  # nothing done: still listed
    assert (
        "failed" in window.panel.progress_label.text()
        or "skipped" in window.panel.progress_label.text()
    )


def test_nothing_marked_says_so(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    told: list[str] = []
    monkeypatch.setattr(window, "_tell", lambda title, text, icon=None: told.append(title))
    from dupfinder.core.actions import Action

    window.act_on_marked(Action())
    assert told == ["Nothing marked"]


def test_not_a_duplicate_is_remembered_across_scans(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    files = write_text_corpus(tmp_path / "docs")
    scan_folder(qtbot, window, tmp_path / "docs")
    index = window.model.index_of_path(str(files["edited"]))
    group = window.model.group_at(index)
    assert group is not None
    paths = {m.path for m in group.members}
    member = next(m for m in group.members if m.path != group.representative.path)
    window.view.setCurrentIndex(window.model.index_of_path(member.path))
    assert window.commands.not_pair.isEnabled()
    window.commands.not_pair.trigger()
    wait_idle(qtbot, window)

    def still_grouped() -> bool:
        for g in window.model.result().groups:
            names = {m.path for m in g.members}
            if {member.path, group.representative.path} <= names:
                return True
        return False

    assert not still_grouped()
    assert window.decisions.list()
    window.start_scan()
    wait_idle(qtbot, window)
    assert not still_grouped()
    assert paths


def test_save_open_and_export(
    qtbot: QtBot, window: MainWindow, make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    files = write_text_corpus(tmp_path / "docs")
    scan_folder(qtbot, window, tmp_path / "docs")
    marked = window.model.index_of_path(str(files["edited"]))
    window.model.toggle_mark(marked)
    marks = window.model.marks()
    saved = tmp_path / "results.json"
    window.save_results(str(saved))
    wait_idle(qtbot, window)
    window.export_results(ExportFormat.CSV, str(tmp_path / "results.csv"))
    wait_idle(qtbot, window)
    window.export_results(ExportFormat.JSON, str(tmp_path / "export.json"))
    wait_idle(qtbot, window)
    assert saved.exists()
    assert (tmp_path / "export.json").exists()
    csv_text = (tmp_path / "results.csv").read_text(encoding="utf-8")
    assert csv_text.startswith("group,kind,representative,path")
    assert str(files["edited"]) in csv_text

    other = make_window()
    os.remove(files["chinese_copy"]) if files["chinese_copy"].exists() else None
    other.open_results(str(saved))
    wait_idle(qtbot, other)
    assert other.model.marks() == marks
    assert other.model.totals()[1] >= 2
    assert "Opened" in other.panel.progress_label.text()


def test_opening_a_file_that_is_not_a_result_explains(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told: list[str] = []
    monkeypatch.setattr(window, "_tell", lambda title, text, icon=None: told.append(text))
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    window.open_results(str(bad))
    wait_idle(qtbot, window)
    assert told
    assert "not a dupfinder result" in told[0]


def test_member_rows_carry_the_member(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    files = write_text_corpus(tmp_path / "docs")
    scan_folder(qtbot, window, tmp_path / "docs")
    index = window.model.index_of_path(str(files["edited"]))
    assert index.data(MEMBER_ROLE).path == str(files["edited"])


def test_a_scan_that_finds_nothing_says_so(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "alone.txt").write_text("nothing else is like this file\n")
    scan_folder(qtbot, window, tmp_path / "only")
    assert window.view.placeholder == "No near-duplicates found."
