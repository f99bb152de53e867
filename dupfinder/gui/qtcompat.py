"""A guard against PySide6 reference-count bugs that abort the app after a while.

PySide6 6.12.0 on CPython 3.11 returns ``None`` from every void method (``setText``,
``update``, ``QThread.quit``, ``processEvents``...) and ``True`` from ``SignalInstance.emit``
without taking a new reference. Each call therefore takes one reference away from ``None`` or
``True``; after some thousands of calls (minutes of scanning and browsing) the object is freed
and the process aborts with "Fatal Python error: none_dealloc" (or "bool_dealloc"). Measured
here: exactly -1 per call. CPython 3.12+ makes these objects immortal, so it never shows there.

The guard measures both leaks once, at import, with a throwaway QObject; only when one is
present (and only on a CPython without immortal objects, with the usual object layout) does it
give ``None``, ``True`` and ``False`` a very large reference count, which is what CPython 3.12
does for them by design. Every GUI module imports this module before it calls into Qt.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

__all__ = ["LEAKS", "PINNED"]


class _Probe(QObject):
    ping = Signal()


def _leak(value: object, call: Callable[[], object], probes: int = 8) -> bool:
    """Whether ``call`` takes a reference from ``value``; what the probe took is given back."""
    before = sys.getrefcount(value)
    for _ in range(probes):
        call()
    leaked = before - sys.getrefcount(value)
    for _ in range(max(leaked, 0)):
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(value))
    return leaked >= probes


def _pin(value: object) -> bool:
    """Add 2**40 (or 2**28 on 32-bit) to the object's count; False when the layout is unknown."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    if hasattr(sys, "getobjects"):  # a Py_TRACE_REFS build: ob_refcnt is not the first field
        return False
    cell = ctypes.c_ssize_t.from_address(id(value))
    if abs(cell.value - sys.getrefcount(value)) > 2:  # not the refcount: leave it alone
        return False
    cell.value += 1 << (40 if ctypes.sizeof(ctypes.c_ssize_t) >= 8 else 28)
    return True


def _measure() -> dict[str, bool]:
    probe = _Probe()
    return {
        "None": _leak(None, lambda: probe.setObjectName("probe")),
        "True": _leak(True, probe.ping.emit),
    }


#: Whether this PySide6 takes a reference from None on void calls, or from True on emit.
LEAKS = _measure()
#: Whether None, True and False were pinned against those leaks.
PINNED = any(LEAKS.values()) and all([_pin(None), _pin(True), _pin(False)])
