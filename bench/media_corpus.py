"""Evaluation corpus for music and videos: synthesised tracks, speech, films of shots, and the
edits people make to them.

Music: ``bench.media_synth`` albums (each album one tempo, key and set of instruments; its
tracks are the hard negatives of each other), 3-minute stereo tracks; speech from espeak-ng
(one voice reading different texts: hard negatives) when it is installed. Every source is
edited: MP3 at 128 and 320 kbit/s, Vorbis, Opus, AAC, FLAC, resampled to 22.05 kHz, mono,
6 dB quieter, the first 10 s cut, faded in and out, and a 30-s clip from its middle.

Videos: "channels" whose films open on the same 20-s intro (a zoom, two pictures filmed, a
test pattern) between black frames, then shots of their own (real pictures from Debian's
wallpapers, filmed with a slow push-in; Games of Life and cellular automata grown from the
film's seed; a test card). Films of one channel are the hard negatives of each other.
Every film is re-encoded (H.264 at CRF 30, VP9, MPEG-4 Part 2), remuxed to Matroska, made
smaller, cropped by 6 %, letterboxed, trimmed by 10 s, and clipped (20 s from its middle).

``build_corpus`` writes ``manifest.json`` beside the files and reuses them while
``CORPUS_VERSION`` is unchanged (a new version keeps the audio files it finds and makes the
videos again). Same group = duplicates; same family, other group = hard
negative.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.media_synth import album, track, write_wav

__all__ = ["CORPUS_VERSION", "DEFAULT_CORPUS_DIR", "MediaItem", "build_corpus"]

CORPUS_VERSION = "2"
DEFAULT_CORPUS_DIR = Path(tempfile.gettempdir()) / "dupfinder-media-corpus"

AUDIO_EDITS: dict[str, tuple[str, tuple[str, ...]]] = {
    "mp3-128k": ("mp3", ("-b:a", "128k")),
    "mp3-320k": ("mp3", ("-b:a", "320k")),
    "vorbis": ("ogg", ("-c:a", "libvorbis", "-q:a", "3")),
    "opus-64k": ("opus", ("-c:a", "libopus", "-b:a", "64k")),
    "aac-128k": ("m4a", ("-c:a", "aac", "-b:a", "128k")),
    "flac": ("flac", ()),
    "resampled-22k": ("wav", ("-ar", "22050")),
    "mono": ("mp3", ("-ac", "1", "-b:a", "128k")),
    "volume-6db": ("wav", ("-af", "volume=-6dB")),
    "trim-10s": ("mp3", ("-ss", "10", "-b:a", "192k")),
    "fade": ("mp3", ("-af", "afade=t=in:d=5,areverse,afade=t=in:d=10,areverse")),
    "clip-30s": ("mp3", ("-ss", "60", "-t", "30")),
}
VIDEO_EDITS: dict[str, tuple[str, tuple[str, ...]]] = {
    "h264-crf30": ("mp4", ("-c:v", "libx264", "-preset", "veryfast", "-crf", "30")),
    "vp9": ("webm", ("-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
                     "-b:v", "400k")),
    "mpeg4": ("avi", ("-c:v", "mpeg4", "-q:v", "6")),
    "remux-mkv": ("mkv", ("-c", "copy")),
    "smaller": ("mp4", ("-vf", "scale=160:120", "-preset", "veryfast")),
    "crop-6pct": ("mp4", ("-vf", "crop=iw*0.94:ih*0.94", "-preset", "veryfast")),
    "letterbox": ("mp4", ("-vf", "pad=iw:ih*4/3:0:(oh-ih)/2", "-preset", "veryfast")),
    "trim-10s": ("mp4", ("-ss", "10", "-preset", "veryfast")),
    "clip-20s": ("mp4", ("-ss", "30", "-t", "20", "-preset", "veryfast")),
}  # fmt: skip
SPEECH = (
    "The old lighthouse keeper climbed the stairs every evening to light the great lamp. "
    "Ships passing in the night trusted its beam to guide them safely past the rocks.",
    "Bread rises when yeast turns sugar into gas, filling the dough with tiny bubbles. "
    "A warm kitchen and a little patience are all a baker really needs.",
    "The committee met on Tuesday to discuss the budget for the new library wing. "
    "After a long debate they agreed to spend more on books and less on furniture.",
    "Mountains form over millions of years as plates of the earth's crust push together. "
    "Wind and rain then wear them down, grain by grain, into valleys and plains.",
)
SIZE, RATE = "320x240", 25


@dataclass(frozen=True)
class MediaItem:
    """One corpus file: ``group`` (same = duplicates), ``family`` (same, other group = hard
    negative), ``edit`` ("original" or an edit name)."""

    path: str
    kind: str
    group: str
    family: str
    edit: str


def _ffmpeg(*args: str) -> None:
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", *args], check=True)


def _audio_sources(folder: Path, quick: bool) -> list[MediaItem]:
    items = []
    albums, tracks, seconds = (2, 2, 120.0) if quick else (3, 3, 180.0)
    for a in range(albums):
        style = album(100 + a)
        for t in range(tracks):
            path = folder / f"album{a}-track{t}.wav"
            if not path.exists():
                write_wav(path, track(style, t, seconds))
            items.append(
                MediaItem(str(path), "audio", f"album{a}-track{t}", f"album{a}", "original")
            )
    espeak = shutil.which("espeak-ng")
    for i, text in enumerate(SPEECH[: 2 if quick else 4] if espeak else ()):
        path = folder / f"speech{i}.wav"
        if not path.exists():  # read three times, so the clip and the trims have enough
            subprocess.run([str(espeak), "-s", "140", "-w", str(path), f"{text} {text} {text}"],
                           check=True)  # fmt: skip
        items.append(MediaItem(str(path), "audio", f"speech{i}", "speaker", "original"))
    return items


def _pictures(folder: Path) -> list[Path]:
    """Distinct real pictures: one per wallpaper design (Debian ships each at several sizes and
    in light and dark variants, which would make two "different" films show one picture),
    and none within 16 bits of an earlier one by the picture hash."""
    from PIL import Image

    from dupfinder.core.image.perceptual import hash_working

    designs = sorted(Path("/usr/share/wallpapers").glob("*/contents/images"))
    found = [sorted(d.glob("*.jpg"))[0] for d in designs if any(d.glob("*.jpg"))]
    found += sorted(Path("/usr/share/backgrounds").rglob("*.jpg"))
    if not found:
        raise SystemExit("media_corpus: no wallpapers under /usr/share (apt-get install "
                         "plasma-workspace-wallpapers or gnome-backgrounds)")  # fmt: skip
    out: list[Path] = []
    seen: list[int] = []
    for source in found:
        path = folder / f"picture{len(out)}.png"
        with Image.open(source) as picture:
            picture.draft("RGB", (480, 360))
            small = picture.convert("RGB").resize((400, 300))
        value = hash_working(small.convert("L"))
        if any((value ^ other).bit_count() <= 16 for other in seen):
            continue
        seen.append(value)
        small.save(path)
        out.append(path)
        if len(out) == 24:
            break
    return out


def _shot(kind: str, seconds: float, seed: int = 0, picture: Path | None = None) -> list[str]:
    frames = int(seconds * RATE)
    if kind == "pan":
        zoom = f"zoompan=z='1+on*0.12/{frames}':d={frames}:s={SIZE}:fps={RATE}"
        return ["-f", "lavfi", "-i", f"movie={picture},{zoom},trim=duration={seconds:g}"]
    source = {
        "black": f"color=c=black:s={SIZE}:r={RATE}:d={seconds:g}",
        "zoom": f"mandelbrot=s={SIZE}:r={RATE}:maxiter=128,trim=duration={seconds:g}",
        "life": f"life=s={SIZE}:r={RATE}:seed={seed}:mold=10,trim=duration={seconds:g}",
        "cells": f"cellauto=s={SIZE}:r={RATE}:rule={[18, 30, 90, 110, 150][seed % 5]}"
        f":random_seed={seed},trim=duration={seconds:g}",
        "card": f"testsrc2=s={SIZE}:r={RATE}:d={seconds:g}",
        "bars": f"smptehdbars=s={SIZE}:r={RATE}:d={seconds:g}",
    }[kind]
    return ["-f", "lavfi", "-i", source]


def _film(path: Path, shots: list[list[str]]) -> None:
    args = [option for shot in shots for option in shot]
    chain = "".join(f"[{i}:v]format=yuv420p,setsar=1[v{i}];" for i in range(len(shots)))
    joined = "".join(f"[v{i}]" for i in range(len(shots)))
    _ffmpeg(*args, "-filter_complex", f"{chain}{joined}concat=n={len(shots)}:v=1[out]",
            "-map", "[out]", "-c:v", "libx264", "-preset", "veryfast", str(path))  # fmt: skip


def _video_sources(folder: Path, quick: bool) -> list[MediaItem]:
    pictures = _pictures(folder)
    channels, films = (1, 2) if quick else (2, 3)
    jobs: list[tuple[Path, list[list[str]], MediaItem]] = []
    for c in range(channels):
        intro = [
            _shot("zoom", 5),
            _shot("pan", 5, picture=pictures[(2 * c) % len(pictures)]),
            _shot("pan", 5, picture=pictures[(2 * c + 1) % len(pictures)]),
            _shot("card" if c % 2 == 0 else "bars", 5),
        ]
        for f in range(films):
            seed = 10 * c + f + 1
            own = [pictures[(4 + 3 * seed + k) % len(pictures)] for k in range(4)]
            shots = [
                _shot("black", 2), *intro, _shot("black", 2),
                _shot("pan", 6, picture=own[0]), _shot("life", 4, seed=seed),
                _shot("pan", 5, picture=own[1]), _shot("cells", 4, seed=seed),
                _shot("pan", 6, picture=own[2]), _shot("life", 3, seed=seed + 50),
                _shot("pan", 5, picture=own[3]), _shot("cells", 3, seed=seed + 2),
            ]  # fmt: skip
            path = folder / f"channel{c}-film{f}.mp4"
            if path.exists():
                path.unlink()  # its pictures may have changed
            jobs.append((path, shots, MediaItem(str(path), "video", path.stem, f"channel{c}",
                                                "original")))  # fmt: skip
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda job: _film(job[0], job[1]), jobs))
    return [item for _, _, item in jobs]


def _edit(source: MediaItem, name: str, suffix: str, options: Sequence[str]) -> MediaItem:
    stem = Path(source.path).with_suffix("")
    out = Path(f"{stem}.{name}.{suffix}")
    if source.kind == "video" or not out.exists():
        if "-ss" in options and source.kind == "audio" and name.startswith("clip"):
            start = min(60.0, _seconds(source.path) / 3)  # speech is shorter than music
            options = ["-ss", f"{start:g}", *options[2:]]
        _ffmpeg("-i", source.path, *options, str(out))
    return MediaItem(str(out), source.kind, source.group, source.family, name)


def _seconds(path: str) -> float:
    from dupfinder.core.media.info import probe

    return probe(path).duration_s or 0.0


def build_corpus(
    folder: Path = DEFAULT_CORPUS_DIR, *, quick: bool = False, force: bool = False
) -> list[MediaItem]:
    """The corpus's items, built once per ``CORPUS_VERSION`` (and ``quick``) in ``folder``."""
    manifest = folder / "manifest.json"
    tag = f"{CORPUS_VERSION}{'-quick' if quick else ''}"
    if manifest.exists() and not force:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        if data.get("version") == tag:
            return [MediaItem(**item) for item in data["items"]]
    if force:
        shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    sources = _audio_sources(folder, quick) + _video_sources(folder, quick)
    edits = [
        (source, name, suffix, options)
        for source in sources
        for name, (suffix, options) in (
            AUDIO_EDITS if source.kind == "audio" else VIDEO_EDITS
        ).items()
    ]
    with ThreadPoolExecutor(2) as pool:
        edited = list(pool.map(lambda job: _edit(*job), edits))
    items = sources + edited
    manifest.write_text(
        json.dumps({"version": tag, "items": [asdict(i) for i in items]}, indent=1),
        encoding="utf-8",
    )
    return items


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer and shorter sources")
    parser.add_argument("--force", action="store_true", help="build again")
    parser.add_argument("--dir", type=Path, default=DEFAULT_CORPUS_DIR)
    args = parser.parse_args(argv)
    items = build_corpus(args.dir, quick=args.quick, force=args.force)
    kinds = {kind: sum(i.kind == kind for i in items) for kind in ("audio", "video")}
    sys.stdout.write(f"{len(items)} files in {args.dir}: {kinds}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
