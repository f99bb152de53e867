"""Media files for the tests, made with ffmpeg from its generated sources (no files shipped)."""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

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


def _melody(seed: float) -> str:
    """An aevalsrc expression: a lead, a bass and a high voice whose notes are drawn per step
    from a hash of the step and ``seed`` (no period, so a clip aligns at one offset only), at a
    tempo of the seed's own."""
    beat = 0.19 + 0.04 * seed

    def note(base: float, span: int, steps: float, salt: float) -> str:
        step = rf"floor(t/{beat * steps:g})*({salt + seed:g})"
        return rf"{base:g}*pow(2\,floor({span}*abs(sin({step})))/12)"

    return "+".join(
        [
            rf"0.5*sin(2*PI*{note(220, 14, 1, 12.9898)}*t)*exp(-4*mod(t\,{beat:g}))",
            rf"0.3*sin(2*PI*{note(82, 7, 4, 78.233)}*t)",
            rf"0.2*sin(2*PI*{note(440, 9, 2, 39.34)}*t)*lt(mod(t\,{2 * beat:g})\,{beat:g})",
        ]
    )


def song(path: Path, seed: float, seconds: float) -> Path:
    """A music-like stereo track (a melody over pink noise, the right channel 7 ms late)."""
    make(
        "-f", "lavfi", "-i", f"aevalsrc={_melody(seed)}:s=16000:d={seconds:g}",
        "-f", "lavfi", "-i", f"anoisesrc=d={seconds:g}:c=pink:r=16000:a=0.02:seed={int(seed)}",
        "-filter_complex", "amix=inputs=2:normalize=0,aformat=channel_layouts=stereo,adelay=0|7",
        str(path),
    )  # fmt: skip
    return path


#: Edits of one song: output name and ffmpeg options (all found as the same song).
SONG_EDITS: dict[str, tuple[str, ...]] = {
    "mp3-128k.mp3": ("-b:a", "128k"),
    "mp3-320k.mp3": ("-b:a", "320k"),
    "vorbis.ogg": ("-c:a", "libvorbis", "-q:a", "3"),
    "opus.opus": ("-c:a", "libopus", "-b:a", "64k"),
    "aac.m4a": ("-c:a", "aac", "-aac_coder", "fast", "-b:a", "128k"),
    "flac.flac": (),
    "resampled.wav": ("-ar", "44100"),
    "mono.mp3": ("-ac", "1"),
    "quieter.wav": ("-af", "volume=-6dB"),
    "trimmed.mp3": ("-ss", "8"),
    "faded.mp3": ("-af", "afade=t=in:d=3,afade=t=out:st=30:d=10"),
}
#: Where the clip of the song starts and how long it is.
CLIP_START_S, CLIP_S = 13.0, 15.0


@functools.cache
def songs() -> dict[str, Path]:
    """The song (40 s), its edits, a clip of it, two other songs and, when espeak-ng is
    installed, two sentences spoken by one voice: made once per test session."""
    folder = Path(tempfile.mkdtemp(prefix="dupfinder-media-songs-"))
    atexit.register(shutil.rmtree, folder, True)
    files = {"song": song(folder / "song.wav", 1, 40)}
    jobs = [(name, ("-i", str(files["song"]), *options)) for name, options in SONG_EDITS.items()]
    jobs.append(
        ("clip.mp3", ("-ss", f"{CLIP_START_S:g}", "-t", f"{CLIP_S:g}", "-i", str(files["song"])))
    )
    with ThreadPoolExecutor(2) as pool:
        other = pool.submit(song, folder / "other.wav", 2, 40)
        another = pool.submit(song, folder / "another.mp3", 3, 25)
        files.update({name: folder / name for name, _ in jobs})
        list(pool.map(lambda job: make(*job[1], str(folder / job[0])), jobs))
        files["other"], files["another"] = other.result(), another.result()
    espeak = shutil.which("espeak-ng")
    if espeak:
        for name, text in SPEECH.items():
            wav = folder / f"{name}.wav"
            subprocess.run([espeak, "-w", str(wav), text], check=True)
            files[name] = wav
    return files


SPEECH = {
    "speech-one": "The quick brown fox jumps over the lazy dog near the river bank. "
    "Then it runs into the forest, where the trees are tall and the light is green.",
    "speech-two": "Seven silver ships sailed across the northern sea at dawn. "
    "Their captains wrote long letters home about the storms and the whales they saw.",
}
