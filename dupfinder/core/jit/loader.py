"""Importing a compiled kernel (its AVX2 build where the CPU runs it), or None when it was not built."""

from __future__ import annotations

import importlib
import logging
import os
from types import ModuleType

__all__ = ["CPU_VARIABLE", "load_compiled"]

#: ``baseline`` keeps to the build every x86-64 CPU since 2009 runs, even where AVX2 is there.
CPU_VARIABLE = "DUPFINDER_CPU"


def load_compiled(module: str, unavailable: str, log: logging.Logger) -> ModuleType | None:
    """Import the extension module ``module``; on failure warn ``unavailable`` on ``log`` (the
    reason in place of ``%s``) and return None, so the caller uses numpy.

    A module with an ``avx2()`` function has a build for AVX2 beside it (``module_avx2``),
    taken when the CPU runs it. An install without a C compiler (an sdist where no wheel fits)
    has no extension; one built for another Python fails to load: either way the numpy
    reference answers."""
    try:
        found = importlib.import_module(module)
    except (ImportError, OSError) as exc:
        log.warning(unavailable, exc)
        return None
    faster = getattr(found, "avx2", None)
    if faster is not None and os.environ.get(CPU_VARIABLE) != "baseline" and faster():
        try:
            return importlib.import_module(f"{module}_avx2")
        except (ImportError, OSError) as exc:
            log.debug("%s_avx2 unavailable (%s); using %s", module, exc, module)
    return found
