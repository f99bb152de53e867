"""The main window: scan panel on the left, results above, preview below.

The window only wires widgets to jobs: every long step (scan, mark rules, actions, undo,
save/load) runs as one ``Job`` at a time off the GUI thread, built by
``dupfinder.gui.operations``; the widgets react to the job's signals. Closing the window
cancels the running job and waits for its thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QSize, Qt, QTimer, QUrl, Slot
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
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
    QStyle,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from dupfinder.core import scan
from dupfinder.core.actions import Action, ActionKind, ApplyReport, make_plan
from dupfinder.core.decisions import DecisionStore
from dupfinder.core.errors import ActionError
from dupfinder.core.journal import Journal, UndoReport
from dupfinder.core.marks import parse_rule
from dupfinder.core.model import Kind, Member, ScanResult
from dupfinder.core.report import format_size, write_csv, write_json
from dupfinder.core.session import load_session, save_session, without
from dupfinder.gui import (
    operations,
    qtcompat,  # noqa: F401  (before any signal is emitted)
)
from dupfinder.gui.dialogs import AboutDialog, PlanDialog, ProblemsDialog, ReportDialog
from dupfinder.gui.icons import app_icon, themed
from dupfinder.gui.image_preview import ImagePreview
from dupfinder.gui.results_model import ResultsModel
from dupfinder.gui.results_view import ResultsView
from dupfinder.gui.scan_panel import ScanPanel
from dupfinder.gui.settings import Settings
from dupfinder.gui.text_preview import TextPreview
from dupfinder.gui.wording import count
from dupfinder.gui.worker import Job, JobFunction

__all__ = ["MainWindow"]

SP = QStyle.StandardPixmap
#: (menu text, core rule name) for the Mark menu; reference folders always come first.
KEEP_RULES = (
    ("Keep the oldest", "oldest"),
    ("Keep the newest", "newest"),
    ("Keep the largest", "largest"),
    ("Keep the smallest", "smallest"),
    ("Keep the highest resolution", "resolution"),
    ("Keep the shortest path", "shortest-path"),
)


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
        scan_function: operations.ScanFunction = scan.run,
    ) -> None:
        super().__init__()
        self.settings = settings if settings is not None else Settings()
        self.journal = journal
        self.decisions = decisions if decisions is not None else DecisionStore()
        self._scan_function = scan_function
        self._job: Job | None = None
        self._job_name = ""
        # (journal session, result and marks before it, paths it acted on), for undo.
        self._history: list[tuple[str, ScanResult, frozenset[str], frozenset[str]]] = []
        self._has_result = False

        self.setWindowTitle("dupfinder")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.model = ResultsModel(self)
        self.panel = ScanPanel()
        self.view = ResultsView(self.model)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by name or folder (Ctrl+F)")
        self.filter.setClearButtonEnabled(True)
        self.text_preview = TextPreview()
        self.image_preview = ImagePreview()
        self.preview_hint = QLabel("Select a file to compare it with its group's representative.")
        self.preview_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.preview_hint.setWordWrap(True)
        self.preview = QStackedWidget()
        for page in (self.preview_hint, self.text_preview, self.image_preview):
            self.preview.addWidget(page)
        self._build_layout()
        self._build_actions()
        self._build_menus_and_toolbar()
        self._build_status_bar()
        self._connect()
        self._restore_settings()
        self._update_view_hint()
        self._update_actions()

    # --- construction ----------------------------------------------------------------------

    def _build_layout(self) -> None:
        results = QWidget()
        results_layout = QVBoxLayout(results)
        results_layout.setContentsMargins(0, 0, 0, 0)
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
        self.main_splitter.setSizes([340, 940])
        self.right_splitter.setSizes([420, 300])
        self.setCentralWidget(self.main_splitter)

    def _action(
        self,
        text: str,
        slot: Callable[[], Any],
        shortcut: QKeySequence | str | None = None,
        icon: tuple[str, QStyle.StandardPixmap] | None = None,
        tip: str = "",
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if icon is not None:
            action.setIcon(themed(*icon))
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        a = self._action
        self.act_open = a("&Open results…", self.open_results, QKeySequence.StandardKey.Open)
        self.act_save = a("&Save results…", self.save_results, QKeySequence.StandardKey.Save)
        self.act_export_csv = a("Export as &CSV…", lambda: self.export_results("csv"))
        self.act_export_json = a("Export as &JSON…", lambda: self.export_results("json"))
        self.act_quit = a("&Quit", self.close, "Ctrl+Q")
        self.act_filter = a("&Filter…", self.focus_filter, QKeySequence.StandardKey.Find)
        self.act_copy = a("&Copy path", self.copy_paths, QKeySequence.StandardKey.Copy)
        self.act_open_file = a(
            "Open &file", self.open_file, "Ctrl+Return", ("document-open", SP.SP_FileIcon)
        )
        self.act_open_folder = a(
            "Open containing f&older",
            self.open_folder,
            "Ctrl+Shift+Return",
            ("folder-open", SP.SP_DirOpenIcon),
        )
        self.act_toggle = a("&Toggle mark", self.toggle_selected)
        # Space and Delete are handled by the results view (see ResultsView); the shortcuts
        # here only label the menu entries, their context never matches the window itself.
        self.act_toggle.setShortcut(QKeySequence("Space"))
        self.act_toggle.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.mark_actions = []
        for text, name in KEEP_RULES:
            self.mark_actions.append(a(text, lambda n=name: self.apply_keep_rule(n)))
        self.act_keep_reference = a(
            "Keep files in reference folders", lambda: self.apply_keep_rule(None)
        )
        self.act_clear_marks = a("&Clear marks", lambda: self.model.set_marks(()))
        self.act_trash = a(
            "Move marked to &trash",
            lambda: self.act_on_marked(Action(ActionKind.TRASH)),
            QKeySequence.StandardKey.Delete,
            ("user-trash", SP.SP_TrashIcon),
            "Send the marked files to the trash (after showing the plan)",
        )
        self.act_trash.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.act_move = a(
            "&Move marked to…",
            self.move_marked,
            None,
            ("go-next", SP.SP_ArrowForward),
            "Move the marked files to a folder, keeping their relative paths",
        )
        self.act_hardlink = a(
            "Replace with &hard links",
            lambda: self.act_on_marked(Action(ActionKind.HARDLINK)),
            None,
            ("insert-link", SP.SP_FileLinkIcon),
            "Replace each marked file with a hard link to the kept file of its group",
        )
        self.act_symlink = a(
            "Replace with &symbolic links",
            lambda: self.act_on_marked(Action(ActionKind.SYMLINK)),
        )
        self.act_undo = a(
            "&Undo last action",
            self.undo_last,
            QKeySequence.StandardKey.Undo,
            ("edit-undo", SP.SP_ArrowBack),
            "Put back the files of the last action (from the trash or where they were moved)",
        )
        self.act_not_pair = a(
            "Not a duplicate: this &pair",
            lambda: self.not_duplicate(group=False),
            None,
            ("list-remove", SP.SP_DialogNoButton),
            "Remember that the selected file is not a duplicate of its representative",
        )
        self.act_not_group = a(
            "Not a duplicate: this &group", lambda: self.not_duplicate(group=True)
        )
        self.act_about = a("&About dupfinder", self.show_about)

    def _build_menus_and_toolbar(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.act_open, self.act_save])
        file_menu.addSeparator()
        file_menu.addActions([self.act_export_csv, self.act_export_json])
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        edit_menu = bar.addMenu("&Edit")
        edit_menu.addActions([self.act_filter, self.act_copy])
        edit_menu.addSeparator()
        edit_menu.addActions([self.act_open_file, self.act_open_folder])
        self.mark_menu = bar.addMenu("&Mark")
        self.mark_menu.addActions(self.mark_actions)
        self.mark_menu.addAction(self.act_keep_reference)
        self.mark_menu.addSeparator()
        self.mark_menu.addActions([self.act_toggle, self.act_clear_marks])
        actions_menu = bar.addMenu("&Actions")
        actions_menu.addActions(
            [self.act_trash, self.act_move, self.act_hardlink, self.act_symlink]
        )
        actions_menu.addSeparator()
        actions_menu.addAction(self.act_undo)
        actions_menu.addSeparator()
        actions_menu.addActions([self.act_not_pair, self.act_not_group])
        view_menu = bar.addMenu("&View")
        view_menu.addAction("Expand all groups", self.view.expandAll)
        view_menu.addAction("Collapse all groups", self.view.collapseAll)
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.act_about)

        toolbar = QToolBar("Main")
        toolbar.setObjectName("main_toolbar")
        toolbar.setMovable(False)
        toolbar.setIconSize(QSize(18, 18))
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        mark_button = QToolButton()
        mark_button.setText("Mark")
        mark_button.setIcon(themed("object-select", SP.SP_DialogApplyButton))
        mark_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        mark_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        mark_button.setMenu(self.mark_menu)
        mark_button.setToolTip("Mark every file but one per group, by a rule")
        self.mark_button = mark_button
        toolbar.addWidget(mark_button)
        for action, short in (
            (self.act_trash, "Trash marked"),
            (self.act_move, "Move marked…"),
            (self.act_hardlink, "Replace with links"),
            (self.act_undo, "Undo"),
            (self.act_not_pair, "Not a duplicate"),
            (self.act_open_file, "Open"),
            (self.act_open_folder, "Show in folder"),
        ):
            action.setIconText(short)
        toolbar.addSeparator()
        toolbar.addActions([self.act_trash, self.act_move, self.act_hardlink])
        toolbar.addSeparator()
        toolbar.addAction(self.act_undo)
        toolbar.addSeparator()
        toolbar.addAction(self.act_not_pair)
        toolbar.addSeparator()
        toolbar.addActions([self.act_open_file, self.act_open_folder])
        self.addToolBar(toolbar)
        self.toolbar = toolbar

    def _build_status_bar(self) -> None:
        self.totals_label = QLabel()
        self.problems_button = QPushButton()
        self.problems_button.setFlat(True)
        self.problems_button.setVisible(False)
        self.problems_button.clicked.connect(self.show_problems)
        self.statusBar().addPermanentWidget(self.problems_button)
        self.statusBar().addPermanentWidget(self.totals_label)

    def _connect(self) -> None:
        self.panel.scan_requested.connect(self.start_scan)
        self.panel.cancel_requested.connect(self.cancel_job)
        self.panel.folders.folders_changed.connect(self._references_changed)
        self.view.toggle_requested.connect(self.toggle_selected)
        self.view.delete_requested.connect(self.act_trash.trigger)
        self.view.doubleClicked.connect(self._double_clicked)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.view.selectionModel().selectionChanged.connect(lambda *_: self._update_actions())
        self.model.marks_changed.connect(self._update_status)
        self.model.marks_changed.connect(self._update_actions)
        self.model.modelReset.connect(self._after_reset)
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
        for name, restore in (
            ("state", self.restoreState),
            ("main_splitter", self.main_splitter.restoreState),
            ("right_splitter", self.right_splitter.restoreState),
            ("columns", self.view.header().restoreState),
        ):
            state = self.settings.load_state(name)
            if state is not None:
                restore(state)

    def save_settings(self) -> None:
        self.settings.save_scan(self.panel.state())
        self.settings.save_state("geometry", self.saveGeometry())
        self.settings.save_state("state", self.saveState())
        self.settings.save_state("main_splitter", self.main_splitter.saveState())
        self.settings.save_state("right_splitter", self.right_splitter.saveState())
        self.settings.save_state("columns", self.view.header().saveState())
        self.settings.sync()

    # --- jobs -----------------------------------------------------------------------------------

    def busy(self) -> bool:
        return self._job is not None

    def _begin(self, name: str, function: JobFunction, on_finished: Callable[[Any], None]) -> bool:
        """Run one job; False (with a note in the status bar) when another one is running."""
        if self._job is not None:
            self.statusBar().showMessage(f"Wait for {self._job_name.lower()} to finish.", 4000)
            return False
        job = Job(function)
        job.progress.connect(self.panel.show_progress)
        job.finished.connect(on_finished)
        job.failed.connect(self._job_failed)
        job.done.connect(self._job_done)
        self._job = job
        self._job_name = name
        self.panel.set_running(True)
        self.panel.show_message(f"{name}…")
        self._update_actions()
        self._update_view_hint()
        job.start()
        return True

    @Slot()
    def cancel_job(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self.panel.show_message(f"Cancelling {self._job_name.lower()}…")

    @Slot(str)
    def _job_failed(self, message: str) -> None:
        self.panel.show_message(f"{self._job_name} failed: {message}")
        self._tell(f"{self._job_name} failed", message, QMessageBox.Icon.Warning)

    @Slot()
    def _job_done(self) -> None:
        self._job = None
        self.panel.set_running(False)
        self._update_actions()
        self._update_view_hint()

    # --- scanning -------------------------------------------------------------------------------

    @Slot()
    def start_scan(self) -> None:
        try:
            options = self.panel.scan_options()
        except ValueError as exc:
            self._tell("Cannot scan", str(exc).capitalize(), QMessageBox.Icon.Information)
            return
        self.settings.save_scan(self.panel.state())
        job = operations.scan_job(
            options,
            self.panel.reference_folders(),
            self.decisions,
            self._scan_function,
            self.model.sort_state(),
        )
        self._begin("Scan", job, self._scan_finished)

    @Slot(object)
    def _scan_finished(self, outcome: operations.ScanOutcome) -> None:
        result = outcome.prepared.result
        stats = result.stats
        if stats.cancelled:
            note = " The list still shows the previous results." if self._has_result else ""
            self.panel.show_message(
                f"Scan cancelled after {count(stats.files_seen, 'file')}.{note}"
            )
            return
        self._history.clear()
        self._show(outcome, marks=())
        groups, files, reclaim = self.model.totals()
        self.panel.show_message(
            f"Found {count(groups, 'group')} ({count(files, 'file')}, "
            f"{format_size(reclaim)} reclaimable) among {count(stats.files_seen, 'file')} "
            f"in {stats.seconds:.1f} s."
        )
        if outcome.warning:
            self.statusBar().showMessage(outcome.warning, 10000)
        # Selecting makes the tree lay out every group at once; in a later turn of the event
        # loop that is a stall of its own instead of one added to the model reset's.
        QTimer.singleShot(0, self._select_first_pair)

    def _show(self, outcome: operations.ScanOutcome, marks: frozenset[str] | tuple[()]) -> None:
        self._has_result = True
        self.model.set_prepared(outcome.prepared, marks)
        errors = outcome.prepared.result.errors
        self.problems_button.setVisible(bool(errors))
        self.problems_button.setText(f"{count(len(errors), 'file')} skipped…")

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
        if self.model.rowCount() == 0:
            return
        first = self.model.index(0, 0)
        target = self.model.index(1, 0, first) if self.model.rowCount(first) > 1 else first
        self.view.setCurrentIndex(target)
        self.view.scrollTo(target)

    @Slot()
    def _after_reset(self) -> None:
        self._expand_groups()
        self._update_status()
        self._update_view_hint()
        self._current_changed(self.view.currentIndex())

    @Slot()
    def _references_changed(self) -> None:
        """Reference flags lock members at once, without a rescan."""
        if self._has_result and not self.busy():
            marks = self.model.marks()
            self.model.set_protected(operations.protection(self.panel.reference_folders()))
            self.model.set_marks(marks)

    # --- preview --------------------------------------------------------------------------------

    @Slot(QModelIndex)
    def _current_changed(self, current: QModelIndex) -> None:
        group = self.model.group_at(current)
        if group is None:
            self.text_preview.clear()
            self.image_preview.clear()
            self.preview.setCurrentWidget(self.preview_hint)
            return
        member = self.model.member_at(current)
        representative = group.representative
        other = member if member is not None and member is not representative else group.members[1]
        if group.kind is Kind.TEXT:
            self.preview.setCurrentWidget(self.text_preview)
            self.text_preview.show_pair(representative.path, other.path)
        else:
            self.preview.setCurrentWidget(self.image_preview)
            self.image_preview.show_pair(representative.path, other.path)
        self._update_actions()

    # --- marks ----------------------------------------------------------------------------------

    @Slot()
    def toggle_selected(self) -> None:
        for index in self.view.selected_rows() or [self.view.currentIndex()]:
            self.model.toggle_mark(index)

    def apply_keep_rule(self, name: str | None) -> None:
        """Mark every member the rule does not keep (reference folders are always kept)."""
        rules = operations.reference_rules(self.panel.reference_folders())
        if name is not None:
            rules = (*rules, parse_rule(name))
        if not rules:
            self._tell(
                "No reference folder",
                "Tick “Reference” beside a folder first: its files are then always kept.",
                QMessageBox.Icon.Information,
            )
            return
        self._begin("Marking", operations.mark_job(self.model.result(), rules), self._marks_ready)

    @Slot(object)
    def _marks_ready(self, selection: frozenset[str]) -> None:
        self.model.set_marks(selection)
        self.panel.show_message(
            f"{count(len(selection), 'file')} marked ({format_size(self.model.marked_bytes())})."
        )

    # --- actions ---------------------------------------------------------------------------------

    def move_marked(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Move marked files to", self.settings.last_directory()
        )
        if folder:
            self.settings.set_last_directory(folder)
            self.act_on_marked(Action(ActionKind.MOVE, os.path.abspath(folder)))

    def act_on_marked(self, action: Action) -> None:
        """Plan → confirm (showing the plan) → apply off the GUI thread → report."""
        if self.busy():
            return
        marks = self.model.marks()
        if not marks:
            self._tell(
                "Nothing marked",
                "Tick the files to act on, or use the Mark menu to mark all but one per group.",
                QMessageBox.Icon.Information,
            )
            return
        try:
            plan = make_plan(self.model.result(), marks, action, roots=self.panel.folders.paths())
        except ActionError as exc:
            self._tell("Cannot do that", str(exc).capitalize(), QMessageBox.Icon.Warning)
            return
        dialog = PlanDialog(plan, self)
        if dialog.exec() != PlanDialog.DialogCode.Accepted:
            return
        before = (self.model.result(), marks)

        def finished(report: ApplyReport) -> None:
            self._action_finished(report, before)

        self._begin(
            str(action.kind).capitalize(), operations.apply_job(plan, self.journal), finished
        )

    def _action_finished(
        self, report: ApplyReport, before: tuple[ScanResult, frozenset[str]]
    ) -> None:
        done = {o.path for o in report.done}
        if done:
            self._history.append((report.session, *before, frozenset(done)))
            remaining = without(self.model.result(), done)
            self.model.set_result(remaining, self.model.marks() - done, self.model.protection())
        self.panel.show_message(
            f"{len(report.done):,} done, {len(report.skipped):,} skipped, "
            f"{len(report.failed):,} failed · {format_size(report.bytes_done)} freed."
        )
        self._show_report(ReportDialog("Action finished", report, self))

    def _show_report(self, dialog: ReportDialog) -> None:
        dialog.exec()

    def undo_last(self) -> None:
        if self.busy():
            return
        if not self._ask(
            "Undo last action",
            "Put the files of the last action back where they were?",
        ):
            return
        self._begin("Undo", operations.undo_job(self.journal), self._undo_finished)

    @Slot(object)
    def _undo_finished(self, report: UndoReport) -> None:
        if report.session is None:
            self.panel.show_message("Nothing to undo.")
            self._tell("Nothing to undo", "No action with files to restore was found.")
            return
        restored = {o.path for o in report.restored}
        if self._history and self._history[-1][0] == report.session:
            _, previous, marks, acted_on = self._history.pop()
            gone = acted_on - restored  # still in the trash or moved: keep them out of the list
            self.model.set_result(
                without(previous, gone), marks - acted_on, self.model.protection()
            )
        self.panel.show_message(
            f"Undo: {len(report.restored):,} restored, {len(report.problems):,} problems."
        )
        self._show_report(ReportDialog("Undo finished", report, self))

    def not_duplicate(self, group: bool) -> None:
        index = self.view.currentIndex()
        chosen = self.model.group_at(index)
        if chosen is None or self.busy():
            return
        if group:
            self.decisions.ignore_group(chosen)
        else:
            member = self.model.member_at(index)
            if member is None or member is chosen.representative:
                self.statusBar().showMessage(
                    "Select a file other than the representative to split off a pair.", 5000
                )
                return
            self.decisions.ignore_pair(chosen.representative, member)
        marks = self.model.marks()
        job = operations.refresh_job(
            self.model.result(),
            self.panel.reference_folders(),
            self.decisions,
            self.model.sort_state(),
        )
        self._begin("Updating", job, lambda outcome: self._show(outcome, marks))

    # --- files ------------------------------------------------------------------------------------

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
            self.statusBar().showMessage(f"Copied {count(len(paths), 'path')}.", 3000)

    def open_file(self) -> None:
        for member in self._selected_members()[:10]:
            if not QDesktopServices.openUrl(QUrl.fromLocalFile(member.path)):
                self.statusBar().showMessage(f"No application opens {member.path}", 5000)

    def open_folder(self) -> None:
        folders = dict.fromkeys(os.path.dirname(m.path) for m in self._selected_members())
        for folder in list(folders)[:10]:
            QDesktopServices.openUrl(QUrl.fromLocalFile(folder))

    @Slot(QModelIndex)
    def _double_clicked(self, index: QModelIndex) -> None:
        if self.model.member_at(index) is not None:
            self.open_file()

    def _context_menu(self, position: Any) -> None:
        if not self.view.indexAt(position).isValid():
            return
        menu = QMenu(self)
        menu.addActions([self.act_open_file, self.act_open_folder, self.act_copy])
        menu.addSeparator()
        menu.addAction(self.act_toggle)
        menu.addSeparator()
        menu.addActions([self.act_not_pair, self.act_not_group])
        menu.exec(self.view.viewport().mapToGlobal(position))

    # --- save, load, export ------------------------------------------------------------------------

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
        path = path or self._file_name("Save results", "dupfinder results (*.json)", save=True)
        if not path:
            return
        result, marks = self.model.result(), self.model.marks()

        def job(_progress: Any, _cancel: Any) -> str:
            save_session(path, result, marks)
            return path

        self._begin("Saving", job, lambda p: self.panel.show_message(f"Saved to {p}."))

    def open_results(self, path: str | None = None) -> None:
        path = path or self._file_name("Open results", "dupfinder results (*.json)", save=False)
        if not path:
            return
        references = self.panel.reference_folders()
        decisions = self.decisions
        sort = self.model.sort_state()

        def job(progress: Any, cancel: Any) -> tuple[operations.ScanOutcome, Any]:
            loaded = load_session(path)
            present = without(loaded.result, loaded.missing)
            refresh = operations.refresh_job(present, references, decisions, sort)
            return refresh(progress, cancel), loaded

        self._begin("Opening", job, self._results_opened)

    def _results_opened(self, payload: tuple[operations.ScanOutcome, Any]) -> None:
        outcome, loaded = payload
        self._history.clear()
        self._show(outcome, frozenset(loaded.marks - loaded.missing))
        notes = []
        if loaded.missing:
            notes.append(f"{count(len(loaded.missing), 'file')} gone, left out")
        if loaded.changed:
            notes.append(
                f"{len(loaded.changed):,} changed since the scan (actions will skip them; "
                "scan again to refresh)"
            )
        groups, files, _ = self.model.totals()
        text = f"Opened {count(groups, 'group')} ({count(files, 'file')})."
        if notes:
            text += " " + "; ".join(notes).capitalize() + "."
        self.panel.show_message(text)
        self._select_first_pair()

    def export_results(self, kind: str, path: str | None = None) -> None:
        pattern = "CSV (*.csv)" if kind == "csv" else "JSON (*.json)"
        path = path or self._file_name("Export results", pattern, save=True)
        if not path:
            return
        result = self.model.result()

        def job(_progress: Any, _cancel: Any) -> str:
            with open(path, "w", encoding="utf-8", newline="") as out:
                (write_csv if kind == "csv" else write_json)(result, out)
            return path

        self._begin("Exporting", job, lambda p: self.panel.show_message(f"Exported to {p}."))

    # --- small dialogs ------------------------------------------------------------------------------

    def _ask(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self, title, text)
        return answer == QMessageBox.StandardButton.Yes

    def _tell(
        self, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Information
    ) -> None:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.exec()

    def show_about(self) -> None:
        AboutDialog(self.windowIcon(), self).exec()

    def show_problems(self) -> None:
        ProblemsDialog(self.model.result().errors, self).exec()

    def focus_filter(self) -> None:
        self.filter.setFocus()
        self.filter.selectAll()

    @Slot()
    def _apply_filter(self) -> None:
        self.model.set_filter(self.filter.text())

    # --- state ----------------------------------------------------------------------------------

    def _update_view_hint(self) -> None:
        if self._job_name == "Scan" and self.busy() and self.model.rowCount() == 0:
            hint = "Scanning… the groups appear here when the scan is done."
        elif not self._has_result:
            hint = "Add folders on the left, then press Scan."
        elif self.model.totals()[0] == 0:
            hint = "No near-duplicates found."
        elif self.model.rowCount() == 0:
            hint = "No group matches the filter."
        else:
            hint = ""
        if hint != self.view.placeholder:  # a full repaint of a big tree costs tens of ms
            self.view.placeholder = hint
            self.view.viewport().update()

    @Slot()
    def _update_status(self) -> None:
        groups, files, reclaim = self.model.totals()
        marks = self.model.marks()
        text = f"{count(groups, 'group')} · {count(files, 'file')} · {format_size(reclaim)} reclaimable"
        shown = self.model.visible_group_count()
        if shown != groups:
            text = f"showing {shown:,} of " + text
        if marks:
            text += f" · {len(marks):,} marked ({format_size(self.model.marked_bytes())})"
        self.totals_label.setText(text if self._has_result else "")

    @Slot()
    def _update_actions(self) -> None:
        busy = self.busy()
        has_groups = self.model.totals()[0] > 0
        marked = bool(self.model.marks())
        current = self.view.currentIndex()
        member = self.model.member_at(current)
        group = self.model.group_at(current)
        for action in (*self.mark_actions, self.act_keep_reference, self.act_clear_marks):
            action.setEnabled(has_groups and not busy)
        self.mark_button.setEnabled(has_groups and not busy)
        for action in (self.act_trash, self.act_move, self.act_hardlink, self.act_symlink):
            action.setEnabled(marked and not busy)
        self.act_undo.setEnabled(not busy)
        self.act_not_pair.setEnabled(
            not busy
            and group is not None
            and member is not None
            and member is not group.representative
        )
        self.act_not_group.setEnabled(not busy and group is not None)
        for action in (self.act_open_file, self.act_open_folder, self.act_copy, self.act_toggle):
            action.setEnabled(member is not None)
        for action in (self.act_save, self.act_export_csv, self.act_export_json):
            action.setEnabled(self._has_result and not busy)
        self.act_open.setEnabled(not busy)

    # --- window events ---------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        folders = [
            url.toLocalFile()
            for url in event.mimeData().urls()
            if url.isLocalFile() and os.path.isdir(url.toLocalFile())
        ]
        self.panel.add_folders(folders)
        if folders:
            event.acceptProposedAction()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if self._job is not None:
            question = (
                "A scan is running. Stop it and quit?"
                if self._job_name == "Scan"
                else f"{self._job_name} is running. Stop after the current file and quit?"
            )
            if not self._ask("Quit dupfinder", question):
                event.ignore()
                return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop every thread and save the settings: a running QThread at exit aborts."""
        if self._job is not None:
            self._job.stop()
        self.text_preview.stop()
        self.image_preview.stop()
        self.save_settings()
