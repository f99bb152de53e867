"""Accuracy of the image hashes on real pictures: precision, recall and F1 per edit and k.

Run ``python -m bench.image_accuracy`` (builds the corpus of ``bench/image_corpus.py`` first).
Every pair of files is scored: same group = should match, otherwise should not (pairs of one
wallpaper at two aspect ratios are left out). A pair matches at radius k when the Hamming
distance of its hashes is <= k; a file that a method refuses (flat, unreadable) matches nothing.

Compared: dupfinder's pipeline with pHash, dHash, wHash and the pHash/dHash mix; the default
hash with the mirror/rotation variants (a pair matches if any variant does); and the naive baseline ``imagehash.phash(Image.open(p))`` (full
decode, no EXIF orientation, no alpha handling). Per-edit scores: recall over (master, edited
copy) pairs; precision over every match a copy with that edit makes (right ones: its group). Overall scores are
given for wallpaper pairs ("photos", where the default radius is chosen), icon pairs (many
look-alikes: document pages, folders with emblems) and all pairs.

Two-stage matching (what a scan does): a pair within k bits of the default hash is kept only
when the second check (``dupfinder.core.image.check``) finds it at least t similar. Measured for
the shipped check (layout and colour of small thumbnails, and the detail of small pictures) and
candidates: its layout part
alone, and the plain correlation of the 16x16 grey thumbnails; and the same check without the
detail of small pictures.
JSON goes to ``bench/out/image_accuracy.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import imagehash
import numpy as np
from PIL import Image

from bench.image_corpus import DEFAULT_CORPUS_DIR, CorpusItem, build_corpus
from dupfinder.core.errors import FileProblem
from dupfinder.core.image import check as imagecheck
from dupfinder.core.image.perceptual import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    VARIANT_TRANSFORMS,
    hash_bits_to_int,
    hash_working,
    load_working_image,
)
from dupfinder.core.model import DEFAULT_IMAGE_SIMILARITY, DEFAULT_IMAGE_THRESHOLD

K_RANGE = range(17)
TARGET_PRECISION = 0.98
_NO_HASH = -1  # marks a refused file; never within any radius


def _naive(path: str) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hash_bits_to_int(imagehash.phash(Image.open(path)).hash)


def _hash_all(
    items: Sequence[CorpusItem],
) -> tuple[dict[str, np.ndarray], dict[str, float], np.ndarray]:
    """One row per file: a hash per method (``_NO_HASH`` when refused); ms per file per method;
    the second check's descriptor of each file (zeros when refused)."""
    n = len(items)
    methods = [*ALGORITHMS, "naive_phash"]
    values = {m: np.full(n, _NO_HASH, dtype=np.int64) for m in methods}
    variants = np.full((n, len(VARIANT_TRANSFORMS)), _NO_HASH, dtype=np.int64)
    descriptors = np.zeros((n, imagecheck.DESCRIPTOR_BYTES), dtype=np.uint8)
    spent = dict.fromkeys([*methods, "descriptor"], 0.0)
    for i, item in enumerate(items):
        start = time.perf_counter()
        try:
            working = load_working_image(item.path)
        except FileProblem:
            working = None
        decode = time.perf_counter() - start
        for name in ALGORITHMS:
            start = time.perf_counter()
            if working is not None:
                values[name][i] = _signed(hash_working(working.image, name))
            spent[name] += decode + time.perf_counter() - start
        if working is not None:
            start = time.perf_counter()
            descriptors[i] = imagecheck.padded(np.frombuffer(working.descriptor(), np.uint8))[0]
            spent["descriptor"] += time.perf_counter() - start
            for j, op in enumerate(VARIANT_TRANSFORMS):
                variants[i, j] = _signed(hash_working(working.image.transpose(op)))
        start = time.perf_counter()
        values["naive_phash"][i] = _signed(_naive(item.path))
        spent["naive_phash"] += time.perf_counter() - start
    own = values[DEFAULT_ALGORITHM][:, None]
    values[f"{DEFAULT_ALGORITHM}_invariant"] = np.concatenate([own, variants], 1)
    return values, {m: 1000 * s / n for m, s in spent.items()}, descriptors


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _distances(hashes: np.ndarray) -> np.ndarray:
    """All-pairs Hamming distances; 65 where either side was refused.

    A 2-D input holds several hashes per file (the first is the file's own): a pair's
    distance is the smallest between one file's own hash and any of the other's.
    """
    table = hashes if hashes.ndim == 2 else hashes[:, None]
    own = table[:, 0].view(np.uint64)
    best = np.full((len(own), len(own)), 65, dtype=np.int64)
    for j in range(table.shape[1]):
        col = table[:, j].view(np.uint64)
        d = np.bitwise_count(own[:, None] ^ col[None, :]).astype(np.int64)
        best = np.minimum(best, np.minimum(d, d.T))
    refused = table[:, 0] == _NO_HASH
    best[refused, :] = 65
    best[:, refused] = 65
    return best


