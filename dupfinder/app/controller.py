"""The app: one result, its marks and keepers, one job at a time, undo, and what is enabled.

The window is a :class:`View`: it asks, tells and redraws when the app says so. Every user
step is a method here, so tests drive the app with a fake view and a synchronous runner.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from dupfinder.app.enabled import Current, Enabled, compute_enabled
from dupfinder.app.history import History, UndoEntry, UndoOffer
from dupfinder.app.i18n import translate
from dupfinder.app.jobs import (
    ExportFormat,
    JobFunction,
    JobKind,
    JobRunner,
    Kept,
    Measured,
    Rescored,
    ScanFunction,
    apply_job,
    export_job,
    keep_job,
    measure_job,
    open_job,
    reference_rules,
    refresh_job,
    save_job,
    scan_job,
    undo_job,
    with_suffix,
)
from dupfinder.app.keeping import carried, keeper_text, measured_directly, rule_title
from dupfinder.app.listing import Listing, PreparedResult, SortKey, group_numbers, prepare
from dupfinder.app.marks import Chosen, MarkSet
from dupfinder.app.progress import ProgressEstimate, stopped_text
from dupfinder.app.similar import (
    ScanView,
    SimilarFound,
    SimilarMode,
    SimilarQuery,
    SimilarStatus,
    outcome_text,
    similar_job,
)
from dupfinder.app.wording import action_done_text, undo_question
from dupfinder.core.actions import (
    Action,
    ActionKind,
    ApplyReport,
    Plan,
    compare_link_contents,
    make_plan,
)
from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.marks import parse_rule
from dupfinder.core.actions.undo import UndoReport
from dupfinder.core.errors import ActionError
from dupfinder.core.model import Group, Member, Progress, ScanOptions, ScanResult
from dupfinder.core.results.decisions import Decision, DecisionStore
from dupfinder.core.results.session import LoadedSession, without
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.wording import format_size

__all__ = ["App", "PlanReview", "View"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PlanReview:
    """A plan to confirm, with what the user cannot see: files in groups the filter hides."""

    plan: Plan
    outside_view: int
    numbers: tuple[int, ...] = ()  # the number shown for each group of the result


class View(Protocol):
    """What the app needs from a window (tests pass a fake one)."""

    def ask(self, title: str, text: str) -> bool: ...
    def tell(self, title: str, text: str, warning: bool = False) -> None: ...
    def confirm_plan(self, review: PlanReview) -> bool: ...
    def show_report(self, title: str, report: ApplyReport | UndoReport) -> None: ...
    def show_message(self, text: str) -> None: ...
    def show_progress(self, text: str, sample: Progress) -> None: ...
    def result_about_to_load(self) -> None: ...
    def result_loaded(self) -> None: ...
    def marks_changed(self, changed: set[str]) -> None: ...
    def state_changed(self) -> None: ...


class App:
    """dupfinder's desktop logic, without widgets."""

    def __init__(
        self,
        view: View,
        runner: JobRunner,
        journal: Journal | None = None,
        decisions: DecisionStore | None = None,
        scan_function: ScanFunction = scan.run,
    ) -> None:
        self.view = view
        self.runner = runner
        self.journal = journal if journal is not None else Journal()
        self.decisions = decisions if decisions is not None else DecisionStore()
        self.scan_function = scan_function
        self.listing = Listing()
        self.marks = MarkSet()
        self.history = History(self.journal)
        self.raw: ScanResult | None = None  # the result before decisions; None: nothing yet
        #: Groups the last scan showed: an empty list after it means all were handled.
        self.scan_found = 0
        self.job: JobKind | None = None
        self.references: tuple[str, ...] = ()
        #: The options of the last scan (thresholds, cache), for measuring a new keeper.
        self.options = ScanOptions(roots=())
        self.estimate = ProgressEstimate()
        self._numbers: dict[str, int] = {}
        # The list shows files like one file (None: the scan's results).
        self.similar: SimilarMode | None = None
        self._after_job: list[Callable[[], None]] = []

    # --- state -------------------------------------------------------------------------------

    @property
    def result(self) -> ScanResult:
        """What the list shows (decisions applied), filtered or not."""
        return self.listing.prepared.result

    @property
    def has_result(self) -> bool:
        return self.raw is not None

    def busy(self) -> bool:
        return self.job is not None

    def undo_offer(self) -> UndoOffer | None:
        return self.history.offer

    def enabled(self, current: Current) -> Enabled:
        return compute_enabled(self, current)

    def totals(self) -> tuple[int, int, int]:
        return self.listing.prepared.totals

    def keeper(self, g: int) -> Member:
        return self.marks.keeper(g, self.listing.groups[g])

    def keeper_reason(self, g: int) -> str:
        """Why group ``g`` keeps its keeper: "Kept as the original: no copy marks, oldest"."""
        group = self.listing.groups[g]
        folders = [os.path.realpath(folder) for folder in self.references]
        return keeper_text(group, self.keeper(g), self.marks.chosen(g), folders)

    def number(self, g: int) -> int:
        return self.listing.prepared.numbers[g]

    # --- jobs --------------------------------------------------------------------------------

    def _begin(
        self, kind: JobKind, function: JobFunction[T], finished: Callable[[T], None]
    ) -> bool:
        if self.job is not None:
            self.view.show_message(translate("App", "Wait for the running task to finish."))
            return False
        self.job = kind
        self.estimate = ProgressEstimate()
        self.view.show_message(_starting(kind))
        self.view.state_changed()
        self.runner.start(function, self._progress, finished, self._failed, self._done)
        return True

    def _progress(self, sample: Progress) -> None:
        self.view.show_progress(self.estimate.describe(sample), sample)

    def _failed(self, message: str) -> None:
        title = translate("App", "Could not finish")
        self.view.show_message(f"{title}: {message}")
        self.view.tell(title, message, warning=True)

    def _done(self) -> None:
        self.job = None
        after, self._after_job = self._after_job, []
        self.view.state_changed()
        for step in after:
            step()

    def cancel(self) -> None:
        if self.job is not None:
            self.runner.cancel()
            self.view.show_message(translate("App", "Stopping…"))

    # --- showing a result --------------------------------------------------------------------

    def _numbers_for(self, result: ScanResult) -> dict[str, int]:
        return group_numbers(result, self._numbers)

    def _show(
        self,
        rescored: Rescored,
        marks: frozenset[str],
        keepers: Sequence[str] = (),
        terms: str | None = None,
        chosen: dict[str, Chosen] | None = None,
    ) -> None:
        self.raw = rescored.raw
        self.load_prepared(rescored.prepared, marks, keepers, terms, chosen)
        if rescored.warning:
            self.view.tell(
                translate("App", "Remembered decisions not applied"),
                rescored.warning,
                warning=True,
            )

    def load_prepared(
        self,
        prepared: PreparedResult,
        marks: frozenset[str] = frozenset(),
        keepers: Sequence[str] = (),
        terms: str | None = None,
        chosen: dict[str, Chosen] | None = None,
    ) -> None:
        """Swap in a prepared result (the one model reset per scan); ``terms`` replace the
        filter; ``chosen`` says who chose each of ``keepers``."""
        if self.raw is None:
            self.raw = prepared.result
        if self.similar is None:  # a search's one group keeps the scan's numbers as they are
            for g, group in enumerate(prepared.result.groups):
                number = prepared.numbers[g]
                self._numbers.update((m.path, number) for m in group.members)
        self.view.result_about_to_load()
        if terms is not None:
            self.listing.set_filter(terms)
        self.listing.load(prepared)
        self.marks.load(
            prepared.size_of, prepared.group_of, prepared.protected, marks, keepers, chosen
        )
        self.view.result_loaded()
        self._measure_keepers()

    def _refresh(self, marks: frozenset[str] | None = None, message: str | None = None) -> None:
        """Apply decisions and reference folders again to the raw result, off the GUI thread;
        ``marks`` (default: the current ones) are carried over, ``message`` shown after."""
        if self.raw is None:
            return
        marks = self.marks.paths() if marks is None else marks
        keepers = self.marks.keeper_paths()
        chosen = self.marks.chosen_by_path()
        numbers = self._numbers_for(self.raw) if self.similar is None else {}
        job = refresh_job(self.raw, self.references, self.decisions, self.listing.sort, numbers)

        def finished(rescored: Rescored) -> None:
            self._show(rescored, marks, keepers, chosen=chosen)
            self.view.show_message(message if message is not None else self.marks_text())

        self._begin(JobKind.REFRESH, job, finished)

    # --- scanning ----------------------------------------------------------------------------

    def scan(self, options: ScanOptions, references: Sequence[str]) -> bool:
        self.references = tuple(references)
        self.options = options
        # the engine suggests a keeper in a reference folder first
        options = dataclasses.replace(options, references=tuple(Path(r) for r in references))
        job = scan_job(
            options,
            self.references,
            self.decisions,
            self.scan_function,
            self.listing.sort,
            self._numbers_for,
        )
        return self._begin(JobKind.SCAN, job, self._scanned)

    def _scanned(self, rescored: Rescored) -> None:
        stats = rescored.raw.stats
        if stats.cancelled:
            text = stopped_text(self.estimate.last)
            if self.has_result:
                text += " " + translate("App", "The list still shows the previous results.")
            self.view.show_message(text)
            return
        self.history.clear()
        marks, keepers, dropped = self._carried(rescored.prepared.result)
        chosen = self.marks.chosen_by_path()
        self._show(rescored, marks, keepers, self._close_similar(), chosen)
        groups, files, reclaim = self.totals()
        self.scan_found = groups
        found = translate("App", "Found %Ln group(s)", None, groups)
        amount = stats.files_seen
        detail = translate(
            "App",
            "{files} files, {size} reclaimable) among %Ln file(s) in {seconds:.1f} s.",
            None,
            amount,
        )
        text = (
            found
            + " ("
            + detail.format(files=f"{files:,}", size=format_size(reclaim), seconds=stats.seconds)
        )
        if marks:
            amount = len(self.marks)
            text += " " + translate("App", "%Ln mark(s) kept from before the scan.", None, amount)
        if dropped:
            amount = dropped
            text += " " + translate(
                "App",
                "%Ln mark(s) dropped: those files changed or are in no group now.",
                None,
                amount,
            )
        for notice in rescored.raw.notices:  # said once by the scan (e.g. FFmpeg is missing)
            text += " " + notice
        self.view.show_message(text)

    def _carried(self, result: ScanResult) -> tuple[frozenset[str], list[str], int]:
        """The marks and chosen keepers that still apply to a new scan's ``result``, and
        how many marks do not (``keeping.carried``)."""
        return carried(self.listing.groups, result, self.marks.paths(), self.marks.keeper_paths())

    def set_references(self, folders: Sequence[str]) -> None:
        """Reference folders changed: lock their members at once (no rescan)."""
        self.references = tuple(folders)
        if self.has_result and not self.busy():
            self._refresh()

    # --- listing -----------------------------------------------------------------------------

    def set_filter(self, text: str) -> bool:
        return self.listing.set_filter(text)

    def set_sort(self, sort: SortKey) -> bool:
        return self.listing.set_sort(sort)

    # --- marks -------------------------------------------------------------------------------

    def _shown_groups(self) -> list[tuple[int, Group]]:
        return [(g, self.listing.groups[g]) for g in self.listing.order]

    def _changed(self, changed: set[str], message: str | None = None) -> None:
        if changed:
            self.view.marks_changed(changed)
        self.view.show_message(message if message is not None else self.marks_text())
        self.view.state_changed()

    def marks_text(self) -> str:
        count = len(self.marks)
        if not count:
            return translate("App", "No file marked.")
        text = translate("App", "%Ln file(s) marked ({size}).", None, count)
        return text.format(size=format_size(self.marks.bytes))

    def _scope_note(self) -> str:
        if not self.listing.filtered():
            return ""
        amount = len(self.listing.order)
        return " " + translate("App", "Changed only in the %Ln group(s) shown.", None, amount)

    def apply_keep_rule(self, name: str | None) -> None:
        """Mark, in the groups shown, every member the rule does not keep (reference folders
        first: their files are always kept). ``name`` None: only the reference folders."""
        rules = reference_rules(self.references)
        if name is not None:
            rules = (*rules, parse_rule(name))
        if not rules:
            self.view.tell(
                translate("App", "No reference folder"),
                translate(
                    "App", "Tick “Reference” beside a folder first: its files are then always kept."
                ),
            )
            return
        groups = self._shown_groups()
        current = {g: self.keeper(g) for g, _ in groups}

        def finished(kept: Kept) -> None:
            changed = self.marks.within([group for _, group in groups], kept.marks)
            self.marks.set_keepers(kept.keepers, name if name is not None else "reference")
            changed |= {m.path for g in kept.keepers for m in self.listing.groups[g].members}
            text = self.marks_text() + self._scope_note()
            if kept.unranked and name is not None:
                amount = kept.unranked
                text += " " + translate(
                    "App",
                    "“{rule}” cannot rank %Ln group(s) (documents or other files): they keep "
                    "their file.",
                    None,
                    amount,
                ).format(rule=rule_title(name))
            self._changed(changed, text)
            self._measure_keepers()

        self._begin(JobKind.MARK, keep_job(groups, rules, current), finished)

    def toggle(self, paths: Sequence[str]) -> None:
        changed = {p for p in paths if self.marks.toggle(p)}
        self._changed(changed)

    def mark_all(self) -> None:
        """Mark every member but the keeper, in the groups shown."""
        groups = self._shown_groups()
        wanted = {m.path for g, group in groups for m in group.members if m is not self.keeper(g)}
        changed = self.marks.within([group for _, group in groups], wanted)
        self._changed(changed, self.marks_text() + self._scope_note())

    def mark_none(self) -> None:
        """Unmark every file in the groups shown; each keeps its suggested file again."""
        shown = self._shown_groups()
        changed = self.marks.within([group for _, group in shown], ())
        changed |= self._suggested_again(shown)
        self._changed(changed, self.marks_text() + self._scope_note())

    def mark_suggested(self) -> None:
        """In the groups shown, keep the suggested file (the original) and mark the rest."""
        shown = self._shown_groups()
        changed = self._suggested_again(shown)
        wanted = {m.path for _, group in shown for m in group.members[1:]}
        changed |= self.marks.within([group for _, group in shown], wanted)
        self._changed(changed, self.marks_text() + self._scope_note())

    def _suggested_again(self, shown: Sequence[tuple[int, Group]]) -> set[str]:
        """The groups shown keep their suggested file again; the paths to redraw."""
        restored = self.marks.suggest(g for g, _ in shown)
        return {m.path for g in restored for m in self.listing.groups[g].members}

    def invert_marks(self) -> None:
        groups = [group for _, group in self._shown_groups()]
        wanted = {m.path for group in groups for m in group.members if m.path not in self.marks}
        changed = self.marks.within(groups, wanted)
        self._changed(changed, self.marks_text() + self._scope_note())

    def mark_in_folder(self, folder: str) -> None:
        """Mark the files directly in ``folder`` (groups shown), never a whole group."""
        folder = os.path.normpath(folder)
        groups = self._shown_groups()
        wanted = set(self.marks.paths())
        for _, group in groups:
            inside = [m.path for m in group.members if os.path.dirname(m.path) == folder]
            if len(inside) == len(group.members):
                inside = inside[1:]  # keep one of a group that lies wholly in the folder
            wanted.update(inside)
        changed = self.marks.replace(wanted)
        self._changed(changed)

    def make_keeper(self, g: int, path: str) -> None:
        group = self.listing.groups[g]
        changed = self.marks.make_keeper(g, group, path)
        self.view.marks_changed(changed | {m.path for m in group.members})
        self._changed(
            set(), translate("App", "{name} is kept.").format(name=os.path.basename(path))
        )
        self._measure_keepers()

    # --- measuring against a chosen keeper --------------------------------------------------

    def _measure_keepers(self) -> None:
        """Measure the groups that keep another file than the suggested one against it, so
        the similarity column speaks of the kept file: a pair or a group of identical files
        at once, the others off the GUI thread (fingerprints from the cache)."""
        groups = self.listing.groups
        wanted: list[tuple[int, str, list[str]]] = []
        for g in self.marks.unmeasured(groups):
            group, keeper = groups[g], self.keeper(g)
            direct = measured_directly(group, keeper)
            if direct is not None:
                self.marks.set_measured(g, keeper.path, direct)
            else:
                wanted.append((g, keeper.path, [m.path for m in group.members if m is not keeper]))
        if not wanted:
            return
        if self.busy():
            if self._measure_keepers not in self._after_job:
                self._after_job.append(self._measure_keepers)
            return
        self._begin(JobKind.MEASURE, measure_job(wanted, self.options), self._measured)

    def _measured(self, found: list[Measured]) -> None:
        repaint: set[str] = set()
        for item in found:
            if self.marks.set_measured(item.g, item.keeper, item.measures):
                repaint.update(m.path for m in self.listing.groups[item.g].members)
        if repaint:
            self.view.marks_changed(repaint)
        self.view.show_message(self.marks_text())

    # --- actions -----------------------------------------------------------------------------

    def whole_groups(self) -> list[int]:
        """Numbers of groups with every member marked (nothing would be kept)."""
        marked = self.marks
        return [
            self.number(g)
            for g, group in enumerate(self.listing.groups)
            if all(m.path in marked for m in group.members)
        ]

    def act(self, action: Action, roots: Sequence[str] = ()) -> bool:
        """Plan → confirm (showing the plan) → apply off the GUI thread → report."""
        if self.busy():
            return False
        marks = self.marks.paths()
        if not marks or self.raw is None:
            self.view.tell(
                translate("App", "Nothing marked"),
                translate(
                    "App",
                    "Tick the files to act on, or use the Mark menu to mark all but one per group.",
                ),
            )
            return False
        whole = self.whole_groups()
        if whole:
            numbers = ", ".join(str(n) for n in whole[:10]) + ("…" if len(whole) > 10 else "")
            amount = len(whole)
            self.view.tell(
                translate("App", "A group would lose every file"),
                translate(
                    "App",
                    "Every file of group(s) {numbers} is marked. Unmark the file to keep, or "
                    "right-click it and choose “Keep this file”.",
                    None,
                    amount,
                ).format(numbers=numbers),
                warning=True,
            )
            return False
        try:
            plan = compare_link_contents(make_plan(self.result, marks, action, roots=roots))
        except ActionError as exc:
            self.view.tell(translate("App", "Cannot do that"), str(exc), warning=True)
            return False
        outside = len(marks & self.listing.hidden_paths())
        review = PlanReview(plan, outside, self.listing.prepared.numbers)
        if not self.view.confirm_plan(review):
            return False
        before = (self.raw, marks)

        def finished(report: ApplyReport) -> None:
            self._applied(report, action.kind, before)

        return self._begin(JobKind.APPLY, apply_job(plan, self.journal), finished)

    def _applied(
        self, report: ApplyReport, kind: ActionKind, before: tuple[ScanResult, frozenset[str]]
    ) -> None:
        done = frozenset(o.path for o in report.done)
        if done:
            self.history.push(UndoEntry(report.session, kind, before[0], before[1], done))
            if self.similar is not None:
                self.similar.gone |= done
            self.raw = without(self.raw or before[0], done)
            marks = self.marks.paths() - done
            self._after_job.append(lambda: self._refresh(marks, action_done_text(report, kind)))
        self.history.refresh()
        self.view.show_message(action_done_text(report, kind))
        self.view.show_report(translate("App", "Action finished"), report)

    def undo(self) -> None:
        offer = self.history.refresh()
        self.view.state_changed()
        if self.busy():
            return
        if offer is None:
            self.view.show_message(translate("App", "Nothing to undo."))
            return
        if not self.view.ask(translate("App", "Undo"), undo_question(offer)):
            return
        self._begin(JobKind.UNDO, undo_job(self.journal, offer.session), self._undone)

    def _undone(self, report: UndoReport) -> None:
        self.history.refresh()
        if report.nothing is not None:
            self.view.show_message(report.nothing)
            return
        restored = frozenset(o.path for o in report.restored)
        if self.similar is not None:
            self.similar.gone -= restored
        amount = len(report.restored)
        text = translate("App", "Undo: %Ln file(s) put back", None, amount)
        if report.problems:
            amount = len(report.problems)
            text += translate("App", ", %Ln with problems", None, amount)
        text += "."
        entry = self.history.pop(report.session)
        if entry is not None:
            gone = entry.acted_on - restored  # still in the trash or moved: keep them out
            self.raw = without(entry.raw_before, gone)
            marks = entry.marks_before - entry.acted_on
            self._after_job.append(lambda: self._refresh(marks, text))
        self.view.show_message(text)
        self.view.show_report(translate("App", "Undo finished"), report)

    # --- decisions ---------------------------------------------------------------------------

    def not_duplicate_pair(self, g: int, member: Member) -> None:
        """The selected file is not a duplicate of the group's keeper: break that one link."""
        keeper = self.keeper(g)
        if member.path == keeper.path:
            self.view.show_message(translate("App", "Select a file other than the kept one."))
            return
        if member.fingerprint == keeper.fingerprint:
            self.view.tell(
                translate("App", "Same content"),
                translate("App", "These two files have the same content: they are duplicates."),
            )
            return
        self.decisions.ignore_pair(keeper, member)
        self._decided(translate("App", "Remembered: not a duplicate of the kept file."))

    def not_duplicate_member(self, g: int, member: Member) -> None:
        """Take the selected file out of its group (the rest of the group stays)."""
        try:
            self.decisions.ignore_member(member, self.listing.groups[g])
        except ValueError:
            self.view.tell(
                translate("App", "Same content"),
                translate("App", "Every file of this group has the same content."),
            )
            return
        self._decided(
            translate("App", "Remembered: {name} is not a duplicate of this group.").format(
                name=os.path.basename(member.path)
            )
        )

    def _decided(self, message: str) -> None:
        self._refresh(message=message)

    def decisions_list(self) -> tuple[Decision, ...]:
        return self.decisions.list()

    def forget_decisions(self, indexes: Sequence[int]) -> None:
        """Forget remembered decisions (by position in the list) and show their groups again."""
        for index in sorted(indexes, reverse=True):
            self.decisions.remove(index)
        amount = len(indexes)
        text = translate("App", "%Ln decision(s) forgotten.", None, amount)
        if self.has_result:
            self._refresh(message=text)
        else:
            self.view.show_message(text)

    def remove_from_results(self, paths: Sequence[str]) -> None:
        """Drop files from the list (not from the disk, not remembered)."""
        if self.raw is None or not paths:
            return
        self.raw = without(self.raw, paths)
        amount = len(paths)
        text = translate("App", "%Ln file(s) removed from the results.", None, amount)
        self._refresh(self.marks.paths() - set(paths), text)

    # --- files -------------------------------------------------------------------------------

    def save(self, path: str) -> None:
        path = with_suffix(path, ".json")
        job = save_job(path, self.result, self.marks.paths())
        self._begin(
            JobKind.SAVE,
            job,
            lambda p: self.view.show_message(translate("App", "Saved to {path}.").format(path=p)),
        )

    def export(self, path: str, fmt: ExportFormat) -> None:
        path = with_suffix(path, fmt.value)
        self._begin(
            JobKind.EXPORT,
            export_job(path, self.result, fmt),
            lambda p: self.view.show_message(
                translate("App", "Exported to {path}.").format(path=p)
            ),
        )

    def open(self, path: str) -> None:
        job = open_job(path, self.references, self.decisions, self.listing.sort, self._numbers_for)
        self._begin(JobKind.OPEN, job, self._opened)

    def _opened(self, payload: tuple[Rescored, LoadedSession]) -> None:
        rescored, loaded = payload
        self.history.clear()
        marks = frozenset(loaded.marks - loaded.missing)
        self._show(rescored, marks, terms=self._close_similar())
        groups, files, _ = self.totals()
        text = translate("App", "Opened %Ln group(s)", None, groups)
        text += translate("App", " (%Ln file(s)).", None, files)
        if loaded.missing:
            amount = len(loaded.missing)
            text += " " + translate("App", "%Ln file(s) gone, left out.", None, amount)
        if loaded.changed:
            amount = len(loaded.changed)
            text += " " + translate(
                "App",
                "%Ln file(s) changed since the scan: actions will skip them; scan again to "
                "refresh.",
                None,
                amount,
            )
        self.view.show_message(text)

    # --- files like this one ---------------------------------------------------------------

    def find_similar(self, target: str, folders: Sequence[str], options: ScanOptions) -> bool:
        """Search ``folders`` (none: the last scan's) for files like ``target``; the list then
        shows them as one group that keeps ``target``."""
        query = SimilarQuery(os.path.abspath(target), tuple(folders))
        job = similar_job(query, options, self.references, self.decisions, self.listing.sort)
        return self._begin(JobKind.SIMILAR, job, self._found_similar)

    def _found_similar(self, found: SimilarFound) -> None:
        title, text = outcome_text(found)
        if found.rescored is None or found.result is None:
            self.view.show_message(text)
            if found.outcome is not SimilarStatus.CANCELLED:
                warning = found.outcome in (SimilarStatus.UNSUPPORTED, SimilarStatus.UNREADABLE)
                self.view.tell(title, text, warning)
            return
        if self.similar is None:
            terms = " ".join(self.listing.terms)
            before = ScanView(self.raw, self.marks.paths(), self.marks.keeper_paths(), terms)
            self.similar = SimilarMode(found.query, found.result, before)
        else:  # a search from a search: back still leads to the scan
            self.similar = SimilarMode(
                found.query, found.result, self.similar.before, self.similar.gone
            )
        self.history.clear()
        self._show(found.rescored, frozenset(), terms="")
        self.view.show_message(text)

    def leave_similar(self) -> None:
        """Back to the scan's list, without the files moved or deleted meanwhile."""
        mode = self.similar
        if mode is None or self.busy():
            return
        before = mode.before
        text = translate("App", "Back to the scan results.")
        if before.raw is None:
            self._close_similar()
            self.history.clear()
            self.load_prepared(prepare(ScanResult()), terms=before.terms)
            self.raw = None
            self.view.show_message(text)
            return
        raw = without(before.raw, mode.gone)
        numbers = self._numbers_for(raw)
        job = refresh_job(raw, self.references, self.decisions, self.listing.sort, numbers)

        def finished(rescored: Rescored) -> None:
            terms = self._close_similar()
            self.history.clear()
            self._show(rescored, before.marks - mode.gone, before.keepers, terms)
            self.view.show_message(text)

        self._begin(JobKind.REFRESH, job, finished)

    def _close_similar(self) -> str | None:
        """Leave the search's list; the scan's filter to restore (None: none was left)."""
        mode, self.similar = self.similar, None
        return mode.before.terms if mode is not None else None


def _starting(kind: JobKind) -> str:
    texts = {
        JobKind.SCAN: translate("App", "Starting the scan…"),
        JobKind.MARK: translate("App", "Marking…"),
        JobKind.APPLY: translate("App", "Working on the marked files…"),
        JobKind.UNDO: translate("App", "Putting files back…"),
        JobKind.REFRESH: translate("App", "Updating the list…"),
        JobKind.SAVE: translate("App", "Saving…"),
        JobKind.OPEN: translate("App", "Opening…"),
        JobKind.EXPORT: translate("App", "Exporting…"),
        JobKind.SIMILAR: translate("App", "Looking for similar files…"),
        JobKind.MEASURE: translate("App", "Measuring the files against the kept one…"),
    }
    return texts[kind]
