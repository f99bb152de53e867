"""Growth: time, CPU and peak memory of every process for scans of 10k, 100k and 1M files.

    python -m bench.bench_growth [--sizes 10000 100000 1000000] [--jobs N]

The tree is ``bench.bench_scale``'s: synthetic small documents (32 words, one in twenty a
near copy of the one before), built once under bench/out/scale-tree. Each size is scanned
as ``dupfinder scan --format json`` does, in a fresh process, cold (empty cache) and then
warm (nothing changed), each measured by ``bench.measure`` (CPU and peak resident memory
of all processes together). A straight-line fit over the sizes gives the cost of one file;
nothing should grow faster than the files, except the pairs themselves. JSON goes to
bench/out/bench_growth.json, where sizes not run this time are kept.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.bench_scale import OUT, _roots, build_tree
from bench.measure import measure


def scan(roots: list[str], cache: str, jobs: int) -> dict[str, Any]:
    argv = [sys.executable, "-m", "dupfinder", "scan", *roots, "--cache-dir", cache]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    measured = measure([*argv, "-j", str(jobs), "--format", "json", "-o", os.devnull], env)
    if measured.returncode:
        raise RuntimeError(measured.stderr[-2000:])
    return {"cpu": measured.cpu, "wall": measured.wall, "peak_mb": measured.peak_mb}


def _slope(xs: list[int], ys: list[float]) -> float:
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs) or 1.0
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


def _tree_size(tree: Path, files: int) -> int:
    """How many files the tree to use holds: one built for more already holds these (its
    first files are the same ones), and building it for fewer would delete it first (a
    million files take a quarter of an hour to delete and write again here)."""
    built = [
        int(count)
        for marker in tree.glob(".complete-*")
        for count in (marker.name.removeprefix(".complete-"),)
        if count.isdigit()
    ]
    return min((count for count in built if count >= files), default=files)


def _merged(jobs: int, rows: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """This run's sizes over the file's others measured with as many workers (a 1M run
    takes half an hour: it can be run alone and still sit beside the smaller sizes)."""
    kept: dict[str, Any] = {}
    try:
        earlier = json.loads((OUT / "bench_growth.json").read_text())
        if earlier.get("jobs") == jobs:
            kept = dict(earlier.get("sizes", {}))
    except (OSError, ValueError):
        pass
    kept.update({str(files): row for files, row in rows.items()})
    ordered = dict(sorted(kept.items(), key=lambda item: int(item[0])))
    return {"jobs": jobs, "sizes": ordered}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--tree", type=Path, default=OUT / "scale-tree")
    parser.add_argument("--quick", action="store_true", help="10,000 and 100,000 files")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes = [10_000, 100_000]
    build_tree(args.tree, _tree_size(args.tree, max(args.sizes)))
    rows: dict[int, dict[str, Any]] = {}
    for files in args.sizes:
        with tempfile.TemporaryDirectory(prefix="growth-") as cache:
            roots = _roots(args.tree, files)
            cold = scan(roots, cache, args.jobs)
            warm = scan(roots, cache, args.jobs)
        rows[files] = {"cold": cold, "warm": warm}
        print(f"{files:,} files: cold {cold}, warm {warm}", file=sys.stderr, flush=True)
    print(
        "| files | cold CPU s | cold wall s | cold peak MB | warm CPU s | warm wall s | warm peak MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for files, row in rows.items():
        c, w = row["cold"], row["warm"]
        print(
            f"| {files:,} | {c['cpu']:.1f} | {c['wall']:.1f} | {c['peak_mb']:.0f} | "
            f"{w['cpu']:.1f} | {w['wall']:.1f} | {w['peak_mb']:.0f} |"
        )
    if len(rows) > 1:
        sizes = list(rows)
        for run in ("cold", "warm"):
            cpu_us = _slope(sizes, [rows[n][run]["cpu"] for n in sizes]) * 1e6
            memory = _slope(sizes, [rows[n][run]["peak_mb"] for n in sizes]) * 1e6
            print(f"{run}: {cpu_us:.0f} us of CPU and {memory:.0f} bytes of peak memory a file")
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_growth.json").write_text(json.dumps(_merged(args.jobs, rows), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