@dataclass(frozen=True)
class Labels:
    """Boolean pair matrices (upper triangle only) that every score is computed from."""

    positive: np.ndarray  # same group, scored in the overall figures
    negative: np.ndarray  # different picture, recolours excluded
    hard: np.ndarray  # same family, other variant (a subset of negative)
    recolour: np.ndarray  # same drawing in other colours (the strict view adds these)


def _labels(items: Sequence[CorpusItem]) -> Labels:
    group = np.array([it.group for it in items])
    family = np.array([it.family for it in items])
    same_group = group[:, None] == group[None, :]
    other_variant = (family[:, None] == family[None, :]) & ~same_group
    natural = np.array(["@" in it.group for it in items])
    recolour_item = np.array([it.family.startswith("recolour:") for it in items])
    redrawn = np.array([it.edit.startswith("theme") for it in items])
    upper = np.triu(np.ones((len(items), len(items)), dtype=bool), 1)
    aspect = other_variant & natural[:, None] & natural[None, :]  # same picture, other framing
    recolour = upper & other_variant & recolour_item[:, None]
    positive = upper & same_group & ~redrawn[:, None] & ~redrawn[None, :]
    negative = upper & ~same_group & ~aspect & ~recolour
    return Labels(positive, negative, negative & other_variant, recolour)


def _prf(tp: int, fp: int, fn: int) -> dict[str, float | int]:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f1, 4),
            "tp": tp, "fp": fp, "fn": fn}  # fmt: skip


def _subsets(items: Sequence[CorpusItem]) -> dict[str, np.ndarray]:
    """Pair masks: every pair, wallpaper-with-wallpaper ("photos"), icon-with-icon."""
    kind = np.array([it.kind for it in items])
    both = {
        name: (kind[:, None] == name) & (kind[None, :] == name) for name in ("wallpaper", "icon")
    }
    return {"all": np.ones((len(items), len(items)), dtype=bool),
            "photos": both["wallpaper"], "icons": both["icon"]}  # fmt: skip


#: Per radius: for each subset of pairs ("all", "photos", "icons") its row of precision, recall,
#: F1 and counts, and under "by_edit" a row for each edit.
ByRadius = dict[int, dict[str, dict[str, Any]]]


class Score(TypedDict):
    """How one hash separates the corpus's pairs, at every radius."""

    by_k: ByRadius
    positive_pairs: int
    negative_pairs: int
    hard_negative_pairs: int
    recolour_pairs: int


def _score(items: Sequence[CorpusItem], dist: np.ndarray) -> Score:
    lab = _labels(items)
    subsets = _subsets(items)
    edits = np.array([it.edit for it in items])
    groups = np.array([it.group for it in items])
    master_of = {it.group: i for i, it in enumerate(items) if it.edit == "original"}
    per_k: ByRadius = {}
    for k in K_RANGE:
        hit = dist <= k
        scores: dict[str, dict[str, Any]] = {}
        for name, mask in subsets.items():
            pos, neg = lab.positive & mask, lab.negative & mask
            tp, fn = int((hit & pos).sum()), int((~hit & pos).sum())
            fp, recolour_fp = int((hit & neg).sum()), int((hit & lab.recolour & mask).sum())
            row = _prf(tp, fp, fn)
            row["hard_negative_fp"] = int((hit & lab.hard & mask).sum())
            row["recolour_fp"] = recolour_fp
            row["strict_precision"] = _prf(tp, fp + recolour_fp, fn)["precision"]
            scores[name] = row
        wrong = (hit & lab.negative) | (hit & lab.negative).T
        right = (hit & lab.positive) | (hit & lab.positive).T
        by_edit: dict[str, dict[str, Any]] = {}
        for edit in sorted(set(edits) - {"original"}):
            rows = np.flatnonzero(edits == edit)
            found = [bool(dist[r, master_of[groups[r]]] <= k) for r in rows]
            row = _prf(sum(found), 0, found.count(False))
            good, bad = int(right[rows].sum()), int(wrong[rows].sum())
            row["precision"] = round(good / (good + bad), 4) if good + bad else 1.0
            p, r = row["precision"], row["recall"]
            row["f1"] = round(2 * p * r / (p + r), 4) if p + r else 0.0
            row["fp"] = bad
            by_edit[edit] = row
        per_k[k] = {**scores, "by_edit": by_edit}
    return {
        "by_k": per_k,
        "positive_pairs": int(lab.positive.sum()),
        "negative_pairs": int(lab.negative.sum()),
        "hard_negative_pairs": int(lab.hard.sum()),
        "recolour_pairs": int(lab.recolour.sum()),
    }


