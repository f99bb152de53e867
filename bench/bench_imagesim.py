"""Speed of image fingerprinting: ms per image per core on 6 MP JPEGs, dupfinder vs imagehash.

Run ``python -m bench.bench_imagesim``. The JPEGs are real wallpapers (from the corpus packages,
see bench/image_corpus.py) resized to 3000x2000 and saved at quality 90 (baseline, as cameras
write them); when those are not installed, smooth random images stand in. Each method runs
single-threaded over the same files after one warm-up pass; the best of ``--repeat`` passes
counts, in CPU time of this process (what one core spends; wall time swings with other load). JSON goes to ``bench/out/bench_imagesim.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import imagehash
import numpy as np
from PIL import Image

from bench.image_corpus import BACKGROUNDS
from dupfinder.core.image.perceptual import image_fingerprint

SIZE = (3000, 2000)


def _sources(count: int) -> list[Image.Image]:
    photos = sorted(p for p in BACKGROUNDS.rglob("*.jpg") if p.stat().st_size > 150_000)
    images: list[Image.Image] = []
    for path in photos[:count]:
        with Image.open(path) as im:
            images.append(im.convert("RGB").resize(SIZE, Image.Resampling.LANCZOS))
    rng = np.random.default_rng(3)
    while len(images) < count:  # smooth noise: photo-like spectrum, no package needed
        small = rng.integers(0, 256, (24, 36, 3), dtype=np.uint8)
        images.append(Image.fromarray(small, "RGB").resize(SIZE, Image.Resampling.BICUBIC))
    return images


def _make_files(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"photo{i:02d}.jpg" for i in range(count)]
    if not all(p.exists() for p in paths):
        for path, im in zip(paths, _sources(count), strict=True):
            im.save(path, quality=90)
    return paths


def _naive(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        imagehash.phash(Image.open(path))


def _time(func: Callable[[Path], object], paths: list[Path], repeat: int) -> float:
    for path in paths:  # warm-up: imports (scipy), page cache
        func(path)
    runs = []
    for _ in range(repeat):
        start = time.process_time()  # CPU time of this process: per core, steadier under load
        for path in paths:
            func(path)
        runs.append((time.process_time() - start) * 1000 / len(paths))
    return min(runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "dupfinder-jpeg6mp"
    )
    parser.add_argument("--out", type=Path, default=Path("bench/out/bench_imagesim.json"))
    args = parser.parse_args(argv)
    paths = _make_files(args.workdir, args.files)
    methods: dict[str, Callable[[Path], object]] = {
        "imagehash.phash(Image.open(p))": _naive,
        "dupfinder image_fingerprint": image_fingerprint,
        "dupfinder invariant=True": lambda p: image_fingerprint(p, invariant=True),
    }
    ms = {name: _time(func, paths, args.repeat) for name, func in methods.items()}
    peer = ms["imagehash.phash(Image.open(p))"]
    print(f"{len(paths)} JPEGs of {SIZE[0]}x{SIZE[1]}, one core, best of {args.repeat}")
    print(f"{'method':34} {'ms/image':>9} {'vs peer':>8}")
    for name, value in ms.items():
        print(f"{name:34} {value:9.2f} {peer / value:7.1f}x")
    base = ms["dupfinder image_fingerprint"]
    extra = ms["dupfinder invariant=True"] - base
    print(f"invariance costs {extra:.2f} ms/image ({100 * extra / base:.0f}% more)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "files": len(paths),
        "size": SIZE,
        "ms_per_image": {k: round(v, 3) for k, v in ms.items()},
        "speedup_vs_peer": round(peer / base, 2),
        "invariance_extra_ms": round(extra, 3),
        "median_file_bytes": statistics.median(p.stat().st_size for p in paths),
    }
    args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
