"""Scale: a scan of up to 1,000,000 small files and a 10,000,000-fingerprint index.

Builds a synthetic tree once (small text documents, 1,000 per folder, a near-copy planted
for one file in twenty) under bench/out/scale-tree, then scans growing subsets of it in a
fresh process each (cold: empty cache; warm: every file cached), reporting time per phase
and the scanning process's peak RSS. A straight-line fit of peak RSS against file count
gives the bytes each file costs; the index part runs ``dupfinder.core.index.reference.all_pairs`` on
random fingerprints with planted neighbours at k=3 and at the default text radius.

    python -m bench.bench_scale [--quick] [--sizes 100000 300000 1000000] [--index-n N]

--quick: 30,000 and 100,000 files and a 1,000,000-fingerprint index. The full run needs
~1M free inodes and ~4.5 GB of disk (ext4: one 4 KiB block a file); ``df -i`` is checked
first. Figures go to stdout and to bench/out/bench_scale.json.
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
import textwrap
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"
PER_FOLDER = 1000
PER_TOP = 10_000
SYLLABLES = "ka lo mi ne ru sa te vi do pa ge fu ri mo na be zu li ho ta".split()

SCAN_CHILD = textwrap.dedent(
    """
    import json, resource, sys, threading, time
    from pathlib import Path
    import psutil
    from dupfinder.core.scan import pipeline as scan
    from dupfinder.core.model import ScanOptions

    roots = tuple(Path(p) for p in json.loads(sys.argv[1]))
    options = ScanOptions(roots=roots, cache_dir=Path(sys.argv[2]), jobs=int(sys.argv[3]))
    started = time.monotonic()
    first_seen = {}

    def progress(sample):
        first_seen.setdefault(sample.phase.value, time.monotonic() - started)

    worker_peak = [0]
    stop = threading.Event()

    def sample_workers():
        # pool workers are children of the forkserver, invisible to RUSAGE_CHILDREN
        me = psutil.Process()
        while not stop.wait(0.25):
            for child in me.children(recursive=True):
                try:
                    worker_peak[0] = max(worker_peak[0], child.memory_info().rss)
                except psutil.Error:
                    pass

    sampler = threading.Thread(target=sample_workers, daemon=True)
    sampler.start()
    result = scan.run(options, progress)
    stop.set()
    total = time.monotonic() - started
    marks = sorted(first_seen.items(), key=lambda item: item[1]) + [("end", total)]
    phases = {name: round(marks[i + 1][1] - at, 3) for i, (name, at) in enumerate(marks[:-1])}
    print(json.dumps({
        "files_seen": result.stats.files_seen,
        "fingerprinted": result.stats.files_fingerprinted,
        "from_cache": result.stats.files_from_cache,
        "groups": len(result.groups),
        "errors": len(result.errors),
        "seconds": round(total, 3),
        "phases": phases,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "worker_peak_rss_mib": worker_peak[0] / 2**20,
    }))
    """
)

INDEX_CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    import numpy as np
    from dupfinder.core.index.reference import all_pairs

    n, k, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
    planted = min(n // 100, 100_000)  # 1% of rows get a neighbour at a distance 1..k
    rows = rng.choice(n, size=2 * planted, replace=False)
    sources, targets = rows[:planted], rows[planted:]
    neighbours = values[sources].copy()
    for column in range(planted):
        bits = rng.choice(64, size=int(rng.integers(1, k + 1)), replace=False)
        for bit in bits:
            neighbours[column] ^= np.uint64(1) << np.uint64(int(bit))
    values[targets] = neighbours
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    pairs = all_pairs(values, k)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    found = {(int(a), int(b)) for a, b in pairs.tolist()} if len(pairs) < 5_000_000 else set()
    missing = sum(
        1 for s, t in zip(sources.tolist(), targets.tolist()) if (min(s, t), max(s, t)) not in found
    )
    print(json.dumps({
        "n": n, "k": k, "seconds": round(seconds, 3), "pairs": int(len(pairs)),
        "planted": planted, "planted_missing": missing if found else None,
        "input_mib": values.nbytes / 2**20,
        "peak_rise_mib": (peak - base) / 1024, "peak_rss_mib": peak / 1024,
    }))
    """
)