def _best_k(score: Score) -> int:
    """Best photo F1 among radii whose photo precision meets the target (else most precise)."""
    by_k = score["by_k"]
    ok = [k for k in K_RANGE if by_k[k]["photos"]["precision"] >= TARGET_PRECISION]
    pool = ok or list(K_RANGE)
    return max(pool, key=lambda k: (by_k[k]["photos"]["f1"], -k))


#: The shipped radius must reach this photo F1 (the target, 0.95, plus a margin).
DEFAULT_MIN_PHOTO_F1 = 0.96


def _default_k(score: Score) -> int:
    """The radius to ship: best F1 over photos *and* icons among radii whose photo scores
    meet the targets with a margin. Every bit past that buys a little photo recall and costs
    much icon precision, and in a real scan those false icon pairs become false groups."""
    by_k = score["by_k"]
    ok = [
        k
        for k in K_RANGE
        if by_k[k]["photos"]["precision"] >= TARGET_PRECISION
        and by_k[k]["photos"]["f1"] >= DEFAULT_MIN_PHOTO_F1
    ]
    if not ok:
        return _best_k(score)
    return max(ok, key=lambda k: (by_k[k]["all"]["f1"], -k))


def _print(results: dict[str, Score], chosen: dict[str, int]) -> None:
    for subset in ("photos", "icons", "all"):
        print(f"\n[{subset}] at each method's chosen k (best photo F1 with photo P >= "
              f"{TARGET_PRECISION}); then F1 at k=0..16")  # fmt: skip
        print(f"{'method':18} {'k':>3} {'P':>6} {'R':>6} {'F1':>6} {'hardFP':>6} {'strictP':>7}")
        for method, score in results.items():
            by_k = score["by_k"]
            k = chosen[method]
            o = by_k[k][subset]
            curve = " ".join(f"{by_k[j][subset]['f1']:.2f}" for j in K_RANGE)
            print(f"{method:18} {k:3d} {o['precision']:6.3f} {o['recall']:6.3f} {o['f1']:6.3f} "
                  f"{o['hard_negative_fp']:6d} {o['strict_precision']:7.3f}   {curve}")  # fmt: skip
    ours, base = results[DEFAULT_ALGORITHM], results["naive_phash"]
    k = chosen[DEFAULT_ALGORITHM]
    print(f"\nper edit at k={k}: dupfinder {DEFAULT_ALGORITHM}  vs  naive phash (same k)")
    ours_edits = ours["by_k"][k]["by_edit"]
    base_edits = base["by_k"][k]["by_edit"]
    print(f"{'edit':14} {'P':>6} {'R':>6} {'F1':>6}   {'P':>6} {'R':>6} {'F1':>6}")
    for edit, o in ours_edits.items():
        b = base_edits[edit]
        print(f"{edit:14} {o['precision']:6.3f} {o['recall']:6.3f} {o['f1']:6.3f}   "
              f"{b['precision']:6.3f} {b['recall']:6.3f} {b['f1']:6.3f}")  # fmt: skip


VERIFY_KS = (8, 10, 12, 14, 16)
VERIFY_THRESHOLDS = (0.80, 0.85, 0.88, 0.90)
_NEUTRAL = np.uint8(128)


def _correlation16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Candidate: Pearson correlation of the 16x16 grey thumbnails."""
    side = imagecheck.GREY_SIDE**2
    x = a[:, :side].astype(np.float64)
    y = b[:, :side].astype(np.float64)
    x -= x.mean(1, keepdims=True)
    y -= y.mean(1, keepdims=True)
    norms = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
    return np.divide((x * y).sum(1), norms, out=np.zeros(len(x)), where=norms > 0)


_GREY = imagecheck.GREY_SIDE**2
_BASE = _GREY + 2 * imagecheck.CHROMA_SIDE**2


def _without_detail(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Candidate: the shipped check without its detail part (small pictures judged as photos)."""
    x, y = a.copy(), b.copy()
    x[:, _BASE:] = 0
    y[:, _BASE:] = 0
    return imagecheck.pair_similarity(x, y)


