"""Run one long Python call in a worker process: progress back through a pipe, cancel at once.

A desktop window's event loop and a scan's worker thread share one interpreter lock; while
the thread runs Python (grouping twenty thousand files takes seconds) every call from Qt
into Python waits for the lock, and the window freezes for a tenth of a second at a time.
In a worker process the call holds a lock of its own. Its arguments and result cross by
pickle, so they should be columns (numpy arrays), not object graphs. Cancelling kills the
process: nothing waits for the call to notice.
"""

from __future__ import annotations

import multiprocessing.context
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

from dupfinder.core.errors import DupfinderError
from dupfinder.core.fingerprints.priority import run_in_background
from dupfinder.core.model import Progress, ProgressCallback

__all__ = ["IsolatedFailure", "call"]

T = TypeVar("T")

#: How often the caller looks at ``cancel`` while the call runs.
_POLL_SECONDS = 0.05


class IsolatedFailure(DupfinderError, RuntimeError):
    """The worker process failed or died before returning (the caller may run the call itself)."""


@dataclass(frozen=True, slots=True)
class _Returned(Generic[T]):
    value: T


@dataclass(frozen=True, slots=True)
class _Raised:
    description: str


def call(
    function: Callable[..., T],
    args: tuple[Any, ...],
    context: multiprocessing.context.BaseContext,
    progress: ProgressCallback,
    cancel: threading.Event,
    background: bool = False,
) -> T | None:
    """``function(*args, progress=...)`` in a new process of ``context``; None if cancelled.
    A ``background`` process runs at a lower scheduling priority.

    Raises ``IsolatedFailure`` when the process cannot start, raises, or dies."""
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(  # type: ignore[attr-defined]
        target=_serve,
        args=(sender, function, args, background),
        name="dupfinder-isolated",
        daemon=True,
    )
    try:
        process.start()
    except Exception as exc:  # pickling the arguments, or no process to be had
        receiver.close()
        sender.close()
        raise IsolatedFailure(f"could not start a worker process: {exc}") from exc
    sender.close()  # the child holds its end; EOF then means it is gone
    try:
        while not cancel.is_set():
            if not receiver.poll(_POLL_SECONDS):
                continue
            try:
                message = receiver.recv()
            except (EOFError, OSError) as exc:
                process.join(_POLL_SECONDS * 20)  # it is gone or going: its exit code
                raise IsolatedFailure(
                    f"the worker process ended without a result (exit code {process.exitcode})"
                ) from exc
            if isinstance(message, Progress):
                progress(message)
            elif isinstance(message, _Returned):
                return message.value  # type: ignore[no-any-return]
            elif isinstance(message, _Raised):
                raise IsolatedFailure(message.description)
        return None
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join()
        process.close()


def _serve(
    sender: Connection, function: Callable[..., Any], args: tuple[Any, ...], background: bool
) -> None:
    """The worker process's side: run the call, send its progress and then its result."""
    if background:
        run_in_background()
    try:
        value = function(*args, progress=sender.send)
        sender.send(_Returned(value))
    except BaseException as exc:
        summary = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        sender.send(_Raised(summary))
    finally:
        sender.close()
