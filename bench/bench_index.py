"""Near-pair search speed and memory: dupfinder's permuted tables against two peers.

Run ``python -m bench.bench_index [--quick]``. Data: random 64-bit fingerprints where 1% of
rows are copies of another row with 1 to 3 distinct bits flipped; radius k = 3, and k = 8
(the product's default) for the comparison with the previous release.

- all pairs at 1M and 10M (``--quick``: 1M only): ``all_pairs_with_distances`` against
  seomoz simhash-cpp's ``find_all`` (PyPI ``simhash-pybind``), 6 blocks (its usual setting
  for k = 3) and also 5 (dupfinder's choice). ``find_all`` takes a Python set, so it works on
  distinct values: its pair count is compared with dupfinder's pairs over ``np.unique``.
- all pairs and single queries at 100k (``--quick``: 20k) against 1e0ng's ``SimhashIndex``
  (PyPI ``simhash``), pure Python: pairs come from one ``get_near_dups`` per row.
- queries at 1M: batched ``query`` (per query) and ``query_one``; ``add`` of 1,000 rows; the
  same queries against the compiled probe index (``index_kernel.ProbeIndex``).
- k = 8, all pairs: 1M random, every real document of this machine and 1M real paragraphs
  (``bench/doc_simhashes.py``: their SimHashes share bits), against the index of the previous
  release (``git show 208809b:dupfinder/core/index.py``, loaded as a module of its own).
- the compiled kernel's start: import and first result with an empty numba cache (a
  machine's first run compiles) and with the cache filled.

Both peers ship a top-level module ``simhash``; installing both leaves 1e0ng's
``simhash/__init__.py`` in place of simhash-pybind's, next to simhash-pybind's compiled
``simhash/_simhash*.so``. So 1e0ng is imported as ``simhash`` and simhash-cpp is loaded
from that extension file directly under its own module name ``_simhash`` (whichever
``__init__`` won). Every contender runs in a fresh subprocess: peak memory is the rise of the
process's peak RSS (VmHWM, reset through /proc/self/clear_refs) over its RSS just before the
call, and for dupfinder also tracemalloc's peak (numpy reports its buffers to it).
Times are best of a few repeats (other processes share the CPU); CPU time is shown too.
JSON goes to ``bench/out/bench_index.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import glob
import importlib.machinery
import importlib.util
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from bench.old_source import module_at
from dupfinder.core.index import compiled as index_kernel
from dupfinder.core.index.reference import PermutedIndex, all_pairs_with_distances, choose_blocks
from dupfinder.core.jit.engine import Engine

OUT = Path(__file__).resolve().parent / "out" / "bench_index.json"
K = 3
#: The product's default text radius, and the previous release's index to compare with.
K_DEFAULT = 8
PREVIOUS = "208809b"
SEED = 20_070_508
TARGETS = {
    "pairs_1M_s": 0.15,
    "pairs_10M_s": 2.0,
    "bytes_per_fp": 40.0,
    "batch_query_us": 5.0,
    "query_one_us": 50.0,
}


def make_fingerprints(n: int, seed: int = SEED) -> np.ndarray:
    """n random fingerprints; 1% of rows replaced by another row with 1-3 distinct bits flipped."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2**64, n, dtype=np.uint64)
    planted = n // 100
    dst = rng.choice(n, planted, replace=False)
    src = rng.integers(0, n, planted)
    # three distinct bits per row: draw from 64, 63, 62 and step over the bits already taken
    b0 = rng.integers(0, 64, planted)
    b1 = rng.integers(0, 63, planted)
    b1 += b1 >= b0
    b2 = rng.integers(0, 62, planted)
    b2 += b2 >= np.minimum(b0, b1)
    b2 += b2 >= np.maximum(b0, b1)
    flips = rng.integers(1, 4, planted)
    one = np.uint64(1)
    mask = one << b0.astype(np.uint64)
    mask |= np.where(flips >= 2, one << b1.astype(np.uint64), np.uint64(0))
    mask |= np.where(flips >= 3, one << b2.astype(np.uint64), np.uint64(0))
    x[dst] = x[src] ^ mask
    return x


