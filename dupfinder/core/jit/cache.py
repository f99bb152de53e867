"""Where numba keeps the index's compiled code: the user cache folder, keyed by the code itself.

numba's own cache locators write next to the module (read-only in an installed bundle) or key
the cache by the source file's path and contents; a PyInstaller bundle has no source file, and
a one-file bundle unpacks to a new temporary folder on every start, so each run would compile
again (several seconds). This locator keys compiled code by a digest of the module's byte code
instead, which is the same wherever the module was unpacked. numba finds the class by name
through ``NUMBA_CACHE_LOCATOR_CLASSES`` (set by :mod:`dupfinder.core.index.compiled`); this module
is only imported by numba, after numba itself.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import tempfile
from pathlib import Path
from types import CodeType, FunctionType

from numba.core import config
from numba.core.caching import _CacheLocator
from platformdirs import user_cache_dir

__all__ = ["AppCacheLocator", "cache_folder", "writable"]


def cache_folder() -> Path:
    """``NUMBA_CACHE_DIR`` when set, else ``numba`` in dupfinder's user cache folder."""
    return Path(
        getattr(config, "CACHE_DIR", "") or os.path.join(user_cache_dir("dupfinder"), "numba")
    )


def writable(folder: Path) -> bool:
    """Whether compiled code can be saved in ``folder`` (created if missing)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _digest(code: CodeType, into: hashlib._Hash) -> None:
    """Byte code, names and constants of ``code`` and its nested functions (no file paths)."""
    into.update(code.co_code)
    into.update(repr((code.co_names, code.co_varnames, code.co_firstlineno)).encode())
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _digest(const, into)
        else:
            into.update(repr(const).encode())


@functools.cache
def _module_stamp(module_name: str) -> str:
    spec = importlib.util.find_spec(module_name)
    loader = spec.loader if spec is not None else None
    get_code = getattr(loader, "get_code", None)
    code = get_code(module_name) if get_code is not None else None
    if code is None:
        return module_name
    digest = hashlib.sha256()
    _digest(code, digest)
    return digest.hexdigest()


class AppCacheLocator(_CacheLocator):
    """Caches compiled functions in :func:`cache_folder`, stamped by their module's byte code."""

    def __init__(self, py_func: FunctionType) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._path = cache_folder() / py_func.__module__
        self._stamp = _module_stamp(py_func.__module__)

    def get_cache_path(self) -> str:
        return str(self._path)

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: FunctionType, py_file: str) -> AppCacheLocator | None:
        self = cls(py_func)
        try:
            self.ensure_cache_path()  # type: ignore[no-untyped-call]  # numba: no hints
        except OSError:
            return None
        return self
