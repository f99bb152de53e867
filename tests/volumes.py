"""Real mounts for tests of what crosses file systems: a tmpfs volume, a bind mount.

Mounting needs root (and a kernel that lets this process mount); tests that need a mount
are skipped elsewhere. Every mount is made under the test's own folder and taken down
(lazily, so a file left open cannot keep it) when the test ends.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["bind_mount", "needs_mount", "tmpfs_volume"]


def _run(*command: str) -> bool:
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


@functools.cache
def mounting_works() -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    with tempfile.TemporaryDirectory(prefix="dupfinder-mount-") as where:
        if not _run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", where):
            return False
        return _run("umount", "-l", where)


needs_mount = pytest.mark.skipif(not mounting_works(), reason="needs root and mount")


@contextlib.contextmanager
def tmpfs_volume(where: Path, size: str = "64m") -> Iterator[Path]:
    """A fresh tmpfs at ``where`` (another file system than the test sandbox)."""
    where.mkdir(parents=True, exist_ok=True)
    if not _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=755", "tmpfs", str(where)):
        pytest.skip("could not mount a tmpfs")
    try:
        yield where
    finally:
        _run("umount", "-l", str(where))


@contextlib.contextmanager
def bind_mount(source: Path, where: Path) -> Iterator[Path]:
    """``source`` seen again at ``where``: the same file system (same st_dev), another mount."""
    where.mkdir(parents=True, exist_ok=True)
    if not _run("mount", "--bind", str(source), str(where)):
        pytest.skip("could not bind mount")
    try:
        yield where
    finally:
        _run("umount", "-l", str(where))
