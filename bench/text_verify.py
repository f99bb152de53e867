"""How SimHash candidates compare with the text they really share, on real boilerplate-heavy folders.

Run ``python -m bench.text_verify``. Folders of this machine where unrelated documents share a
lot of text: Debian ``copyright`` files, the common licences, the Python standard library's
sources, and English man pages. For every pair of documents within 14 bits of SimHash it
computes the exact Jaccard similarity of their 3-token shingle sets and the estimate of each
candidate MinHash sketch (bins x bits), then reports

- how many candidate pairs share little text (what SimHash alone would group), per radius;
- each sketch's estimation error and how often it takes a wrong side of each threshold.

Used to choose the verification sketch and its threshold (``dupfinder.core.text.sketch``).
Results go to ``bench/out/text_verify.json``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict

import numpy as np
import numpy.typing as npt

from bench.text_corpus import man_page_texts
from dupfinder.core.text import simhash as textsim
from dupfinder.core.text import sketch

OUT = Path(__file__).resolve().parent / "out" / "text_verify.json"
RADII = tuple(range(4, 15))
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)
SKETCHES = ((64, 8), (128, 8), (256, 8), (128, 16), (64, 16))


@dataclass
class Prepared:
    names: list[str]
    simhashes: npt.NDArray[np.uint64]
    shingles: list[npt.NDArray[np.uint64]]


def _read(path: str) -> str:
    return Path(path).read_text("utf-8", "replace")


def real_folders(man_limit: int = 1500) -> dict[str, list[tuple[str, str]]]:
    """(name, text) of the documents of each real folder."""
    stdlib = sorted(glob.glob("/usr/lib/python3*/**/*.py", recursive=True))
    return {
        "copyright": [(p, _read(p)) for p in sorted(glob.glob("/usr/share/doc/*/copyright"))],
        "common-licenses": [
            (p, _read(p))
            for p in sorted(glob.glob("/usr/share/common-licenses/*"))
            if os.path.isfile(p)
        ],
        "python-stdlib": [(p, _read(p)) for p in stdlib if os.path.isfile(p)],
        "man-en": [
            (f"man#{i}", t)
            for i, t in enumerate(man_page_texts("/usr/share/man/man[1-8]/*.gz", 3, man_limit))
        ],
    }


def prepare(docs: list[tuple[str, str]]) -> Prepared:
    names, values, shingles = [], [], []
    for name, text in docs:
        hashes = textsim._token_hashes(text)
        if hashes.size < textsim.MIN_TOKENS:
            continue
        features, weights = textsim._features(hashes, textsim.SHINGLE, textsim.WEIGHTING)
        names.append(name)
        values.append(textsim.simhash_features(features, weights))
        shingles.append(features)
    return Prepared(names, np.array(values, dtype=np.uint64), shingles)


def candidate_pairs(values: npt.NDArray[np.uint64], k: int) -> npt.NDArray[np.int64]:
    n = len(values)
    out = []
    for lo in range(0, n, 512):
        rows = np.arange(lo, min(n, lo + 512))
        dist = np.bitwise_count(values[rows, None] ^ values[None, :])
        i, j = np.nonzero((dist <= k) & (np.arange(n)[None, :] > rows[:, None]))
        out.append(np.stack([rows[i], j], axis=1))
    return np.concatenate(out) if out else np.zeros((0, 2), np.int64)


def jaccard(a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64]) -> float:
    inter = np.intersect1d(a, b, assume_unique=True).size
    return inter / (a.size + b.size - inter)


class FolderFigures(TypedDict):
    """How the candidates within each radius, and each sketch's estimate, fare on one folder."""

    documents: int
    candidate_pairs: int
    by_radius: list[dict[str, object]]
    sketches: list[dict[str, object]]
    unrelated_close_pairs: list[dict[str, object]]
    seconds: NotRequired[float]


def measure_folder(prepared: Prepared, max_k: int) -> FolderFigures:
    values = prepared.simhashes
    pairs = candidate_pairs(values, max_k)
    dist = np.bitwise_count(values[pairs[:, 0]] ^ values[pairs[:, 1]]).astype(int)
    true = np.array([jaccard(prepared.shingles[i], prepared.shingles[j]) for i, j in pairs])
    by_radius = []
    for k in RADII:
        within = dist <= k
        row: dict[str, object] = {"k": k, "candidates": int(within.sum())}
        for t in THRESHOLDS:
            row[f"shared_below_{t}"] = int((within & (true < t)).sum())
        by_radius.append(row)
    sketch_rows: list[dict[str, object]] = []
    for bins, bits in SKETCHES:
        sk = np.stack([sketch.sketch(s, bins=bins, bits=bits) for s in prepared.shingles])
        est = sketch.pair_similarity(sk[pairs[:, 0]], sk[pairs[:, 1]], bits=bits)
        err = est - true
        row = {
            "bins": bins,
            "bits": bits,
            "bytes": bins * (1 if bits <= 8 else 2),
            "rmse": round(float(np.sqrt(np.mean(err**2))), 4) if len(err) else None,
            "max_abs_error": round(float(np.abs(err).max()), 4) if len(err) else None,
        }
        for t in THRESHOLDS:
            # wrong side of t by a margin that matters to a person (0.1)
            row[f"accepted_below_{t - 0.1:.1f}"] = int(((est >= t) & (true < t - 0.1)).sum())
            row[f"rejected_above_{t + 0.1:.1f}"] = int(((est < t) & (true >= t + 0.1)).sum())
        sketch_rows.append(row)
    worst = sorted(
        zip(true.tolist(), dist.tolist(), pairs.tolist(), strict=True), key=lambda x: x[1]
    )
    examples: list[dict[str, object]] = [
        {
            "a": prepared.names[i],
            "b": prepared.names[j],
            "bits": d,
            "jaccard": round(t, 3),
        }
        for t, d, (i, j) in worst
        if t < 0.5
    ][:8]
    return {
        "documents": len(prepared.names),
        "candidate_pairs": len(pairs),
        "by_radius": by_radius,
        "sketches": sketch_rows,
        "unrelated_close_pairs": examples,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-k", type=int, default=max(RADII))
    parser.add_argument("--man-limit", type=int, default=1500)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    results = {}
    for name, docs in real_folders(args.man_limit).items():
        t0 = time.perf_counter()
        res = measure_folder(prepare(docs), args.max_k)
        res["seconds"] = round(time.perf_counter() - t0, 1)
        results[name] = res
        print(f"\n== {name}: {res['documents']} documents", file=sys.stderr)
        for row in res["by_radius"]:
            print("  ", row, file=sys.stderr)
        for row in res["sketches"]:
            print("  ", row, file=sys.stderr)
        for ex in res["unrelated_close_pairs"]:
            print("  ", ex, file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
