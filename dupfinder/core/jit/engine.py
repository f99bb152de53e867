"""Which implementation runs a kernel: one engine type and one rule for every kernel.

The index, the documents' fingerprints, the pictures' hashes, the picture check and the
grouping's components each have a numpy reference and a kernel compiled ahead of time (Cython)
that gives the same answers faster. Loading one is an ordinary import (about a millisecond), so
``AUTO`` uses it whenever it was built; an environment variable per kernel replaces ``AUTO``
(``numpy`` never loads the extension, ``compiled`` requires it).
"""

from __future__ import annotations

import enum
import functools
import logging
import os
from types import ModuleType

from dupfinder.core.jit.loader import load_compiled

__all__ = ["Engine", "Kernel", "available", "choose", "effective", "load", "unavailable"]

_log = logging.getLogger(__name__)


class Engine(enum.Enum):
    """Which implementation runs a kernel."""

    AUTO = "auto"  #: the compiled kernel when it was built, else numpy
    NUMPY = "numpy"  #: the numpy reference implementation
    COMPILED = "compiled"  #: the compiled kernel; an error when it was not built


class Kernel(enum.Enum):
    """A compiled kernel: the environment variable that forces its engine, its module."""

    INDEX = ("DUPFINDER_INDEX", "dupfinder.core.index.kernels", "compiled index")
    TEXT = ("DUPFINDER_TEXT", "dupfinder.core.text.kernels", "compiled text kernel")
    PICTURE_CHECK = (
        "DUPFINDER_PICTURE_CHECK",
        "dupfinder.core.image.check_kernels",
        "compiled picture check",
    )
    PICTURE_HASH = (
        "DUPFINDER_PICTURE_HASH",
        "dupfinder.core.image.hash_kernels",
        "compiled picture hashes",
    )
    PICTURE_DIRECT = (
        "DUPFINDER_PICTURE_DIRECT",
        "dupfinder.core.image.direct_kernels",
        "compiled small-picture steps",
    )
    COMPONENTS = (
        "DUPFINDER_COMPONENTS",
        "dupfinder.core.grouping.components",
        "compiled connected components",
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
    """The kernel's extension module, or None (with one warning) when it was not built."""
    return load_compiled(kernel.module, f"{kernel.label} unavailable (%s); using numpy", _log)


def available(kernel: Kernel) -> bool:
    """Whether ``kernel``'s extension module loads here."""
    return load(kernel) is not None


def unavailable(kernel: Kernel) -> RuntimeError:
    """The error for ``Engine.COMPILED`` when ``kernel`` was not built."""
    return RuntimeError(
        f"the {kernel.label} was not built with this install (a C compiler and Cython build "
        f"it; see the README); use {kernel.variable}=numpy or the numpy engine"
    )


def choose(kernel: Kernel, engine: Engine = Engine.AUTO) -> ModuleType | None:
    """The module to run ``kernel`` with under ``engine`` (after its variable), or None for
    numpy; ``COMPILED`` without the extension is an error."""
    engine = effective(kernel, engine)
    if engine is Engine.NUMPY:
        return None
    module = load(kernel)
    if module is None and engine is Engine.COMPILED:
        raise unavailable(kernel)
    return module
