"""dupfinder against datasketch's MinHash LSH on the text accuracy corpus, in one run.

Run ``python -m bench.bench_datasketch`` (needs the ``bench`` extra). Both tools get the same
documents (bench/text_corpus.py: real licences, man pages in three languages and copyright
files with nine kinds of edit) and are scored pairwise against the same truth. datasketch gets
dupfinder's tokens (it has no tokenizer of its own; whitespace words would fail on Chinese and
Japanese) and the usual recipe: 3-token shingles, a 128-permutation ``MinHash`` per document
(``update_batch``), one ``MinHashLSH`` at the Jaccard threshold, a query per document, and
optionally each candidate's estimated Jaccard checked against the threshold. dupfinder runs its
scan pipeline: text fingerprint and sketch, permuted-table index within k bits, verification.

Speed is CPU time per MB of text, one process, from text in memory to pairs (reading files
and extracting text are the same for both and left out). dupfinder's default row runs first
and pays every one-time cost of a process inside its timing: the character tables and
importing the compiled kernel. Later dupfinder rows find the kernel loaded, as a long-running
process would; one row forces the numpy path throughout. Results go to ``bench/out/datasketch.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from bench.text_corpus import Doc, build_corpus, ensure_packages
from dupfinder.core.errors import TooLittleContent
from dupfinder.core.grouping import verify
from dupfinder.core.jit.engine import Engine
from dupfinder.core.model import DEFAULT_TEXT_SIMILARITY, DEFAULT_TEXT_THRESHOLD
from dupfinder.core.text import simhash as textsim
from dupfinder.core.text import sketch

OUT = Path(__file__).resolve().parent / "out" / "datasketch.json"
Pairs = set[tuple[int, int]]


def _truth(docs: list[Doc]) -> int:
    counts = np.bincount(np.array([d.group for d in docs]))
    return int((counts * (counts - 1) // 2).sum())


def score(docs: list[Doc], pairs: Pairs) -> dict[str, float | int]:
    positives = _truth(docs)
    tp = sum(1 for a, b in pairs if docs[a].group == docs[b].group)
    fp = len(pairs) - tp
    precision = tp / len(pairs) if pairs else 1.0
    recall = tp / positives if positives else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "tp": tp,
        "fp": fp,
        "fn": positives - tp,
    }


def per_edit_recall(docs: list[Doc], pairs: Pairs) -> dict[str, float]:
    originals = {d.group: i for i, d in enumerate(docs) if d.edit == "original"}
    hits: dict[str, list[bool]] = {}
    for i, doc in enumerate(docs):
        if doc.edit == "original":
            continue
        a, b = sorted((i, originals[doc.group]))
        hits.setdefault(doc.edit, []).append((a, b) in pairs)
    return {edit: round(sum(h) / len(h), 4) for edit, h in sorted(hits.items())}


def dupfinder_pairs(
    docs: list[Doc], k: int, threshold: float, bands: bool = True, engine: Engine = Engine.AUTO
) -> tuple[Pairs, float]:
    """The scan's two stages on text in memory; returns pairs of doc indices and CPU seconds."""
    start = time.process_time()
    rows, values, sketches = [], [], []
    for i, doc in enumerate(docs):
        try:
            value, raw = textsim.text_fingerprint(doc.text, engine)
        except TooLittleContent:
            continue
        rows.append(i)
        values.append(value)
        sketches.append(np.frombuffer(raw, dtype=np.uint8))
    v = np.array(values, dtype=np.uint64)
    s = np.stack(sketches)
    found = verify.candidates(v, s, k, bands=bands)
    node_pairs, _ = verify.verified(found, s, threshold, sketch.pair_similarity)
    # expand nodes to rows (identical documents share a node)
    members: dict[int, list[int]] = {}
    for row, node in enumerate(found.inverse.tolist()):
        members.setdefault(node, []).append(rows[row])
    pairs: Pairs = set()
    for group in members.values():
        pairs.update((a, b) for x, a in enumerate(group) for b in group[x + 1 :])
    for a, b in node_pairs.tolist():
        pairs.update((min(x, y), max(x, y)) for x in members[a] for y in members[b])
    return pairs, time.process_time() - start


