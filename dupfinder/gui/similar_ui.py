"""Find files like this one, in the window: the banner over a search's list and the ways in
(the current file, a file to choose, a file dropped on the window).

The search and what it replaced are the app's state (``dupfinder.app.similar``); this module
draws it and forwards the user's choice, with the scan panel's folders and options.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QStyle,
    QWidget,
)

from dupfinder.app.controller import App
from dupfinder.app.i18n import translate
from dupfinder.app.similar import SimilarMode, banner_text, can_search
from dupfinder.core.fingerprints.formats import (
    DOCUMENT_SUFFIXES,
    IMAGE_SUFFIXES,
    PLAIN_TEXT_SUFFIXES,
)
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.commands import Commands
from dupfinder.gui.icons import themed
from dupfinder.gui.results_model import ResultsModel
from dupfinder.gui.results_view import ResultsView
from dupfinder.gui.scan_panel import ScanPanel
from dupfinder.gui.settings import Settings

__all__ = ["SimilarBanner", "SimilarSearch", "SimilarWindow", "file_filter"]


class SimilarWindow(Protocol):
    """The parts of the window a search reads and keeps in step (the main window has them)."""

    app: App
    panel: ScanPanel
    model: ResultsModel
    view: ResultsView
    settings: Settings
    commands: Commands
    filter: QLineEdit

    def tell(self, title: str, text: str, warning: bool = False) -> None: ...


def file_filter() -> str:
    """The file chooser's filters: documents and pictures dupfinder reads, or any file."""
    suffixes = sorted(PLAIN_TEXT_SUFFIXES | DOCUMENT_SUFFIXES | IMAGE_SUFFIXES)
    patterns = " ".join(f"*{suffix}" for suffix in suffixes)
    documents = translate("Similar", "Documents and pictures")
    return f"{documents} ({patterns});;" + translate("Similar", "All files") + " (*)"


class SimilarBanner(QFrame):
    """The line above a search's list: files like which file, how many, where; and the way
    back to the scan's results."""

    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        icon = QLabel()
        icon.setPixmap(
            themed("edit-find", QStyle.StandardPixmap.SP_FileDialogContentsView).pixmap(16, 16)
        )
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        # long folder names must never widen the window: the text is elided, the tip has it all
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._text = ""
        self.label.setAccessibleName(translate("Similar", "Files like this one"))
        self.back_button = QPushButton(
            themed("go-previous", QStyle.StandardPixmap.SP_ArrowLeft),
            translate("Similar", "Back to the scan results"),
        )
        self.back_button.setAccessibleName(translate("Similar", "Back to the scan results"))
        self.back_button.clicked.connect(self.back_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(icon)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.back_button)
        self.setVisible(False)

    def show_text(self, text: str, tip: str) -> None:
        self._text = text
        self.label.setToolTip(tip)
        self.label.setAccessibleDescription(text)
        self.setVisible(True)
        self._elide()

    def text(self) -> str:
        """The whole line (the label may show it elided)."""
        return self._text

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(self.label.width(), 80)
        metrics = self.label.fontMetrics()
        self.label.setText(metrics.elidedText(self._text, Qt.TextElideMode.ElideMiddle, width))


class SimilarSearch:
    """Starts searches from the window and keeps the banner and the filter in step."""

    def __init__(self, window: SimilarWindow, banner: SimilarBanner) -> None:
        self.window = window
        self.banner = banner
        self._mode: SimilarMode | None = None
        banner.back_requested.connect(window.app.leave_similar)
        window.panel.folders.folders_changed.connect(self.update)  # where a search looks

    def where(self) -> str:
        """Where a search looks now, in words: the folders listed, or the last scan's."""
        if self.window.panel.folders.paths():
            return translate("Similar", "Searches the folders listed on the left.")
        return translate(
            "Similar", "Searches the folders of the last scan (no folder is listed on the left)."
        )

    def search(self, path: str) -> bool:
        """Look for files like ``path`` in the panel's folders (none: the last scan's)."""
        window = self.window
        try:
            options = window.panel.scan_options(folders_needed=False)
        except ValueError as exc:
            window.tell(translate("Similar", "Cannot search"), str(exc))
            return False
        return window.app.find_similar(path, window.panel.folders.paths(), options)

    def search_current(self) -> None:
        member = self.window.model.member_at(self.window.view.currentIndex())
        if member is not None and can_search(member):
            self.search(member.path)

    def choose(self) -> None:
        window = self.window
        title = translate("Similar", "Find files like…") + " " + self.where()
        path, _ = QFileDialog.getOpenFileName(
            self.banner.window(), title, window.settings.last_directory(), file_filter()
        )
        if path:
            window.settings.set_last_directory(os.path.dirname(path))
            self.search(path)

    def dropped(self, paths: Iterable[str]) -> bool:
        """A file dropped on the window: files like it (the first, when several are)."""
        files = [path for path in paths if os.path.isfile(path)]
        if not files:
            return False
        return self.search(files[0])

    def update(self) -> None:
        """Draw the app's state: the banner in a search, the filter otherwise."""
        window = self.window
        mode = window.app.similar
        where = self.where()
        for action in (window.commands.similar, window.commands.find_similar):
            action.setStatusTip(where)
            action.setToolTip(where)
        window.filter.setVisible(mode is None)
        fresh, self._mode = mode is not self._mode, mode
        if mode is None:
            self.banner.setVisible(False)
            return
        if fresh:
            self._select_best_match()
        text = banner_text(mode, window.app.totals()[1])
        tip = "\n".join((mode.query.target, *mode.found.folders))
        self.banner.show_text(text, tip)

    def _select_best_match(self) -> None:
        """A new search's list opens on its most similar file, compared with the query."""
        model, view = self.window.model, self.window.view
        best = model.index(1, 0, model.index(0, 0))
        if best.isValid():
            view.setCurrentIndex(best)
            view.scrollTo(best)
