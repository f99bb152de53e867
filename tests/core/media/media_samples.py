"""Media files for the tests, made with ffmpeg from its generated sources (no files shipped)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

needs_ffmpeg = pytest.mark.skipif(
    shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None,
    reason="ffmpeg is not installed",
)


def make(*args: str) -> None:
    """Run ffmpeg quietly with ``args`` (inputs, filters, options, then the output path)."""
    ffmpeg = shutil.which("ffmpeg")
    assert ffmpeg is not None
    subprocess.run([ffmpeg, "-v", "error", "-nostdin", "-y", *args], check=True)
