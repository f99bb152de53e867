"""The text preview: the representative and the selected member side by side.

A thin Qt shell over ``dupfinder.gui.diff``: text is extracted (core) and diffed off the GUI
thread, the two panes get one paragraph per aligned row, and scrolling one pane scrolls the
other to the same row. Only the newest request is shown; requests made while one runs are
coalesced, so holding an arrow key in the results never queues up work.
"""

from __future__ import annotations

import html
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QFont, QFontDatabase, QPalette, QTextBlock
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from dupfinder.app.i18n import translate
from dupfinder.core.errors import FileProblem
from dupfinder.core.extract import extract_text
from dupfinder.core.model import Progress
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.diff import DiffColors, DiffOptions, TextDiff, diff_texts, side_html
from dupfinder.gui.worker import Job

__all__ = ["TextPreview", "read_text"]


def read_text(path: str) -> tuple[str, str | None]:
    """The text the scan compared, or ("", reason) when it cannot be read now."""
    try:
        return extract_text(path), None
    except FileProblem as exc:
        return "", str(exc)
    except OSError as exc:
        return "", exc.strerror or str(exc)


def _block_at(view: QTextBrowser, y: int) -> QTextBlock:
    """The row (block) at height ``y`` of ``view``'s document.

    Searched by the blocks' own rectangles, which lay the text out as far as they need:
    ``cursorForPosition`` answers from a half-laid-out document with a row far away."""
    document = view.document()
    layout = document.documentLayout()
    low, high = 0, document.blockCount() - 1
    while low < high:
        middle = (low + high + 1) // 2
        if layout.blockBoundingRect(document.findBlockByNumber(middle)).top() <= y:
            low = middle
        else:
            high = middle - 1
    return document.findBlockByNumber(low)


@dataclass(frozen=True, slots=True)
class _Request:
    left_path: str
    right_path: str
    options: DiffOptions
    colors: DiffColors
    texts: tuple[str, str | None, str, str | None] | None  # reuse when only options change


@dataclass(frozen=True, slots=True)
class _Rendered:
    request: _Request
    texts: tuple[str, str | None, str, str | None]
    diff: TextDiff
    left_html: str
    right_html: str


def _render(
    request: _Request,
) -> Callable[[Callable[[Progress], None], threading.Event], _Rendered]:
    def job(_progress: Callable[[Progress], None], _cancel: threading.Event) -> _Rendered:
        if request.texts is not None:
            texts = request.texts
        else:
            left, left_problem = read_text(request.left_path)
            right, right_problem = read_text(request.right_path)
            texts = (left, left_problem, right, right_problem)
        diff = diff_texts(texts[0], texts[2], request.options)
        return _Rendered(
            request,
            texts,
            diff,
            side_html(diff, "left", request.colors),
            side_html(diff, "right", request.colors),
        )

    return job


def _name_and_folder(path: str) -> str:
    folder, name = os.path.split(path)
    return f"{html.escape(name)} <span style='color:gray'>in {html.escape(folder)}</span>"


class _Pane(QWidget):
    def __init__(self, role: str, description: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(role)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # A long path must never widen the window: the label shrinks, the tooltip has it all.
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.view = QTextBrowser()
        self.view.setOpenLinks(False)
        self.view.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)
        self.view.setAccessibleName(description)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.view)


