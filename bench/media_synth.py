"""Music-like tracks made with numpy: a melody, a bass line, chords and drums on a beat grid.

An "album" fixes the tempo, the key, the scale and the instruments; each track of it draws its
own melody, rhythm and chord progression from its seed. Tracks of one album are the hard
negatives of the music benchmark: same sound, same tempo, different songs.
"""

from __future__ import annotations

import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = ["RATE", "Album", "album", "track", "write_wav"]

RATE = 44100
_MAJOR = (0, 2, 4, 5, 7, 9, 11)
_MINOR = (0, 2, 3, 5, 7, 8, 10)

Samples = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Album:
    """The shared style of several tracks."""

    seed: int
    tempo_bpm: float
    root_hz: float
    minor: bool
    brightness: int  # harmonics of the lead voice


def album(seed: int) -> Album:
    rng = np.random.default_rng(seed)
    return Album(
        seed=seed,
        tempo_bpm=float(rng.uniform(80, 140)),
        root_hz=float(rng.uniform(180, 300)),
        minor=bool(rng.integers(0, 2)),
        brightness=int(rng.integers(2, 7)),
    )


def _voice(freq: float, seconds: float, harmonics: int, decay: float) -> Samples:
    t = np.arange(int(seconds * RATE)) / RATE
    tone = sum(np.sin(2 * np.pi * freq * k * t) / k**1.2 for k in range(1, harmonics + 1))
    attack = np.minimum(1.0, t / 0.01)
    return np.asarray(tone * attack * np.exp(-t * decay), dtype=np.float64)


def _add(out: Samples, start: float, sound: Samples, gain: float) -> None:
    i = int(start * RATE)
    j = min(out.size, i + sound.size)
    if i < out.size:
        out[i:j] += gain * sound[: j - i]


def track(style: Album, number: int, seconds: float) -> Samples:
    """One track of an album, mono, -1..1."""
    rng = np.random.default_rng(style.seed * 1000 + number)
    beat = 60.0 / style.tempo_bpm
    scale = _MINOR if style.minor else _MAJOR
    out = np.zeros(int(seconds * RATE))
    degrees = rng.integers(0, 7, size=4)  # the chord progression, one chord a bar
    noise_rng = np.random.default_rng(number)
    pattern = rng.random(16) < 0.55  # which sixteenths of a bar the melody plays
    for bar in range(int(seconds / (4 * beat)) + 1):
        start = bar * 4 * beat
        chord_root = int(degrees[bar % 4])
        for step in (0, 2, 4):
            semis = scale[(chord_root + step) % 7] + 12 * ((chord_root + step) // 7)
            freq = style.root_hz / 2 * 2 ** (semis / 12)
            _add(out, start, _voice(freq, 4 * beat, 3, 0.6), 0.08)
        bass = style.root_hz / 4 * 2 ** (scale[chord_root] / 12)
        for b in range(4):
            _add(out, start + b * beat, _voice(bass, beat, 2, 3.0), 0.25)
            kick = _voice(55.0, 0.25, 1, 18.0)
            _add(out, start + b * beat, kick, 0.5)
            hat = noise_rng.standard_normal(int(0.05 * RATE)) * np.exp(
                -np.arange(int(0.05 * RATE)) / (0.01 * RATE)
            )
            _add(out, start + (b + 0.5) * beat, hat, 0.12)
        for s in range(16):
            if pattern[s] and rng.random() < 0.85:
                degree = int(rng.integers(0, 10))
                semis = scale[degree % 7] + 12 * (degree // 7)
                freq = style.root_hz * 2 ** (semis / 12)
                note = _voice(freq, beat * rng.choice([0.5, 1.0]), style.brightness, 4.0)
                _add(out, start + s * beat / 4, note, 0.2)
    peak = float(np.abs(out).max()) or 1.0
    return out / peak * 0.9


def write_wav(path: Path, samples: Samples, rate: int = RATE, *, delay_ms: float = 7.0) -> None:
    """16-bit stereo WAV, the right channel ``delay_ms`` late (so a mono downmix is an edit
    that changes the sound, as it does for a real stereo mix)."""
    shift = int(rate * delay_ms / 1000)
    right = np.concatenate([np.zeros(shift), samples[: samples.size - shift]])
    pcm = np.clip(np.stack([samples, right], axis=1) * 32767.0, -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())
