"""Dialogs: confirm a plan before acting, report what happened after, list problems and
remembered decisions, help, About.

Confirmation shows the plan itself, group by group: the file each group keeps, then the files
acted on, rather than a bare "Are you sure?", because a user who sees the list catches a wrong
mark before it costs data. The report puts failures and skips first, each with its reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QIcon
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dupfinder import __version__
from dupfinder.app.i18n import translate
from dupfinder.app.wording import (
    left_alone,
    link_target_text,
    plan_heading,
    plan_text,
    status_text,
)
from dupfinder.core.actions import ActionKind, ApplyReport, Plan
from dupfinder.core.actions.undo import UndoReport
from dupfinder.core.model import ScanError
from dupfinder.core.results.decisions import Decision, DecisionKind
from dupfinder.core.wording import format_size
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)

__all__ = [
    "AboutDialog",
    "DecisionsDialog",
    "HelpDialog",
    "OutcomeRow",
    "PlanDialog",
    "ProblemsDialog",
    "ReportDialog",
    "outcome_rows",
]

#: Longer lists are cut (with a note) so that a huge plan still opens instantly.
MAX_ROWS = 5000


def _verbs(kind: ActionKind) -> tuple[str, str]:
    """(button, window title) for an action."""
    verbs = {
        ActionKind.TRASH: (
            translate("Dialogs", "Move to trash"),
            translate("Dialogs", "Move marked files to the trash?"),
        ),
        ActionKind.MOVE: (
            translate("Dialogs", "Move"),
            translate("Dialogs", "Move marked files?"),
        ),
        ActionKind.HARDLINK: (
            translate("Dialogs", "Replace with hard links"),
            translate("Dialogs", "Replace marked files with hard links?"),
        ),
        ActionKind.SYMLINK: (
            translate("Dialogs", "Replace with symbolic links"),
            translate("Dialogs", "Replace marked files with links?"),
        ),
        ActionKind.DELETE: (
            translate("Dialogs", "Delete permanently"),
            translate("Dialogs", "Delete marked files permanently?"),
        ),
    }
    return verbs[kind]


def _table(headers: Sequence[str], name: str) -> QTreeWidget:
    table = QTreeWidget()
    table.setHeaderLabels(list(headers))
    table.setAccessibleName(name)
    table.setUniformRowHeights(True)
    table.setAlternatingRowColors(True)
    table.setRootIsDecorated(False)
    table.header().setStretchLastSection(True)
    table.header().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return table


def _item(row: Sequence[str]) -> QTreeWidgetItem:
    item = QTreeWidgetItem(list(row))
    for column, text in enumerate(row):
        item.setToolTip(column, text)
    return item


def _fill(table: QTreeWidget, rows: Iterable[Sequence[str]]) -> int:
    """Add up to MAX_ROWS rows; returns how many were left out."""
    items: list[QTreeWidgetItem] = []
    left_out = 0
    for row in rows:
        if len(items) >= MAX_ROWS:
            left_out += 1
            continue
        items.append(_item(row))
    table.addTopLevelItems(items)
    _fit_columns(table)
    return left_out


def _fit_columns(table: QTreeWidget) -> None:
    for column in range(table.columnCount() - 1):
        table.resizeColumnToContents(column)
        table.setColumnWidth(column, min(table.columnWidth(column), 520))


def _more(left_out: int) -> QLabel:
    return QLabel(translate("Dialogs", "… and %Ln more file(s)", None, left_out))


class PlanDialog(QDialog):
    """Shows a plan group by group (the kept file, then the files acted on) and asks."""

    def __init__(
        self,
        plan: Plan,
        parent: QWidget | None = None,
        outside_view: int = 0,
        numbers: Sequence[int] | None = None,
    ) -> None:
        super().__init__(parent)
        self.plan = plan
        kind = plan.action.kind
        button_text, title = _verbs(kind)
        self.setWindowTitle(title)
        heading = QLabel(f"<b>{plan_heading(plan)}</b>")
        text = QLabel(plan_text(plan, outside_view))
        text.setWordWrap(True)
        headers = [translate("Dialogs", "File"), translate("Dialogs", "Size")]
        if kind is ActionKind.MOVE:
            headers.append(translate("Dialogs", "Moved to"))
        elif kind.links:
            headers.append(translate("Dialogs", "Link to"))
        table = _table(headers, translate("Dialogs", "Plan"))
        table.setRootIsDecorated(True)
        bold = QFont()
        bold.setBold(True)
        shown = 0
        left_out = 0
        groups = []
        skipped = left_alone(plan)
        for group in plan.groups:
            if not group.act:
                continue
            if shown >= MAX_ROWS:
                left_out += len(group.act)
                continue
            number = numbers[group.index] if numbers is not None else group.index + 1
            kept = ", ".join(m.path for m in group.keep)
            parent_item = _item(
                [
                    translate("Dialogs", "Group {number} keeps {path}").format(
                        number=number, path=kept
                    )
                ]
            )
            parent_item.setFont(0, bold)
            for item in group.act:
                row = [item.path, format_size(item.member.size)]
                if kind is ActionKind.MOVE:
                    row.append(item.dest or "")
                elif kind.links:
                    row.append(link_target_text(plan, item))
                child = _item(row)
                if item.path in skipped:  # shown, greyed: apply will not link it
                    for column in range(len(row)):
                        child.setForeground(column, self.palette().placeholderText())
                parent_item.addChild(child)
                shown += 1
            groups.append(parent_item)
        table.addTopLevelItems(groups)
        for parent_item in groups:  # spanning works only once the item is in the tree
            parent_item.setFirstColumnSpanned(True)
        table.expandAll()
        _fit_columns(table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.addButton(button_text, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(text)
        layout.addWidget(table, 1)
        if left_out:
            layout.addWidget(_more(left_out))
        layout.addWidget(buttons)
        self.table = table
        self.text = text
        self.resize(820, 480)

    def planned_paths(self) -> list[str]:
        """The files listed, in order (for tests and screen readers)."""
        paths: list[str] = []
        for i in range(self.table.topLevelItemCount()):
            group = self.table.topLevelItem(i)
            children = (group.child(j) for j in range(group.childCount())) if group else ()
            paths.extend(child.text(0) for child in children if child is not None)
        return paths


@dataclass(frozen=True, slots=True)
class OutcomeRow:
    path: str
    status: str
    reason: str = ""


_ORDER = {"failed": 0, "skipped": 1}


def outcome_rows(report: ApplyReport | UndoReport) -> list[OutcomeRow]:
    """Per-file rows of a report, problems first."""
    rows = [OutcomeRow(o.path, o.status, o.reason or "") for o in report.outcomes]
    rows.sort(key=lambda r: _ORDER.get(r.status, 2))
    return rows


class ReportDialog(QDialog):
    """What an action or an undo did: counts, then a row per file with the reason."""

    def __init__(
        self, title: str, report: ApplyReport | UndoReport, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.rows = outcome_rows(report)
        counts: dict[str, int] = {}
        for row in self.rows:
            counts[row.status] = counts.get(row.status, 0) + 1
        parts = [status_text(status, n) for status, n in sorted(counts.items())]
        if getattr(report, "cancelled", False):
            parts.append(translate("Dialogs", "stopped"))
        nothing = translate("Dialogs", "nothing to do")
        self.summary = QLabel("<b>" + (" · ".join(parts) or nothing) + "</b>")
        self.problems = [r for r in self.rows if r.status in ("failed", "skipped")]
        note = QLabel(
            translate("Dialogs", "Every file was handled.")
            if not self.problems
            else translate(
                "Dialogs", "Files that were skipped or failed are listed first, with the reason."
            )
        )
        table = _table(
            [
                translate("Dialogs", "Status"),
                translate("Dialogs", "File"),
                translate("Dialogs", "Reason"),
            ],
            translate("Dialogs", "Files"),
        )
        _fill(table, [(status_text(r.status), r.path, r.reason) for r in self.rows])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(note)
        layout.addWidget(table, 1)
        layout.addWidget(buttons)
        self.table = table
        self.resize(820, 420)


class ProblemsDialog(QDialog):
    """Files the scan could not compare, and why."""

    def __init__(self, errors: Sequence[ScanError], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("Dialogs", "Files that could not be compared"))
        table = _table(
            [translate("Dialogs", "File"), translate("Dialogs", "Problem")],
            translate("Dialogs", "Files"),
        )
        left_out = _fill(table, [(e.path, e.error) for e in errors])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        amount = len(errors)
        layout.addWidget(
            QLabel(translate("Dialogs", "%Ln file(s) skipped by the scan:", None, amount))
        )
        layout.addWidget(table, 1)
        if left_out:
            layout.addWidget(_more(left_out))
        layout.addWidget(buttons)
        self.table = table
        self.resize(820, 420)


def decision_text(decision: Decision) -> str:
    """What a remembered decision says, in words."""
    paths = decision.paths
    first = paths[0] if paths else "?"
    if decision.kind is DecisionKind.PAIR:
        other = paths[1] if len(paths) > 1 else "?"
        return translate("Dialogs", "{a} is not a duplicate of {b}").format(a=first, b=other)
    if decision.kind is DecisionKind.MEMBER:
        amount = len(decision.against)
        return translate(
            "Dialogs",
            "{a} is not a duplicate of %Ln other file(s)",
            None,
            amount,
        ).format(a=first)
    amount = len(paths)
    return translate("Dialogs", "Group of %Ln file(s) hidden (with {a})", None, amount).format(
        a=first
    )


class DecisionsDialog(QDialog):
    """The remembered "not a duplicate" decisions; forget the selected ones to see their
    groups again. ``forget`` holds the chosen positions after ``exec()``."""

    def __init__(self, decisions: Sequence[Decision], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("Dialogs", "Remembered decisions"))
        self.forget: list[int] = []
        self.table = _table(
            [translate("Dialogs", "Decision"), translate("Dialogs", "When")],
            translate("Dialogs", "Remembered decisions"),
        )
        self.table.setSelectionMode(QTreeWidget.SelectionMode.ExtendedSelection)
        _fill(self.table, [(decision_text(d), d.time[:16].replace("T", " ")) for d in decisions])
        note = QLabel(
            translate(
                "Dialogs",
                "Files you said are not duplicates stay apart in every scan, even after a "
                "rename. Forget a decision to see them grouped again.",
            )
            if decisions
            else translate("Dialogs", "No decision is remembered.")
        )
        note.setWordWrap(True)
        self.forget_button = QPushButton(translate("Dialogs", "Forget selected"))
        self.forget_button.clicked.connect(self._forget_selected)
        self.forget_all_button = QPushButton(translate("Dialogs", "Forget all"))
        self.forget_all_button.clicked.connect(self._forget_all)
        self.forget_all_button.setEnabled(bool(decisions))
        self.forget_button.setEnabled(False)
        self.table.itemSelectionChanged.connect(
            lambda: self.forget_button.setEnabled(bool(self.table.selectedItems()))
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.forget_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.forget_all_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(760, 380)

    def _forget_selected(self) -> None:
        table = self.table
        self.forget = sorted(table.indexOfTopLevelItem(i) for i in table.selectedItems())
        self.accept()

    def _forget_all(self) -> None:
        self.forget = list(range(self.table.topLevelItemCount()))
        self.accept()


def help_html() -> str:
    return translate(
        "Dialogs",
        "<h3>Finding near-duplicates</h3>"
        "<p>Add folders on the left (or drop them there) and press <b>Scan</b>. Tick "
        "<b>Reference</b> beside a folder whose files must always be kept. "
        "<b>More settings…</b> has hidden files, links, size limits and rotated pictures.</p>"
        "<h3>Reading the results</h3>"
        "<p>Each group holds files that are nearly the same; <b>Similarity</b> says how "
        "alike. The <b>bold</b> file is the one the group keeps: press <b>K</b> (or "
        "right-click ▸ Keep this file) to keep another. Select a file to compare it with the "
        "kept one below. <b>Alt+Down</b> and <b>Alt+Up</b> go to the next and previous "
        "group.</p>"
        "<h3>Marking and acting</h3>"
        "<p>Tick files (or press <b>Space</b>) to mark them, or use the <b>Mark</b> menu: a "
        "rule, all but the kept file, none, inverted, or every file in a folder. Rules act on "
        "the groups shown by the filter. <b>Trash marked</b> (Delete) shows the plan first, "
        "group by group; <b>Undo</b> (Ctrl+Z) puts the files back.</p>"
        "<h3>Not a duplicate</h3>"
        "<p>Tell dupfinder that a file is not a duplicate of the kept file, or take it out "
        "of its group: it is remembered for later scans. Actions ▸ Remembered decisions "
        "lists them and can forget them.</p>",
    ) + translate(
        "Dialogs",
        "<h3>Files like this one</h3>"
        "<p>Right-click a document or picture ▸ <b>Find files like this</b> (Ctrl+L), drop a "
        "file on the window, or choose one with Edit ▸ <b>Find files like…</b>. dupfinder "
        "searches the folders listed on the left (when none are listed, the folders of the "
        "last scan) and lists the files like it, most similar first, as one group that keeps "
        "your file. Compare, mark and trash them as usual; <b>Back to the scan results</b> "
        "(Alt+Left) brings the scan's list back.</p>",
    )


class HelpDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("Dialogs", "dupfinder help"))
        self.text = QTextBrowser()
        self.text.setAccessibleName(translate("Dialogs", "Help"))
        self.text.setHtml(help_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.resize(620, 520)


class AboutDialog(QDialog):
    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("Dialogs", "About dupfinder"))
        picture = QLabel()
        picture.setPixmap(icon.pixmap(96, 96))
        picture.setAlignment(Qt.AlignmentFlag.AlignTop)
        picture.setAccessibleName(translate("Dialogs", "dupfinder icon"))
        text = QLabel(
            f"<h2>dupfinder {__version__}</h2>"
            + translate(
                "Dialogs",
                "<p>Finds near-duplicate documents and images: files that are almost the "
                "same, not only byte-identical copies.</p>"
                "<p>Files are only ever moved to the trash (or where you choose) after you "
                "have seen the plan, and the last action can be undone.</p>",
            )
        )
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        row = QHBoxLayout()
        row.addWidget(picture)
        row.addWidget(text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(buttons)
        self.text = text
        self.resize(480, 220)
