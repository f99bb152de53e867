"""The comparison panel names what changed in the selected picture from the kept one."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from gui_helpers import scan_folder
from PIL import Image
from PySide6.QtCore import QModelIndex
from pytestqt.qtbot import QtBot

from dupfinder.core.model import Edit, EditCode, Side
from dupfinder.gui.image_preview import ImagePreview
from dupfinder.gui.main_window import MainWindow

PHOTO = Path("/usr/share/backgrounds/mate/nature/LadyBird.jpg")


def test_selecting_a_grey_copy_names_it_under_the_pictures(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    if not PHOTO.is_file():
        pytest.skip(f"{PHOTO} is not installed")
    folder = tmp_path / "pictures"
    folder.mkdir()
    with Image.open(PHOTO) as im:
        photo = im.convert("RGB").resize((640, 400))
    photo.save(folder / "ladybird.png")
    photo.convert("L").save(folder / "grey.png")
    scan_folder(qtbot, window, folder)
    index = window.model.index_of_path(str(folder / "grey.png"))
    assert index.isValid()
    window.resize(1280, 800)
    window.show()
    window.view.setCurrentIndex(QModelIndex())
    with qtbot.waitSignal(window.image_preview.rendered, timeout=10_000):
        window.view.setCurrentIndex(index)
    changes = window.image_preview.changes
    assert changes.isVisible()
    assert changes.text() == "What changed: greyscale"
    # a longer line takes its height from the pictures' panes: "Fit" fits them again, where
    # the scale the panes had before left scroll bars on pictures that fitted
    preview = window.image_preview
    many = [Edit(EditCode.CROPPED, percent=6, sides=(Side.LEFT, Side.TOP))] * 12
    one_line = preview.changes.height()
    preview.show_edits(many)
    qtbot.waitUntil(lambda: preview.changes.height() > one_line)
    for view in (preview.left.view, preview.right.view):
        qtbot.waitUntil(functools.partial(_fitted, view))
        assert not view.verticalScrollBar().isVisible()


def _fitted(view: Any) -> bool:
    fits = view.fit_scale()
    return fits is not None and view.transform().m11() <= fits + 1e-9


def test_the_line_is_hidden_without_edits(qtbot: QtBot) -> None:
    preview = ImagePreview()
    qtbot.addWidget(preview)
    preview.show()
    preview.show_edits((Edit(EditCode.CROPPED, percent=6), Edit(EditCode.DARKER, percent=9)))
    assert preview.changes.text() == "What changed: cropped 6 % · darker (9 %)"
    assert preview.changes.isVisible()
    preview.clear()
    assert not preview.changes.isVisible()
