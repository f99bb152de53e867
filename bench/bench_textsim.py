"""Text fingerprinting speed, single core: dupfinder's SimHash against 1e0ng's ``simhash``.

Run ``python -m bench.bench_textsim``. Real text: English man pages and Chinese/Japanese man pages
(the corpus packages of bench.text_corpus). Throughput is MB of UTF-8 input per CPU second
(``time.process_time``, best of a few rounds, so other processes on the machine skew it less).
dupfinder is timed doing what a scan does per document (``text_fingerprint``: SimHash and
sketch) on each engine: the numpy path, and the compiled kernel once loaded (a process loads
it after ``text_compiled.COMPILED_AFTER`` characters; its load is not in these figures).
It also times the per-feature hashes the design could have used (FNV-1a 64 in Python, xxh64,
blake2b-64) against the vectorised token/shingle hashing, in ns per feature.
JSON goes to ``bench/out/bench_textsim.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.text_corpus import ensure_packages, man_page_texts
from dupfinder.core.errors import TooLittleContent
from dupfinder.core.jit.engine import Engine
from dupfinder.core.text import simhash as textsim

OUT = Path(__file__).resolve().parent / "out" / "bench_textsim.json"


def _ours(engine: Engine) -> Callable[[str], int]:
    def fingerprint(text: str) -> int:
        try:
            return textsim.text_fingerprint(text, engine)[0]
        except TooLittleContent:
            return 0

    return fingerprint


def _peer() -> tuple[Callable[[str], int] | None, str]:
    """1e0ng's Simhash; with numpy 2 it overflows on a feature count > 255, so retry capped."""
    try:
        from simhash import Simhash  # PyPI "simhash" (1e0ng); simhash-pybind shares the name
    except ImportError as exc:
        return None, f"not importable: {exc}"

    def peer(text: str) -> int:
        try:
            return int(Simhash(text).value)
        except OverflowError:
            probe = Simhash("")
            counts = Counter(probe._tokenize(text))
            return int(Simhash({f: min(c, 255) for f, c in counts.items()}).value)

    return peer, "simhash (1e0ng) Simhash(text), char 4-grams; counts capped at 255 on overflow"


def throughput(fn: Callable[[str], int], docs: list[str], rounds: int) -> float:
    size = sum(len(d.encode()) for d in docs) / 1e6
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for doc in docs:
            fn(doc)
        best = min(best, time.process_time() - start)
    return size / best


def _fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def per_feature_hashes(docs: list[str]) -> dict[str, float]:
    """ns per shingle of the whole feature step, with each candidate 64-bit hash.

    The per-feature designs share dupfinder's tokens and differ only in hashing each word
    3-gram with one Python call; the vectorised scheme is ``textsim.features`` itself.
    """
    import numpy as np

    token_lists = [textsim.tokens(doc) for doc in docs]
    shingles = sum(max(0, len(t) - 2) for t in token_lists)
    candidates: dict[str, Callable[[bytes], int]] = {
        "blake2b-64": lambda b: int.from_bytes(hashlib.blake2b(b, digest_size=8).digest()),
        "fnv1a-64 (pure Python)": _fnv1a64,
    }
    try:
        import xxhash

        candidates["xxh64"] = xxhash.xxh64_intdigest
    except ImportError:
        pass
    results: dict[str, float] = {}
    for name, fn in candidates.items():
        start = time.process_time()
        for toks in token_lists:
            grams = [" ".join(toks[i : i + 3]).encode() for i in range(len(toks) - 2)]
            np.unique(np.array([fn(g) for g in grams], dtype=np.uint64), return_counts=True)
        results[f"{name} per feature (after tokens)"] = (time.process_time() - start) / shingles
    start = time.process_time()
    for doc in docs:
        textsim.features(doc)
    results["dupfinder vectorised (normalise + tokens + hashes + counts)"] = (
        time.process_time() - start
    ) / shingles
    return {k: round(v * 1e9, 1) for k, v in results.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    missing = ensure_packages()
    if missing:
        print(
            "missing Debian packages for the corpus (install them as root with apt-get): "
            + " ".join(missing),
            file=sys.stderr,
        )
        return 2
    corpora = {
        "english": man_page_texts("/usr/share/man/man[1-8]/*.gz", 11, 300),
        "cjk": man_page_texts("/usr/share/man/zh_CN/man[1-8]/*.gz", 1, 150)
        + man_page_texts("/usr/share/man/ja/man[1-8]/*.gz", 2, 150),
    }
    peer, peer_name = _peer()
    for engine in (Engine.NUMPY, Engine.COMPILED):  # tables built, kernel loaded
        textsim.text_fingerprint("warm up the class table " * 10, engine)
    rows: list[dict[str, Any]] = []
    print(
        f"{'corpus':8} {'MB':>6} {'numpy MB/s':>11} {'compiled MB/s':>14} {'peer MB/s':>10} "
        f"{'ratios':>13}"
    )
    for name, docs in corpora.items():
        mb = sum(len(d.encode()) for d in docs) / 1e6
        numpy_path = throughput(_ours(Engine.NUMPY), docs, args.rounds)
        compiled = throughput(_ours(Engine.COMPILED), docs, args.rounds)
        theirs = throughput(peer, docs, 1) if peer else None
        rows.append(
            {
                "corpus": name,
                "documents": len(docs),
                "mb": round(mb, 2),
                "dupfinder_numpy_mb_s": round(numpy_path, 1),
                "dupfinder_compiled_mb_s": round(compiled, 1),
                "peer_mb_s": round(theirs, 2) if theirs else None,
                "ratio_numpy": round(numpy_path / theirs, 1) if theirs else None,
                "ratio_compiled": round(compiled / theirs, 1) if theirs else None,
            }
        )
        nan = float("nan")
        print(
            f"{name:8} {mb:6.2f} {numpy_path:11.1f} {compiled:14.1f} {theirs or nan:10.2f} "
            f"{numpy_path / theirs if theirs else nan:5.1f}x {compiled / theirs if theirs else nan:5.1f}x"
        )
    hashes = per_feature_hashes(corpora["english"][:40])
    print("ns per feature:", json.dumps(hashes))
    payload = {
        "peer": peer_name,
        "rows": rows,
        "ns_per_feature": hashes,
        "algorithm_version": textsim.ALGORITHM_VERSION,
        "timer": "time.process_time, single process, best of rounds",
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
