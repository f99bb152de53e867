"""Media files for the tests, made with ffmpeg from its generated sources (no files shipped)."""

from __future__ import annotations

import atexit
import functools
import random
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import pytest
from PIL import Image, ImageDraw

from dupfinder.core.media.match import MediaMatch

needs_ffmpeg = pytest.mark.skipif(
    shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None,
    reason="ffmpeg is not installed",
)


class Print(Protocol):
    @property
    def value(self) -> int: ...
    @property
    def windows(self) -> tuple[int, ...]: ...
    @property
    def sequence(self) -> bytes: ...


def meets_in_index(a: Print, b: Print, radius: int) -> bool:
    """Some window (or the whole value) of one is within ``radius`` of one of the other's."""
    left, right = (a.value, *a.windows), (b.value, *b.windows)
    return min((x ^ y).bit_count() for x in left for y in right) <= radius


def match(compare: Callable[[bytes, bytes], MediaMatch | None], a: Print, b: Print) -> MediaMatch:
    """What ``compare`` finds for two prints (it must find an alignment)."""
    found = compare(a.sequence, b.sequence)
    assert found is not None
    return found


def make(*args: str) -> None:
    """Run ffmpeg quietly with ``args`` (inputs, filters, options, then the output path)."""
    ffmpeg = shutil.which("ffmpeg")
    assert ffmpeg is not None
    subprocess.run([ffmpeg, "-v", "error", "-nostdin", "-y", *args], check=True)


def _melody(seed: float, notes: float | None = None) -> str:
    """An aevalsrc expression: a lead, a bass and a high voice whose notes are drawn per step
    from a hash of the step and ``notes`` (``seed`` when not given; no period, so a clip aligns
    at one offset only), at a tempo of the seed's own."""
    beat = 0.19 + 0.04 * seed
    salted = seed if notes is None else notes

    def note(base: float, span: int, steps: float, salt: float) -> str:
        step = rf"floor(t/{beat * steps:g})*({salt + salted:g})"
        return rf"{base:g}*pow(2\,floor({span}*abs(sin({step})))/12)"

    return "+".join(
        [
            rf"0.5*sin(2*PI*{note(220, 14, 1, 12.9898)}*t)*exp(-4*mod(t\,{beat:g}))",
            rf"0.3*sin(2*PI*{note(82, 7, 4, 78.233)}*t)",
            rf"0.2*sin(2*PI*{note(440, 9, 2, 39.34)}*t)*lt(mod(t\,{2 * beat:g})\,{beat:g})",
        ]
    )


