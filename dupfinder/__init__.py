"""dupfinder: find near-duplicate documents and images."""

from __future__ import annotations

import functools

__all__ = ["__version__"]


@functools.cache
def _version() -> str:
    """The installed distribution's version, read once when first asked for: reading package
    metadata walks the import path (tens of milliseconds every command would pay)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dupfinder-app")  # the distribution's name on PyPI
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "0.1.0"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
