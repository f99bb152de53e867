"""Past one machine: fingerprints as Parquet data, the all-pairs pass on a Dask cluster.

Machines fingerprint shares of a file list into Parquet (:mod:`.fingerprint_job`); a Dask
cluster finds every pair within the radius, one shuffle per permuted table, each partition
running the single-machine kernel (:mod:`.pairs_job`); the groups are then formed as a scan
forms them (:mod:`.groups`). The result equals a single-machine scan of the same fingerprints.

Everything here needs the optional ``distributed`` extra (pyarrow, dask); nothing in
``dupfinder.core`` imports this package, so the desktop install and ``dupfinder scan`` stay
without it.
"""

from __future__ import annotations

import importlib

from dupfinder.core.errors import ExtraMissing

__all__ = ["INSTALL_HINT", "require"]

INSTALL_HINT = "pip install 'dupfinder[distributed]'"


def require(*modules: str) -> None:
    """Import ``modules`` or raise ``ExtraMissing`` saying how to install them."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ExtraMissing(
                f"this needs {name.split('.')[0]}, part of the distributed extra: {INSTALL_HINT}"
            ) from exc
