"""Every control a person can reach has a name a screen reader can say."""

from __future__ import annotations

from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QProgressBar,
    QTextEdit,
    QWidget,
)

from dupfinder.core.results.decisions import Decision, DecisionKind
from dupfinder.gui.dialogs import DecisionsDialog, HelpDialog
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.settings import AdvancedSettings
from dupfinder.gui.settings_dialog import SettingsDialog

CONTROLS = (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QProgressBar,
    QTextEdit,
)


def _part_of_another(widget: QWidget) -> bool:
    """Scroll bars, a spin box's editor, a combo box's list: parts of a named control."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, CONTROLS):
            return True
        parent = parent.parentWidget()
    return False


def unnamed(root: QWidget) -> list[str]:
    missing = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not isinstance(widget, CONTROLS) or not widget.isVisible() or _part_of_another(widget):
            continue
        face = QAccessible.queryAccessibleInterface(widget)
        name = face.text(QAccessible.Text.Name) if face is not None else ""
        if not name.strip():
            where = type(widget.parentWidget()).__name__
            tip = widget.toolTip()
            missing.append(f"{type(widget).__name__} {widget.objectName()!r} {tip!r} in {where}")
    return missing


def test_every_control_of_the_window_has_a_name(window: MainWindow) -> None:
    window.show()
    assert unnamed(window) == []


def test_every_control_of_the_dialogs_has_a_name(window: MainWindow) -> None:
    decision = Decision(DecisionKind.PAIR, frozenset({"text:0000000000000001"}), "", ("/a", "/b"))
    for dialog in (
        SettingsDialog(AdvancedSettings(), window),
        DecisionsDialog([decision], window),
        HelpDialog(window),
    ):
        dialog.show()
        assert unnamed(dialog) == [], type(dialog).__name__
        dialog.close()


def test_every_control_of_each_preview_has_a_name(window: MainWindow) -> None:
    """The previews are hidden until a file is selected; each page is checked shown."""
    window.show()
    for page in range(window.preview.count()):
        window.preview.setCurrentIndex(page)
        window.preview.show()
        assert unnamed(window) == [], type(window.preview.currentWidget()).__name__
