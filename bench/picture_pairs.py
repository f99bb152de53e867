"""The picture check pair by pair on the benchmark corpus: what the hash proposes and the check keeps.

    python -m bench.picture_pairs [--split tune|held|all] [--k 12] [--threshold 0.85]

Fingerprints every file of ``bench/picture_corpus.py`` once with the engine (in two
processes), proposes the pairs within ``k`` bits as a scan does, checks them with
``image.check.pair_similarity`` and scores pairs (no clustering: ``bench/picture_bench.py``
scores whole scans). Prints recall per edit and kind, precision, and the look-alike pairs
kept; writes the similarities of every proposed pair to ``bench/out/picture_pairs.npz`` so
that thresholds can be read off without fingerprinting again.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.picture_corpus import Item, build
from dupfinder.core.errors import FileProblem
from dupfinder.core.image import check
from dupfinder.core.image.perceptual import image_fingerprint
from dupfinder.core.index.pairs import near_pairs

OUT = Path(__file__).resolve().parent / "out"
GRAPHICS = ("icon", "art", "screenshot")


def _one(path: str) -> tuple[int, bytes, int, int, tuple[int, ...]] | None:
    try:
        fp = image_fingerprint(path)
    except FileProblem:
        return None
    return fp.value, fp.descriptor, fp.width, fp.height, fp.crops


def fingerprints(
    items: Sequence[Item], jobs: int = 2
) -> tuple[np.ndarray, list[bytes], np.ndarray]:
    """Hash values, descriptors and a mask of files fingerprinted."""
    values, descriptors, ok, _ = fingerprints_and_crops(items, jobs)
    return values, descriptors, ok


def fingerprints_and_crops(
    items: Sequence[Item], jobs: int = 2
) -> tuple[np.ndarray, list[bytes], np.ndarray, np.ndarray]:
    """Hash values, descriptors, a mask of files fingerprinted, and (N, C) crop hashes."""
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        found = pool.map(_one, [i.path for i in items], chunksize=16)
    ok = np.array([f is not None for f in found])
    values = np.array([f[0] if f else 0 for f in found], dtype=np.uint64)
    descriptors = [f[1] if f else b"" for f in found]
    width = max((len(f[4]) for f in found if f), default=0)
    crops = np.array([list(f[4]) if f else [0] * width for f in found], dtype=np.uint64).reshape(
        len(found), width
    )
    return values, descriptors, ok, crops


def hash_distance(values: np.ndarray, crops: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Bits between the two files of each pair as the index sees them: value against value,
    and each one's crop hashes against the other's value."""
    a, b = pairs[:, 0], pairs[:, 1]
    best = np.bitwise_count(values[a] ^ values[b]).astype(np.int64)
    if crops.shape[1]:
        best = np.minimum(best, np.bitwise_count(crops[a] ^ values[b][:, None]).min(axis=1))
        best = np.minimum(best, np.bitwise_count(crops[b] ^ values[a][:, None]).min(axis=1))
    return best


def proposed(
    values: np.ndarray, ok: np.ndarray, k: int, crops: np.ndarray | None = None
) -> np.ndarray:
    """(P, 2) item pairs the index proposes: hashes within ``k`` bits (equal hashes included),
    or a crop hash of one within ``k`` of the other's hash, as a scan searches them."""
    rows = np.flatnonzero(ok)
    _, inverse = np.unique(values[rows], return_inverse=True)
    variants = None
    if crops is not None and crops.shape[1]:
        variants = [[int(v) for v in crops[row]] for row in rows.tolist()]
    value_pairs = near_pairs(values[rows], k, variants)
    members: dict[int, list[int]] = defaultdict(list)
    for row, value in zip(rows.tolist(), inverse.tolist(), strict=True):
        members[value].append(row)
    out: list[tuple[int, int]] = []
    for a, b in value_pairs.tolist():
        out.extend((min(x, y), max(x, y)) for x in members[a] for y in members[b])
    for same in members.values():
        out.extend((x, y) for i, x in enumerate(same) for y in same[i + 1 :])
    return np.array(sorted(set(out)), dtype=np.int64).reshape(-1, 2)


def similarities(descriptors: Sequence[bytes], pairs: np.ndarray) -> np.ndarray:
    width = check.DESCRIPTOR_BYTES
    rows = np.zeros((len(descriptors), width), dtype=np.uint8)
    for i, d in enumerate(descriptors):
        if d:
            rows[i] = check.padded(np.frombuffer(d, np.uint8))[0]
    out = np.zeros(len(pairs))
    for lo in range(0, len(pairs), 4096):
        chunk = pairs[lo : lo + 4096]
        out[lo : lo + 4096] = check.pair_similarity(rows[chunk[:, 0]], rows[chunk[:, 1]])
    return out


