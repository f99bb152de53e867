"""The results model: Qt's model tester with real data, sorting, filtering and marks."""

from __future__ import annotations

from functools import partial

import pytest
from gui_helpers import group_of, synthetic_result
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from dupfinder.app.listing import SortKey, reclaimable
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult, ScanStats
from dupfinder.gui.results_model import MEMBER_ROLE, Column, ResultsModel, prepare

CHECK = Qt.ItemDataRole.CheckStateRole


@pytest.fixture(autouse=True)
def _application(qapp: QApplication) -> None:
    """The model draws thumbnails and fonts, which needs a QApplication: run alone, no other
    test of the session has made one yet."""


def member_paths(model: ResultsModel, row: int) -> list[str]:
    parent = model.index(row, 0)
    return [model.index(r, 0, parent).data(MEMBER_ROLE).path for r in range(model.rowCount(parent))]


def test_model_tester_with_no_groups(qtmodeltester: ModelTester) -> None:
    model = ResultsModel()
    model.set_result(ScanResult())
    qtmodeltester.check(model)
    assert model.rowCount() == 0
    assert model.totals() == (0, 0, 0)


def test_model_tester_with_many_groups_sorted_and_filtered(qtmodeltester: ModelTester) -> None:
    model = ResultsModel()
    model.set_result(synthetic_result(400))
    qtmodeltester.check(model)
    model.sort(Column.SIZE, Qt.SortOrder.DescendingOrder)
    model.set_filter("set3")
    qtmodeltester.check(model)
    assert 0 < model.rowCount() < 400


def test_two_levels_and_columns() -> None:
    result = synthetic_result(3, members=4)
    model = ResultsModel()
    model.set_result(result)
    assert model.rowCount() == 3
    group = model.index(0, 0)
    assert model.rowCount(group) == 4
    assert model.rowCount(model.index(0, 1)) == 0  # children hang off column 0 only
    member = model.index(1, 0, group)
    assert member.parent() == group
    first = result.groups[0].members[1]
    assert member.data() == first.path.rsplit("/", 1)[1]
    assert member.siblingAtColumn(Column.FOLDER).data() == "/data/set0"
    assert member.siblingAtColumn(Column.DIFFERENCE).data() == str(first.distance)
    assert member.siblingAtColumn(Column.SIMILARITY).data() == f"{int(first.similarity * 100)}%"
    assert group.data() == "Group 1 · 4 documents"
    assert group.siblingAtColumn(Column.SIZE).data().endswith("B")
    image_member = model.index(0, 0, model.index(1, 0))
    assert image_member.siblingAtColumn(Column.DIMENSIONS).data() == "800 × 600"


def test_sort_keeps_the_representative_first_and_the_selection() -> None:
    model = ResultsModel()
    model.set_result(synthetic_result(30, members=5))
    group_index = model.index(5, 0)
    tracked = QPersistentModelIndex(model.index(3, 0, group_index))
    path = tracked.data(MEMBER_ROLE).path
    for column in Column:
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            model.sort(column, order)
            assert tracked.isValid()
            assert tracked.data(MEMBER_ROLE).path == path
            for row in range(model.rowCount()):
                paths = member_paths(model, row)
                group = next(g for g in model.result().groups if g.members[0].path == paths[0])
                assert paths[0] == group.representative.path
    model.sort(Column.SIZE, Qt.SortOrder.DescendingOrder)
    sizes = [reclaimable(group_of(model, model.index(r, 0))) for r in range(model.rowCount())]
    assert sizes == sorted(sizes, reverse=True)


def test_filter_matches_every_word_in_any_member_path() -> None:
    model = ResultsModel()
    model.set_result(synthetic_result(50))
    model.set_filter("SET2 file00009")
    assert model.rowCount() == 1
    assert "file00009" in member_paths(model, 0)[0]
    model.set_filter("")
    assert model.rowCount() == 50
    model.set_filter("no-such-file")
    assert model.rowCount() == 0
    assert model.totals()[0] == 50  # totals are over the whole result


def test_check_boxes_mark_members(qtbot: QtBot) -> None:
    model = ResultsModel()
    model.set_result(synthetic_result(2))
    member = model.index(1, 0, model.index(0, 0))
    assert model.is_checkable(member)
    assert not model.is_checkable(member.siblingAtColumn(Column.SIZE))
    assert not model.is_checkable(model.index(0, 0))
    with qtbot.waitSignal(model.marks_changed):
        assert model.setData(member, Qt.CheckState.Checked, CHECK)
    assert member.data(CHECK) == Qt.CheckState.Checked
    assert model.marks() == {member.data(MEMBER_ROLE).path}
    assert model.marked_bytes() == member.data(MEMBER_ROLE).size
    assert model.toggle_mark(member.siblingAtColumn(Column.SIZE))
    assert model.marks() == frozenset()
    assert not model.toggle_mark(model.index(0, 0))  # a group row is not a file


