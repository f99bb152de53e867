"""The per-file time limit where no SIGALRM exists (Windows): a watchdog thread stops the
file, reported as timed out, and the next file is read as usual. Simulated here by taking
``setitimer`` away from the ``signal`` module."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from scan_helpers import essay, write

from dupfinder.core import extract
from dupfinder.core.fingerprints import worker
from dupfinder.core.fingerprints.worker import (
    FingerprintOutcome,
    Task,
    fingerprint_batch,
    fingerprint_file,
)
from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan import pipeline as scan


def _reader(path: str | os.PathLike[str], *, max_bytes: int = 0) -> str:
    """extract_text, stuck in a Python loop on "spin", pressing Ctrl-C on "ctrl-c"."""
    while "spin" in os.path.basename(path):
        pass
    if "ctrl-c" in os.path.basename(path):
        signal.raise_signal(signal.SIGINT)
    return essay(1)


@pytest.fixture
def no_alarm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(signal, "setitimer")
    monkeypatch.setattr(worker, "FILE_TIME_LIMIT_SECONDS", 0.3)
    monkeypatch.setattr(extract, "extract_text", _reader)


@pytest.mark.usefixtures("no_alarm")
@pytest.mark.parametrize("platform", ["win32", "darwin"])
def test_a_stuck_file_times_out_without_sigalrm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, platform: str
) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    before = signal.getsignal(signal.SIGINT)
    outcome = fingerprint_file(Task(0, str(write(tmp_path / "spin.txt", "x")), Kind.TEXT))
    assert (outcome.code, outcome.error) == ("timeout", "took longer than 0 s to read; skipped")
    assert not outcome.cacheable
    assert fingerprint_file(Task(1, str(write(tmp_path / "ok.txt", "x")), Kind.TEXT)).value
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.usefixtures("no_alarm")
def test_ctrl_c_during_a_file_is_still_ctrl_c(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        fingerprint_file(Task(0, str(write(tmp_path / "ctrl-c.txt", "x")), Kind.TEXT))


@pytest.mark.usefixtures("no_alarm")
def test_a_worker_that_ignores_ctrl_c_still_ignores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as worker_init sets it
    try:
        outcome = fingerprint_file(Task(0, str(write(tmp_path / "ctrl-c.txt", "x")), Kind.TEXT))
        assert outcome.value is not None
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def batch_without_alarm(
    tasks: list[Task], image_invariance: bool = False
) -> list[FingerprintOutcome]:
    """The pool's unit of work in a worker that has no setitimer (runs in the workers)."""
    if hasattr(signal, "setitimer"):
        del signal.setitimer
    worker.FILE_TIME_LIMIT_SECONDS = 0.5
    extract.extract_text = _reader
    return fingerprint_batch(tasks, image_invariance)


def test_a_stuck_file_in_a_pool_worker_is_reported_and_the_scan_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "docs"
    for number in range(60):  # more than a scan reads in its own process
        write(root / f"doc{number:02d}.txt", essay(number))
    write(root / "spin.txt", "x")
    monkeypatch.setattr(scan, "fingerprint_batch", batch_without_alarm)
    for module, name in ((signal, "setitimer"), (worker, "FILE_TIME_LIMIT_SECONDS")):
        monkeypatch.setattr(module, name, getattr(module, name))  # put back after the test
    monkeypatch.setattr(extract, "extract_text", extract.extract_text)
    result = scan.run(ScanOptions(roots=(root,), jobs=2, use_cache=False))
    assert hasattr(signal, "setitimer")  # read in the workers, where it was taken away
    assert [(os.path.basename(e.path), e.code) for e in result.errors] == [("spin.txt", "timeout")]
    assert result.stats.files_fingerprinted == 60