def song(path: Path, seed: float, seconds: float, notes: float | None = None) -> Path:
    """A music-like stereo track (a melody over pink noise, the right channel 7 ms late); songs
    of one ``seed`` and other ``notes`` share tempo, key and instruments, as on an album."""
    make(
        "-f", "lavfi", "-i", f"aevalsrc={_melody(seed, notes)}:s=16000:d={seconds:g}",
        "-f", "lavfi", "-i", f"anoisesrc=d={seconds:g}:c=pink:r=16000:a=0.02:seed={int(seed if notes is None else notes)}",
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


@functools.cache
def album() -> dict[str, Path]:
    """Two tracks of one album (one tempo, key and instruments; other notes), 40 s each, and
    each one as an MP3: made once per test session."""
    folder = Path(tempfile.mkdtemp(prefix="dupfinder-media-album-"))
    atexit.register(shutil.rmtree, folder, True)
    with ThreadPoolExecutor(2) as pool:
        tracks = list(
            pool.map(lambda k: song(folder / f"track{k}.wav", 1, 40, notes=10.0 + k), (1, 2))
        )
        copies = [folder / f"track{k}.mp3" for k in (1, 2)]
        jobs = zip(tracks, copies, strict=True)
        list(pool.map(lambda job: make("-i", str(job[0]), str(job[1])), jobs))
    return {path.name.removesuffix(".wav"): path for path in [*tracks, *copies]}


SPEECH = {
    "speech-one": "The quick brown fox jumps over the lazy dog near the river bank. "
    "Then it runs into the forest, where the trees are tall and the light is green.",
    "speech-two": "Seven silver ships sailed across the northern sea at dawn. "
    "Their captains wrote long letters home about the storms and the whales they saw.",
}


#: Size and frame rate of the test videos.
VIDEO_SIZE, VIDEO_RATE = "192x144", 10
#: Keyframes at least every 10 s, as encoders at 25 frames a second place them by default.
_GOP = ("-g", str(10 * VIDEO_RATE))
#: The shared intro's length; each film is 2 s black, the intro, 2 s black, then its own shots.
INTRO_S = 20


def _pictures(folder: Path, count: int, offset: int) -> list[Path]:
    """``count`` real pictures (Debian's wallpapers and icons when installed, else generated
    drawings) as PNGs a little larger than the video, for slow pans."""
    found = sorted(Path("/usr/share/wallpapers").glob("*/contents/images/*.jpg"))
    found += sorted(Path("/usr/share/icons").glob("*/256x256/apps/*.png"))[:20]
    paths = []
    for i in range(count):
        path = folder / f"picture-{offset + i}.png"
        if found:
            with Image.open(found[(offset + i) * 7 % len(found)]) as source:
                source.draft("RGB", (320, 240))
                source.convert("RGB").resize((320, 240)).save(path)
        else:
            _drawing(offset + i).save(path)
        paths.append(path)
    return paths


def _drawing(seed: int) -> Image.Image:
    """A picture of its own for ``seed`` where no wallpapers are installed: shapes of random
    sizes, places and shades (distinct in grey too, as the video hash sees frames)."""
    rng = random.Random(seed)
    picture = Image.new("RGB", (320, 240), tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(picture)
    for _ in range(60):  # fine detail too, so a slow push-in changes what the frames show
        x, y = rng.randrange(-20, 320), rng.randrange(-20, 240)
        w, h = rng.randrange(8, 90), rng.randrange(8, 70)
        fill = tuple(rng.randrange(256) for _ in range(3))
        shape = draw.ellipse if rng.random() < 0.5 else draw.rectangle
        shape((x, y, x + w, y + h), fill=fill)
    return picture


def _shot(kind: str, seconds: float, picture: Path | None = None, seed: int = 0) -> list[str]:
    """ffmpeg input options for one shot of ``seconds``."""
    size, rate = VIDEO_SIZE, VIDEO_RATE
    frames = int(seconds * rate)
    sources = {
        "black": f"color=c=black:s={size}:r={rate}:d={seconds:g}",
        "zoom": f"mandelbrot=s={size}:r={rate}:maxiter=96,trim=duration={seconds:g}",
        "life": f"life=s={size}:r={rate}:seed={seed}:mold=10,trim=duration={seconds:g}",
        "cells": f"cellauto=s={size}:r={rate}:rule={30 + 60 * seed}:random_seed={seed},"
        f"trim=duration={seconds:g}",
        "pattern": f"testsrc2=s={size}:r={rate}:d={seconds:g},hue=h={seed * 40}",
    }
    if kind == "pan":  # a slow push-in over a picture, as a camera would film it
        assert picture is not None
        zoom = f"zoompan=z='1+on*0.15/{frames}':d={frames}:s={size}:fps={rate}"
        return ["-f", "lavfi", "-i", f"movie={picture},{zoom},trim=duration={seconds:g}"]
    return ["-f", "lavfi", "-i", sources[kind]]


def film(path: Path, seed: int, intro: list[Path]) -> Path:
    """A 48-s film of shots: black, the intro (a zoom, two pictures filmed, a pattern),
    black, then 24 s of shots of its own (pictures filmed, Games of Life and a cellular
    automaton grown from ``seed``)."""
    own = _pictures(path.parent, 3, 10 + 3 * seed)
    shots = [
        _shot("black", 2),
        _shot("zoom", 5),
        _shot("pan", 5, intro[0]),
        _shot("pan", 5, intro[1]),
        _shot("pattern", 5),
        _shot("black", 2),
        _shot("pan", 5, own[0]),
        _shot("life", 3, seed=seed),
        _shot("pan", 5, own[1]),
        _shot("cells", 3, seed=seed),
        _shot("pan", 4, own[2]),
        _shot("life", 4, seed=seed + 7),
    ]
    args = [option for shot in shots for option in shot]
    chain = "".join(f"[{i}:v]format=yuv420p,setsar=1[v{i}];" for i in range(len(shots)))
    joined = "".join(f"[v{i}]" for i in range(len(shots)))
    make(*args, "-filter_complex", f"{chain}{joined}concat=n={len(shots)}:v=1[out]",
         "-map", "[out]", "-c:v", "libx264", "-preset", "veryfast", *_GOP, str(path))  # fmt: skip
    return path


#: Edits of one film: output name and ffmpeg options (all found as the same video).
FILM_EDITS: dict[str, tuple[str, ...]] = {
    "h264-crf32.mp4": ("-c:v", "libx264", "-preset", "veryfast", "-crf", "32", *_GOP),
    "vp9.webm": ("-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k"),
    "mpeg4.avi": ("-c:v", "mpeg4", "-q:v", "8"),
    "smaller.mp4": ("-vf", "scale=128:96", "-preset", "veryfast", *_GOP),
    "cropped.mkv": ("-vf", "crop=iw*0.94:ih*0.94", "-preset", "veryfast", *_GOP),
    "letterboxed.mp4": ("-vf", "pad=iw:ih*4/3:0:(oh-ih)/2", "-preset", "veryfast", *_GOP),
    "trimmed.mp4": ("-ss", "8", "-preset", "veryfast", *_GOP),
}
#: Where the clip of the film starts and how long it is.
FILM_CLIP_START_S, FILM_CLIP_S = 26.0, 18.0


@functools.cache
def films() -> dict[str, Path]:
    """A film, its edits, a clip of it, and another film with the same intro and black frames:
    made once per test session."""
    folder = Path(tempfile.mkdtemp(prefix="dupfinder-media-films-"))
    atexit.register(shutil.rmtree, folder, True)
    intro = _pictures(folder, 2, 0)
    with ThreadPoolExecutor(2) as pool:
        other = pool.submit(film, folder / "other.mp4", 2, intro)
        files = {"film": film(folder / "film.mp4", 1, intro)}
        jobs = [(name, ("-i", str(files["film"]), *opts)) for name, opts in FILM_EDITS.items()]
        clip = ("-ss", f"{FILM_CLIP_START_S:g}", "-t", f"{FILM_CLIP_S:g}", "-i", str(files["film"]))
        jobs.append(("clip.mp4", (*clip, "-preset", "veryfast", *_GOP)))
        files.update({name: folder / name for name, _ in jobs})
        list(pool.map(lambda job: make(*job[1], str(folder / job[0])), jobs))
        files["other"] = other.result()
    return files


#: Where the short film is cut from the film (its own shots, after the shared intro).
SHORT_START_S = 26.0
#: Re-encodes of the short film whose keyframes are sparse: x264's default keyframe interval
#: (250 frames: 25 s at this frame rate; x264 still adds some at cuts), and
#: ``-preset ultrafast`` (none at cuts either: one keyframe in the whole file).
SPARSE_EDITS: dict[str, tuple[str, ...]] = {
    "default-gop.mkv": ("-vf", "scale=320:240", "-c:v", "libx264", "-crf", "26"),
    "ultrafast.mp4": ("-c:v", "libx264", "-preset", "ultrafast", "-g", "250"),
}


@functools.cache
def sparse_films() -> dict[str, Path]:
    """A 22-s film (the film's own shots, keyframes at its cuts), its sparse-keyframe
    re-encodes, and the other film re-encoded with ``-preset ultrafast``."""
    folder = Path(tempfile.mkdtemp(prefix="dupfinder-media-sparse-"))
    atexit.register(shutil.rmtree, folder, True)
    source = films()
    short = folder / "short.mp4"
    make("-ss", f"{SHORT_START_S:g}", "-i", str(source["film"]), "-preset", "veryfast", *_GOP,
         str(short))  # fmt: skip
    jobs = [(folder / name, ("-i", str(short), *options)) for name, options in SPARSE_EDITS.items()]
    jobs.append((folder / "other-ultrafast.mp4", ("-i", str(source["other"]),
                 *SPARSE_EDITS["ultrafast.mp4"])))  # fmt: skip
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda job: make(*job[1], str(job[0])), jobs))
    return {"short": short, **{path.name: path for path, _ in jobs}}


def keyframes(path: Path) -> int:
    """How many keyframes the file's video holds."""
    ffprobe = shutil.which("ffprobe")
    assert ffprobe is not None
    flags = subprocess.run(
        [ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
         "-of", "csv=p=0", str(path)],
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    return sum("K" in flag for flag in flags)
