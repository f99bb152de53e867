"""Identical files of every type in the app: found, marked in the list, compared by facts."""

from __future__ import annotations

import zipfile
from pathlib import Path

from gui_helpers import group_of, member_of, scan_folder
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from dupfinder.core.model import Kind
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.results_model import Column


def _archive_kept_twice(tmp_path: Path) -> Path:
    """A folder holding ``backup.zip`` and its byte-identical ``backup copy.zip``."""
    folder = tmp_path / "files"
    folder.mkdir()
    with zipfile.ZipFile(folder / "backup.zip", "w") as archive:
        archive.writestr("notes.txt", "some packed notes " * 400)
    (folder / "backup copy.zip").write_bytes((folder / "backup.zip").read_bytes())
    return folder


def test_identical_other_files_are_listed_marked_and_compared_by_facts(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    folder = _archive_kept_twice(tmp_path)
    (folder / "note.txt").write_text("a note kept twice " * 100, encoding="utf-8")
    (folder / "note again.txt").write_text("a note kept twice " * 100, encoding="utf-8")
    scan_folder(qtbot, window, folder)
    model = window.model
    kinds = {group_of(model, model.index(r, 0)).kind for r in range(model.rowCount())}
    assert kinds == {Kind.OTHER, Kind.TEXT}
    for row in range(model.rowCount()):
        group = model.index(row, 0)
        assert "identical file" in group.data()
        assert group.siblingAtColumn(Column.SIMILARITY).data() == "Identical"
        second = model.index(1, Column.SIMILARITY, group)
        assert second.data() == "Identical"
        assert "Byte-identical to" in second.data(Qt.ItemDataRole.ToolTipRole)
    zip_copy = model.index_of_path(str(folder / "backup copy.zip"))
    window.view.setCurrentIndex(zip_copy)
    preview = window.file_preview
    assert window.preview.currentWidget() is preview
    digest = group_of(model, zip_copy).members[0].content_hash
    assert digest
    assert preview.left.hash.text() == digest == preview.right.hash.text()
    assert "application/zip" in preview.right.type.text()
    assert preview.right.name.text() in {"backup.zip", "backup copy.zip"}
    assert preview.right.folder.text() == str(folder)
    assert "Byte-identical" in preview.summary.text()


def test_a_filter_that_hides_the_compared_file_clears_the_comparison(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    folder = _archive_kept_twice(tmp_path)
    (folder / "xdotool").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 40)
    (folder / "xdotool (1)").write_bytes((folder / "xdotool").read_bytes())
    scan_folder(qtbot, window, folder)
    window.view.setCurrentIndex(window.model.index_of_path(str(folder / "xdotool (1)")))
    assert window.preview.currentWidget() is window.file_preview
    assert "executable" in window.file_preview.right.type.text()  # no suffix: read by content
    window.filter.setText("xdotool")
    window._apply_filter()
    assert window.preview.currentWidget() is window.file_preview  # still shown, still compared
    shown = member_of(window.model, window.view.currentIndex())
    assert shown.path == str(folder / "xdotool (1)")
    window.filter.setText("backup")
    window._apply_filter()
    assert window.preview.currentWidget() is window.preview_hint  # hidden: nothing stale
