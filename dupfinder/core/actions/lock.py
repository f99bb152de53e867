"""One apply or undo at a time, per user and machine, across every dupfinder process.

Two applies of the same result with different keep rules each keep a member the other
removes; run together they would empty whole groups. The lock is an OS file lock (filelock:
``fcntl``/``msvcrt``), so it is released when its holder exits however it exits. A second
run waits (saying so once) or stops when cancelled; the holder's process id is written
beside the lock so the message can name it.

Its place depends on nothing a run can be configured with: not on ``XDG_DATA_HOME``, the
data folder, ``--journal`` or the install, only on the account (its home folder as the
system's user database has it). Two runs with different data folders therefore still take
turns. Files acted on are also locked one by one while they are proven and acted on
(``actions.proof``), which holds off another user's run on a shared volume.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from dupfinder.core.errors import ActionBusy, ActionError
from dupfinder.core.wording import os_error_reason

__all__ = ["default_lock_path", "hold_action_lock"]

_POLL_S = 0.1


def _account_home() -> Path:
    """The account's home folder from the user database, not from ``HOME``."""
    try:
        import pwd

        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, AttributeError, KeyError):  # Windows; an account it does not know
        return Path(os.path.expanduser("~"))


def default_lock_path() -> Path:
    """The one lock of this account on this machine."""
    return _account_home() / ".local" / "state" / "dupfinder" / "actions.lock"


def _holder(owner: Path) -> str:
    with contextlib.suppress(OSError, ValueError):
        return f" (process {int(owner.read_text().strip())})"
    return ""


@contextlib.contextmanager
def hold_action_lock(
    path: str | os.PathLike[str] | None = None,
    *,
    cancel: threading.Event | None = None,
    on_wait: Callable[[str], None] | None = None,
    timeout: float | None = None,
) -> Iterator[None]:
    """Hold the per-user action lock for the ``with`` block.

    Waits while another run holds it: ``on_wait`` is told once, ``cancel`` stops the wait,
    and ``timeout`` (seconds, None: no limit) bounds it; both raise ``ActionBusy``.
    """
    lock_path = Path(path) if path is not None else default_lock_path()
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ActionError(
            f"cannot make the folder of the action lock {lock_path.parent}: "
            f"{os_error_reason(exc)}; nothing was changed"
        ) from None
    if lock_path.is_dir() or lock_path.is_symlink():
        raise ActionError(
            f"the action lock {lock_path} is a folder or a link, not a file; "
            "remove it to go on; nothing was changed"
        )
    owner = lock_path.with_name(lock_path.name + ".owner")
    lock = FileLock(lock_path, is_singleton=False, thread_local=False)
    try:
        lock.acquire(blocking=False)
    except Timeout:
        message = f"another dupfinder apply or undo is running{_holder(owner)}"
        if on_wait is not None:
            on_wait(message)
        try:
            lock.acquire(
                timeout=-1 if timeout is None else timeout,
                poll_interval=_POLL_S,
                cancel_check=(lambda: cancel.is_set()) if cancel is not None else None,
            )
        except Timeout:
            stopped = cancel is not None and cancel.is_set()
            what = "stopped waiting" if stopped else "gave up waiting"
            raise ActionBusy(f"{message}; {what}, nothing was changed") from None
    except OSError as exc:
        raise ActionError(
            f"cannot take the action lock {lock_path}: {os_error_reason(exc)}; nothing was changed"
        ) from None
    try:
        with contextlib.suppress(OSError):
            owner.write_text(str(os.getpid()))
        yield
    finally:
        lock.release()