def _vocabulary(size: int = 4000) -> list[str]:
    rng = random.Random(7)
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def build_tree(root: Path, files: int) -> float:
    """``files`` small documents, PER_FOLDER a folder, PER_TOP a top folder; seconds taken.

    Every twentieth file is the previous one with one word changed: a near-duplicate pair.
    """
    marker = root / f".complete-{files}"
    if marker.exists():
        return 0.0
    shutil.rmtree(root, ignore_errors=True)
    started = time.perf_counter()
    words = _vocabulary()
    rng = random.Random(11)
    previous: list[str] = []
    for number in range(files):
        if number % PER_FOLDER == 0:
            folder = root / f"t{number // PER_TOP:03d}" / f"f{number // PER_FOLDER % 10}"
            folder.mkdir(parents=True, exist_ok=True)
        if number % 20 == 19 and previous:
            text = list(previous)
            text[rng.randrange(len(text))] = rng.choice(words)
        else:
            text = [rng.choice(words) for _ in range(32)]
        previous = text
        handle = os.open(folder / f"d{number:07d}.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.write(handle, (" ".join(text) + "\n").encode())
        os.close(handle)
    marker.touch()
    return time.perf_counter() - started


def _roots(root: Path, files: int) -> list[str]:
    tops = -(-files // PER_TOP)
    return [str(root / f"t{top:03d}") for top in range(tops)]


def run_scan(root: Path, files: int, cache: Path, jobs: int) -> dict[str, Any]:
    command = [sys.executable, "-c", SCAN_CHILD, json.dumps(_roots(root, files)), str(cache)]
    done = subprocess.run([*command, str(jobs)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def run_index(n: int, k: int) -> dict[str, Any]:
    command = [sys.executable, "-c", INDEX_CHILD, str(n), str(k), "20240601"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def fit(xs: list[int], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope and intercept."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    var = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0
    return slope, my - slope * mx


def per_file_objects() -> dict[str, int]:
    """Bytes a scan keeps for one file (a typical 60-byte path): its path string, a list
    slot, and its entries in the numpy columns of ``dupfinder.core.fingerprints.columns``."""
    import numpy as np

    from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns
    from dupfinder.core.model import FileEntry, Kind

    path = "/home/user/projects/archive/part-0042/folder-0917/doc-00917042.txt"
    files = FileColumns()
    files.append(FileEntry(path, 200, 1_700_000_000_123_456_789, Kind.TEXT))
    outcomes = OutcomeColumns(1)
    arrays = [outcomes.known, outcomes.has_value, outcomes.values, outcomes.widths]
    arrays += [outcomes.heights, files.kinds, np.zeros(2, np.int64)]  # + size, mtime
    columns = sum(a.nbytes for a in arrays)
    return {"path str": sys.getsizeof(path), "list slot": 8, "columns": columns}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="+", default=None)
    parser.add_argument("--index-n", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tree", type=Path, default=OUT / "scale-tree")
    parser.add_argument("--skip-scan", action="store_true")
    parser.add_argument("--skip-index", action="store_true")
    args = parser.parse_args(argv)
    sizes = args.sizes or ([30_000, 100_000] if args.quick else [100_000, 300_000, 1_000_000])
    index_n = args.index_n or (1_000_000 if args.quick else 10_000_000)
    report: dict[str, Any] = {"jobs": args.jobs, "sizes": sizes, "index_n": index_n}

    if not args.skip_scan:
        largest = max(sizes)
        args.tree.mkdir(parents=True, exist_ok=True)
        free_inodes = os.statvfs(args.tree).f_favail
        if free_inodes and free_inodes < largest * 1.05:
            print(f"only {free_inodes:,} free inodes for {largest:,} files", file=sys.stderr)
            return 1
        build = build_tree(args.tree, largest)
        print(f"tree of {largest:,} files ready ({build:.0f} s to build)", flush=True)
        scans = []
        for files in sizes:
            with tempfile.TemporaryDirectory(prefix="dupfinder-scale-cache-") as cache:
                cold = run_scan(args.tree, files, Path(cache), args.jobs)
                warm = run_scan(args.tree, files, Path(cache), args.jobs)
                cache_bytes = sum(p.stat().st_size for p in Path(cache).iterdir())
            scans.append({"files": files, "cold": cold, "warm": warm, "cache_bytes": cache_bytes})
            print(
                f"{files:>9,} files  cold {cold['seconds']:7.1f} s {cold['peak_rss_mib']:7.0f} MiB"
                f"  (workers {cold['worker_peak_rss_mib']:.0f} MiB)   warm {warm['seconds']:6.1f} s"
                f" {warm['peak_rss_mib']:7.0f} MiB   cache {cache_bytes / files:.0f} B/file"
                f"   phases cold {cold['phases']}  warm {warm['phases']}",
                flush=True,
            )
        report["scans"] = scans
        xs = [s["files"] for s in scans]
        for name in ("cold", "warm"):
            slope, intercept = fit(xs, [s[name]["peak_rss_mib"] * 2**20 for s in scans])
            report[f"{name}_bytes_per_file"] = round(slope)
            report[f"{name}_fixed_mib"] = round(intercept / 2**20, 1)
            print(f"{name}: {slope:.0f} bytes per file on top of {intercept / 2**20:.0f} MiB")
        report["per_file_objects"] = per_file_objects()
        print(f"python objects kept per file: {report['per_file_objects']}")

    if not args.skip_index:
        from dupfinder.core.model import DEFAULT_TEXT_THRESHOLD

        report["index"] = []
        for k in sorted({3, DEFAULT_TEXT_THRESHOLD}):
            row = run_index(index_n, k)
            report["index"].append(row)
            print(
                f"index n={row['n']:,} k={k}: {row['seconds']:.2f} s, {row['pairs']:,} pairs, "
                f"planted missing {row['planted_missing']}, peak +{row['peak_rise_mib']:.0f} MiB "
                f"({row['peak_rise_mib'] * 2**20 / row['n']:.0f} B/fingerprint over "
                f"{row['input_mib']:.0f} MiB of input)",
                flush=True,
            )

    OUT.mkdir(exist_ok=True)
    (OUT / "bench_scale.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
