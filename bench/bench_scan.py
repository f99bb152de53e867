"""End-to-end scan of a mixed corpus: cold (empty cache) against warm (every file cached).

Builds ~20,000 files (~400 MB: photos and documents with planted near-duplicates) once
under bench/out/scan-corpus, then runs ``dupfinder scan`` in a fresh process for each
measurement so peak RSS is the scan's own. Prints wall time, files/s and peak RSS.

    python -m bench.bench_scan [--files N] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

OUT = Path(__file__).resolve().parent / "out"
WORDS = (
    "time person year way day thing man world life hand part child eye woman place work week "
    "case point government company number group problem fact be have do say get make go know "
    "take see come think look want give use find tell ask seem feel try leave call good new "
    "first last long great little own other old right big high different small large next "
    "early young important few public bad same able river garden letter window morning"
).split()


def _document(rng: random.Random, words: int) -> str:
    out = []
    for _ in range(words // 12):
        out.append(" ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + ".")
    return "\n".join(" ".join(out[i : i + 6]) for i in range(0, len(out), 6))


def _photo(rng: np.random.Generator, size: tuple[int, int]) -> Image.Image:
    width, height = size
    field = np.zeros((height // 8, width // 8, 3))
    for octave in range(1, 6):
        cells = 2**octave + 1
        coarse = rng.random((cells, cells, 3))
        small = Image.fromarray((coarse * 255).astype(np.uint8)).resize(
            (width // 8, height // 8), Image.Resampling.BICUBIC
        )
        field += np.asarray(small, dtype=float) / octave
    field = (field - field.min()) / (np.ptp(field) or 1)
    base = Image.fromarray((field * 255).astype(np.uint8)).resize(size, Image.Resampling.BICUBIC)
    noise = rng.integers(0, 24, (height, width, 3), dtype=np.uint8)
    return Image.fromarray(np.clip(np.asarray(base) + noise, 0, 255).astype(np.uint8))


def build_corpus(root: Path, files: int) -> Path:
    """~90% documents (2-20 KB) and ~10% photos (~180 KB), a fifth of each with a near-copy."""
    marker = root / f".complete-{files}"
    if marker.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    rng = random.Random(11)
    nrng = np.random.default_rng(11)
    photos = files // 10
    documents = files - photos
    for i in range(0, documents, 5):
        folder = root / "docs" / f"{i // 500:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        text = _document(rng, rng.randint(300, 3000))
        (folder / f"doc{i:06d}.txt").write_text(text)
        (folder / f"doc{i:06d}-copy.md").write_text(text.replace(" the ", " a ", 1) + "\n")
        for j in range(1, 4):
            if i + j < documents:
                (folder / f"doc{i + j:06d}.txt").write_text(_document(rng, rng.randint(300, 3000)))
    for i in range(0, photos, 5):
        folder = root / "photos" / f"{i // 200:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        image = _photo(nrng, (800, 600))
        image.save(folder / f"img{i:06d}.jpg", quality=88)
        image.resize((400, 300)).save(folder / f"img{i:06d}-small.jpg", quality=75)
        for j in range(1, 4):
            if i + j < photos:
                _photo(nrng, (800, 600)).save(folder / f"img{i + j:06d}.jpg", quality=88)
    marker.write_text("ok")
    return root


def _timed_scan(root: Path, cache: Path, jobs: int) -> dict[str, float]:
    script = (
        "import resource, sys, time, json\n"
        "from pathlib import Path\n"
        "from dupfinder.core.scan import pipeline as scan\n"
        "from dupfinder.core.model import ScanOptions\n"
        "t = time.perf_counter()\n"
        f"r = scan.run(ScanOptions(roots=(Path({str(root)!r}),), cache_dir=Path({str(cache)!r}), "
        f"jobs={jobs}))\n"
        "s = time.perf_counter() - t\n"
        "rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(json.dumps({'seconds': s, 'files': r.stats.files_seen, 'groups': len(r.groups),"
        " 'from_cache': r.stats.files_from_cache, 'rss_mb': rss / 1024}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="2,000 files")
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args(argv)
    files = 2_000 if args.quick else args.files
    jobs = args.jobs or (len(os.sched_getaffinity(0)) or 1)
    t = time.perf_counter()
    root = build_corpus(OUT / "scan-corpus", files)
    built = time.perf_counter() - t
    size_mb = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 1e6
    with tempfile.TemporaryDirectory() as cache_dir:
        cold = _timed_scan(root, Path(cache_dir), jobs)
        warm = _timed_scan(root, Path(cache_dir), jobs)
    ratio = warm["seconds"] / cold["seconds"]
    print(
        f"corpus: {cold['files']:,} files, {size_mb:,.0f} MB (built in {built:.0f} s); {jobs} jobs"
    )
    print(f"{'':8} {'wall s':>8} {'files/s':>9} {'peak RSS MB':>12} groups")
    for name, run in (("cold", cold), ("warm", warm)):
        print(
            f"{name:8} {run['seconds']:8.2f} {run['files'] / run['seconds']:9,.0f} "
            f"{run['rss_mb']:12.0f} {run['groups']}"
        )
    print(f"warm / cold = {ratio:.1%} (target <= 10%)")
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_scan.json").write_text(
        json.dumps({"files": cold["files"], "mb": size_mb, "cold": cold, "warm": warm}, indent=2)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
