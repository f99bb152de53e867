"""Cost and accuracy of video prints for a file whose keyframes are sparse.

Run ``python -m bench.media_sparse``. Makes a 104-s 1280x720 25-fps film of 4-s shots
(pictures filmed with a push-in, zooms, test cards: the shots of ``bench.media_corpus``),
encodes it twice with x264: ``-preset veryfast`` (the default keyframe interval, keyframes at
cuts: the normal case) and ``-preset ultrafast -g 250`` (a keyframe every 10 s, none at cuts),
then prints each three times with the keyframe-only pass alone (as before sparse files were
decoded whole) and as shipped, and reports CPU seconds (this process and every ffmpeg it
started) per minute of video, and the similarity ``compare`` gives the two encodes.
"""

from __future__ import annotations

import resource
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.media_corpus import _ffmpeg, _film, _pictures, _shot
from dupfinder.core.media import video

ENCODES = {
    "normal.mp4": ("-preset", "veryfast"),
    "sparse.mp4": ("-preset", "ultrafast", "-g", "250"),
}


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _make(folder: Path) -> dict[str, Path]:
    source = folder / "source.mp4"
    pictures = _pictures(folder)
    shots = [
        _shot(kind, 4, seed, pictures[seed % len(pictures)])
        for seed in range(6)
        for kind in ("pan", "zoom", "card", "pan")
    ]
    _film(source, [_shot("black", 2), *shots, _shot("bars", 4), _shot("black", 2)])
    paths = {}
    for name, options in ENCODES.items():
        paths[name] = folder / name
        _ffmpeg("-i", str(source), "-vf", "scale=1280:720,fps=25", "-c:v", "libx264", *options,
                str(paths[name]))  # fmt: skip
    return paths


def main() -> int:
    shipped = video._too_sparse
    modes: dict[str, Callable[..., bool]] = {"keyframes only": lambda *_: False, "now": shipped}
    with tempfile.TemporaryDirectory(prefix="dupfinder-media-sparse-") as folder:
        paths = _make(Path(folder))
        for mode, check in modes.items():
            video._too_sparse = check
            prints = {}
            for name, path in paths.items():
                costs = []
                for _ in range(3):
                    started = _cpu()
                    prints[name] = video.video_print(str(path))
                    costs.append(_cpu() - started)
                per_minute = 60 * min(costs) / prints[name].duration_s
                print(f"{mode:15} {name:11} {per_minute:5.2f} s CPU per minute of video "
                      f"(runs {' '.join(f'{c:.2f}' for c in costs)} s)")  # fmt: skip
            found = video.compare(prints["normal.mp4"].sequence, prints["sparse.mp4"].sequence)
            print(f"{mode:15} similarity normal vs sparse: {found.similarity if found else 0:.3f}")
        video._too_sparse = shipped
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
