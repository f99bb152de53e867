"""A module of dupfinder as it was at an earlier commit, loaded beside today's for a bench to
time both in one process."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

__all__ = ["module_at"]

ROOT = Path(__file__).resolve().parent.parent


def module_at(commit: str, path: str, name: str) -> ModuleType:
    """The file ``path`` (relative to the repository) at ``commit``, imported as ``name``
    (registered in ``sys.modules``: dataclasses look their module up)."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    file = Path(tempfile.mkdtemp(prefix="dupfinder-old-")) / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} at {commit}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
