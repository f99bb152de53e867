"""The all-pairs pass on Dask: time per partition, shuffle bytes, worker memory, and the
single-machine search on the same fingerprints for comparison.

Run ``python -m bench.bench_distributed [--case N:K ...] [--workers 2]`` (default cases:
10,000,000 fingerprints at k = 3, 1,000,000 at k = 8). Needs the
``distributed`` extra. Data: random 64-bit fingerprints where 1 % of rows are copies of
another row with 1 to 3 bits flipped (as bench/bench_index.py), written as 8 Parquet shards
of the fingerprint schema (synthetic paths). Then, on a LocalCluster of ``--workers``
single-threaded worker processes:

- ``pairs``: wall time of ``find_pairs`` and, from Dask's task stream, the compute time of
  every partition task (reading a piece, the kernel on a shuffled partition);
- shuffle volume: bytes Dask's p2p shuffle cut into shards, sent between workers and
  spilled to disk (its fine-grained metrics);
- memory: the largest worker RSS seen (sampled every 0.25 s) and the largest partition;
- the pairs are checked against ``all_pairs_with_distances`` on one process (its time and
  peak memory are reported too).

JSON goes to ``bench/out/bench_distributed.json``; the README's model for a billion
fingerprints is computed from these figures (``--model`` prints it).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).resolve().parent / "out" / "bench_distributed.json"
SEED = 20_070_508
SHARDS = 8
#: Time per random candidate pair in the compiled kernel (a stash test on the sorted entries).
CANDIDATE_S = 2e-9


def fingerprints(n: int) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    values = rng.integers(0, 1 << 64, n, dtype=np.uint64, endpoint=False)
    near = rng.choice(n, n // 100, replace=False)
    source = rng.integers(0, n, near.size)
    flips = np.zeros(near.size, np.uint64)
    for count in (1, 2, 3):
        chosen = rng.random(near.size) < 1 / 3 if count < 3 else flips == 0
        bits = rng.integers(0, 64, (near.size, count))
        for column in range(count):
            flips[chosen] |= np.uint64(1) << bits[chosen, column].astype(np.uint64)
    values[near] = values[source] ^ flips
    return values


def write_shards(values: np.ndarray, folder: Path) -> None:
    """The fingerprint schema with synthetic paths, written column by column (no Python rows)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from dupfinder.distributed.schema import FINGERPRINT_SCHEMA, StoreMeta
    from dupfinder.distributed.store import shard_name

    folder.mkdir(parents=True, exist_ok=True)
    for shard, part in enumerate(np.array_split(np.arange(values.size), SHARDS)):
        ids = pa.array(part)
        n = len(part)
        columns = {
            "path": pc.binary_join_element_wise("/archive/", pc.cast(ids, pa.string()), ".txt", ""),
            "kind": pa.array(np.full(n, "text")),
            "size": pa.array(1000 + part % 5000),
            "mtime_ns": pa.array(part * 1000),
            "ctime_ns": pa.array(part * 1000),
            "dev": pa.array(np.ones(n, np.uint64)),
            "ino": pa.array(part.astype(np.uint64) + np.uint64(1)),
            "links": pa.array(np.ones(n, np.uint32)),
            "value": pa.array(values[part]),
        }
        arrays = [
            columns[f.name] if f.name in columns else pa.nulls(n, f.type)
            for f in FINGERPRINT_SCHEMA
        ]
        table = pa.Table.from_arrays(arrays, schema=FINGERPRINT_SCHEMA)
        meta = StoreMeta({"text": "bench"}, shard=(shard, SHARDS), rows={"text": n})
        pq.write_table(
            table.replace_schema_metadata(meta.to_metadata()),
            folder / shard_name(shard, SHARDS),
            row_group_size=1 << 20,
        )


