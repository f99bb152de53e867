"""How a scan behaves beside a window: work that yields to it.

The desktop app runs a scan on a worker thread; the command line runs it on the main
thread. Beside a window, the scan's worker processes ask to be scheduled after the window's
thread, so a busy machine gives the window a core first: niceness where the system has it,
the below-normal priority class on Windows.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any

__all__ = [
    "BACKGROUND_NICENESS",
    "BELOW_NORMAL_PRIORITY_CLASS",
    "WINDOWS",
    "beside_window",
    "run_in_background",
    "windows_kernel32",
]

#: How much lower a scan's worker processes ask to be scheduled beside a window.
BACKGROUND_NICENESS = 5
#: Windows' priority class between idle and normal (``SetPriorityClass``).
BELOW_NORMAL_PRIORITY_CLASS = 0x4000
#: Windows has priority classes instead of niceness.
WINDOWS = os.name == "nt"


def beside_window() -> bool:
    """True on any thread but the main one (where the desktop app runs its scans)."""
    return threading.current_thread() is not threading.main_thread()


def run_in_background() -> None:
    """Lower this process's scheduling priority (where the system lets a process do so)."""
    if WINDOWS:
        _below_normal(windows_kernel32())
    elif hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(BACKGROUND_NICENESS)


def windows_kernel32() -> Any:
    """Windows' kernel32 through ctypes (None where it cannot be loaded)."""
    try:
        import ctypes

        return ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    except (ImportError, AttributeError, OSError):
        return None


def _below_normal(kernel32: Any) -> bool:
    """Put this process in the below-normal class; False when refused (it runs on as it is)."""
    if kernel32 is None:
        return False
    try:
        return bool(
            kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), BELOW_NORMAL_PRIORITY_CLASS)
        )
    except (AttributeError, OSError):
        return False
