"""Workers beside a window ask for less of the machine: niceness on POSIX, the below-normal
priority class on Windows (simulated here with a stand-in for kernel32)."""

from __future__ import annotations

import os

import pytest

from dupfinder.core.fingerprints import priority


class FakeKernel32:
    """kernel32's two calls, recorded (``refuse``: SetPriorityClass fails, as it returns 0)."""

    def __init__(self, refuse: bool = False) -> None:
        self.calls: list[tuple[int, int]] = []
        self.refuse = refuse

    def GetCurrentProcess(self) -> int:  # noqa: N802 - Windows' own name
        return -1  # the pseudo-handle Windows gives for the calling process

    def SetPriorityClass(self, process: int, priority_class: int) -> int:  # noqa: N802
        self.calls.append((process, priority_class))
        return 0 if self.refuse else 1


@pytest.fixture
def niceness(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    asked: list[int] = []

    def nice(step: int) -> int:
        asked.append(step)
        return step

    monkeypatch.setattr(os, "nice", nice, raising=False)
    return asked


def test_on_windows_a_worker_takes_the_below_normal_class(
    monkeypatch: pytest.MonkeyPatch, niceness: list[int]
) -> None:
    kernel32 = FakeKernel32()
    monkeypatch.setattr(priority, "WINDOWS", True)
    monkeypatch.setattr(priority, "windows_kernel32", lambda: kernel32)
    priority.run_in_background()
    assert kernel32.calls == [(-1, 0x4000)]
    assert niceness == []


@pytest.mark.parametrize("kernel32", [FakeKernel32(refuse=True), None, object()])
def test_on_windows_a_refusal_or_no_kernel32_leaves_the_worker_running(
    monkeypatch: pytest.MonkeyPatch, kernel32: object
) -> None:
    monkeypatch.setattr(priority, "WINDOWS", True)
    monkeypatch.setattr(priority, "windows_kernel32", lambda: kernel32)
    priority.run_in_background()  # nothing raised


def test_elsewhere_a_worker_lowers_its_niceness(
    monkeypatch: pytest.MonkeyPatch, niceness: list[int]
) -> None:
    monkeypatch.setattr(priority, "WINDOWS", False)
    monkeypatch.setattr(priority, "windows_kernel32", pytest.fail)
    priority.run_in_background()
    assert niceness == [priority.BACKGROUND_NICENESS]


def test_kernel32_is_not_there_off_windows() -> None:
    assert priority.windows_kernel32() is None