def score(items: Sequence[Item], pairs: np.ndarray, kept: np.ndarray) -> dict[str, object]:
    """Recall per edit and kind (original against its copy), precision, look-alikes kept."""
    groups = [i.group for i in items]
    by_group: dict[str, int] = {}
    originals = {i.group: n for n, i in enumerate(items) if i.edit == "original"}
    found = {(int(a), int(b)) for (a, b), k in zip(pairs.tolist(), kept.tolist(), strict=True) if k}
    tp = sum(1 for a, b in found if groups[a] == groups[b])
    fp = len(found) - tp
    per_edit: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for n, item in enumerate(items):
        if item.edit == "original":
            by_group[item.group] = n
            continue
        o = originals[item.group]
        kind = "photo" if item.kind == "photo" else "graphic"
        hit = (min(o, n), max(o, n)) in found
        for key in ((item.edit, kind), (item.edit, item.kind)):
            per_edit[key][0] += hit
            per_edit[key][1] += 1
    # look-alikes: originals of one family, other groups
    family: dict[str, list[int]] = defaultdict(list)
    for n, item in enumerate(items):
        if item.edit == "original":
            family[item.family].append(n)
    look = [(a, b) for rows in family.values() for i, a in enumerate(rows) for b in rows[i + 1 :]]
    look_kept = [(a, b) for a, b in look if (min(a, b), max(a, b)) in found]
    total_true = sum(len(v) * (len(v) - 1) // 2 for v in _group_sizes(groups).values())
    return {
        "precision": tp / max(tp + fp, 1),
        "tp": tp,
        "fp": fp,
        "recall_all_pairs": tp / max(total_true, 1),
        "per_edit": {f"{e}|{k}": (h, t) for (e, k), (h, t) in per_edit.items()},
        "lookalike": (len(look_kept), len(look)),
        "lookalike_kept": [(items[a].group, items[b].group) for a, b in look_kept],
        "false": sorted(
            {(items[a].group, items[b].group) for a, b in found if groups[a] != groups[b]}
        ),
    }


def _group_sizes(groups: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for n, g in enumerate(groups):
        out[g].append(n)
    return out


def report(result: dict[str, object], kinds: Sequence[str] = ("photo", "graphic")) -> None:
    per_edit = result["per_edit"]
    assert isinstance(per_edit, dict)
    edits = sorted(
        {key.split("|")[0] for key in per_edit}, key=lambda e: ("+" in e, e.startswith("size"), e)
    )
    print(f"{'edit':24}" + "".join(f"{k:>14}" for k in kinds))
    for edit in edits:
        cells = []
        for kind in kinds:
            hit, total = per_edit.get(f"{edit}|{kind}", (0, 0))
            cells.append(f"{hit / total:6.3f} ({total:3d})" if total else f"{'—':>14}")
        print(f"{edit:24}" + "".join(f"{c:>14}" for c in cells))
    look = result["lookalike"]
    print(
        f"precision {result['precision']:.4f} (tp {result['tp']}, fp {result['fp']}), "
        f"recall all pairs {result['recall_all_pairs']:.3f}, look-alikes kept {look[0]}/{look[1]}"  # type: ignore[index]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", default="tune", choices=("tune", "held", "all"))
    parser.add_argument("--k", type=int, default=12)
    parser.add_argument("--threshold", type=float, default=0.85)
    parser.add_argument("--show-false", type=int, default=20)
    args = parser.parse_args(argv)
    items = [i for i in build() if args.split == "all" or i.split == args.split]
    start = time.process_time()
    values, descriptors, ok, crops = fingerprints_and_crops(items)
    print(
        f"{len(items)} files, {int(ok.sum())} fingerprinted, {time.process_time() - start:.1f} s CPU here"
    )
    pairs = proposed(values, ok, args.k, crops)
    t0 = time.process_time()
    sims = similarities(descriptors, pairs)
    print(f"{len(pairs)} proposed pairs checked in {time.process_time() - t0:.2f} s CPU")
    OUT.mkdir(exist_ok=True)
    np.savez(OUT / f"picture_pairs_{args.split}.npz", pairs=pairs, sims=sims, values=values, ok=ok)
    print("proposed by the hash alone:")
    report(score(items, pairs, np.ones(len(pairs), dtype=bool)))
    result = score(items, pairs, sims >= args.threshold)
    print(f"kept by the check at {args.threshold}:")
    report(result)
    report(result, ("icon", "art", "photo", "screenshot"))
    for a, b in result["false"][: args.show_false]:  # type: ignore[index]
        print("  false:", a, b)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
