"""The window and the file each group keeps: reasons in the list, similarities against a new
keeper, Mark ▸ Suggested, drops that never move files, folders named on the command line, and
a links plan that shows what it leaves alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gui_helpers import scan_folder, wait_idle
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from scan_helpers import edit, essay, write

from dupfinder.app.scan_settings import FolderEntry
from dupfinder.core.actions import Action, ActionKind, compare_link_contents, make_plan
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult
from dupfinder.gui.dialogs import PlanDialog
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.results_model import Column
from dupfinder.gui.settings import Settings

MOVE = Qt.DropAction.MoveAction
COPY = Qt.DropAction.CopyAction


def _mime(*paths: Path) -> QMimeData:
    mime = QMimeData()
    mime.setParent(QApplication.instance())  # the event does not own it: keep it alive
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def drop(actions: Qt.DropAction, proposed: Qt.DropAction, *paths: Path) -> QDropEvent:
    """A drop offering ``actions`` and proposing ``proposed``, as a file manager sends it."""
    event = QDropEvent(
        QPointF(10, 10),
        actions,
        _mime(*paths),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    event.setDropAction(proposed)
    return event


def three_versions(folder: Path) -> tuple[Path, Path, Path]:
    base = essay(3, words=600)
    v1 = write(folder / "report.txt", base)
    v2 = write(folder / "report-v2.txt", edit(base, 1, changes=4))
    v3 = write(folder / "report-v3.txt", edit(edit(base, 1, changes=4), 2, changes=12))
    return v1, v2, v3


def test_a_drop_is_a_copy_never_a_move(window: MainWindow, tmp_path: Path) -> None:
    """A file manager that honours a move deletes what was dragged: the window and the
    folder list accept a copy (or a link) and refuse a drag that offers only a move."""
    folder = tmp_path / "photos"
    folder.mkdir()
    only_move = drop(MOVE, MOVE, folder)
    window.dropEvent(only_move)
    assert not only_move.isAccepted()
    assert window.panel.folders.paths() == []
    proposed_move = drop(COPY | MOVE, MOVE, folder)
    window.dropEvent(proposed_move)
    assert proposed_move.isAccepted()
    assert proposed_move.dropAction() == COPY
    assert window.panel.folders.paths() == [str(folder)]
    other = tmp_path / "more"
    other.mkdir()
    to_list = drop(COPY | MOVE, MOVE, other)
    window.panel.folders.dropEvent(to_list)
    assert to_list.dropAction() == COPY
    assert window.panel.folders.paths() == [str(folder), str(other)]
    entering = QDragEnterEvent(
        QPoint(5, 5),
        MOVE | Qt.DropAction.LinkAction,
        _mime(folder),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dragEnterEvent(entering)
    assert entering.dropAction() == Qt.DropAction.LinkAction


def test_folders_named_on_the_command_line_are_scanned_alone(
    make_window: Callable[..., MainWindow], settings: Settings, tmp_path: Path
) -> None:
    remembered, named = tmp_path / "remembered", tmp_path / "named"
    remembered.mkdir()
    named.mkdir()
    first = make_window()
    first.panel.folders.add_folder(str(remembered), reference=True)
    first.save_settings()
    second = make_window()
    assert second.open_folders([str(named), str(tmp_path / "no such folder")])
    assert second.panel.folders.paths() == [str(named)]
    second.save_settings()  # the earlier folders stay remembered for the next start
    assert settings.load_scan().folders == (FolderEntry(str(remembered), True),)
    assert not make_window().open_folders([str(tmp_path / "no such folder")])


def test_the_list_says_why_and_measures_against_the_new_keeper(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    v1, v2, _v3 = three_versions(tmp_path / "docs")
    scan_folder(qtbot, window, tmp_path / "docs")
    model = window.model
    kept = model.index_of_path(str(v1))
    reason = model.data(kept, Qt.ItemDataRole.ToolTipRole)
    assert "Kept as the original: " in reason
    group_row = model.index(0, 0)
    assert "report.txt: Kept as the original" in model.data(group_row, Qt.ItemDataRole.ToolTipRole)
    similarity = kept.siblingAtColumn(Column.SIMILARITY)
    assert model.data(similarity, Qt.ItemDataRole.DisplayRole) == "100%"
    window.view.setCurrentIndex(model.index_of_path(str(v2)))
    repainted: list[tuple[int, int, int]] = []  # (row, first column, last column)
    model.dataChanged.connect(
        lambda top, bottom, _roles: repainted.append((top.row(), top.column(), bottom.column()))
    )
    window.commands.keep_this.trigger()
    wait_idle(qtbot, window)
    old_row = model.index_of_path(str(v1)).row()
    assert any(
        top <= old_row and first <= Column.SIMILARITY <= last for top, first, last in repainted
    ), repainted  # the old keeper's similarity is drawn again, not only its check box
    old = model.index_of_path(str(v1)).siblingAtColumn(Column.SIMILARITY)
    new = model.index_of_path(str(v2)).siblingAtColumn(Column.SIMILARITY)
    assert model.data(new, Qt.ItemDataRole.DisplayRole) == "100%"
    figure = model.data(old, Qt.ItemDataRole.DisplayRole)
    assert figure.endswith("%")
    assert figure != "100%"  # the old keeper is measured against the new one
    tip = model.data(model.index_of_path(str(v2)), Qt.ItemDataRole.ToolTipRole)
    assert "Kept: your choice" in tip
    window.commands.mark_suggested.trigger()
    assert window.app.keeper(0).path == str(v1)
    assert model.marks() == {m.path for m in window.app.listing.groups[0].members[1:]}


def test_a_links_plan_shows_the_files_it_leaves_alone(qtbot: QtBot, tmp_path: Path) -> None:
    kept = write(tmp_path / "a.txt", essay(1))
    same = tmp_path / "b.txt"
    same.write_bytes(kept.read_bytes())
    differs = write(tmp_path / "c.txt", edit(essay(1), 4))

    def member(path: Path) -> Member:
        info = path.stat()
        return Member(
            str(path),
            info.st_size,
            info.st_mtime_ns,
            0,
            Fingerprint(Kind.TEXT, 1),
            dev=info.st_dev,
            ino=info.st_ino,
            ctime_ns=info.st_ctime_ns,
        )

    result = ScanResult((Group(Kind.TEXT, (member(kept), member(same), member(differs))),))
    plan = compare_link_contents(
        make_plan(result, frozenset({str(same), str(differs)}), Action(ActionKind.HARDLINK))
    )
    dialog = PlanDialog(plan)
    qtbot.addWidget(dialog)
    group = dialog.table.topLevelItem(0)
    assert group is not None
    children = [group.child(i) for i in range(group.childCount())]
    targets = {child.text(0): child.text(2) for child in children if child is not None}
    assert targets[str(same)] == str(kept)
    assert targets[str(differs)].startswith("left alone")
    heading = dialog.findChildren(type(dialog.text))[0].text()
    assert "1 file · " in heading
    assert "1 left alone" in heading
