"""The byte-identical scan's compiled listing and first reads (``walk_kernels``), or None.

Built with the package on POSIX systems (``setup.py``); where it is not (Windows, an install
without a C compiler) or ``DUPFINDER_EXACT=python`` is set, the Python walk and reads answer,
the same files in the same order with the same errors (the tests run both).
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["VARIABLE", "walk_kernels"]

#: ``python`` keeps the byte-identical scan to its Python walk and reads.
VARIABLE = "DUPFINDER_EXACT"


def _load() -> ModuleType | None:
    if os.environ.get(VARIABLE) == "python":
        return None
    try:
        from dupfinder.core.scan import walk_kernels as found
    except ImportError:  # not built here: the Python path answers
        return None
    return found


walk_kernels = _load()
