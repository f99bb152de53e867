"""Growth: time, CPU and peak memory of every process for scans of 10k, 100k and 1M files.

    python -m bench.bench_growth [--sizes 10000 100000 1000000] [--jobs N] [--phases]

The tree is ``bench.bench_scale``'s: synthetic small documents (32 words, one in twenty a
near copy of the one before), built once under bench/out/scale-tree. Each size is scanned
as ``dupfinder scan --format json`` does, in a fresh process, cold (empty cache) and then
warm (nothing changed), each measured by ``bench.measure`` (CPU and peak resident memory
of all processes together). A straight-line fit over the sizes gives the cost of one file;
nothing should grow faster than the files, except the pairs themselves. JSON goes to
bench/out/bench_growth.json, where sizes not run this time are kept.

``--phases`` runs each scan instead in a process that samples, every 20 ms, the resident
memory of itself and every process under it, and keeps the largest by phase (the scan's own
progress, and the steps around it: the inputs' digest, the last result given or kept, the
result written): what each phase holds, and what a file adds to it from one size to the
next (bench/out/bench_growth_phases.json).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
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


#: The scan as ``dupfinder scan --format json`` runs it, its memory sampled by phase.
PHASES_CHILD = textwrap.dedent(
    """
    import functools, json, sys, threading
    import psutil
    from dupfinder.cli import main, scan_cmd
    from dupfinder.core.scan import last_result, sampling

    phase, peaks, stop, me = ["starting"], {}, threading.Event(), psutil.Process()

    def sample():
        while not stop.is_set():
            try:
                tree = [me, *me.children(recursive=True)]
            except psutil.Error:
                tree = [me]
            total = own = 0
            for proc in tree:
                try:
                    rss = proc.memory_info().rss
                except psutil.Error:
                    continue
                total += rss
                own = rss if proc.pid == me.pid else own
            seen = peaks.setdefault(phase[0], [0, 0])
            seen[0], seen[1] = max(seen[0], total), max(seen[1], own)
            stop.wait(0.02)

    forward = sampling.Sampler.__call__

    def told(self, progress, *, force=False):
        phase[0] = progress.phase.value
        return forward(self, progress, force=force)

    def named(module, name, step):
        real = getattr(module, name)

        @functools.wraps(real)
        def step_of(*args, **kwargs):
            before, phase[0] = phase[0], step
            try:
                return real(*args, **kwargs)
            finally:
                phase[0] = before

        setattr(module, name, step_of)

    if __name__ == "__main__":
        sampling.Sampler.__call__ = told
        named(last_result, "inputs_digest", "inputs' digest")
        named(last_result, "recall", "last result given")
        named(last_result, "remember", "last result kept")
        named(scan_cmd, "emit_result", "result written")
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        code = main(["scan", *json.loads(sys.argv[1]), *sys.argv[2:]])
        stop.set()
        sampler.join()
        print(json.dumps({"code": code, "peaks": peaks}))
    """
)


def scan_phases(roots: list[str], cache: str, jobs: int) -> dict[str, list[float]]:
    """Each phase's largest resident memory, MB: all processes and the scanning one."""
    argv = [sys.executable, "-c", PHASES_CHILD, json.dumps(roots), "--cache-dir", cache]
    argv += ["-j", str(jobs), "--format", "json", "-o", os.devnull]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    found = json.loads(done.stdout.splitlines()[-1])
    return {name: [all_ / 1e6, own / 1e6] for name, (all_, own) in found["peaks"].items()}


def phases_main(sizes: list[int], tree: Path, jobs: int) -> int:
    """``--phases``: the table of each phase's peak by size, and bytes a file between sizes."""
    found: dict[str, dict[int, dict[str, list[float]]]] = {"cold": {}, "warm": {}}
    for files in sizes:
        with tempfile.TemporaryDirectory(prefix="growth-") as cache:
            roots = _roots(tree, files)
            for run in ("cold", "warm"):
                found[run][files] = scan_phases(roots, cache, jobs)
        print(f"{files:,} files measured", file=sys.stderr, flush=True)
    for run, by_size in found.items():
        print(f"\n{run}: MB at the phase's peak, all processes (the scanning one)")
        names = list(dict.fromkeys(name for peaks in by_size.values() for name in peaks))
        print("| phase | " + " | ".join(f"{n:,} files" for n in sizes) + " | bytes a file |")
        print("|---|" + "---:|" * (len(sizes) + 1))
        for name in names:
            cells = [by_size[n].get(name) for n in sizes]
            present = [n for n in sizes if name in by_size[n]]
            slope = (
                _slope(present, [by_size[n][name][0] for n in present]) * 1e6
                if len(present) > 1
                else 0.0
            )
            # a phase can pass unseen: a sample waits for the interpreter lock, which a long
            # call into C (the result's text at 100,000 files) holds
            shown = " | ".join("—" if c is None else f"{c[0]:.0f} ({c[1]:.0f})" for c in cells)
            print(f"| {name} | {shown} | {f'{slope:.0f}' if len(present) > 1 else '—'} |")
    OUT.mkdir(exist_ok=True)
    (OUT / "bench_growth_phases.json").write_text(json.dumps({"jobs": jobs, **found}, indent=1))
    return 0


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
    parser.add_argument("--phases", action="store_true", help="peak memory by phase")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes = [10_000, 100_000]
    build_tree(args.tree, _tree_size(args.tree, max(args.sizes)))
    if args.phases:
        return phases_main(args.sizes, args.tree, args.jobs)
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
