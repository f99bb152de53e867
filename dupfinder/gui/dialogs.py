"""Dialogs: confirm a plan before acting, report what happened after, list problems, About.

Confirmation shows the plan itself (every file, where it goes, the bytes freed) rather than a
bare "Are you sure?", because a user who sees the list catches a wrong mark before it costs
data. The report puts failures and skips first, each with its reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dupfinder import __version__
from dupfinder.core.actions import ActionKind, ApplyReport, Plan
from dupfinder.core.journal import UndoReport
from dupfinder.core.model import ScanError
from dupfinder.core.report import format_size
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)

__all__ = [
    "AboutDialog",
    "OutcomeRow",
    "PlanDialog",
    "ProblemsDialog",
    "ReportDialog",
    "outcome_rows",
]

#: Longer lists are cut (with a note) so that a huge plan still opens instantly.
MAX_ROWS = 5000

_VERBS = {
    ActionKind.TRASH: ("Move to trash", "Move marked files to the trash?"),
    ActionKind.MOVE: ("Move", "Move marked files?"),
    ActionKind.HARDLINK: ("Replace with hard links", "Replace marked files with hard links?"),
    ActionKind.SYMLINK: ("Replace with symbolic links", "Replace marked files with links?"),
    ActionKind.DELETE: ("Delete permanently", "Delete marked files permanently?"),
}


def _table(headers: Sequence[str]) -> QTreeWidget:
    table = QTreeWidget()
    table.setHeaderLabels(list(headers))
    table.setRootIsDecorated(False)
    table.setUniformRowHeights(True)
    table.setAlternatingRowColors(True)
    table.header().setStretchLastSection(True)
    table.header().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return table


def _fill(table: QTreeWidget, rows: Iterable[Sequence[str]]) -> int:
    """Add up to MAX_ROWS rows; returns how many were left out."""
    items = []
    left_out = 0
    for row in rows:
        if len(items) >= MAX_ROWS:
            left_out += 1
            continue
        item = QTreeWidgetItem(list(row))
        for column, text in enumerate(row):
            item.setToolTip(column, text)
        items.append(item)
    table.addTopLevelItems(items)
    for column in range(table.columnCount() - 1):
        table.resizeColumnToContents(column)
        table.setColumnWidth(column, min(table.columnWidth(column), 520))
    return left_out


class PlanDialog(QDialog):
    """Shows a plan (files, destinations, bytes) and asks to go ahead."""

    def __init__(self, plan: Plan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan = plan
        button_text, title = _VERBS[plan.action.kind]
        self.setWindowTitle(title)
        files = plan.files
        heading = QLabel(
            f"<b>{len(files):,} file{'s' * (len(files) != 1)} · "
            f"{format_size(plan.bytes_reclaimed)}</b>"
        )
        text = QLabel(plan.confirmation_text())
        text.setWordWrap(True)
        headers = ["File", "Size"]
        if plan.action.kind is ActionKind.MOVE:
            headers.append("Moved to")
        elif plan.action.kind.links:
            headers.append("Link to")
        table = _table(headers)
        rows = []
        for item in files:
            row = [item.path, format_size(item.member.size)]
            if plan.action.kind is ActionKind.MOVE:
                row.append(item.dest or "")
            elif plan.action.kind.links:
                row.append(item.kept.path if item.kept else "")
            rows.append(row)
        left_out = _fill(table, rows)
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
            layout.addWidget(QLabel(f"… and {left_out:,} more files"))
        layout.addWidget(buttons)
        self.table = table
        self.resize(820, 480)


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
        parts = [f"{n:,} {status}" for status, n in sorted(counts.items())]
        if isinstance(report, ApplyReport):
            parts.append(f"{format_size(report.bytes_done)} freed")
            if report.cancelled:
                parts.append("cancelled")
        summary = QLabel("<b>" + (" · ".join(parts) or "nothing to do") + "</b>")
        self.problems = [r for r in self.rows if r.status in ("failed", "skipped")]
        note = QLabel(
            "Every file was handled."
            if not self.problems
            else "Files that were skipped or failed are listed first, with the reason."
        )
        table = _table(["Status", "File", "Reason"])
        _fill(table, [(r.status, r.path, r.reason) for r in self.rows])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addWidget(note)
        layout.addWidget(table, 1)
        layout.addWidget(buttons)
        self.table = table
        self.resize(820, 420)


class ProblemsDialog(QDialog):
    """Files the scan could not compare, and why."""

    def __init__(self, errors: Sequence[ScanError], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Files that could not be compared")
        table = _table(["File", "Problem"])
        left_out = _fill(table, [(e.path, e.error) for e in errors])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"{len(errors):,} files were skipped by the scan:"))
        layout.addWidget(table, 1)
        if left_out:
            layout.addWidget(QLabel(f"… and {left_out:,} more"))
        layout.addWidget(buttons)
        self.table = table
        self.resize(820, 420)


class AboutDialog(QDialog):
    def __init__(self, icon: QIcon, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About dupfinder")
        picture = QLabel()
        picture.setPixmap(icon.pixmap(96, 96))
        picture.setAlignment(Qt.AlignmentFlag.AlignTop)
        text = QLabel(
            f"<h2>dupfinder {__version__}</h2>"
            "<p>Finds near-duplicate documents and images: files that are almost the same, "
            "not only byte-identical copies.</p>"
            "<p>Text is compared by SimHash of its words, images by perceptual hashes; "
            "files are only ever moved to the trash (or where you choose) after you have "
            "seen the plan, and the last action can be undone.</p>"
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