# ----------------------------------------------------------------------------- measuring


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _reset_peak() -> None:
    with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _peak() -> int:
    with contextlib.suppress(OSError), open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure(call: Callable[[], Any], repeat: int) -> tuple[dict[str, Any], Any]:
    """Best wall and CPU seconds of ``repeat`` calls, and the peak RSS rise of the first: the
    first figures of a worker's JSON object, to which it adds its own."""
    best_wall = best_cpu = float("inf")
    rise, result = 0, None
    for i in range(repeat):
        result = None
        gc.collect()
        before = _rss()
        _reset_peak()
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if i == 0:
            rise = max(0, _peak() - before)
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return {"s": best_wall, "cpu_s": best_cpu, "rss_rise_bytes": float(rise)}, result


# ----------------------------------------------------------------------------- peers


def load_simhash_cpp() -> ModuleType:
    """simhash-pybind's extension, loaded by file: its package __init__ may be 1e0ng's."""
    spec = importlib.util.find_spec("simhash")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("simhash-pybind is not installed")
    for folder in spec.submodule_search_locations:
        for path in glob.glob(os.path.join(folder, "_simhash*.so")):
            loader = importlib.machinery.ExtensionFileLoader("_simhash", path)
            ext_spec = importlib.util.spec_from_file_location("_simhash", path, loader=loader)
            if ext_spec is None:
                continue
            module = importlib.util.module_from_spec(ext_spec)
            loader.exec_module(module)
            return module
    raise ImportError("simhash-pybind's _simhash extension was not found")


def load_simhash_1e0ng() -> ModuleType:
    import simhash

    if not hasattr(simhash, "SimhashIndex"):
        raise ImportError("1e0ng simhash was overwritten by simhash-pybind's package")
    return simhash


# ----------------------------------------------------------------------------- workers


def fingerprints_for(data: str, n: int) -> np.ndarray:
    """``random``: planted random fingerprints; ``docs``/``paragraphs``: real SimHashes."""
    if data == "random":
        return make_fingerprints(n)
    from bench import doc_simhashes

    docs, paragraphs = doc_simhashes.load()
    return (docs if data == "docs" else paragraphs)[:n]


def worker_dupfinder_pairs(
    n: int, repeat: int, k: int = K, data: str = "random", engine: str = "auto"
) -> dict[str, Any]:
    x = fingerprints_for(data, n)
    how = Engine(engine)
    all_pairs_with_distances(x[:30_000], k, engine=how)  # load the compiled code first
    figures, (pairs, _) = measure(lambda: all_pairs_with_distances(x, k, engine=how), repeat)
    figures["pairs"] = len(pairs)
    del pairs
    tracemalloc.start()
    all_pairs_with_distances(x, k, engine=how)
    figures["tracemalloc_peak_bytes"] = float(tracemalloc.get_traced_memory()[1])
    tracemalloc.stop()
    if k == K and data == "random":
        figures["distinct_pairs"] = len(all_pairs_with_distances(np.unique(x), k)[0])
    figures["n"] = int(x.size)
    figures["distinct"] = int(np.unique(x).size)
    figures["blocks"] = choose_blocks(x.size, k, engine=how)
    figures["tables"] = math.comb(figures["blocks"], k)
    if how is not Engine.NUMPY and index_kernel.available():
        layout = index_kernel.choose_layout(int(np.unique(x).size), k)
        figures["tables"] = len(layout.tables)
        figures["layout"] = [[p.width, p.errors, p.blocks] for p in layout.parts]
    return figures


def load_previous_index() -> ModuleType:
    """dupfinder's index as released before the compiled kernel (git commit PREVIOUS)."""
    return module_at(PREVIOUS, "dupfinder/core/index.py", "previous_index")


def worker_previous_pairs(n: int, repeat: int, k: int, data: str = "random") -> dict[str, Any]:
    previous = load_previous_index()
    x = fingerprints_for(data, n)
    figures, (pairs, _) = measure(lambda: previous.all_pairs_with_distances(x, k), repeat)
    figures["pairs"] = len(pairs)
    figures["n"] = int(x.size)
    figures["blocks"] = previous.choose_blocks(x.size, k)
    figures["tables"] = math.comb(figures["blocks"], k)
    return figures


def worker_compile(cache: str) -> dict[str, Any]:
    """Seconds from importing the index to the first all-pairs result, with numba's compiled
    code in ``cache`` (empty: the first run on a machine; filled: every later run)."""
    os.environ["NUMBA_CACHE_DIR"] = cache
    started = time.perf_counter()
    cpu = time.process_time()
    from dupfinder.core.index import compiled as index_kernel

    x = make_fingerprints(30_000)
    all_pairs_with_distances(x, 8, engine=Engine.COMPILED)
    return {
        "s": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu,
        "numba": index_kernel.available(),
    }


