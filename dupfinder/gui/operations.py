"""The jobs the window runs off the GUI thread, each a thin call into the core.

Each builder returns a ``JobFunction`` (progress sink and cancel event in, a value out) for
``dupfinder.gui.worker.Job``. Nothing here touches a widget, so every step can be tested and
timed without a window; nothing here re-implements the core either: scanning, decisions,
mark rules, plans, apply and undo are all the core's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dupfinder.core import scan
from dupfinder.core.actions import ApplyReport, Plan, apply
from dupfinder.core.decisions import DecisionStore, apply_decisions
from dupfinder.core.errors import ResultFormatError
from dupfinder.core.journal import Journal, UndoReport, undo
from dupfinder.core.marks import KeepRule, Selection, reference_folder, select
from dupfinder.core.model import Member, Progress, ScanOptions, ScanResult
from dupfinder.gui.results_model import PreparedResult, SortState, prepare
from dupfinder.gui.worker import JobFunction

__all__ = [
    "ScanFunction",
    "ScanOutcome",
    "apply_job",
    "mark_job",
    "protection",
    "reference_rules",
    "refresh_job",
    "scan_job",
    "undo_job",
]

ScanFunction = Callable[[ScanOptions, Callable[[Progress], None], threading.Event], ScanResult]


def reference_rules(folders: Sequence[str]) -> tuple[KeepRule, ...]:
    """One keep rule per reference folder: their files are always kept."""
    return tuple(reference_folder(folder) for folder in folders)


def protection(folders: Sequence[str]) -> Callable[[Member], bool] | None:
    """A predicate for members inside a reference folder (None when there are none)."""
    rules = reference_rules(folders)
    if not rules:
        return None
    return lambda member: any(rule.protects is not None and rule.protects(member) for rule in rules)


@dataclass(frozen=True, slots=True)
class ScanOutcome:
    """A finished scan, ready for the model; ``warning`` when decisions could not be read."""

    prepared: PreparedResult
    warning: str | None = None


def _visible(result: ScanResult, store: DecisionStore) -> tuple[ScanResult, str | None]:
    """The result minus what the user said is not a duplicate."""
    try:
        return apply_decisions(result, store.load()), None
    except ResultFormatError as exc:
        return result, f"Remembered decisions were not applied: {exc}"


def scan_job(
    options: ScanOptions,
    references: Sequence[str],
    store: DecisionStore,
    scan_function: ScanFunction = scan.run,
    sort: SortState | None = None,
) -> JobFunction:
    """The scan, with the result prepared (and sorted as the view shows it) off the GUI thread."""

    def job(progress: Callable[[Progress], None], cancel: threading.Event) -> ScanOutcome:
        result = scan_function(options, progress, cancel)
        visible, warning = _visible(result, store)
        return ScanOutcome(prepare(visible, protection(references), sort), warning)

    return job


def refresh_job(
    result: ScanResult,
    references: Sequence[str],
    store: DecisionStore,
    sort: SortState | None = None,
) -> JobFunction:
    """Re-apply decisions and reference folders to a result already shown (or loaded)."""

    def job(_progress: Callable[[Progress], None], _cancel: threading.Event) -> ScanOutcome:
        visible, warning = _visible(result, store)
        return ScanOutcome(prepare(visible, protection(references), sort), warning)

    return job


def mark_job(result: ScanResult, rules: Sequence[KeepRule]) -> JobFunction:
    """The selection a keep rule gives (reference folders first, so they always win)."""

    def job(_progress: Callable[[Progress], None], _cancel: threading.Event) -> Selection:
        return select(result, rules)

    return job


def apply_job(plan: Plan, journal: Journal | None) -> JobFunction:
    def job(progress: Callable[[Progress], None], cancel: threading.Event) -> ApplyReport:
        return apply(plan, journal=journal, progress=progress, cancel=cancel)

    return job


def undo_job(journal: Journal | None) -> JobFunction:
    def job(progress: Callable[[Progress], None], cancel: threading.Event) -> UndoReport:
        return undo(journal=journal, progress=progress, cancel=cancel)

    return job
