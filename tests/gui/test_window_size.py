"""The window fits its screen, and on a small screen the scan panel folds away."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect, QSize

from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.results_model import Column
from dupfinder.gui.window_size import fit_size


def test_fit_size_leaves_room_for_the_frame() -> None:
    # QT_SCALE_FACTOR=2 on 2560×1600 with a 30 px panel: 1280×785 device-independent pixels
    available = QRect(0, 15, 1280, 785)
    assert fit_size(QSize(1280, 800), QSize(16, 40), available) == QSize(1264, 745)
    assert fit_size(QSize(900, 600), QSize(16, 40), available) == QSize(900, 600)


def test_a_new_window_is_no_larger_than_its_screen(window: MainWindow) -> None:
    available = window.screen().availableGeometry()
    assert window.width() <= available.width()
    assert window.height() <= available.height()


def test_the_scan_panel_folds_away_and_the_columns_fit_at_1024(
    make_window: Callable[..., MainWindow],
) -> None:
    window = make_window()
    window.resize(1024, 700)
    window.show()
    window.commands.show_panel.setChecked(False)
    assert window.main_splitter.sizes()[0] == 0
    view = window.view
    shown = sum(view.columnWidth(c) for c in Column if not view.isColumnHidden(c))
    assert shown + view.indentation() <= view.viewport().width()
    window.commands.show_panel.setChecked(True)
    assert window.main_splitter.sizes()[0] > 0
