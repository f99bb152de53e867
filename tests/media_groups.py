"""A song in three encodings and a video with its re-encode, made with ffmpeg, and the groups a
scan makes of them built by hand (the app's media panel is tested on these)."""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from dupfinder.core.model import (
    Fingerprint,
    Group,
    KeepReason,
    Kind,
    MatchedSpan,
    MediaFacts,
    Member,
)

needs_ffmpeg = pytest.mark.skipif(
    shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None,
    reason="ffmpeg is not installed",
)

SONG_S, TRIM_S, FILM_S = 12.0, 4.0, 10.0
TAGS = {"title": "Night Train", "artist": "The Lanterns", "album": "Harbour Lights"}


def _ffmpeg(*args: str) -> None:
    ffmpeg = shutil.which("ffmpeg")
    assert ffmpeg is not None
    subprocess.run([ffmpeg, "-v", "error", "-nostdin", "-y", *args], check=True)


def _tags(**changed: str) -> list[str]:
    options = []
    for name, value in {**TAGS, **changed}.items():
        options += ["-metadata", f"{name}={value}"]
    return options


@functools.cache
def media_files() -> dict[str, Path]:
    """song.flac (lossless), song-320.mp3, song-128-trimmed.mp3 (its first seconds cut, its
    title changed), film.mp4 (320×240) and film-small.avi (160×120, another codec): made
    once per test session."""
    folder = Path(tempfile.mkdtemp(prefix="dupfinder-media-panel-"))
    atexit.register(shutil.rmtree, folder, True)
    files = {
        "flac": folder / "song.flac",
        "mp3": folder / "song-320.mp3",
        "trimmed": folder / "song-128-trimmed.mp3",
        "film": folder / "film.mp4",
        "small": folder / "film-small.avi",
    }
    # notes that swell and fade, so the waveform has a shape to compare
    tone = (
        "0.6*sin(2*PI*(220+110*floor(mod(t*2\\,4)))*t)*(0.3+0.7*abs(sin(PI*t/3)))"
        f":s=44100:c=stereo:d={SONG_S:g}"
    )
    _ffmpeg("-f", "lavfi", "-i", f"aevalsrc={tone}", *_tags(), str(files["flac"]))
    _ffmpeg("-i", str(files["flac"]), "-b:a", "320k", *_tags(), str(files["mp3"]))
    _ffmpeg("-ss", f"{TRIM_S:g}", "-i", str(files["flac"]), "-b:a", "128k",
            *_tags(title="Night Train (radio edit)"), str(files["trimmed"]))  # fmt: skip
    _ffmpeg("-f", "lavfi", "-i", f"testsrc2=s=320x240:r=25:d={FILM_S:g}",
            "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", str(files["film"]))  # fmt: skip
    _ffmpeg("-i", str(files["film"]), "-vf", "scale=160:120", "-c:v", "mpeg4", "-q:v", "6",
            str(files["small"]))  # fmt: skip
    return files


def _member(
    path: Path,
    kind: Kind,
    similarity: float = 1.0,
    span: MatchedSpan | None = None,
    size: tuple[int, int] | None = None,
) -> Member:
    from dupfinder.core.media.info import probe

    info = probe(str(path))
    codec = info.video_codec if kind is Kind.VIDEO else info.audio_codec
    facts = MediaFacts(
        duration_s=info.duration_s,
        bitrate=info.bitrate,
        codec=codec,
        lossless=info.lossless,
        title=info.tags.get("title"),
        artist=info.tags.get("artist"),
        album=info.tags.get("album"),
    )
    stat = path.stat()
    return Member(
        path=str(path),
        size=stat.st_size,
        mtime_ns=stat.st_mtime_ns,
        distance=0,
        fingerprint=Fingerprint(kind, 1),
        width=size[0] if size else None,
        height=size[1] if size else None,
        similarity=similarity,
        media=facts,
        span=span,
    )


def music_group() -> Group:
    """The song as a scan groups it: the FLAC kept (lossless), the MP3 whole, the trimmed
    copy matching the FLAC from its fourth second."""
    files = media_files()
    return Group(
        Kind.AUDIO,
        (
            _member(files["flac"], Kind.AUDIO),
            _member(files["mp3"], Kind.AUDIO, 0.98, MatchedSpan(0, SONG_S, 0, SONG_S)),
            _member(
                files["trimmed"],
                Kind.AUDIO,
                0.95,
                MatchedSpan(0, SONG_S - TRIM_S, TRIM_S, SONG_S),
            ),
        ),
        (KeepReason.LOSSLESS,),
    )


def video_group() -> Group:
    """The film kept (most pixels) and its smaller re-encode, matched whole."""
    files = media_files()
    return Group(
        Kind.VIDEO,
        (
            _member(files["film"], Kind.VIDEO, size=(320, 240)),
            _member(files["small"], Kind.VIDEO, 0.9, MatchedSpan(0, FILM_S, 0, FILM_S), (160, 120)),
        ),
        (KeepReason.MOST_PIXELS,),
    )
