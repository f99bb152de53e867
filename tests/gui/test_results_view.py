"""Clicking a member's check box in the tree marks it; a locked member's row has none."""

from __future__ import annotations

from gui_helpers import member_of, synthetic_result
from PySide6.QtCore import QModelIndex, QPoint, Qt
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from dupfinder.gui.results_model import ResultsModel, prepare
from dupfinder.gui.results_view import ResultsView


def _check_box_centre(view: ResultsView, index: QModelIndex) -> QPoint:
    """Where the check box of a member is drawn, as the view's own style places it."""
    option = QStyleOptionViewItem()
    view.initViewItemOption(option)
    option.rect = view.visualRect(index)
    delegate = view.itemDelegateForIndex(index)
    assert isinstance(delegate, QStyledItemDelegate)
    delegate.initStyleOption(option, index)
    box = view.style().subElementRect(QStyle.SubElement.SE_ItemViewItemCheckIndicator, option, view)
    return box.center()


def _view(qtbot: QtBot, model: ResultsModel) -> ResultsView:
    view = ResultsView(model)
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    view.expandAll()
    qtbot.waitExposed(view)
    return view


def test_clicking_the_check_box_toggles_the_mark(qtbot: QtBot) -> None:
    model = ResultsModel()
    model.set_result(synthetic_result(3))
    view = _view(qtbot, model)
    member = model.index(1, 0, model.index(0, 0))
    path = member_of(model, member).path
    centre = _check_box_centre(view, member)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert model.marks() == {path}
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert model.marks() == frozenset()


def test_clicking_beside_the_check_box_only_selects(qtbot: QtBot) -> None:
    model = ResultsModel()
    model.set_result(synthetic_result(3))
    view = _view(qtbot, model)
    beside = view.visualRect(model.index(1, 2, model.index(0, 0))).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=beside)
    assert model.marks() == frozenset()
    assert view.currentIndex().row() == 1


def test_a_locked_member_cannot_be_ticked_by_click(qtbot: QtBot) -> None:
    result = synthetic_result(2)
    locked = result.groups[0].members[1].path
    model = ResultsModel()
    model.set_prepared(prepare(result, lambda m: m.path == locked))
    view = _view(qtbot, model)
    index = model.index_of_path(locked)
    assert index.isValid()
    centre = _check_box_centre(view, index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert model.marks() == frozenset()
