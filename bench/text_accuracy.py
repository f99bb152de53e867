"""Accuracy of the text SimHash on a corpus of real third-party text with realistic edits.

Run ``python -m bench.text_accuracy`` (as root it installs the corpus's Debian packages when they
are missing). Every pair of documents is scored: positives are a document and its edits, and the
edits of one document among themselves. For each Hamming radius k = 0..10 it reports pairwise
precision, recall and F1, per language, recall per edit type, false positives among hard
negatives (same family: licences, man pages of one section, shared boilerplate), for several
feature settings and a naive baseline (lowercase, whitespace words, unweighted word 3-grams).
Results go to ``bench/out/text_accuracy.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NotRequired, TypedDict

import numpy as np
import numpy.typing as npt

from bench.text_corpus import Doc, build_corpus, ensure_packages, fortunes
from dupfinder.core.errors import TooLittleContent
from dupfinder.core.text import simhash as textsim
from dupfinder.core.text import sketch

KS = range(15)
#: Radii and thresholds of the verified (two-stage) evaluation.
VERIFY_KS = range(6, 15)
VERIFY_THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
OUT = Path(__file__).resolve().parent / "out" / "text_accuracy.json"

Fingerprinter = Callable[[str], int]


def naive_simhash(text: str) -> int:
    """The baseline: lowercase, split on whitespace, distinct word 3-grams, weight 1 each."""
    words = text.lower().split()
    grams = {" ".join(words[i : i + 3]) for i in range(max(1, len(words) - 2))}
    raw = b"".join(hashlib.blake2b(g.encode(), digest_size=8).digest() for g in grams)
    hashes = np.frombuffer(raw, dtype="<u8")
    return textsim.simhash_features(hashes, np.ones(hashes.size))


def setting(shingle: int, weighting: str) -> Fingerprinter:
    def fingerprint(text: str) -> int:
        token_hashes = textsim._token_hashes(text)
        if token_hashes.size < textsim.MIN_TOKENS:
            raise TooLittleContent("short")
        return textsim.simhash_features(*textsim._features(token_hashes, shingle, weighting))

    return fingerprint


def fingerprint_all(docs: list[Doc], fp: Fingerprinter) -> tuple[npt.NDArray[np.uint64], int]:
    values = np.zeros(len(docs), dtype=np.uint64)
    valid = np.ones(len(docs), dtype=bool)
    for i, doc in enumerate(docs):
        try:
            values[i] = fp(doc.text)
        except TooLittleContent:
            valid[i] = False
    return values, int((~valid).sum())


def _hist(d: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    return np.bincount(d, minlength=65).astype(np.int64)


class Row(TypedDict):
    """The pairs found within k bits: precision, recall, F1 and the counts behind them."""

    k: int
    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int


class Evaluation(TypedDict):
    """One fingerprint setting over all pairs of the corpus."""

    pairs: dict[str, int]
    overall: list[Row]  # one row per k in KS
    per_language: dict[str, list[Row]]
    per_edit_recall: dict[str, list[float]]
    hard_negative_false_positives: list[int]
    negative_distance_min: int | None
    too_little_content: NotRequired[int]
    seconds: NotRequired[float]


class Verified(TypedDict):
    """The two stages (SimHash within k, then sketch similarity >= t) for each (k, t)."""

    table: list[dict[str, float]]
    per_edit_recall: dict[str, dict[str, float]]
    per_language: dict[str, dict[str, dict[str, float]]]
    seconds: NotRequired[float]


def evaluate(docs: list[Doc], values: npt.NDArray[np.uint64]) -> Evaluation:
    """Distance histograms over all pairs, turned into P/R/F1 per k."""
    n = len(docs)
    group = np.array([d.group for d in docs])
    family = np.array([d.family for d in docs])
    lang = np.array([d.lang for d in docs])
    edit = np.array([d.edit for d in docs])
    langs = sorted(set(lang.tolist()))
    pos = np.zeros(65, np.int64)
    neg = np.zeros(65, np.int64)
    hard = np.zeros(65, np.int64)
    per_lang = {la: [np.zeros(65, np.int64), np.zeros(65, np.int64)] for la in langs}
    per_edit: dict[str, npt.NDArray[np.int64]] = {}
    block = 512
    for lo in range(0, n, block):
        rows = np.arange(lo, min(n, lo + block))
        dist = np.bitwise_count(values[rows, None] ^ values[None, :]).astype(np.uint8)
        upper = np.arange(n)[None, :] > rows[:, None]
        same = group[rows, None] == group[None, :]
        pos += _hist(dist[upper & same])
        negative = upper & ~same
        neg += _hist(dist[negative])
        hard += _hist(dist[negative & (family[rows, None] == family[None, :])])
        for la in langs:
            both = (lang[rows, None] == la) & (lang[None, :] == la) & upper
            per_lang[la][0] += _hist(dist[both & same])
            per_lang[la][1] += _hist(dist[both & ~same])
    originals = np.flatnonzero(edit == "original")
    orig_of_group = dict(zip(group[originals].tolist(), originals.tolist(), strict=True))
    for i in np.flatnonzero(edit != "original"):
        j = orig_of_group[int(group[i])]
        d = int(np.bitwise_count(values[i] ^ values[j]))
        per_edit.setdefault(str(edit[i]), np.zeros(65, np.int64))[d] += 1

    def prf(p: npt.NDArray[np.int64], q: npt.NDArray[np.int64]) -> list[Row]:
        out: list[Row] = []
        for k in KS:
            tp, fp = int(p[: k + 1].sum()), int(q[: k + 1].sum())
            fn = int(p.sum()) - tp
            prec = tp / (tp + fp) if tp + fp else 1.0
            rec = tp / (tp + fn) if tp + fn else 1.0
            f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
            out.append(
                {
                    "k": k,
                    "precision": round(prec, 4),
                    "recall": round(rec, 4),
                    "f1": round(f1, 4),
                    "tp": tp,
                    "fp": fp,
                    "fn": fn,
                }
            )
        return out

    return {
        "pairs": {
            "positive": int(pos.sum()),
            "negative": int(neg.sum()),
            "hard_negative": int(hard.sum()),
        },
        "overall": prf(pos, neg),
        "per_language": {la: prf(*per_lang[la]) for la in langs},
        "per_edit_recall": {
            name: [round(float(h[: k + 1].sum() / h.sum()), 4) for k in KS]
            for name, h in sorted(per_edit.items())
        },
        "hard_negative_false_positives": [int(hard[: k + 1].sum()) for k in KS],
        "negative_distance_min": int(np.flatnonzero(neg)[0]) if neg.any() else None,
    }


def _prf(tp: int, fp: int, fn: int) -> dict[str, float | int]:
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return {
        "precision": round(prec, 4),
        "recall": round(rec, 4),
        "f1": round(f1, 4),
        "tp": tp,
        "fp": fp,
        "fn": fn,
    }


def sketches_of(docs: list[Doc]) -> npt.NDArray[np.uint8]:
    out = np.zeros((len(docs), sketch.BINS), dtype=np.uint8)
    for i, doc in enumerate(docs):
        with contextlib.suppress(TooLittleContent):
            out[i] = np.frombuffer(textsim.text_fingerprint(doc.text)[1], dtype=np.uint8)
    return out


def evaluate_verified(
    docs: list[Doc], values: npt.NDArray[np.uint64], sketches: npt.NDArray[np.uint8]
) -> Verified:
    """Two-stage accuracy: a pair is found when its SimHashes are within k bits *and* its
    sketch similarity reaches t, for every k in VERIFY_KS and t in VERIFY_THRESHOLDS."""
    n = len(docs)
    group = np.array([d.group for d in docs])
    edit = np.array([d.edit for d in docs])
    lang = np.array([d.lang for d in docs])
    max_k = max(VERIFY_KS)
    first, second = [], []
    for lo in range(0, n, 512):
        rows = np.arange(lo, min(n, lo + 512))
        dist = np.bitwise_count(values[rows, None] ^ values[None, :])
        i, j = np.nonzero((dist <= max_k) & (np.arange(n)[None, :] > rows[:, None]))
        first.append(rows[i])
        second.append(j)
    a, b = np.concatenate(first), np.concatenate(second)
    dist = np.bitwise_count(values[a] ^ values[b]).astype(np.int64)
    sims = sketch.pair_similarity(sketches[a], sketches[b])
    same = group[a] == group[b]
    positives = 0
    counts = np.bincount(group)
    positives = int((counts * (counts - 1) // 2).sum())
    table = []
    for k in VERIFY_KS:
        for t in VERIFY_THRESHOLDS:
            found = (dist <= k) & (sims >= t)
            tp = int((found & same).sum())
            fp = int((found & ~same).sum())
            table.append({"k": k, "t": t, **_prf(tp, fp, positives - tp)})
    # recall per edit (edit against its original), per language, for every (k, t)
    originals = np.flatnonzero(edit == "original")
    orig_of_group = dict(zip(group[originals].tolist(), originals.tolist(), strict=True))
    edited = np.flatnonzero(edit != "original")
    orig = np.array([orig_of_group[int(group[i])] for i in edited])
    e_dist = np.bitwise_count(values[edited] ^ values[orig]).astype(np.int64)
    e_sims = sketch.pair_similarity(sketches[edited], sketches[orig])
    per_edit: dict[str, dict[str, float]] = {}
    for name in sorted(set(edit[edited].tolist())):
        mask = edit[edited] == name
        per_edit[name] = {
            f"k={k},t={t}": round(float(((e_dist <= k) & (e_sims >= t))[mask].mean()), 4)
            for k in VERIFY_KS
            for t in VERIFY_THRESHOLDS
        }
    per_lang: dict[str, dict[str, dict[str, float]]] = {}
    for la in sorted(set(lang.tolist())):
        in_lang = (lang[a] == la) & (lang[b] == la)
        g = group[lang == la]
        c = np.bincount(g)
        pos = int((c * (c - 1) // 2).sum())
        per_lang[la] = {}
        for k in VERIFY_KS:
            for t in VERIFY_THRESHOLDS:
                found = (dist <= k) & (sims >= t) & in_lang
                tp = int((found & same).sum())
                fp = int((found & ~same).sum())
                per_lang[la][f"k={k},t={t}"] = _prf(tp, fp, pos - tp)
    return {"table": table, "per_edit_recall": per_edit, "per_language": per_lang}


def short_documents(fp: Fingerprinter, k: int) -> list[dict[str, object]]:
    """Near-duplicate recall and false positives for short texts, by length in tokens.

    Used to choose MIN_TOKENS: each fortune is compared with itself after one changed word.
    """
    import random

    rng = random.Random(3)
    buckets = [(5, 10), (10, 20), (20, 40), (40, 80), (80, 160)]
    by_bucket: dict[tuple[int, int], list[str]] = {b: [] for b in buckets}
    for text in fortunes():
        count = len(textsim.tokens(text))
        for lo, hi in buckets:
            if lo <= count < hi and len(by_bucket[(lo, hi)]) < 400:
                by_bucket[(lo, hi)].append(text)
    out = []
    for (lo, hi), texts in by_bucket.items():
        fps, edited = [], []
        for text in texts:
            words = text.split()
            words[rng.randrange(len(words))] = "changed"
            fps.append(fp(text))
            edited.append(fp(" ".join(words)))
        a = np.array(fps, dtype=np.uint64)
        e = np.array(edited, dtype=np.uint64)
        recall = float((np.bitwise_count(a ^ e) <= k).mean())
        dist = np.bitwise_count(a[:, None] ^ a[None, :])
        iu = np.triu_indices(len(a), 1)
        fpr = float((dist[iu] <= k).mean())
        out.append(
            {
                "tokens": f"{lo}-{hi - 1}",
                "documents": len(texts),
                "one_word_changed_recall": round(recall, 4),
                "unrelated_pairs_within_k": round(fpr, 6),
            }
        )
    return out


def _unbounded(shingle: int, weighting: str) -> Fingerprinter:
    def fingerprint(text: str) -> int:
        return textsim.simhash_features(
            *textsim.features(text, shingle=shingle, weighting=weighting)
        )

    return fingerprint


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="corpus size factor")
    parser.add_argument("--k", type=int, default=None, help="radius for the summary table")
    parser.add_argument("--quick", action="store_true", help="only the default and the baseline")
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
    start = time.perf_counter()
    docs, summary = build_corpus(args.scale, log=lambda m: print(m, file=sys.stderr))
    print(f"corpus: {summary}", file=sys.stderr)

    settings: dict[str, Fingerprinter] = {
        f"default (shingle={textsim.SHINGLE}, {textsim.WEIGHTING})": textsim.simhash,
    }
    if not args.quick:
        for n in (1, 2, 3, 4, 5):
            for w in ("binary", "raw", "sqrt", "log"):
                if (n, w) != (textsim.SHINGLE, textsim.WEIGHTING) and (
                    w == textsim.WEIGHTING or n == textsim.SHINGLE
                ):
                    settings[f"shingle={n}, {w}"] = setting(n, w)
    settings["naive baseline (lowercase, word 3-grams, unweighted)"] = naive_simhash

    results: dict[str, Evaluation] = {}
    for name, fp in settings.items():
        t0 = time.perf_counter()
        values, short = fingerprint_all(docs, fp)
        res = evaluate(docs, values)
        res["too_little_content"] = short
        res["seconds"] = round(time.perf_counter() - t0, 1)
        results[name] = res
        best = max(res["overall"], key=lambda r: (r["f1"], -r["k"]))
        print(
            f"{name}: best F1 {best['f1']} at k={best['k']} (P {best['precision']}, "
            f"R {best['recall']})",
            file=sys.stderr,
        )

    default_name = next(iter(settings))
    default = results[default_name]
    t0 = time.perf_counter()
    default_values, _ = fingerprint_all(docs, textsim.simhash)
    verified = evaluate_verified(docs, default_values, sketches_of(docs))
    verified["seconds"] = round(time.perf_counter() - t0, 1)
    chosen_k = args.k
    if chosen_k is None:
        # The smallest k that meets the target (cheaper index, margin on precision), else
        # the best F1 that keeps precision >= 0.99.
        rows = default["overall"]
        meets = [r for r in rows if r["precision"] >= 0.99 and r["f1"] >= 0.97]
        ok = [r for r in rows if r["precision"] >= 0.99]
        if meets:
            chosen_k = min(r["k"] for r in meets)
        else:
            chosen_k = max(ok, key=lambda r: (r["f1"], -r["k"]))["k"] if ok else 3
    by_length = short_documents(_unbounded(textsim.SHINGLE, textsim.WEIGHTING), chosen_k)
    payload = {
        "corpus": summary,
        "chosen_k": chosen_k,
        "algorithm_version": textsim.ALGORITHM_VERSION,
        "min_tokens": textsim.MIN_TOKENS,
        "short_documents": by_length,
        "settings": results,
        "verified": verified,
        "seconds": round(time.perf_counter() - start, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=1, ensure_ascii=False))
    _print_summary(results, by_length, default_name, chosen_k)
    _print_verified(verified)
    print(f"wrote {args.out}")
    return 0


def _print_summary(
    settings: dict[str, Evaluation], by_length: list[dict[str, object]], default_name: str, k: int
) -> None:
    print(f"\nall-pairs accuracy at k={k}")
    print(f"{'setting':58} {'P':>7} {'R':>7} {'F1':>7}")
    for name, res in settings.items():
        row = res["overall"][k]
        print(f"{name:58} {row['precision']:7.4f} {row['recall']:7.4f} {row['f1']:7.4f}")
    base = next(n for n in settings if n.startswith("naive"))
    brow = settings[base]["overall"][3]
    print(
        f"{'naive baseline at k=3':58} {brow['precision']:7.4f} {brow['recall']:7.4f} "
        f"{brow['f1']:7.4f}"
    )
    default = settings[default_name]
    print(f"\n{default_name} by k")
    for row in default["overall"]:
        print(
            f"  k={row['k']:2}  P {row['precision']:.4f}  R {row['recall']:.4f}  "
            f"F1 {row['f1']:.4f}  fp {row['fp']}"
        )
    print(f"\nper-edit recall at k={k} (default | baseline at k=3)")
    for name, recs in default["per_edit_recall"].items():
        brec = settings[base]["per_edit_recall"].get(name)
        print(f"  {name:18} {recs[k]:.4f} | {brec[3] if brec else float('nan'):.4f}")
    print("\nper language at k (P/R/F1)")
    for la, rows in default["per_language"].items():
        r = rows[k]
        print(f"  {la}: {r['precision']:.4f} {r['recall']:.4f} {r['f1']:.4f}")
    print("\nshort documents (one word changed):")
    for length in by_length:
        print(f"  {length}")


def _print_verified(verified: Verified) -> None:
    print("\ntwo-stage (SimHash within k, then sketch similarity >= t): P / R / F1")
    rows = verified["table"]
    print("  k  " + "".join(f"{'t=' + str(t):>22}" for t in VERIFY_THRESHOLDS))
    for k in VERIFY_KS:
        cells = [r for r in rows if r["k"] == k]
        print(
            f"{k:3}  "
            + "".join(f"{r['precision']:7.4f}/{r['recall']:.4f}/{r['f1']:.4f}" for r in cells)
        )


if __name__ == "__main__":
    raise SystemExit(main())
