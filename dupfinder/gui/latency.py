"""What keeps the window's thread from waiting behind the other Python threads of the app.

Every call from Qt into Python (a timer, a model's ``data``, a paint) needs the interpreter
lock. Two things held it from the window for a tenth of a second at a time while a scan ran
on a worker thread, on a quiet machine:

- the switch interval: by default Python lets the running thread keep the lock 5 ms after
  another asks for it, so a window that makes a hundred such calls froze for 0.5 s;
- the collector's full passes, which stop every thread: they walked the 70,000 objects the
  imports and the window make (36 ms alone, 78 ms with a 20,000-file result), and whichever
  thread allocated when one was due paid for it. Those objects live as long as the app, so
  they are frozen once, out of every later pass (12 ms for the same result).

The grouping itself runs in a worker process (``dupfinder.core.scan.isolated``).
"""

from __future__ import annotations

import gc
import sys

__all__ = ["GIL_SWITCH_SECONDS", "keep_window_responsive"]

#: How long a thread keeps the GIL when another asks for it (Python's default is 5 ms).
GIL_SWITCH_SECONDS = 0.0005

_frozen = False


def keep_window_responsive() -> None:
    """Shorten the switch interval; the first time, collect and freeze what exists now
    (the modules and the window, which live as long as the app)."""
    global _frozen
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()
