"""Rescan comparison cost with the library: N unchanged fingerprints and a few new ones.

Run ``python -m bench.bench_library [N] [NEW]`` (default 1,000,000 and 1,000, k = 8). The
first search remembers the pairs of N random fingerprints (1% planted neighbours); the rescan
adds NEW fingerprints (half of them near known ones) and asks the library again, in a new
process as a rescan would. Printed: the batch search, the rescan (incremental), and the same
rescan searched from scratch, with their pair counts (they must be equal).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.bench_index import make_fingerprints
from dupfinder.core.index.library import Library
from dupfinder.core.index.reference import all_pairs
from dupfinder.core.model import Kind

K = 8


def rescan_values(n: int, new: int) -> np.ndarray:
    x = make_fingerprints(n)
    rng = np.random.default_rng(1)
    near = x[rng.integers(0, n, new // 2)] ^ (
        np.uint64(1) << rng.integers(0, 64, new // 2).astype(np.uint64)
    )
    return np.concatenate([x, near, rng.integers(0, 2**64, new - new // 2, dtype=np.uint64)])


def worker(folder: str, n: int, new: int, step: str) -> dict[str, float | int | str]:
    x = make_fingerprints(n) if step == "first" else rescan_values(n, new)
    library = Library(folder)
    all_pairs(x[:30_000], K)  # the compiled code is loaded before timing
    started, cpu = time.perf_counter(), time.process_time()
    scratch = step == "scratch"
    found = all_pairs(np.unique(x), K) if scratch else library.pairs(Kind.TEXT, x, K)
    return {
        "s": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu,
        "pairs": len(found),
        "mode": library.last_mode or "batch",
    }


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    new = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="dupfinder-library-") as folder:
        for step in ("first", "rescan", "scratch"):
            command = [
                sys.executable,
                "-m",
                "bench.bench_library",
                "--worker",
                folder,
                str(n),
                str(new),
                step,
            ]
            done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            print(
                f"{step:<8} n={n:,} new={new:,} k={K}: {figures['s']:.3f} s wall, "
                f"{figures['cpu_s']:.3f} s CPU, {figures['pairs']} pairs ({figures['mode']})"
            )
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        folder, n, new, step = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
        print(json.dumps(worker(folder, n, new, step)))
        sys.exit(0)
    sys.exit(main())
