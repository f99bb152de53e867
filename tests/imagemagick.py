"""Whether ImageMagick's ``convert`` is here: a real one, not a stand-in of the same name that
only converts a PNG for display (some sandboxes put one on the PATH)."""

from __future__ import annotations

import functools
import shutil
import subprocess


@functools.cache
def installed() -> bool:
    """True when ``convert -version`` runs and names ImageMagick."""
    if shutil.which("convert") is None:
        return False
    try:
        found = subprocess.run(
            ["convert", "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return found.returncode == 0 and "ImageMagick" in found.stdout