def worker_simhash_cpp(n: int, repeat: int, blocks: int) -> dict[str, Any]:
    cpp = load_simhash_cpp()
    x = make_fingerprints(n)
    started = time.perf_counter()
    hashes = set(x.tolist())
    convert = time.perf_counter() - started
    del x
    figures, found = measure(lambda: cpp.find_all(hashes, blocks, K), repeat)
    figures["set_build_s"] = convert
    figures["pairs"] = len(found)
    figures["blocks"] = blocks
    return figures


def worker_1e0ng(n: int, queries: int) -> dict[str, Any]:
    peer = load_simhash_1e0ng()
    x = make_fingerprints(n)
    objs = [(str(i), peer.Simhash(int(v))) for i, v in enumerate(x.tolist())]
    import logging

    logging.getLogger("simhash").setLevel(logging.ERROR)  # it warns about big buckets
    build, index = measure(lambda: peer.SimhashIndex(objs, k=K), 1)

    def pairs() -> int:
        total = 0
        for i, h in objs:
            total += sum(1 for j in index.get_near_dups(h) if int(j) > int(i))
        return total

    figures, count = measure(pairs, 1)
    one = [objs[i][1] for i in range(0, n, max(1, n // queries))]
    started = time.perf_counter()
    for h in one:
        index.get_near_dups(h)
    figures["query_one_us"] = (time.perf_counter() - started) / len(one) * 1e6
    figures["build_s"] = build["s"]
    figures["pairs"] = count
    return figures


def worker_dupfinder_small(n: int, queries: int) -> dict[str, Any]:
    """The 1e0ng comparison: all pairs and single queries at the peer's size."""
    x = make_fingerprints(n)
    figures, (pairs, _) = measure(lambda: all_pairs_with_distances(x, K), 3)
    index = PermutedIndex(x, K)
    values = [int(v) for v in x[:: max(1, n // queries)]]
    figures["query_one_us"] = _query_one_us(index, values)
    figures["pairs"] = len(pairs)
    return figures


def _per_query_us(query: Callable[[Any], object], queries: Sequence[Any]) -> float:
    """Best of 3 of the mean time of ``query`` over ``queries``, one at a time, in µs."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for one in queries:
            query(one)
        best = min(best, (time.perf_counter() - started) / len(queries))
    return best * 1e6


def _query_one_us(index: PermutedIndex, values: list[int]) -> float:
    return _per_query_us(index.query_one, values)


def worker_dupfinder_query(n: int, queries: int) -> dict[str, Any]:
    x = make_fingerprints(n)
    rng = np.random.default_rng(SEED + 1)
    build, index = measure(lambda: PermutedIndex(x, K), 2)
    members = x[rng.integers(0, n, queries // 2)]
    near = members ^ (np.uint64(1) << rng.integers(0, 64, members.size).astype(np.uint64))
    q = np.concatenate([near, rng.integers(0, 2**64, queries - members.size, dtype=np.uint64)])
    batch, (rows, _, _) = measure(lambda: index.query(q), 3)
    values = [int(v) for v in q[:2000]]
    new = make_fingerprints(1000, SEED + 2)
    started = time.perf_counter()
    index.add(new)
    add_s = time.perf_counter() - started
    probe = _probe_queries(x, q, values) if index_kernel.available() else {}
    return {
        **probe,
        "build_s": build["s"],
        "blocks": index.blocks,
        "tables": index.tables,
        "batch_query_us": batch["s"] / q.size * 1e6,
        "batch_found": int(rows.size),
        "query_one_us": _query_one_us(index, values),
        "add_1000_s": add_s,
    }


def _probe_queries(x: np.ndarray, q: np.ndarray, values: list[int]) -> dict[str, Any]:
    """The same queries against the compiled probe index (the library's online lookups)."""
    plan = index_kernel.probe_plan(x.size, q.size, K)
    index_kernel.ProbeIndex(x[:1000], K, plan).query(q[:10])  # load the compiled code first
    build, index = measure(lambda: index_kernel.ProbeIndex(x, K, plan), 1)
    batch, (rows, _, _) = measure(lambda: index.query(q), 3)
    singles = [np.array([v], np.uint64) for v in values]
    return {
        "probe_build_s": build["s"],
        "probe_batch_query_us": batch["s"] / q.size * 1e6,
        "probe_batch_found": int(rows.size),
        "probe_query_one_us": _per_query_us(index.query, singles),
    }


WORKERS: dict[str, Callable[..., dict[str, Any]]] = {
    "dupfinder-pairs": worker_dupfinder_pairs,
    "previous-pairs": worker_previous_pairs,
    "compile": worker_compile,
    "dupfinder-small": worker_dupfinder_small,
    "dupfinder-query": worker_dupfinder_query,
    "simhash-cpp": worker_simhash_cpp,
    "simhash-1e0ng": worker_1e0ng,
}


def run_worker(name: str, **kwargs: int | str) -> dict[str, Any]:
    """Run one contender in a fresh interpreter; a failure becomes an ``error`` entry."""
    command = [sys.executable, "-m", "bench.bench_index", "--worker", name, json.dumps(kwargs)]
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# ----------------------------------------------------------------------------- report


def _fmt(value: Any, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "MB":
        return f"{value / 1e6:.0f} MB"
    if unit == "B/fp":
        return f"{value:.1f} B/fp"
    if unit == "us":
        return f"{value:.2f} us"
    if unit == "s":
        return f"{value:.3f} s"
    return str(value)


def _rows(report: dict[str, Any]) -> Iterator[tuple[str, Any, Any, str, float | None]]:
    """(metric, dupfinder, peer, unit, target) lines of the table."""
    for size, block in report["pairs"].items():
        ours, cpp6, cpp5 = block["dupfinder"], block["simhash-cpp-6"], block["simhash-cpp-5"]
        target = block.get("target_s", TARGETS.get(f"pairs_{size}_s"))
        yield f"all pairs {size}, s (vs cpp 6 blocks)", ours.get("s"), cpp6.get("s"), "s", target
        yield f"all pairs {size}, s (vs cpp 5 blocks)", ours.get("s"), cpp5.get("s"), "s", target
        yield f"all pairs {size}, CPU s (vs cpp 6)", ours.get("cpu_s"), cpp6.get("cpu_s"), "s", None
        n = block["n"]
        bpf = TARGETS["bytes_per_fp"]
        ours_trace = ours.get("tracemalloc_peak_bytes", 0) / n
        ours_rss, cpp_rss = ours.get("rss_rise_bytes", 0) / n, cpp6.get("rss_rise_bytes", 0) / n
        yield f"all pairs {size}, extra memory (tracemalloc)", ours_trace, None, "B/fp", bpf
        yield f"all pairs {size}, extra memory (peak RSS rise)", ours_rss, cpp_rss, "B/fp", bpf
        yield (
            f"all pairs {size}, distinct-value pairs",
            ours.get("distinct_pairs"),
            cpp6.get("pairs"),
            "",
            None,
        )
    small = report["small"]
    ours, peer = small["dupfinder"], small["simhash-1e0ng"]
    label = f"{small['n'] // 1000}k"
    yield f"all pairs {label}, s (vs 1e0ng)", ours.get("s"), peer.get("s"), "s", None
    yield f"all pairs {label}, row pairs", ours.get("pairs"), peer.get("pairs"), "", None
    one_ours, one_peer = ours.get("query_one_us"), peer.get("query_one_us")
    yield f"query_one at {label} (vs 1e0ng)", one_ours, one_peer, "us", None
    q = report["query"]
    yield (
        "query batched at 1M, per query",
        q.get("batch_query_us"),
        None,
        "us",
        TARGETS["batch_query_us"],
    )
    yield "query_one at 1M", q.get("query_one_us"), None, "us", TARGETS["query_one_us"]
    yield (
        "query batched at 1M, compiled probe index",
        q.get("probe_batch_query_us"),
        None,
        "us",
        None,
    )
    yield "query_one at 1M, compiled probe index", q.get("probe_query_one_us"), None, "us", None
    yield "probe index build at 1M", q.get("probe_build_s"), None, "s", None
    yield "index build at 1M", q.get("build_s"), None, "s", None
    yield "add 1,000 to the 1M index", q.get("add_1000_s"), None, "s", None
    for label, block in report.get("k8", {}).items():
        ours, old = block["dupfinder"], block["previous"]
        name = f"k=8 all pairs, {label} (vs previous release)"
        yield f"{name}, s", ours.get("s"), old.get("s"), "s", block.get("target_s")
        cpu_target = block.get("target_cpu_s")
        yield f"{name}, CPU s", ours.get("cpu_s"), old.get("cpu_s"), "s", cpu_target
        yield f"{name}, pairs", ours.get("pairs"), old.get("pairs"), "", None
        yield f"{name}, tables", ours.get("tables"), old.get("tables"), "count", None
        yield f"{name}, fingerprints", ours.get("n"), old.get("n"), "", None
    compile_ = report.get("compile", {})
    for state in ("first run", "cached"):
        figures = compile_.get(state, {})
        yield f"import + first k=8 pairs, {state}", figures.get("s"), None, "s", None


def print_table(report: dict[str, Any]) -> None:
    head = f"{'metric':<46} {'dupfinder':>12} {'peer':>12} {'peer/ours':>10}  target"
    print(head)
    print("-" * len(head))
    for metric, ours, peer, unit, target in _rows(report):
        ratio = f"{peer / ours:.1f}x" if ours and peer and unit not in ("", "count") else ""
        if unit == "" and ours is not None and peer is not None:
            ratio = "equal" if ours == peer else "DIFFER"
        verdict = ""
        if target is not None and ours is not None:
            verdict = f"<= {target:g} {'ok' if ours <= target else 'MISSED'}"
        print(f"{metric:<46} {_fmt(ours, unit):>12} {_fmt(peer, unit):>12} {ratio:>10}  {verdict}")
    for name, value in report.get("errors", {}).items():
        print(f"! {name}: {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Permuted-table index against peers.")
    parser.add_argument("--quick", action="store_true", help="1M only; peers at small n")
    parser.add_argument("--worker", nargs=2, metavar=("NAME", "JSON"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        name, kwargs = args.worker
        print(json.dumps(WORKERS[name](**json.loads(kwargs))))
        return 0

    sizes = {"1M": 1_000_000} if args.quick else {"1M": 1_000_000, "10M": 10_000_000}
    small = 20_000 if args.quick else 100_000
    report: dict[str, Any] = {"k": K, "seed": SEED, "numpy": np.__version__, "pairs": {}}
    errors: dict[str, str] = {}
    for label, n in sizes.items():
        repeat = 3 if n <= 1_000_000 else 2
        block: dict[str, Any] = {"n": n}
        block["dupfinder"] = run_worker("dupfinder-pairs", n=n, repeat=repeat)
        for blocks in (6, 5):
            peer_repeat = 2 if n <= 1_000_000 else 1
            key = f"simhash-cpp-{blocks}"
            block[key] = run_worker("simhash-cpp", n=n, repeat=peer_repeat, blocks=blocks)
        report["pairs"][label] = block
        print(f"all pairs {label} done", file=sys.stderr, flush=True)
    report["small"] = {
        "n": small,
        "dupfinder": run_worker("dupfinder-small", n=small, queries=2000),
        "simhash-1e0ng": run_worker("simhash-1e0ng", n=small, queries=2000),
    }
    report["query"] = run_worker("dupfinder-query", n=1_000_000, queries=100_000)
    report["k8"] = {}
    for label, data, n in (
        ("1M random", "random", 1_000_000),
        ("real documents", "docs", 10_000_000),
        ("real paragraphs", "paragraphs", 1_000_000),
    ):
        report["k8"][label] = {
            "dupfinder": run_worker("dupfinder-pairs", n=n, repeat=2, k=K_DEFAULT, data=data),
            "previous": run_worker("previous-pairs", n=n, repeat=1, k=K_DEFAULT, data=data),
        }
        print(f"k=8 {label} done", file=sys.stderr, flush=True)
    # the targets: 30 times simhash-cpp at k = 3, 30 times the previous release at k = 8
    cpp = report["pairs"]["1M"]["simhash-cpp-6"].get("s")
    if cpp:
        report["pairs"]["1M"]["target_s"] = cpp / 30
    old = report["k8"]["1M random"]["previous"]
    if old.get("s"):
        report["k8"]["1M random"]["target_s"] = old["s"] / 30
        report["k8"]["1M random"]["target_cpu_s"] = old["cpu_s"] / 30
    with tempfile.TemporaryDirectory(prefix="dupfinder-numba-") as cache:
        report["compile"] = {
            state: run_worker("compile", cache=cache) for state in ("first run", "cached")
        }
    for section in (*report["pairs"].values(), report["small"], *report["k8"].values()):
        for name, value in section.items():
            if isinstance(value, dict) and "error" in value:
                errors[name] = value["error"]
    if "error" in report["query"]:
        errors["dupfinder-query"] = report["query"]["error"]
    report["errors"] = errors
    print_table(report)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {OUT}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
