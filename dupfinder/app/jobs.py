"""The long steps the app runs off the GUI thread, each a thin call into the core.

A job is a function of a progress sink and a cancel event that returns a value. A
:class:`JobRunner` runs one: the desktop app's runner uses a ``QThread``, tests use
:class:`SyncRunner`, which calls it at once. Nothing here re-implements the core.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from dupfinder.app.listing import PreparedResult, SortKey, prepare
from dupfinder.core.actions import ApplyReport, Plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.marks import (
    KeepRule,
    applies,
    best_member,
    kept_members,
    reference_folder,
)
from dupfinder.core.actions.undo import UndoReport, undo
from dupfinder.core.errors import DupfinderError, ResultFormatError
from dupfinder.core.grouping.keeper import suggested
from dupfinder.core.model import Group, Member, Phase, Progress, ScanOptions, ScanResult
from dupfinder.core.results.decisions import DecisionStore, apply_decisions
from dupfinder.core.results.report import write_csv, write_json
from dupfinder.core.results.session import LoadedSession, load_session, save_session, without
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.scan.similar import Measure, measure_groups

__all__ = [
    "ExportFormat",
    "JobFunction",
    "JobKind",
    "JobRunner",
    "ProgressSink",
    "Rescored",
    "ScanFunction",
    "SyncRunner",
    "keep_job",
    "measure_job",
    "protection",
    "reference_rules",
    "shown",
    "with_suffix",
]

T = TypeVar("T")

#: Where a job reports how far it got.
ProgressSink = Callable[[Progress], None]
#: A job: gets a progress sink and a cancel event, returns the value handed to ``finished``
#: (``JobFunction[ApplyReport]`` hands an ``ApplyReport`` to a ``finished`` that takes one).
JobFunction = Callable[[ProgressSink, threading.Event], T]
ScanFunction = Callable[[ScanOptions, Callable[[Progress], None], threading.Event], ScanResult]


class JobKind(enum.Enum):
    """What is running: decides the words shown and whether closing needs a question."""

    SCAN = "scan"
    MARK = "mark"
    APPLY = "apply"
    UNDO = "undo"
    REFRESH = "refresh"
    SAVE = "save"
    OPEN = "open"
    EXPORT = "export"
    SIMILAR = "similar"  # find files like one document or picture
    MEASURE = "measure"  # measure groups against the keepers chosen instead of the suggested


class ExportFormat(enum.Enum):
    CSV = ".csv"
    JSON = ".json"


def with_suffix(path: str, suffix: str) -> str:
    """``path`` ending in ``suffix`` (added when the name has another or none)."""
    return path if path.lower().endswith(suffix) else path + suffix


class JobRunner(Protocol):
    """Runs one job; calls exactly one of ``finished``/``failed``, then ``done``."""

    def start(
        self,
        function: JobFunction[T],
        progress: ProgressSink,
        finished: Callable[[T], None],
        failed: Callable[[str], None],
        done: Callable[[], None],
    ) -> None: ...

    def cancel(self) -> None: ...

    def stop(self) -> None:
        """Cancel and wait for the job (the window is closing)."""


class SyncRunner:
    """Runs each job at once on the calling thread: for tests and scripts."""

    def __init__(self) -> None:
        self.cancel_event = threading.Event()
        self.started: list[JobFunction[object]] = []

    def start(
        self,
        function: JobFunction[T],
        progress: ProgressSink,
        finished: Callable[[T], None],
        failed: Callable[[str], None],
        done: Callable[[], None],
    ) -> None:
        self.cancel_event = threading.Event()
        self.started.append(function)
        try:
            value = function(progress, self.cancel_event)
        except (DupfinderError, OSError) as exc:
            failed(str(exc) or type(exc).__name__)
        else:
            finished(value)
        finally:
            done()

    def cancel(self) -> None:
        self.cancel_event.set()

    def stop(self) -> None:
        self.cancel_event.set()


# --- builders ----------------------------------------------------------------------------


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
class Rescored:
    """A result ready for the list: the raw scan, what the user sees after decisions, and
    ``warning`` when remembered decisions could not be read."""

    raw: ScanResult
    prepared: PreparedResult
    warning: str | None = None


def shown(
    raw: ScanResult,
    references: Sequence[str],
    store: DecisionStore,
    sort: SortKey | None,
    numbers: Mapping[str, int] | None,
) -> Rescored:
    """``raw`` as the list shows it: remembered decisions applied, reference folders locked,
    and each group's suggested keeper chosen again with the app's reference folders (among
    the copies with the representative's bytes) and the reasons it is kept."""
    try:
        visible, warning = apply_decisions(raw, store.load()), None
    except ResultFormatError as exc:
        visible, warning = raw, str(exc)
    folders = [os.path.realpath(folder) for folder in references]
    visible = dataclasses.replace(
        visible,
        groups=tuple(
            # without reference folders the scan's suggestion and reasons stand; a group
            # remade by a decision, or read from an older result, gets its reasons here
            suggested(group, folders) if folders or not group.reasons else group
            for group in visible.groups
        ),
    )
    return Rescored(raw, prepare(visible, protection(references), sort, numbers), warning)


def scan_job(
    options: ScanOptions,
    references: Sequence[str],
    store: DecisionStore,
    scan_function: ScanFunction = scan.run,
    sort: SortKey | None = None,
    numbers: Callable[[ScanResult], Mapping[str, int]] | None = None,
) -> JobFunction[Rescored]:
    """The scan, with the result prepared (and sorted as the list shows it) off the GUI thread."""

    def job(progress: Callable[[Progress], None], cancel: threading.Event) -> Rescored:
        raw = scan_function(options, progress, cancel)
        return shown(raw, references, store, sort, numbers(raw) if numbers else None)

    return job


def refresh_job(
    raw: ScanResult,
    references: Sequence[str],
    store: DecisionStore,
    sort: SortKey | None = None,
    numbers: Mapping[str, int] | None = None,
) -> JobFunction[Rescored]:
    """Re-apply decisions and reference folders to a result already shown (or loaded)."""

    def job(_progress: Callable[[Progress], None], _cancel: threading.Event) -> Rescored:
        return shown(raw, references, store, sort, numbers)

    return job


@dataclass(frozen=True, slots=True)
class Kept:
    """What a keep rule gives: the paths to mark, the member kept in each group it ranked,
    and how many groups it could not rank (they keep their keeper)."""

    marks: frozenset[str]
    keepers: dict[int, str]
    unranked: int = 0


def keep_job(
    groups: Sequence[tuple[int, Group]],
    rules: Sequence[KeepRule],
    current: Mapping[int, Member] | None = None,
) -> JobFunction[Kept]:
    """The marks a keep rule gives in ``groups`` ((position, group) pairs, the ones shown);
    a group the rule cannot rank keeps its ``current`` keeper (default: the suggested one)."""

    def job(_progress: Callable[[Progress], None], _cancel: threading.Event) -> Kept:
        marks: set[str] = set()
        keepers: dict[int, str] = {}
        unranked = 0
        for g, group in groups:
            now = (current or {}).get(g)
            kept = kept_members(group, rules, now)
            keep = {m.path for m in kept}
            if applies(group, rules):
                keepers[g] = best_member(group, rules, now).path
            else:
                unranked += 1
            marks.update(m.path for m in group.members if m.path not in keep)
        return Kept(frozenset(marks), keepers, unranked)

    return job


@dataclass(frozen=True, slots=True)
class Measured:
    """Group ``g``'s members measured against ``keeper``."""

    g: int
    keeper: str
    measures: tuple[Measure, ...]


def measure_job(
    wanted: Sequence[tuple[int, str, Sequence[str]]], options: ScanOptions
) -> JobFunction[list[Measured]]:
    """Each (position, keeper, other paths) measured as a scan measures a group against its
    representative (fingerprints from the cache where fresh)."""

    def job(_progress: Callable[[Progress], None], cancel: threading.Event) -> list[Measured]:
        found = measure_groups([(keeper, others) for _, keeper, others in wanted], options, cancel)
        return [
            Measured(g, keeper, measures)
            for (g, keeper, _), measures in zip(wanted, found, strict=True)
        ]

    return job


def _waiting(progress: Callable[[Progress], None]) -> Callable[[str], None]:
    """Another apply or undo holds the lock: say so where the progress shows (Cancel stops
    the wait; nothing is changed then)."""

    def tell(message: str) -> None:
        progress(Progress(Phase.APPLYING, 0, None, message))

    return tell


def apply_job(plan: Plan, journal: Journal | None) -> JobFunction[ApplyReport]:
    def job(progress: Callable[[Progress], None], cancel: threading.Event) -> ApplyReport:
        wait = _waiting(progress)
        return apply(plan, journal=journal, progress=progress, cancel=cancel, on_wait=wait)

    return job


def undo_job(journal: Journal | None, session: str | None) -> JobFunction[UndoReport]:
    def job(progress: Callable[[Progress], None], cancel: threading.Event) -> UndoReport:
        wait = _waiting(progress)
        return undo(session, journal=journal, progress=progress, cancel=cancel, on_wait=wait)

    return job


def save_job(path: str, result: ScanResult, marks: frozenset[str]) -> JobFunction[str]:
    def job(_progress: Callable[[Progress], None], _cancel: threading.Event) -> str:
        save_session(path, result, marks)
        return path

    return job


def export_job(path: str, result: ScanResult, fmt: ExportFormat) -> JobFunction[str]:
    def job(_progress: Callable[[Progress], None], _cancel: threading.Event) -> str:
        with open(path, "w", encoding="utf-8", newline="") as out:
            (write_csv if fmt is ExportFormat.CSV else write_json)(result, out)
        return path

    return job


def open_job(
    path: str | os.PathLike[str],
    references: Sequence[str],
    store: DecisionStore,
    sort: SortKey | None,
    numbers: Callable[[ScanResult], Mapping[str, int]] | None = None,
) -> JobFunction[tuple[Rescored, LoadedSession]]:
    def job(
        _progress: Callable[[Progress], None], _cancel: threading.Event
    ) -> tuple[Rescored, LoadedSession]:
        loaded = load_session(path)
        present = without(loaded.result, loaded.missing)
        nums = numbers(present) if numbers else None
        return shown(present, references, store, sort, nums), loaded

    return job