def _layout_only(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Candidate: the shipped check without its colour and detail parts."""
    x, y = a.copy(), b.copy()
    x[:, _GREY:_BASE] = _NEUTRAL
    y[:, _GREY:_BASE] = _NEUTRAL
    x[:, _BASE:] = 0
    y[:, _BASE:] = 0
    return imagecheck.pair_similarity(x, y)


#: Second checks compared: name -> similarity of each row pair of descriptors.
CHECKS = {
    "layout+colour+detail (shipped)": imagecheck.pair_similarity,
    "layout+colour, no detail": _without_detail,
    "layout only": _layout_only,
    "grey correlation 16x16": _correlation16,
}


def _verified(
    items: Sequence[CorpusItem], dist: np.ndarray, descriptors: np.ndarray
) -> dict[str, dict[str, Any]]:
    """Two-stage scores per check, threshold and radius (pairs beyond the largest radius are
    never proposed, so only those are checked)."""
    first, second = np.nonzero(np.triu(dist <= max(VERIFY_KS), 1))
    out: dict[str, dict[str, Any]] = {}
    for name, check in CHECKS.items():
        sims = check(descriptors[first], descriptors[second])
        for t in VERIFY_THRESHOLDS:
            kept = np.full(dist.shape, 65, dtype=np.int64)
            ok = sims >= t
            kept[first[ok], second[ok]] = dist[first[ok], second[ok]]
            kept[second[ok], first[ok]] = dist[first[ok], second[ok]]
            by_k = _score(items, kept)["by_k"]
            out[f"{name} t={t:.2f}"] = {str(k): by_k[k] for k in VERIFY_KS}
    return out


def _print_verified(
    verified: dict[str, dict[str, Any]], hash_only: dict[str, Any], chosen: str, k: int
) -> None:
    print("\ntwo-stage: hash within k, then the second check >= t (photos | icons | all)")
    for name, by_k in verified.items():
        for kk, row in by_k.items():
            print(f"  {name:34} k={kk:>2} " + " | ".join(
                f"P {row[s]['precision']:.3f} R {row[s]['recall']:.3f} F1 {row[s]['f1']:.3f}"
                for s in ("photos", "icons", "all")))  # fmt: skip
    ours = verified[chosen][str(k)]["by_edit"]
    base = hash_only["by_edit"]
    print(f"\nper edit: {chosen} at k={k}  vs  hash alone at k=8")
    print(f"{'edit':14} {'P':>6} {'R':>6} {'F1':>6}   {'P':>6} {'R':>6} {'F1':>6}")
    for edit, o in ours.items():
        b = base[edit]
        print(f"{edit:14} {o['precision']:6.3f} {o['recall']:6.3f} {o['f1']:6.3f}   "
              f"{b['precision']:6.3f} {b['recall']:6.3f} {b['f1']:6.3f}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS_DIR)
    parser.add_argument("--out", type=Path, default=Path("bench/out/image_accuracy.json"))
    args = parser.parse_args(argv)
    items = build_corpus(args.corpus)
    print(f"corpus: {len(items)} files, {len({it.group for it in items})} groups", file=sys.stderr)
    values, ms, descriptors = _hash_all(items)
    results = {m: _score(items, _distances(v)) for m, v in values.items()}
    chosen = {m: _best_k(s) for m, s in results.items()}
    refused = {m: int((v if v.ndim == 1 else v[:, 0]).__eq__(_NO_HASH).sum())
               for m, v in values.items()}  # fmt: skip
    _print(results, chosen)
    default_k = _default_k(results[DEFAULT_ALGORITHM])
    row = results[DEFAULT_ALGORITHM]["by_k"][default_k]
    print(f"\nrecommended default: k={default_k} (best F1 on photos and icons together among "
          f"radii with photo P >= {TARGET_PRECISION} and F1 >= {DEFAULT_MIN_PHOTO_F1}): "
          + ", ".join(f"{s} P {row[s]['precision']:.3f} R {row[s]['recall']:.3f} "
                      f"F1 {row[s]['f1']:.3f}" for s in ("photos", "icons", "all")))  # fmt: skip
    print(f"\nrefused files: {refused}; ms/file (corpus, incl. decode; descriptor alone): "
          + ", ".join(f"{m} {t:.1f}" for m, t in ms.items()))  # fmt: skip
    verified = _verified(items, _distances(values[DEFAULT_ALGORITHM]), descriptors)
    shipped = f"layout+colour+detail (shipped) t={DEFAULT_IMAGE_SIMILARITY:.2f}"
    hash_only = results[DEFAULT_ALGORITHM]["by_k"][8]
    _print_verified(verified, hash_only, shipped, DEFAULT_IMAGE_THRESHOLD)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "verified": verified,
        "shipped": {"check": shipped, "k": DEFAULT_IMAGE_THRESHOLD},
        "corpus_files": len(items),
        "groups": len({it.group for it in items}),
        "chosen_k": chosen,
        "recommended_default_threshold": default_k,
        "refused_files": refused,
        "ms_per_file": {m: round(t, 2) for m, t in ms.items()},
        "methods": results,
    }
    args.out.write_text(json.dumps(report, indent=1))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
