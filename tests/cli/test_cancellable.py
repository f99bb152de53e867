"""Ctrl-C on the command line cancels the core call at a clean point instead of killing it."""

from __future__ import annotations

import signal
import threading

import pytest

from dupfinder.cli.cancellable import run_cancellable


def test_ctrl_c_sets_cancel_and_waits_for_the_work() -> None:
    started = threading.Event()
    notes: list[str] = []

    def work(cancel: threading.Event) -> str:
        started.set()
        return "cancelled cleanly" if cancel.wait(10) else "ran to the end"

    def interrupt() -> None:
        started.wait(5)
        signal.raise_signal(signal.SIGINT)

    threading.Thread(target=interrupt).start()
    result = run_cancellable(work, "test", on_interrupt=lambda: notes.append("told"))
    assert result == "cancelled cleanly"
    assert notes == ["told"]


def test_errors_in_the_work_reach_the_caller() -> None:
    def work(cancel: threading.Event) -> None:
        raise OSError("disk gone")

    with pytest.raises(OSError, match="disk gone"):
        run_cancellable(work, "test")
