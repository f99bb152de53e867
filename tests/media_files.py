"""Small real music and video files for scan tests, made with ffmpeg (skipped without it).

A "song" is a melody whose notes are drawn from its seed over soft pink noise, so two seeds
sound different all along and one seed is one song in every encoding; a "video" is the Game
of Life grown from its seed, so two seeds never show the same frames.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

needs_ffmpeg = pytest.mark.skipif(
    shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None,
    reason="ffmpeg is not installed",
)


def ffmpeg(*args: str) -> None:
    """Run ffmpeg quietly with ``args`` (inputs, options, then the output path)."""
    program = shutil.which("ffmpeg")
    assert program is not None
    subprocess.run([program, "-v", "error", "-nostdin", "-y", *args], check=True)


def _melody(seed: int) -> str:
    """An aevalsrc expression: four notes a second, each drawn from the step and ``seed``."""
    pitch = rf"220*pow(2\,floor(14*abs(sin(floor(t*4)*{12.9898 + seed * 7.31:g})))/12)"
    bass = rf"82*pow(2\,floor(7*abs(sin(floor(t)*{78.233 + seed * 3.17:g})))/12)"
    return (
        rf"0.5*sin(2*PI*{pitch}*t)*exp(-5*mod(t\,0.25))"
        rf"+0.3*sin(2*PI*{bass}*t)"
    )


def song(path: Path, seed: int, seconds: float = 20.0, *options: str) -> Path:
    """A song of ``seconds`` written to ``path`` (its suffix picks the format) with ffmpeg
    ``options`` (a bitrate, a codec...)."""
    ffmpeg(
        "-f", "lavfi", "-i", f"aevalsrc={_melody(seed)}:s=22050:d={seconds:g}",
        "-f", "lavfi", "-i", f"anoisesrc=d={seconds:g}:c=pink:r=22050:a=0.02:seed={seed}",
        "-filter_complex", "amix=inputs=2:normalize=0",
        *options, str(path),
    )  # fmt: skip
    return path


def encoded(source: Path, path: Path, *options: str) -> Path:
    """``source`` encoded again as ``path`` (its suffix picks the format) with ``options``."""
    ffmpeg("-i", str(source), *options, str(path))
    return path


def video(path: Path, seed: int, seconds: float = 20.0, size: str = "320x240") -> Path:
    """A silent video of ``seconds``: the Game of Life from ``seed`` at ``size``, a keyframe
    every 2 seconds (as a camera or a streaming encoder writes them)."""
    ffmpeg(
        "-f", "lavfi",
        "-i", f"life=size={size}:seed={seed}:rate=10:ratio=0.35:mold=25:"
        "life_color=#ffdd00:death_color=#1020a0:mold_color=#a02010",
        "-t", f"{seconds:g}", "-g", "20", "-pix_fmt", "yuv420p", str(path),
    )  # fmt: skip
    return path
