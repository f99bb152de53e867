"""Scans on a worker thread: a real scan of a temporary folder, cancel mid-scan, failures."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from gui_helpers import scan_folder, wait_idle, write_text_corpus
from pytestqt.qtbot import QtBot

from dupfinder.app.jobs import Rescored, scan_job
from dupfinder.core.model import Phase, Progress, ScanOptions, ScanResult
from dupfinder.core.results.decisions import DecisionStore
from dupfinder.core.scan import pipeline as scan
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.runner import ThreadRunner
from dupfinder.gui.worker import Job, Worker


def test_real_scan_through_a_job(qtbot: QtBot, tmp_path: Path) -> None:
    files = write_text_corpus(tmp_path / "docs")
    options = ScanOptions(roots=(tmp_path / "docs",), jobs=1)
    job = Job(scan_job(options, (), DecisionStore(tmp_path / "d.json")))
    samples: list[Progress] = []
    job.progress.connect(samples.append)
    with (
        qtbot.waitSignal(job.done, timeout=20_000),
        qtbot.waitSignal(job.finished, timeout=20_000) as blocker,
    ):
        job.start()
    outcome = blocker.args[0]
    assert isinstance(outcome, Rescored)
    groups = outcome.prepared.result.groups
    grouped = {frozenset(m.path for m in g.members) for g in groups}
    assert frozenset({str(files["original"]), str(files["edited"])}) in grouped
    assert outcome.prepared.totals[0] == len(groups)
    assert {s.phase for s in samples} >= {Phase.WALKING, Phase.FINGERPRINTING}
    assert not job.is_running()


def test_progress_is_throttled_but_phase_changes_always_pass() -> None:
    sent: list[Progress] = []
    worker = Worker(lambda progress, cancel: None, threading.Event(), interval=3600)
    worker.progress.connect(sent.append)
    for done in range(1000):
        worker._sample(Progress(Phase.FINGERPRINTING, done, 1000))
    worker._sample(Progress(Phase.COMPARING, 0, 10))
    assert [s.phase for s in sent] == [Phase.FINGERPRINTING, Phase.COMPARING]


def test_a_failing_job_emits_failed(qtbot: QtBot) -> None:
    def broken(_progress: Callable[[Progress], None], _cancel: threading.Event) -> None:
        raise PermissionError(13, "Permission denied", "/secret")

    job = Job(broken)
    with (
        qtbot.waitSignal(job.done),
        qtbot.waitSignal(job.failed) as blocker,
    ):
        job.start()
    assert "Permission denied" in blocker.args[0]


def test_scan_in_the_window_fills_the_results(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    write_text_corpus(tmp_path / "docs")
    scan_folder(qtbot, window, tmp_path / "docs")
    groups, files, _ = window.model.totals()
    assert groups == window.model.rowCount() >= 1
    assert "Found" in window.panel.progress_label.text()
    assert window.panel.scan_button.isEnabled()
    assert not window.panel.cancel_button.isEnabled()
    assert f"{files} files" in window.totals_label.text()
    assert window.view.isExpanded(window.model.index(0, 0))


def test_cancel_mid_scan(
    qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    """The scan thread is held at its first fingerprinting sample until the GUI has pressed
    Cancel, so the test does not depend on how fast the machine is."""
    write_text_corpus(tmp_path / "docs")
    results: list[ScanResult] = []

    def held_scan(
        options: ScanOptions, progress: Callable[[Progress], None], cancel: threading.Event
    ) -> ScanResult:
        def hook(sample: Progress) -> None:
            progress(sample)
            if sample.phase is Phase.FINGERPRINTING:
                cancel.wait(20)

        result = scan.run(options, hook, cancel)
        results.append(result)
        return result

    window = make_window(scan_function=held_scan)
    window.panel.add_folders([str(tmp_path / "docs")])

    def fingerprinting(sample: Progress) -> bool:
        return sample.phase is Phase.FINGERPRINTING

    window.start_scan()
    assert isinstance(window.runner, ThreadRunner)
    job = window.runner.job
    assert job is not None
    with qtbot.waitSignal(job.progress, check_params_cb=fingerprinting, timeout=20_000):
        pass
    assert window.panel.cancel_button.isEnabled()
    window.panel.cancel_button.click()
    wait_idle(qtbot, window)
    assert results
    assert results[0].stats.cancelled
    assert "stopped" in window.panel.progress_label.text().lower()
    assert window.model.rowCount() == 0
    assert window.panel.scan_button.isEnabled()


def test_closing_during_a_scan_stops_the_thread(
    qtbot: QtBot,
    make_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_text_corpus(tmp_path / "docs")
    started = threading.Event()

    def slow_scan(
        options: ScanOptions, progress: Callable[[Progress], None], cancel: threading.Event
    ) -> ScanResult:
        started.set()
        cancel.wait(20)
        return scan.run(options, progress, cancel)

    window = make_window(scan_function=slow_scan)
    window.panel.add_folders([str(tmp_path / "docs")])
    window.start_scan()
    assert started.wait(10)
    monkeypatch.setattr(window, "_ask", lambda title, text: True)
    assert isinstance(window.runner, ThreadRunner)
    job = window.runner.job
    assert job is not None
    window.close()
    assert not window.isVisible()
    assert not job._thread.isRunning()
