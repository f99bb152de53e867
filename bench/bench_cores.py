"""Cores: how the index and a whole scan speed up from 1 to 16 cores, measured, not modelled.

    python -m bench.bench_cores --corpus DIR [--jobs 1 2 4 8 16] [--threads 1 2 4 8 16]
                                [--index-n 10000000] [--k8-n 2000000] [--out FILE]

Two parts, each at every count given:

- **the index**: ``index.compiled.all_pairs`` over random 64-bit fingerprints where 1 % of rows
  are copies of another with 1 to 3 bits flipped, at k = 3 (``--index-n`` rows) and at k = 8
  (``--k8-n`` rows), with the layout the cost model chooses, ``threads`` tables in parallel;
  wall time and the process's CPU time (all its threads), best of two;
- **a whole cold scan** of ``--corpus`` (a mixed folder: ``bench/mixed_corpus.py`` builds one)
  with ``--jobs N`` worker processes and no cache, as a user runs it (``python -m dupfinder
  scan``), wall time and CPU of every process (``bench.measure``), once each.

The speed-up column is the 1-core time over the N-core time. Figures go to stdout and, as
JSON, to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.measure import measure


def planted(n: int, seed: int = 7) -> np.ndarray:
    """Random fingerprints, 1 % of them near copies (1 to 3 bits) of an earlier row."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2) + rng.integers(
        0, 2, size=n, dtype=np.uint64
    )
    copies = rng.choice(n, size=n // 100, replace=False)
    sources = rng.integers(0, n, size=copies.size)
    flips = np.zeros(copies.size, np.uint64)
    for _ in range(3):
        bit = rng.integers(0, 64, size=copies.size).astype(np.uint64)
        flips |= np.uint64(1) << bit
    values[copies] = values[sources] ^ flips
    return values


def index_run(values: np.ndarray, k: int, threads: int) -> dict[str, Any]:
    from dupfinder.core.index import compiled

    layout = compiled.choose_layout(values.size, k)
    best: dict[str, Any] = {}
    for _ in range(2):
        cpu0, wall0 = time.process_time(), time.perf_counter()
        a, _b, _d = compiled.all_pairs(values, layout, threads=threads)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        if not best or wall < best["wall_s"]:
            best = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "pairs": int(a.size)}
    return {"n": int(values.size), "k": k, "threads": threads, "tables": len(layout.tables), **best}


def scan_run(corpus: Path, jobs: int, cache: Path) -> dict[str, Any]:
    argv = [sys.executable, "-m", "dupfinder", "scan", str(corpus), "--jobs", str(jobs)]
    argv += ["--no-cache", "--format", "json", "--output", str(cache / f"scan-{jobs}.json")]
    got = measure(argv, timeout=900)
    groups = None
    if got.returncode in (0, 1):
        report = json.loads((cache / f"scan-{jobs}.json").read_text())
        groups = len(report.get("groups", []))
    return {
        "jobs": jobs,
        "wall_s": round(got.wall, 2),
        "cpu_s": round(got.cpu, 2),
        "peak_mb": round(got.peak_mb),
        "rc": got.returncode,
        "groups": groups,
        "stderr": got.stderr[-300:] if got.returncode not in (0, 1) else "",
    }


def _speedups(rows: list[dict[str, Any]], key: str) -> None:
    base = next((r["wall_s"] for r in rows if r[key] == 1), None)
    for row in rows:
        row["speedup"] = round(base / row["wall_s"], 2) if base and row["wall_s"] else None
        print(
            "  " + "  ".join(f"{name}={value}" for name, value in row.items() if name != "stderr")
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="a folder to scan (skipped when absent)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--index-n", type=int, default=10_000_000)
    parser.add_argument("--k8-n", type=int, default=2_000_000)
    parser.add_argument("--out", type=Path, default=Path("bench/out/bench_cores.json"))
    args = parser.parse_args(argv)
    result: dict[str, Any] = {"cpus": os.cpu_count(), "index": [], "scan": []}
    for k, n in ((3, args.index_n), (8, args.k8_n)):
        if n <= 0:
            continue
        values = planted(n)
        rows = [index_run(values, k, t) for t in args.threads]
        print(f"index, all pairs, k={k}, n={n:,}:")
        _speedups(rows, "threads")
        result["index"].extend(rows)
    if args.corpus is not None and args.corpus.is_dir():
        out_dir = args.out.parent
        out_dir.mkdir(parents=True, exist_ok=True)
        rows = [scan_run(args.corpus, jobs, out_dir) for jobs in args.jobs]
        print(f"cold scan of {args.corpus}:")
        _speedups(rows, "jobs")
        result["scan"] = rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