def test_set_marks_announces_changed_rows(qtbot: QtBot) -> None:
    model = ResultsModel()
    result = synthetic_result(10)
    model.set_result(result)
    wanted = {g.members[1].path for g in result.groups} | {"/not/in/result"}
    changed: list[QModelIndex] = []
    model.dataChanged.connect(lambda top, _bottom, _roles: changed.append(top))
    model.set_marks(wanted)
    assert model.marks() == wanted - {"/not/in/result"}
    assert len([index for index in changed if index.parent().isValid()]) == 10  # members
    assert len([index for index in changed if not index.parent().isValid()]) == 10  # groups


def test_protected_members_cannot_be_marked() -> None:
    result = synthetic_result(4)
    model = ResultsModel()
    model.set_prepared(prepare(result, lambda m: "/set1/" in m.path))
    locked = {m.path for g in result.groups for m in g.members if "/set1/" in m.path}
    assert locked
    model.set_marks(m.path for g in result.groups for m in g.members)
    assert not (model.marks() & locked)
    row = next(r for r in range(model.rowCount()) if "/set1/" in member_paths(model, r)[0])
    index = model.index(0, 0, model.index(row, 0))
    assert index.data(CHECK) is None
    assert not model.is_checkable(index)
    assert not model.toggle_mark(index)
    assert "reference folder" in index.data(Qt.ItemDataRole.ToolTipRole)


def test_one_reset_per_result(qtbot: QtBot) -> None:
    model = ResultsModel()
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    model.set_result(synthetic_result(1000))
    assert len(resets) == 1
    assert model.rowCount() == 1000


def test_a_result_sorted_off_the_gui_thread_shows_as_if_sorted_here() -> None:
    result = synthetic_result(30)
    here = ResultsModel()
    here.sort(Column.NAME, Qt.SortOrder.DescendingOrder)
    here.set_result(result)
    there = ResultsModel()
    there.sort(Column.NAME, Qt.SortOrder.DescendingOrder)
    prepared = prepare(result, None, there.sort_state())
    assert prepared.order is not None
    there.set_prepared(prepared)
    assert [member_paths(there, r) for r in range(30)] == [member_paths(here, r) for r in range(30)]
    # prepared for another sort: the model sorts it itself
    other = ResultsModel()
    other.sort(Column.NAME, Qt.SortOrder.DescendingOrder)
    other.set_prepared(prepare(result, None, SortKey(Column.SIZE)))
    assert [member_paths(other, r) for r in range(30)] == [member_paths(here, r) for r in range(30)]


def test_marked_bytes_follow_every_way_of_marking(qtbot: QtBot) -> None:
    result = synthetic_result(3)
    model = ResultsModel()
    model.set_result(result)
    members = [m for g in result.groups for m in g.members[1:]]
    model.set_marks(m.path for m in members)
    assert model.marked_bytes() == sum(m.size for m in members)
    index = model.index_of_path(members[0].path)
    assert model.toggle_mark(index)
    assert model.toggle_mark(index)
    assert model.setData(index, Qt.CheckState.Checked, CHECK)  # already marked: no double count
    assert model.marked_bytes() == sum(m.size for m in members)
    model.set_marks(())
    assert model.marked_bytes() == 0


def test_a_member_with_other_hard_links_says_so() -> None:
    from dataclasses import replace

    from dupfinder.core.model import Group

    result = synthetic_result(1, members=2)
    group = result.groups[0]
    linked = replace(group.members[1], links=3)
    model = ResultsModel()
    model.set_result(replace(result, groups=(Group(group.kind, (group.members[0], linked)),)))
    parent = model.index(0, 0)
    tip = model.index(1, 0, parent).data(Qt.ItemDataRole.ToolTipRole)
    assert "2 other names (hard links)" in tip
    assert "hard links" not in model.index(0, 0, parent).data(Qt.ItemDataRole.ToolTipRole)


def test_different_bytes_never_read_100_percent() -> None:
    """A member estimated at 1.0 whose bytes differ shows 99 %; only a copy reads as the
    same (marked Identical)."""
    kind = Kind.IMAGE
    member = partial(Member, size=10, mtime_ns=0, fingerprint=Fingerprint(kind, 5))
    keeper = member(path="/p/a.jpg", distance=0, content_hash="ab" * 16)
    copy = member(path="/p/copy.jpg", distance=0, content_hash="ab" * 16)
    resized = member(path="/p/small.jpg", distance=0)
    model = ResultsModel()
    model.set_result(ScanResult((Group(kind, (keeper, copy, resized)),), (), ScanStats()))
    group = model.index(0, 0)
    shown = {
        model.index(r, 0, group).data(MEMBER_ROLE).path: model.index(
            r, Column.SIMILARITY, group
        ).data()
        for r in range(3)
    }
    assert shown == {"/p/a.jpg": "Identical", "/p/copy.jpg": "Identical", "/p/small.jpg": "99%"}
    assert group.siblingAtColumn(Column.SIMILARITY).data() == "≥ 99%"
