"""Find files like this one in the window: the context menu, a dropped file, the file chooser,
the banner and the way back, as a user reaches them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from gui_helpers import drop_event, wait_idle, write_image_corpus, write_text_corpus
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot
from test_accessibility import unnamed

from dupfinder.app.jobs import JobKind, SyncRunner
from dupfinder.gui.dialogs import help_html
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.settings import AdvancedSettings
from dupfinder.gui.similar_ui import SimilarBanner


@pytest.fixture
def sync_window(make_window: Callable[..., MainWindow], tmp_path: Path) -> MainWindow:
    """A window whose jobs run at once, with its cache in the test's folder."""
    window = make_window(runner=SyncRunner())
    window.panel.advanced = AdvancedSettings(jobs=1, use_cache=False)
    return window


def drop(window: MainWindow, *paths: Path) -> QDropEvent:
    event = drop_event(*paths)
    window.dropEvent(event)
    return event


def names_shown(window: MainWindow) -> list[list[str]]:
    model = window.model
    groups = []
    for row in range(model.rowCount()):
        group = model.index(row, 0)
        groups.append([model.index(i, 0, group).data() for i in range(model.rowCount(group))])
    return groups


def test_the_context_menu_finds_files_like_the_file_under_the_pointer(
    sync_window: MainWindow, tmp_path: Path
) -> None:
    window = sync_window
    files = write_text_corpus(tmp_path / "docs")
    window.panel.add_folders([str(tmp_path / "docs")])
    window.start_scan()
    assert len(names_shown(window)) == 2
    window.show()
    index = window.model.index_of_path(str(files["edited"]))
    window.view.scrollTo(index)
    menu = window.context_menu(window.view.visualRect(index).center())
    assert menu is not None
    found = [a for a in menu.actions() if a.text().replace("&", "") == "Find files like this"]
    assert found == [window.commands.similar]
    window.view.setCurrentIndex(index)  # a right-click makes the row under it current
    assert found[0].isEnabled()
    found[0].trigger()

    assert window.app.similar is not None
    assert names_shown(window) == [["essay-edited.txt", "essay.txt"]]  # the file, kept, first
    banner = window.similar_banner
    assert banner.isVisible()
    assert (
        banner.text() == f"Documents like essay-edited.txt: 1 found · in {files['edited'].parent}"
    )
    assert not window.filter.isVisible()
    keeper = window.model.index(0, 0, window.model.index(0, 0))
    assert keeper.data(Qt.ItemDataRole.FontRole).bold()
    best = window.model.member_at(window.view.currentIndex())
    assert best is not None
    assert best.path == str(files["original"])  # the list opens on the best match
    assert window.commands.back.isEnabled()
    assert unnamed(banner) == []  # its label and button have names a screen reader says

    banner.back_button.click()
    assert window.app.similar is None
    assert not banner.isVisible()
    assert window.filter.isVisible()
    assert len(names_shown(window)) == 2


def test_a_dropped_file_is_searched_for_and_a_dropped_folder_still_joins_the_scan(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    pictures = write_image_corpus(tmp_path / "pictures")
    window.panel.advanced = AdvancedSettings(jobs=1, use_cache=False)
    other = tmp_path / "more"
    other.mkdir()
    event = drop(window, tmp_path / "pictures", other)
    assert event.isAccepted()
    assert window.panel.folders.paths() == [str(tmp_path / "pictures"), str(other)]
    assert window.app.similar is None  # folders only: no search

    drop(window, pictures["small"])
    assert window.app.job is JobKind.SIMILAR  # on the worker thread
    wait_idle(qtbot, window)
    assert window.app.similar is not None
    (shown,) = names_shown(window)
    assert shown[0] == "landscape-small.jpg"
    assert set(shown[1:]) == {"landscape.png", "landscape-marked.png"}
    assert window.similar_banner.text().startswith("Pictures like landscape-small.jpg: 2")
    qtbot.waitUntil(lambda: window.image_preview._job is None)
    window.view.setCurrentIndex(QModelIndex())  # the list selected a pair already: start over
    with qtbot.waitSignal(window.image_preview.rendered, timeout=10_000):
        window.step_group(0)
    assert window.preview.currentWidget() is window.image_preview


def test_the_chooser_runs_a_whole_search_and_the_list_acts_as_usual(
    sync_window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: QtBot
) -> None:
    window = sync_window
    files = write_text_corpus(tmp_path / "docs")
    window.panel.add_folders([str(tmp_path / "docs")])
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args: (str(files["original"]), ""))
    assert window.commands.find_similar.isEnabled()
    assert "folders listed on the left" in window.commands.find_similar.toolTip()
    with qtbot.waitSignal(window.text_preview.rendered, timeout=10_000):
        window.commands.find_similar.trigger()
    assert isinstance(window.runner, SyncRunner)
    assert window.runner.started
    assert names_shown(window) == [["essay.txt", "essay-edited.txt"]]
    assert "1 file like essay.txt in " in window.panel.progress_label.text()
    assert window.text_preview.left.title.toolTip() == str(files["original"])
    assert window.text_preview.right.title.toolTip() == str(files["edited"])
    window.app.mark_all()
    assert window.model.marks() == {str(files["edited"])}
    window.commands.back.trigger()
    assert window.app.similar is None
    assert window.model.rowCount() == 0  # no scan before: back to the empty list


def test_unsupported_and_nothing_found_are_told_in_words(
    sync_window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = sync_window
    write_text_corpus(tmp_path / "docs")
    window.panel.add_folders([str(tmp_path / "docs")])
    told: list[tuple[str, str]] = []
    monkeypatch.setattr(window, "_tell", lambda title, text, icon=None: told.append((title, text)))
    archive = tmp_path / "bundle.7z"
    archive.write_bytes(b"7z\xbc\xaf\x27\x1c" + bytes(64))
    drop(window, archive)
    assert told[-1] == (
        "Not a kind dupfinder compares",
        "bundle.7z is not a document, a picture, music or a video. dupfinder finds files like "
        "a document (text, PDF, Word, OpenDocument, HTML, e-book…), a picture, a song or a video.",
    )
    lonely = write_image_corpus(tmp_path / "elsewhere")["original"]
    drop(window, lonely)
    assert told[-1] == (
        "Nothing similar found",
        f"No file like landscape.png in {tmp_path / 'docs'}.",
    )
    assert window.app.similar is None
    assert not window.similar_banner.isVisible()


def test_help_tells_how_to_find_files_like_one() -> None:
    text = help_html()
    assert "<h3>Files like this one</h3>" in text
    assert "drop a file on the window" in text


def test_a_long_banner_is_elided_and_never_widens_the_window(qtbot: QtBot) -> None:
    banner = SimilarBanner()
    qtbot.addWidget(banner)
    line = "Documents like report.txt: 3 found · in " + "/very/long/folder" * 20
    banner.show_text(line, "tip")
    banner.resize(400, 40)
    banner.show()
    assert banner.text() == line
    assert "…" in banner.label.text()
    assert banner.minimumSizeHint().width() < 400
