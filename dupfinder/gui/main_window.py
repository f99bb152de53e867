"""The main window: scan panel on the left, results above, comparison below.

The window draws the app's state (``dupfinder.app.App``) and forwards the user's clicks to
it; it is the app's ``View``. Jobs run through a ``JobRunner``: by default one ``QThread`` per
job, in tests a synchronous runner. Closing the window cancels the running job and waits.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, QUrl, Slot
from PySide6.QtGui import (
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from dupfinder.app.controller import App, PlanReview
from dupfinder.app.enabled import Current
from dupfinder.app.i18n import translate
from dupfinder.app.jobs import ExportFormat, JobKind, JobRunner, ScanFunction
from dupfinder.app.list_status import ListState, Totals, totals_text, view_hint
from dupfinder.app.listing import Column
from dupfinder.app.scan_settings import FolderEntry
from dupfinder.core.actions import Action, ActionKind, ApplyReport
from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.undo import UndoReport
from dupfinder.core.model import Kind, Member, Progress
from dupfinder.core.results.decisions import DecisionStore
from dupfinder.core.scan import pipeline as scan
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.commands import KEEP_RULES, build_commands, build_menus, build_toolbar
from dupfinder.gui.dialogs import (
    AboutDialog,
    DecisionsDialog,
    HelpDialog,
    PlanDialog,
    ProblemsDialog,
    ReportDialog,
)
from dupfinder.gui.drops import accept_without_moving
from dupfinder.gui.file_preview import FileInfoPreview
from dupfinder.gui.icons import app_icon
from dupfinder.gui.image_preview import ImagePreview
from dupfinder.gui.latency import keep_window_responsive
from dupfinder.gui.media_preview import MediaPreview
from dupfinder.gui.results_model import ResultsModel
from dupfinder.gui.results_view import ResultsView
from dupfinder.gui.runner import ThreadRunner
from dupfinder.gui.scan_panel import ScanPanel
from dupfinder.gui.settings import Settings
from dupfinder.gui.similar_ui import SimilarBanner, SimilarSearch
from dupfinder.gui.text_preview import TextPreview
from dupfinder.gui.window_size import fit_to_screen

__all__ = ["MainWindow"]

#: Results with more groups than this open only their first groups (layout cost).
_EXPAND_ALL_LIMIT = 1_500
_EXPAND_FIRST = 200


class MainWindow(QMainWindow):
    """dupfinder's one window."""

    def __init__(
        self,
        settings: Settings | None = None,
        journal: Journal | None = None,
        decisions: DecisionStore | None = None,
        scan_function: ScanFunction = scan.run,
        runner: JobRunner | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings if settings is not None else Settings()
        self.runner = runner if runner is not None else ThreadRunner()
        self.app = App(self, self.runner, journal, decisions, scan_function)
        self._running = False
        self._current_path: str | None = None

        self.setWindowTitle("dupfinder")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.model = ResultsModel(self, self.app.listing, self.app.marks)
        self.model.keeper_reason = self.app.keeper_reason
        self.panel = ScanPanel()
        self.view = ResultsView(self.model)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText(translate("Window", "Filter by name or folder (Ctrl+F)"))
        self.filter.setAccessibleName(translate("Window", "Filter"))
        self.filter.setClearButtonEnabled(True)
        self.text_preview = TextPreview()
        self.image_preview = ImagePreview()
        self.file_preview = FileInfoPreview()
        self.media_preview = MediaPreview()
        self.preview_hint = QLabel(
            translate("Window", "Select a file to compare it with the file its group keeps.")
        )
        self.preview_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.preview_hint.setWordWrap(True)
        self.preview = QStackedWidget()
        for page in (self.preview_hint, self.text_preview, self.image_preview, self.file_preview):
            self.preview.addWidget(page)
        self.preview.addWidget(self.media_preview)
        self._build_layout()
        self.commands = build_commands(self)
        mark_menu = build_menus(self, self.commands)
        self.toolbar, self.mark_button = build_toolbar(self, self.commands, mark_menu)
        self.mark_menu = mark_menu
        self.similar = SimilarSearch(self, self.similar_banner)
        self._build_status_bar()
        self._connect()
        # the folders remembered before folders named on the command line replaced them
        self._remembered_folders: tuple[FolderEntry, ...] | None = None
        self._named_folders: tuple[FolderEntry, ...] = ()
        self._restore_settings()
        self.app.references = self.panel.reference_folders()
        self.state_changed()
        keep_window_responsive()

    # --- construction ----------------------------------------------------------------------

    @property
    def decisions(self) -> DecisionStore:
        return self.app.decisions

    @property
    def journal(self) -> Journal:
        return self.app.journal

    def _build_layout(self) -> None:
        results = QWidget()
        results_layout = QVBoxLayout(results)
        results_layout.setContentsMargins(0, 0, 0, 0)
        self.similar_banner = SimilarBanner()
        results_layout.addWidget(self.similar_banner)
        results_layout.addWidget(self.filter)
        results_layout.addWidget(self.view, 1)
        self.right_splitter = QSplitter(Qt.Orientation.Vertical)
        self.right_splitter.addWidget(results)
        self.right_splitter.addWidget(self.preview)
        self.right_splitter.setStretchFactor(0, 3)
        self.right_splitter.setStretchFactor(1, 2)
        self.right_splitter.setChildrenCollapsible(False)
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.addWidget(self.panel)
        self.main_splitter.addWidget(self.right_splitter)
        self.main_splitter.setStretchFactor(1, 1)
        self.main_splitter.setCollapsible(0, True)  # a small screen can hide the scan panel
        self.main_splitter.setCollapsible(1, False)
        self.main_splitter.setSizes([320, 960])
        self.right_splitter.setSizes([420, 300])
        self.setCentralWidget(self.main_splitter)

    def _build_status_bar(self) -> None:
        self.totals_label = QLabel()
        self.totals_label.setAccessibleName(translate("Window", "Totals"))
        self.problems_button = QPushButton()
        self.problems_button.setFlat(True)
        self.problems_button.setVisible(False)
        self.problems_button.setAccessibleName(translate("Window", "Files skipped by the scan"))
        self.problems_button.clicked.connect(self.show_problems)
        self.statusBar().addPermanentWidget(self.problems_button)
        self.statusBar().addPermanentWidget(self.totals_label)

    def _connect(self) -> None:
        c = self.commands
        app = self.app
        for action, slot in (
            (c.open, self.open_results),
            (c.save, self.save_results),
            (c.export_csv, lambda: self.export_results(ExportFormat.CSV)),
            (c.export_json, lambda: self.export_results(ExportFormat.JSON)),
            (c.settings, self.show_settings),
            (c.quit, self.close),
            (c.filter, self.focus_filter),
            (c.copy, self.copy_paths),
            (c.open_file, self.open_file),
            (c.open_folder, self.open_folder),
            (c.remove, self.remove_selected),
            (c.toggle, self.toggle_selected),
            (c.mark_all, app.mark_all),
            (c.mark_suggested, app.mark_suggested),
            (c.mark_none, app.mark_none),
            (c.invert, app.invert_marks),
            (c.mark_folder, self.mark_in_folder),
            (c.keep_this, self.keep_selected),
            (c.keep_reference, lambda: self.apply_keep_rule(None)),
            (c.trash, lambda: self.act_on_marked(Action(ActionKind.TRASH))),
            (c.move, self.move_marked),
            (c.hardlink, lambda: self.act_on_marked(Action(ActionKind.HARDLINK))),
            (c.symlink, lambda: self.act_on_marked(Action(ActionKind.SYMLINK))),
            (c.undo, self.undo_last),
            (c.not_pair, lambda: self.not_duplicate(member=False)),
            (c.not_member, lambda: self.not_duplicate(member=True)),
            (c.decisions, self.show_decisions),
            (c.similar, self.similar.search_current),
            (c.find_similar, self.similar.choose),
            (c.back, app.leave_similar),
            (c.expand, self.view.expandAll),
            (c.collapse, self.view.collapseAll),
            (c.next_group, lambda: self.step_group(1)),
            (c.previous_group, lambda: self.step_group(-1)),
            (c.help, self.show_help),
            (c.about, self.show_about),
        ):
            action.triggered.connect(lambda _checked=False, s=slot: s())
        for action, name in zip(c.rules, KEEP_RULES, strict=True):
            action.triggered.connect(lambda _checked=False, n=name: self.apply_keep_rule(n))
        c.show_panel.toggled.connect(self.show_panel)
        c.expert_column.toggled.connect(
            lambda on: self.view.setColumnHidden(Column.DIFFERENCE, not on)
        )
        self.main_splitter.splitterMoved.connect(self._splitter_moved)
        self.panel.scan_requested.connect(self.start_scan)
        self.panel.cancel_requested.connect(app.cancel)
        self.panel.settings_requested.connect(self.show_settings)
        self.panel.folders.folders_changed.connect(self._references_changed)
        self.view.toggle_requested.connect(self.toggle_selected)
        self.view.delete_requested.connect(c.trash.trigger)
        self.view.keep_requested.connect(self.keep_selected)
        self.view.doubleClicked.connect(self._double_clicked)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.view.selectionModel().selectionChanged.connect(lambda *_: self._update_actions())
        self.model.marks_changed.connect(self._update_status)
        self.model.marks_changed.connect(self._update_actions)
        self.model.layoutChanged.connect(self._update_view_hint)
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(200)
        self._filter_timer.timeout.connect(self._apply_filter)
        self.filter.textChanged.connect(lambda _text: self._filter_timer.start())

    # --- settings ---------------------------------------------------------------------------

    def _restore_settings(self) -> None:
        self.panel.set_state(self.settings.load_scan())
        geometry = self.settings.load_state("geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1280, 800)
        fit_to_screen(self)
        for name, restore in (
            ("state", self.restoreState),
            ("main_splitter", self.main_splitter.restoreState),
            ("right_splitter", self.right_splitter.restoreState),
            ("columns", self.view.header().restoreState),
        ):
            state = self.settings.load_state(name)
            if state is not None:
                restore(state)
        self.commands.show_panel.setChecked(self.main_splitter.sizes()[0] > 0)
        self.commands.expert_column.setChecked(not self.view.isColumnHidden(Column.DIFFERENCE))

    def open_folders(self, folders: Sequence[str]) -> bool:
        """Folders named on the command line (``dupfinder gui DIR``) are the ones listed and
        scanned, alone: the folders remembered from earlier runs are not added to them, and
        stay remembered unless the list is changed. False when none of them is a folder."""
        named = [os.path.abspath(folder) for folder in folders if os.path.isdir(folder)]
        if not named:
            return False
        self._remembered_folders = self.panel.folders.entries()
        self.panel.folders.clear()
        self.panel.add_folders(named)
        self._named_folders = self.panel.folders.entries()
        return True

    def save_settings(self) -> None:
        state = self.panel.state()
        if self._remembered_folders is not None and state.folders == self._named_folders:
            state = dataclasses.replace(state, folders=self._remembered_folders)
        self.settings.save_scan(state)
        self.settings.save_state("geometry", self.saveGeometry())
        self.settings.save_state("state", self.saveState())
        self.settings.save_state("main_splitter", self.main_splitter.saveState())
        self.settings.save_state("right_splitter", self.right_splitter.saveState())
        self.settings.save_state("columns", self.view.header().saveState())
        self.settings.sync()

    def show_settings(self) -> None:
        self.panel.open_settings(self)

    # --- the app's view ---------------------------------------------------------------------

    def ask(self, title: str, text: str) -> bool:
        return self._ask(title, text)

    def _ask(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self, title, text)
        return answer == QMessageBox.StandardButton.Yes

    def tell(self, title: str, text: str, warning: bool = False) -> None:
        icon = QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Information
        self._tell(title, text, icon)

    def _tell(
        self, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Information
    ) -> None:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.exec()

    def confirm_plan(self, review: PlanReview) -> bool:
        dialog = PlanDialog(review.plan, self, review.outside_view, review.numbers)
        return dialog.exec() == PlanDialog.DialogCode.Accepted

    def show_report(self, title: str, report: ApplyReport | UndoReport) -> None:
        self._show_report(ReportDialog(title, report, self))

    def _show_report(self, dialog: ReportDialog) -> None:
        dialog.exec()

    def show_message(self, text: str) -> None:
        self.panel.show_message(text)

    def show_progress(self, text: str, sample: Progress) -> None:
        self.panel.show_progress(text, sample)

    def result_about_to_load(self) -> None:
        current = self.model.member_at(self.view.currentIndex())
        self._current_path = current.path if current is not None else None
        self.model.begin_load()

    def result_loaded(self) -> None:
        self.model.end_load()
        errors = self.model.result().errors
        self.problems_button.setVisible(bool(errors))
        amount = len(errors)
        self.problems_button.setText(translate("Window", "%Ln file(s) skipped…", None, amount))
        self._expand_groups()
        self._update_status()
        self._update_view_hint()
        path = self._current_path
        target = self.model.index_of_path(path) if path is not None else QModelIndex()
        if target.isValid():
            self.view.setCurrentIndex(target)
            self.view.scrollTo(target)
        else:
            # Selecting makes the tree lay out every group at once; in a later turn of the
            # event loop that is a stall of its own instead of one added to the reset's.
            QTimer.singleShot(0, self._select_first_pair)
        self._current_changed(self.view.currentIndex())

    def marks_changed(self, changed: set[str]) -> None:
        self.model.announce(changed)
        self._current_changed(self.view.currentIndex())

    def state_changed(self) -> None:
        busy = self.app.busy()
        if busy != self._running:
            self._running = busy
            self.panel.set_running(busy)
        self._update_actions()
        self._update_view_hint()
        self._update_status()
        self.similar.update()

    # --- jobs -------------------------------------------------------------------------------

    def busy(self) -> bool:
        return self.app.busy()

    @Slot()
    def start_scan(self) -> None:
        try:
            options = self.panel.scan_options()
        except ValueError as exc:
            self.tell(translate("Window", "Cannot scan"), str(exc))
            return
        self.settings.save_scan(self.panel.state())
        self.app.scan(options, self.panel.reference_folders())

    @Slot()
    def cancel_job(self) -> None:
        self.app.cancel()

    @Slot()
    def _references_changed(self) -> None:
        self.app.set_references(self.panel.reference_folders())
        self._update_view_hint()

    # --- list -------------------------------------------------------------------------------

    def _expand_groups(self) -> None:
        """Open every group of a normal result; of a huge one only the first screenfuls.

        Laying out tens of thousands of expanded rows stalls the event loop for a quarter of
        a second; the rest open on demand (click, arrow keys, or View ▸ Expand all groups).
        """
        groups = self.model.rowCount()
        if groups <= _EXPAND_ALL_LIMIT:
            self.view.expandAll()
            return
        for row in range(_EXPAND_FIRST):
            self.view.setExpanded(self.model.index(row, 0), True)

    def _select_first_pair(self) -> None:
        if self.model.rowCount() == 0 or self.view.currentIndex().isValid():
            return
        first = self.model.index(0, 0)
        target = self.model.index(1, 0, first) if self.model.rowCount(first) > 1 else first
        self.view.setCurrentIndex(target)
        self.view.scrollTo(target)

    def step_group(self, step: int) -> None:
        """Select the second file of the next (or previous) group: the next pair to judge."""
        rows = self.model.rowCount()
        if not rows:
            return
        current = self.view.currentIndex()
        row = -1
        if current.isValid():
            row = current.row() if not current.parent().isValid() else current.parent().row()
        row = max(0, min(rows - 1, row + step if row >= 0 else 0))
        group = self.model.index(row, 0)
        self.view.setExpanded(group, True)
        target = self.model.index(1, 0, group)
        self.view.setCurrentIndex(target if target.isValid() else group)
        self.view.scrollTo(self.view.currentIndex())

    @Slot()
    def _apply_filter(self) -> None:
        if self.app.similar is not None:  # a search's one group is never filtered
            return
        current = self.model.member_at(self.view.currentIndex())
        self.model.set_filter(self.filter.text())
        self._expand_groups()
        # The filter resets the list: the file compared stays selected while it is shown,
        # and the comparison is cleared when the filter hides it.
        again = self.model.index_of_path(current.path) if current is not None else None
        if again is not None and again.isValid():
            self.view.setCurrentIndex(again)
        else:
            self._current_changed(self.view.currentIndex())
        self._update_status()
        self._update_view_hint()

    def focus_filter(self) -> None:
        self.filter.setFocus()
        self.filter.selectAll()

    def show_panel(self, visible: bool) -> None:
        sizes = self.main_splitter.sizes()
        total = sum(sizes)
        if visible and sizes[0] == 0:
            self.main_splitter.setSizes([min(320, total // 3), total - min(320, total // 3)])
        elif not visible and sizes[0] > 0:
            self.main_splitter.setSizes([0, total])

    def _splitter_moved(self, *_args: Any) -> None:
        shown = self.main_splitter.sizes()[0] > 0
        if shown != self.commands.show_panel.isChecked():
            self.commands.show_panel.setChecked(shown)

    # --- current row and preview ------------------------------------------------------------

    def current(self) -> Current:
        index = self.view.currentIndex()
        members = self._selected_members()
        return Current(self.model.group_position(index), self.model.member_at(index), len(members))

    @Slot(QModelIndex)
    def _current_changed(self, current: QModelIndex) -> None:
        g = self.model.group_position(current)
        if g is None:
            self.text_preview.clear()
            self.image_preview.clear()
            self.media_preview.clear()
            self.preview.setCurrentWidget(self.preview_hint)
            self._update_actions()
            return
        group = self.app.listing.groups[g]
        keeper = self.app.keeper(g)
        member = self.model.member_at(current)
        if member is None or member is keeper:
            member = next(m for m in group.members if m is not keeper)
        if group.kind in (Kind.AUDIO, Kind.VIDEO):  # tags, lengths, waveforms, frames
            self.preview.setCurrentWidget(self.media_preview)
            self.media_preview.show_group(group, keeper, member, self.app.keeper_reason(g))
            self._update_actions()
            return
        self.media_preview.clear()  # a clip playing stops with its group's preview
        if group.kind is Kind.TEXT:
            self.preview.setCurrentWidget(self.text_preview)
            self.text_preview.show_pair(keeper.path, member.path)
        elif group.kind is Kind.OTHER:
            self.preview.setCurrentWidget(self.file_preview)
            self.file_preview.show_pair(keeper, member)
        else:
            self.preview.setCurrentWidget(self.image_preview)
            edits = member.edits if keeper is group.members[0] else ()  # named against it
            self.image_preview.show_pair(keeper.path, member.path, edits)
        self._update_actions()

    # --- marks ------------------------------------------------------------------------------

    @Slot()
    def toggle_selected(self) -> None:
        self.app.toggle(
            [m.path for m in self._selected_members() if not self.model.is_protected(m.path)]
        )

    def apply_keep_rule(self, name: str | None) -> None:
        self.app.apply_keep_rule(name)

    def keep_selected(self) -> None:
        index = self.view.currentIndex()
        g, member = self.model.group_position(index), self.model.member_at(index)
        if g is not None and member is not None and not self.model.is_protected(member.path):
            self.app.make_keeper(g, member.path)

    def mark_in_folder(self) -> None:
        member = self.model.member_at(self.view.currentIndex())
        if member is not None:
            self.app.mark_in_folder(os.path.dirname(member.path))

    # --- actions ----------------------------------------------------------------------------

    def move_marked(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, translate("Window", "Move marked files to"), self.settings.last_directory()
        )
        if folder:
            self.settings.set_last_directory(folder)
            self.act_on_marked(Action(ActionKind.MOVE, os.path.abspath(folder)))

    def act_on_marked(self, action: Action) -> None:
        self.app.act(action, self.panel.folders.paths())

    def undo_last(self) -> None:
        self.app.undo()

    def not_duplicate(self, member: bool) -> None:
        index = self.view.currentIndex()
        g, chosen = self.model.group_position(index), self.model.member_at(index)
        if g is None or chosen is None or self.busy():
            return
        if member:
            self.app.not_duplicate_member(g, chosen)
        else:
            self.app.not_duplicate_pair(g, chosen)

    def show_decisions(self) -> None:
        dialog = DecisionsDialog(self.app.decisions_list(), self)
        if dialog.exec() == DecisionsDialog.DialogCode.Accepted and dialog.forget:
            self.app.forget_decisions(dialog.forget)

    def remove_selected(self) -> None:
        self.app.remove_from_results([m.path for m in self._selected_members()])

    # --- files ------------------------------------------------------------------------------

    def _selected_members(self) -> list[Member]:
        members = [self.model.member_at(i) for i in self.view.selected_rows()]
        found = [m for m in members if m is not None]
        if not found:
            current = self.model.member_at(self.view.currentIndex())
            found = [current] if current is not None else []
        return found

    def copy_paths(self) -> None:
        paths = [m.path for m in self._selected_members()]
        if paths:
            QGuiApplication.clipboard().setText("\n".join(paths))
            amount = len(paths)
            self.statusBar().showMessage(
                translate("Window", "Copied %Ln path(s).", None, amount), 3000
            )

    def open_file(self) -> None:
        for member in self._selected_members()[:10]:
            if not QDesktopServices.openUrl(QUrl.fromLocalFile(member.path)):
                self.statusBar().showMessage(
                    translate("Window", "No application opens {path}").format(path=member.path),
                    5000,
                )

    def open_folder(self) -> None:
        folders = dict.fromkeys(os.path.dirname(m.path) for m in self._selected_members())
        for folder in list(folders)[:10]:
            QDesktopServices.openUrl(QUrl.fromLocalFile(folder))

    @Slot(QModelIndex)
    def _double_clicked(self, index: QModelIndex) -> None:
        if self.model.member_at(index) is not None:
            self.open_file()

    def _context_menu(self, position: Any) -> None:
        menu = self.context_menu(position)
        if menu is not None:
            menu.exec(self.view.viewport().mapToGlobal(position))

    def context_menu(self, position: Any) -> QMenu | None:
        """The menu for the row at ``position`` in the list (None: no row there)."""
        if not self.view.indexAt(position).isValid():
            return None
        c = self.commands
        menu = QMenu(self)
        menu.addActions([c.open_file, c.open_folder, c.copy])
        menu.addSeparator()
        menu.addAction(c.similar)
        menu.addSeparator()
        menu.addActions([c.toggle, c.keep_this, c.mark_folder])
        menu.addSeparator()
        menu.addActions([c.not_pair, c.not_member, c.remove])
        return menu

    # --- save, load, export -----------------------------------------------------------------

    def _file_name(self, title: str, pattern: str, save: bool) -> str:
        start = self.settings.last_directory()
        if save:
            path, _ = QFileDialog.getSaveFileName(self, title, start, pattern)
        else:
            path, _ = QFileDialog.getOpenFileName(self, title, start, pattern)
        if path:
            self.settings.set_last_directory(os.path.dirname(path))
        return path

    def save_results(self, path: str | None = None) -> None:
        pattern = translate("Window", "dupfinder results (*.json)")
        path = path or self._file_name(translate("Window", "Save results"), pattern, save=True)
        if path:
            self.app.save(path)

    def open_results(self, path: str | None = None) -> None:
        pattern = translate("Window", "dupfinder results (*.json)")
        path = path or self._file_name(translate("Window", "Open results"), pattern, save=False)
        if path:
            self.app.references = self.panel.reference_folders()
            self.app.open(path)

    def export_results(self, fmt: ExportFormat, path: str | None = None) -> None:
        pattern = "CSV (*.csv)" if fmt is ExportFormat.CSV else "JSON (*.json)"
        path = path or self._file_name(translate("Window", "Export results"), pattern, save=True)
        if path:
            self.app.export(path, fmt)

    # --- small dialogs ----------------------------------------------------------------------

    def show_about(self) -> None:
        AboutDialog(self.windowIcon(), self).exec()

    def show_help(self) -> None:
        HelpDialog(self).exec()

    def show_problems(self) -> None:
        ProblemsDialog(self.model.result().errors, self).exec()

    # --- state ------------------------------------------------------------------------------

    def _update_view_hint(self) -> None:
        app = self.app
        groups = self.model.totals()[0] if app.has_result else 0
        hint = view_hint(
            ListState(
                scanning=app.job is JobKind.SCAN,
                has_result=app.has_result,
                folders_listed=self.panel.folders.topLevelItemCount() > 0,
                similar=app.similar,
                scan_found=app.scan_found,
                groups=groups,
                rows_shown=self.model.rowCount(),
            )
        )
        if hint != self.view.placeholder:  # a full repaint of a big tree costs tens of ms
            self.view.placeholder = hint
            self.view.viewport().update()

    @Slot()
    def _update_status(self) -> None:
        totals = None
        if self.app.has_result:
            groups, files, reclaim = self.model.totals()
            marks = self.model.marks()
            totals = Totals(
                groups=groups,
                files=files,
                reclaimable=reclaim,
                shown=self.model.visible_group_count(),
                marked=len(marks),
                marked_bytes=self.model.marked_bytes() if marks else 0,
            )
        self.totals_label.setText(totals_text(totals))

    @Slot()
    def _update_actions(self) -> None:
        enabled = self.app.enabled(self.current())
        self.commands.enable(enabled)
        self.mark_button.setEnabled(enabled.mark)
        offer = self.app.undo_offer()
        tip = translate("Window", "Nothing to undo")
        if offer is not None:
            amount = offer.files
            tip = translate("Window", "Put back %Ln file(s) of the last action", None, amount)
        self.commands.undo.setToolTip(tip)

    # --- window events ----------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            accept_without_moving(event)  # a copy or a link: a move deletes the originals
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            accept_without_moving(event)
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        """Folders join the folders to scan; a file: find files like it. The files are only
        read: the drop is a copy or a link, never a move."""
        offered = event.possibleActions()
        if not offered & (Qt.DropAction.CopyAction | Qt.DropAction.LinkAction):
            event.ignore()
            return
        paths = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        folders = [path for path in paths if os.path.isdir(path)]
        self.panel.add_folders(folders)
        if self.similar.dropped(paths) or folders:
            accept_without_moving(event)
        else:
            event.ignore()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        job = self.app.job
        if job is not None:
            question = (
                translate("Window", "A scan is running. Stop it and quit?")
                if job is JobKind.SCAN
                else translate("Window", "A task is running. Stop after the current file and quit?")
            )
            if not self._ask(translate("Window", "Quit dupfinder"), question):
                event.ignore()
                return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop every thread and save the settings: a running QThread at exit aborts."""
        self.runner.stop()
        self.text_preview.stop()
        self.image_preview.stop()
        self.media_preview.stop()
        self.model.thumbnails.stop()
        self.save_settings()
