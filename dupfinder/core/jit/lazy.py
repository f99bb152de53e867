"""A module imported when it is first used, not when the module naming it is.

A rescan of an unchanged folder walks it and is given its last result (``scan.last_result``):
it never touches an array, yet the scan's modules imported numpy at their top, some 0.06 s of
its 0.5. Those modules name numpy through :func:`module` instead; type checkers see the real
import (under ``TYPE_CHECKING``).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

__all__ = ["loaded", "module"]


class _Lazy(types.ModuleType):
    """Stands for a module until an attribute is asked of it; then imports it and takes its
    names, so later look-ups are as quick as the module's own."""

    def __getattr__(self, name: str) -> Any:
        real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)
        return getattr(real, name)


def module(name: str) -> types.ModuleType:
    """``name``, imported when first used."""
    return sys.modules.get(name) or _Lazy(name)


def loaded(name: str) -> types.ModuleType | None:
    """``name`` where something has imported it already, else None (nothing is imported)."""
    return sys.modules.get(name)
