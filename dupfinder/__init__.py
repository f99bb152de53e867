"""dupfinder: find near-duplicate documents and images."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("dupfinder-app")  # the distribution's name on PyPI
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"

__all__ = ["__version__"]
