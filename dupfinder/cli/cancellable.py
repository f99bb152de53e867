"""Run a long core call on a worker thread so Ctrl-C on the main thread cancels it cleanly."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["run_cancellable"]

T = TypeVar("T")


def run_cancellable(
    work: Callable[[threading.Event], T],
    name: str,
    on_interrupt: Callable[[], None] | None = None,
) -> T:
    """Call ``work(cancel)`` on a thread; Ctrl-C sets ``cancel`` and waits for it to return.

    The core checks its cancel event between files, so it stops at a clean point instead
    of being torn down mid-write by KeyboardInterrupt.
    """
    cancel = threading.Event()
    finished = threading.Event()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = work(cancel)
        except BaseException as exc:  # handed to the main thread and raised there
            box["error"] = exc
        finally:
            finished.set()

    # Waiting on an Event, not Thread.join: a join interrupted by Ctrl-C can mark the thread
    # as stopped while it still runs, and a second join would then return at once.
    thread = threading.Thread(target=target, name=name, daemon=True)
    try:
        thread.start()
        while not finished.wait(0.2):
            pass
    except KeyboardInterrupt:
        cancel.set()
        if on_interrupt is not None:
            on_interrupt()
        if thread.ident is None:  # Ctrl-C landed before the thread existed
            raise
        finished.wait()
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value