def datasketch_pairs(
    docs: list[Doc], threshold: float, check: bool, num_perm: int = 128
) -> tuple[Pairs, float]:
    from datasketch import MinHash, MinHashLSH

    start = time.process_time()
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    hashes: dict[int, MinHash] = {}
    for i, doc in enumerate(docs):
        words = textsim.tokens(doc.text)
        if len(words) < textsim.MIN_TOKENS:
            continue
        shingles = {" ".join(words[j : j + 3]).encode("utf-8") for j in range(len(words) - 2)}
        m = MinHash(num_perm=num_perm)
        m.update_batch(shingles)
        hashes[i] = m
        lsh.insert(i, m)
    pairs: Pairs = set()
    for i, m in hashes.items():
        for j in lsh.query(m):
            if j != i and (not check or m.jaccard(hashes[j]) >= threshold):
                pairs.add((min(i, j), max(i, j)))
    return pairs, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="corpus size factor")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    missing = ensure_packages()
    if missing:
        print("missing Debian packages for the corpus: " + " ".join(missing), file=sys.stderr)
        return 2
    docs, summary = build_corpus(args.scale, log=lambda m: print(m, file=sys.stderr))
    megabytes = sum(len(d.text.encode("utf-8")) for d in docs) / 1e6
    t = DEFAULT_TEXT_SIMILARITY
    runs: dict[str, Callable[[], tuple[Pairs, float]]] = {
        f"dupfinder, k = {DEFAULT_TEXT_THRESHOLD}, >= {t:.0%} (default)": lambda: dupfinder_pairs(
            docs, DEFAULT_TEXT_THRESHOLD, t
        ),
        f"dupfinder, k = {DEFAULT_TEXT_THRESHOLD}, >= {t:.0%}, numpy only": lambda: dupfinder_pairs(
            docs, DEFAULT_TEXT_THRESHOLD, t, engine=Engine.NUMPY
        ),
        f"dupfinder, k = {DEFAULT_TEXT_THRESHOLD}, >= {t:.0%}, kernel loaded": lambda: (
            dupfinder_pairs(docs, DEFAULT_TEXT_THRESHOLD, t)
        ),
    }
    for k in (8, 10, 12, 14):
        if k != DEFAULT_TEXT_THRESHOLD:
            runs[f"dupfinder, k = {k}, >= {t:.0%}"] = partial(dupfinder_pairs, docs, k, t)
        runs[f"dupfinder, k = {k}, >= {t:.0%}, SimHash proposals only"] = partial(
            dupfinder_pairs, docs, k, t, bands=False
        )
    for threshold in (0.5, 0.7, 0.8):
        runs[f"datasketch LSH {threshold}"] = partial(
            datasketch_pairs, docs, threshold, check=False
        )
        runs[f"datasketch LSH {threshold} + Jaccard check"] = partial(
            datasketch_pairs, docs, threshold, check=True
        )
    load_start = [round(x, 2) for x in os.getloadavg()]
    results = {}
    for name, run in runs.items():
        pairs, seconds = run()
        row: dict[str, object] = dict(score(docs, pairs))
        row["cpu_seconds"] = round(seconds, 2)
        row["mb_per_cpu_second"] = round(megabytes / seconds, 2)
        row["per_edit_recall"] = per_edit_recall(docs, pairs)
        results[name] = row
        print(
            f"{name:45} P {row['precision']:.4f} R {row['recall']:.4f} F1 {row['f1']:.4f}  "
            f"{seconds:7.2f} s CPU  {row['mb_per_cpu_second']:7.2f} MB/s",
            file=sys.stderr,
        )
    load_end = [round(x, 2) for x in os.getloadavg()]
    payload = {
        "corpus": summary,
        "megabytes": round(megabytes, 2),
        "load_average": {"start": load_start, "end": load_end},
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=1, ensure_ascii=False))
    print(f"load average {load_start} -> {load_end}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
