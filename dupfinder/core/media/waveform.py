"""What the app shows and plays of a song: a strip of peaks and a few seconds as WAV.

Both decode through ffmpeg under a time limit, like the fingerprints. Peaks are absolute
(full scale is 1.0), so a quieter copy of a song draws a lower strip beside its original.
"""

from __future__ import annotations

import io
import wave

import numpy as np
import numpy.typing as npt

from dupfinder.core.media.audio import decode_samples
from dupfinder.core.media.tools import FILE_LIMIT_S, input_url, require_tools, run_tool

__all__ = ["MAX_CLIP_S", "clip_wav", "waveform"]

#: The longest stretch ``clip_wav`` cuts.
MAX_CLIP_S = 30.0
_PLAY_RATE = 44100


def waveform(
    path: str, *, points: int, time_limit_s: float = FILE_LIMIT_S
) -> npt.NDArray[np.float32]:
    """``points`` peaks (0..1) evenly over the whole file; zeros where it is silent or ends
    before the point (a file shorter than ``points`` samples). Raises ``FileProblem``
    subclasses like the fingerprints."""
    if points < 1:
        raise ValueError("points must be at least 1")
    samples = np.abs(decode_samples(path, time_limit_s=time_limit_s))
    peaks = np.zeros(points, dtype=np.float32)
    if samples.size == 0:
        return peaks
    edges = np.linspace(0, samples.size, points + 1).astype(np.int64)
    filled = edges[1:] > edges[:-1]
    peaks[filled] = np.maximum.reduceat(samples, edges[:-1][filled])
    return np.clip(peaks, 0.0, 1.0)


def clip_wav(path: str, start_s: float, seconds: float, *, time_limit_s: float = 20.0) -> bytes:
    """``seconds`` (at most ``MAX_CLIP_S``) of the file from ``start_s`` as a 16-bit stereo
    WAV at 44.1 kHz, ready for any player; empty audio past the end of the file."""
    if seconds <= 0:
        raise ValueError("seconds must be positive")
    tools = require_tools()
    raw = run_tool(
        [tools.ffmpeg, "-nostdin", "-v", "error", "-ss", f"{max(0.0, start_s):.3f}",
         "-i", input_url(path), "-map", "0:a:0", "-vn", "-t", f"{min(seconds, MAX_CLIP_S):.3f}",
         "-ac", "2", "-ar", str(_PLAY_RATE), "-f", "s16le", "-acodec", "pcm_s16le", "-"],
        time_limit_s=time_limit_s,
    )  # fmt: skip
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(2)
        writer.setsampwidth(2)
        writer.setframerate(_PLAY_RATE)
        writer.writeframes(raw[: len(raw) // 4 * 4])
    return out.getvalue()