class TextPreview(QWidget):
    """Side-by-side diff of two text files with ignore-whitespace/case toggles."""

    #: Emitted after the panes show a new diff (tests and screenshots wait for it).
    rendered = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ignore_whitespace = QCheckBox(translate("Preview", "Ignore whitespace"))
        # On by default: copies in other formats wrap lines differently, which is no change.
        self.ignore_whitespace.setChecked(True)
        self.ignore_case = QCheckBox(translate("Preview", "Ignore case"))
        self.summary = QLabel()
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        toolbar = QHBoxLayout()
        toolbar.addWidget(self.summary, 1)
        toolbar.addWidget(self.ignore_whitespace)
        toolbar.addWidget(self.ignore_case)
        self.left = _Pane(
            translate("Preview", "Kept"), translate("Preview", "Text of the kept file")
        )
        self.right = _Pane(
            translate("Preview", "Selected"), translate("Preview", "Text of the selected file")
        )
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.left)
        splitter.addWidget(self.right)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(toolbar)
        layout.addWidget(splitter, 1)

        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont)
        for pane in (self.left, self.right):
            pane.view.document().setDefaultFont(QFont(font))
        self._syncing = False
        #: The row both panes are held on until the user scrolls (see _scroll_to_first_change).
        self._pinned_row: int | None = None
        for source, target in (
            (self.left.view, self.right.view),
            (self.right.view, self.left.view),
        ):
            source.verticalScrollBar().valueChanged.connect(
                lambda _v, s=source, t=target: self._sync_vertical(s, t)
            )
            source.horizontalScrollBar().valueChanged.connect(
                lambda v, t=target: self._sync_horizontal(t, v)
            )
            source.verticalScrollBar().rangeChanged.connect(self._keep_pinned)
        self.ignore_whitespace.toggled.connect(self._options_changed)
        self.ignore_case.toggled.connect(self._options_changed)
        self._job: Job | None = None
        self._pending: _Request | None = None
        self._current: _Rendered | None = None
        self._paths: tuple[str, str] | None = None
        self.last_diff: TextDiff | None = None

    # --- requests ----------------------------------------------------------------------------

    def show_pair(self, representative: str, member: str) -> None:
        """Compare ``member`` with its group's ``representative`` (extracted text of both)."""
        self._paths = (representative, member)
        self.left.title.setText(
            translate("Preview", "<b>Kept</b> · {name}").format(
                name=_name_and_folder(representative)
            )
        )
        self.right.title.setText(
            translate("Preview", "<b>Selected</b> · {name}").format(name=_name_and_folder(member))
        )
        self.left.title.setToolTip(representative)
        self.right.title.setToolTip(member)
        self.summary.setText(translate("Preview", "Reading…"))
        self._request(texts=None)

    def clear(self) -> None:
        self._paths = None
        self._pending = None
        self._current = None
        self.last_diff = None
        self.left.view.clear()
        self.right.view.clear()
        self.summary.clear()

    def _options(self) -> DiffOptions:
        return DiffOptions(self.ignore_whitespace.isChecked(), self.ignore_case.isChecked())

    def _colors(self) -> DiffColors:
        return DiffColors.for_theme(self.palette().color(QPalette.ColorRole.Base).lightness() < 128)

    @Slot()
    def _options_changed(self) -> None:
        if self._paths is None:
            return
        current = self._current
        same = (
            current is not None
            and (current.request.left_path, current.request.right_path) == self._paths
        )
        self._request(texts=current.texts if same and current is not None else None)

    def _request(self, texts: tuple[str, str | None, str, str | None] | None) -> None:
        if self._paths is None:
            return
        request = _Request(self._paths[0], self._paths[1], self._options(), self._colors(), texts)
        if self._job is not None:
            self._pending = request  # the newest wins; it starts when the running one ends
            return
        self._start(request)

    def _start(self, request: _Request) -> None:
        job = Job(_render(request))
        job.finished.connect(self._on_rendered)
        job.failed.connect(self._on_failed)
        job.done.connect(self._on_done)
        self._job = job
        job.start()

    @Slot(object)
    def _on_rendered(self, rendered: _Rendered) -> None:
        if self._pending is not None or self._paths != (
            rendered.request.left_path,
            rendered.request.right_path,
        ):
            return  # stale: a newer request is waiting
        self._current = rendered
        self._show(rendered)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        if self._pending is None:
            self.summary.setText(
                translate("Preview", "Cannot compare: {message}").format(message=message)
            )

    @Slot()
    def _on_done(self) -> None:
        self._job = None
        pending, self._pending = self._pending, None
        if pending is not None:
            self._start(pending)

    def stop(self) -> None:
        """Wait for a running preview job (on close)."""
        self._pending = None
        if self._job is not None:
            self._job.stop()

    # --- display -------------------------------------------------------------------------------

    def _show(self, rendered: _Rendered) -> None:
        diff = rendered.diff
        self.last_diff = diff
        left_problem, right_problem = rendered.texts[1], rendered.texts[3]
        self.left.view.setHtml(rendered.left_html)
        self.right.view.setHtml(rendered.right_html)
        problems = [p for p in (left_problem, right_problem) if p]
        if problems:
            self.summary.setText(
                translate("Preview", "Cannot read: {problems}").format(problems="; ".join(problems))
            )
        elif diff.identical:
            self.summary.setText(translate("Preview", "Same text (under the chosen options)"))
        else:
            amount = diff.changed_rows
            lines = translate("Preview", "%Ln changed line(s)", None, amount)
            amount = diff.removed_words
            left = translate("Preview", "%Ln word(s) only on the left", None, amount)
            amount = diff.added_words
            right = translate("Preview", "%Ln only on the right", None, amount)
            self.summary.setText(f"{lines} · {left}, {right}")
        if diff.truncated:
            long_text = translate("Preview", "long text: first part shown")
            self.summary.setText(f"{self.summary.text()} · {long_text}")
        self._scroll_to_first_change(diff)
        self.rendered.emit()

    def _scroll_to_first_change(self, diff: TextDiff) -> None:
        """Open both panes with the first changed row in view, a couple of rows below the top
        (at the very top with no change).

        Both panes are placed on that row directly, never one through the other with
        _sync_vertical: a big text is laid out bit by bit, and what a half-laid-out pane shows
        at its top (or where the previous text left its scroll bar) may be a row far down. The
        row stays pinned while the layout grows the panes' ranges, until the user scrolls."""
        first = next(
            (n for n, row in enumerate(diff.rows) if row.tag != "equal" and row.changed), None
        )
        self._pinned_row = 0 if first is None else max(first - 2, 0)
        self._both_at_row(self._pinned_row)

    @Slot(int, int)
    def _keep_pinned(self, _minimum: int, _maximum: int) -> None:
        if self._pinned_row is not None:
            self._both_at_row(self._pinned_row)

    def _both_at_row(self, row: int) -> None:
        self._syncing = True
        try:
            for pane in (self.left, self.right):
                document = pane.view.document()
                block = document.findBlockByNumber(row)
                top = document.documentLayout().blockBoundingRect(block).top() if row else 0.0
                pane.view.verticalScrollBar().setValue(round(top))
        finally:
            self._syncing = False

    def _sync_vertical(self, source: QTextBrowser, target: QTextBrowser) -> None:
        """Keep the same row at the top of both panes (rows wrap to different heights)."""
        if self._syncing:
            return
        self._pinned_row = None  # the user scrolled: their place now leads
        self._syncing = True
        try:
            block = _block_at(source, source.verticalScrollBar().value())
            layout = source.document().documentLayout()
            rect = layout.blockBoundingRect(block)
            fraction = (source.verticalScrollBar().value() - rect.top()) / max(rect.height(), 1.0)
            twin = target.document().findBlockByNumber(block.blockNumber())
            if twin.isValid():
                twin_rect = target.document().documentLayout().blockBoundingRect(twin)
                value = twin_rect.top() + max(0.0, min(fraction, 1.0)) * twin_rect.height()
                target.verticalScrollBar().setValue(round(value))
        finally:
            self._syncing = False

    def _sync_horizontal(self, target: QTextBrowser, value: int) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            target.horizontalScrollBar().setValue(value)
        finally:
            self._syncing = False
