"""Which implementation runs a kernel: one engine type and one rule for all three kernels.

The index, the documents' fingerprints and the picture check each have a numpy reference and a
numba-compiled kernel that gives the same answers faster once loaded. Callers pass an
:class:`Engine`; ``AUTO`` lets each kernel's own cost rule decide, and an environment variable
per kernel replaces ``AUTO`` (``numpy`` never loads numba, ``compiled`` always uses the kernel).
"""

from __future__ import annotations

import enum
import functools
import logging
import os
from types import ModuleType

from dupfinder.core.jit.loader import load_compiled

__all__ = ["Engine", "Kernel", "effective", "load"]

_log = logging.getLogger(__name__)


class Engine(enum.Enum):
    """Which implementation runs a kernel."""

    AUTO = "auto"  #: the kernel's own rule: compiled when it pays for its loading
    NUMPY = "numpy"  #: the numpy reference implementation
    COMPILED = "compiled"  #: the compiled kernel; an error when numba cannot be loaded


class Kernel(enum.Enum):
    """A compiled kernel: the environment variable that forces its engine, its module."""

    INDEX = ("DUPFINDER_INDEX", "dupfinder.core.index.kernels", "compiled index")
    TEXT = ("DUPFINDER_TEXT", "dupfinder.core.text.kernels", "compiled text kernel")
    PICTURE_CHECK = (
        "DUPFINDER_PICTURE_CHECK",
        "dupfinder.core.image.check_kernels",
        "compiled picture check",
    )

    def __init__(self, variable: str, module: str, label: str) -> None:
        self.variable = variable
        self.module = module
        self.label = label


def effective(kernel: Kernel, engine: Engine = Engine.AUTO) -> Engine:
    """The engine to use: an explicit one wins; ``AUTO`` yields to the kernel's variable."""
    if not isinstance(engine, Engine):
        raise TypeError(f"engine must be an Engine, got {type(engine).__name__}")
    if engine is Engine.AUTO and os.environ.get(kernel.variable) in ("numpy", "compiled"):
        return Engine(os.environ[kernel.variable])
    return engine


@functools.cache
def load(kernel: Kernel) -> ModuleType | None:
    """The kernel's compiled module, or None (with one warning) when numba cannot be loaded."""
    return load_compiled(kernel.module, f"{kernel.label} unavailable (%s); using numpy", _log)
