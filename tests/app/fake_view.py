"""A window without Qt: records what the app asks, tells and shows, and answers as told."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dupfinder.app.controller import App, PlanReview
from dupfinder.app.enabled import Current, Enabled
from dupfinder.app.jobs import ScanFunction, SyncRunner
from dupfinder.core.actions import ApplyReport
from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.undo import UndoReport
from dupfinder.core.model import Fingerprint, Group, Kind, Member, Progress, ScanResult
from dupfinder.core.results.decisions import DecisionStore
from dupfinder.core.scan import pipeline as scan


@dataclass
class FakeView:
    answer: bool = True
    confirm: bool = True
    questions: list[str] = field(default_factory=list)
    told: list[tuple[str, str]] = field(default_factory=list)
    reviews: list[PlanReview] = field(default_factory=list)
    reports: list[ApplyReport | UndoReport] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    progress: list[str] = field(default_factory=list)
    loads: int = 0
    loading: bool = False

    def ask(self, title: str, text: str) -> bool:
        self.questions.append(text)
        return self.answer

    def tell(self, title: str, text: str, warning: bool = False) -> None:
        self.told.append((title, text))

    def confirm_plan(self, review: PlanReview) -> bool:
        self.reviews.append(review)
        return self.confirm

    def show_report(self, title: str, report: ApplyReport | UndoReport) -> None:
        self.reports.append(report)

    def show_message(self, text: str) -> None:
        self.messages.append(text)

    def show_progress(self, text: str, sample: Progress) -> None:
        self.progress.append(text)

    def result_about_to_load(self) -> None:
        assert not self.loading
        self.loading = True

    def result_loaded(self) -> None:
        assert self.loading
        self.loading = False
        self.loads += 1

    def marks_changed(self, changed: set[str]) -> None:
        pass

    def state_changed(self) -> None:
        pass

    @property
    def message(self) -> str:
        return self.messages[-1] if self.messages else ""


def make_app(
    tmp: Path, view: FakeView | None = None, scan_function: ScanFunction = scan.run
) -> tuple[App, FakeView]:
    view = view or FakeView()
    app = App(
        view,
        SyncRunner(),
        Journal(tmp / "journal.jsonl"),
        DecisionStore(tmp / "decisions.json"),
        scan_function,
    )
    return app, view


def enabled(app: App, g: int | None = None, member: Member | None = None) -> Enabled:
    return app.enabled(Current(g, member, 1 if member else 0))


def member(path: str, value: int, size: int = 100, mtime: int = 1) -> Member:
    fingerprint = Fingerprint(Kind.TEXT, value)
    return Member(path, size, mtime * 10**9, 0, fingerprint)


def result_of(*groups: tuple[Member, ...]) -> ScanResult:
    return ScanResult(tuple(Group(Kind.TEXT, g) for g in groups))


def fixed_scan(result: ScanResult) -> ScanFunction:
    """A scan that finds ``result`` (its files need not exist)."""
    return lambda _options, _progress, _cancel: result
