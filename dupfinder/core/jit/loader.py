"""Importing a compiled kernel, or None (and the reason, once) when it was not built here."""

from __future__ import annotations

import importlib
import logging
from types import ModuleType

__all__ = ["load_compiled"]


def load_compiled(module: str, unavailable: str, log: logging.Logger) -> ModuleType | None:
    """Import the extension module ``module``; on failure warn ``unavailable`` on ``log`` (the
    reason in place of ``%s``) and return None, so the caller uses numpy.

    An install without a C compiler (an sdist where no wheel fits) has no extension; one built
    for another CPU or Python fails to load: either way the numpy reference answers."""
    try:
        return importlib.import_module(module)
    except (ImportError, OSError) as exc:
        log.warning(unavailable, exc)
        return None
