"""How a scan behaves beside a window: work that yields to it.

The desktop app runs a scan on a worker thread; the command line runs it on the main
thread. Beside a window, the scan's worker processes ask to be scheduled after the window's
thread, so a busy machine gives the window a core first.
"""

from __future__ import annotations

import contextlib
import os
import threading

__all__ = ["BACKGROUND_NICENESS", "beside_window", "run_in_background"]

#: How much lower a scan's worker processes ask to be scheduled beside a window.
BACKGROUND_NICENESS = 5


def beside_window() -> bool:
    """True on any thread but the main one (where the desktop app runs its scans)."""
    return threading.current_thread() is not threading.main_thread()


def run_in_background() -> None:
    """Lower this process's scheduling priority (where the system has niceness)."""
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(BACKGROUND_NICENESS)
