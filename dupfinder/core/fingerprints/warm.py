"""Imported last by a scan pool's fork server (``worker.reader_modules``): each reader it
imported makes, before the server forks a worker, what its first file would make once.

Importing this module is the whole of its work: a fork server runs nothing but the imports
it is given. A reader that cannot warm up is left to make its state on its first file.
"""

from __future__ import annotations

import sys

__all__: list[str] = []

#: Readers that make state on their first file, by module name.
_READERS = ("dupfinder.core.image.perceptual",)


def _warm() -> None:
    for name in _READERS:
        reader = sys.modules.get(name)
        if reader is None:
            continue
        try:
            reader.warm()
        except Exception:  # an optimisation only: the worker makes it on its first file
            continue


_warm()