class MemorySampler:
    """The largest RSS of any worker, sampled in the background."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.wait(0.25):
            try:
                sizes = self.client.run(lambda: psutil.Process().memory_info().rss)
            except Exception:  # a worker restarting; the next sample will see it
                continue
            self.peak = max(self.peak, *sizes.values())

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _prefix(key: Any) -> str:
    name = key[0] if isinstance(key, tuple) else key
    return str(name).rsplit("-", 1)[0]


def task_times(stream: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    seconds: dict[str, list[float]] = defaultdict(list)
    for task in stream:
        for step in task["startstops"]:
            if step["action"] == "compute":
                seconds[_prefix(task["key"])].append(step["stop"] - step["start"])
    return {
        name: {
            "tasks": len(times),
            "total_s": round(sum(times), 3),
            "median_s": round(statistics.median(times), 4),
            "max_s": round(max(times), 4),
        }
        for name, times in sorted(seconds.items())
    }


def shuffle_bytes(client: Any) -> dict[str, int]:
    def metrics(dask_scheduler: Any) -> dict[str, float]:
        return {
            "/".join(map(str, k)): v for k, v in dask_scheduler.cumulative_worker_metrics.items()
        }

    found = client.run_on_scheduler(metrics)
    return {
        "sharded": int(found.get("p2p/foreground/shards/bytes", 0)),
        "sent_between_workers": int(found.get("p2p/background-comms/process/bytes", 0)),
        "spilled_to_disk": int(found.get("p2p/background-disk/disk-write/bytes", 0)),
    }


def single_machine(values: np.ndarray, k: int) -> tuple[float, int, np.ndarray, np.ndarray]:
    from dupfinder.core.index.reference import all_pairs_with_distances

    unique = np.unique(values)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    pairs, _ = all_pairs_with_distances(unique, k)
    seconds = time.perf_counter() - started
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
    return seconds, grown, unique[pairs[:, 0]], unique[pairs[:, 1]]


def run(n: int, k: int, workers: int, scratch: Path) -> dict[str, Any]:
    import distributed

    from dupfinder.core.model import Kind
    from dupfinder.distributed.groups import read_pairs
    from dupfinder.distributed.pairs_job import find_pairs

    values = fingerprints(n)
    started = time.perf_counter()
    write_shards(values, scratch / "fp")
    written = time.perf_counter() - started
    parquet_bytes = sum(p.stat().st_size for p in (scratch / "fp").iterdir())
    with (
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=f"{max(2, 20 // workers)}GB",
            dashboard_address=":0",
            silence_logs=logging.ERROR,
            local_directory=str(scratch / "dask"),
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
        with distributed.get_task_stream(client) as stream, MemorySampler(client) as memory:
            started = time.perf_counter()
            manifest = find_pairs(
                scratch / "fp", scratch / "pairs", {Kind.TEXT: k}, threads=workers
            )
            seconds = time.perf_counter() - started
        tasks = task_times(stream.data)
        moved = shuffle_bytes(client)
    plan = manifest.kinds["text"]
    a, b, _ = read_pairs(scratch / "pairs", Kind.TEXT)
    distinct = a != b
    one_seconds, one_bytes, ea, eb = single_machine(values, k)
    order = np.lexsort((b[distinct], a[distinct]))
    expected_order = np.lexsort((eb, ea))
    exact = bool(
        np.array_equal(a[distinct][order], ea[expected_order])
        and np.array_equal(b[distinct][order], eb[expected_order])
    )
    return {
        "n": n,
        "k": k,
        "workers": workers,
        "blocks": plan.blocks,
        "tables": plan.tables,
        "partitions_per_table": plan.partitions,
        "pairs": plan.pairs,
        "exact": exact,
        "write_parquet_s": round(written, 2),
        "parquet_bytes": parquet_bytes,
        "pairs_wall_s": round(seconds, 2),
        "tasks": tasks,
        "shuffle_bytes": moved,
        "shuffle_bytes_per_fingerprint_per_table": round(moved["sharded"] / n / plan.tables, 2),
        "peak_worker_rss_bytes": memory.peak,
        "single_machine_s": round(one_seconds, 2),
        "single_machine_peak_growth_bytes": one_bytes,
    }


def model(figures: dict[str, Any], n: float = 1e9) -> dict[str, Any]:
    """Scale measured per-entry costs to ``n`` fingerprints (see the README)."""
    from dupfinder.distributed.layout import TableLayout, choose_blocks

    k = figures["k"]
    blocks = choose_blocks(int(n), k)
    tables = TableLayout.make(k, blocks).tables
    entries = figures["n"] * figures["tables"]
    per_entry_s = figures["pairs_wall_s"] * figures["workers"] / entries
    bytes_per_entry = figures["shuffle_bytes"]["sharded"] / entries
    key_bits = 64 * (blocks - k) / blocks
    candidates = tables * n * (n - 1) / 2 / 2**key_bits
    core_seconds = tables * n * per_entry_s + candidates * CANDIDATE_S
    return {
        "n": n,
        "k": k,
        "blocks": blocks,
        "tables": tables,
        "shuffle_bytes": tables * n * bytes_per_entry,
        "random_candidates": candidates,
        "core_hours": core_seconds / 3600,
        "per_entry_us": per_entry_s * 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--case",
        action="append",
        metavar="N:K",
        help="fingerprints and radius (repeatable; default 10000000:3 and 1000000:8)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scratch", default=None, help="folder for shards and spill")
    parser.add_argument("--model", action="store_true", help="print the model from the JSON")
    args = parser.parse_args()
    if args.model:
        for figures in json.loads(OUT.read_text())["runs"]:
            print(json.dumps(model(figures), indent=2))
        return
    runs = []
    for case in args.case or ["10000000:3", "1000000:8"]:
        n, k = (int(x) for x in case.split(":"))
        scratch = Path(tempfile.mkdtemp(prefix="bench-distributed-", dir=args.scratch))
        try:
            figures = run(n, k, args.workers, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        print(json.dumps(figures, indent=2), flush=True)
        runs.append(figures)
    OUT.parent.mkdir(exist_ok=True)
    machine = {"cpus": os.cpu_count(), "load_1min": os.getloadavg()[0]}
    OUT.write_text(json.dumps({"machine": machine, "runs": runs}, indent=2) + "\n")
    for figures in runs:
        print(json.dumps(model(figures), indent=2))


if __name__ == "__main__":
    main()
