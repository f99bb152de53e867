"""Loading a numba-compiled kernel, or None when numba cannot be loaded here.

Both kernels (the index's and the documents') cache their compiled code in the user cache
folder through :class:`dupfinder.core.jit.cache.AppCacheLocator`; numba reads the two
environment variables when it is first imported, so they are set here, before the import.
"""

from __future__ import annotations

import importlib
import logging
import os
from types import ModuleType

from platformdirs import user_cache_dir

__all__ = ["load_compiled"]


def load_compiled(module: str, unavailable: str, log: logging.Logger) -> ModuleType | None:
    """Import the compiled kernel ``module``; on failure warn ``unavailable`` on ``log`` (the
    reason in place of ``%s``) and return None, so the caller uses numpy."""
    os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(user_cache_dir("dupfinder"), "numba"))
    os.environ.setdefault("NUMBA_CACHE_LOCATOR_CLASSES", "dupfinder.core.jit.cache.AppCacheLocator")
    try:
        return importlib.import_module(module)
    except (ImportError, OSError, RuntimeError) as exc:
        log.warning(unavailable, exc)
        return None
