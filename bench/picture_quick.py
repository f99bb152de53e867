"""The picture check on the benchmark's labelled pairs only: fast enough to tune on.

    python -m bench.picture_quick [--split tune|held] [--threshold 0.85]

Scores each original against every edited copy of it (recall per edit and kind, whatever
the hash says), every look-alike pair of originals (same family), and the hash's proposals
within 12 bits of them; ``bench/picture_pairs.py`` checks every proposed pair.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np

from bench.picture_corpus import build, pixel_twins
from bench.picture_pairs import fingerprints_and_crops, hash_distance
from dupfinder.core.image import check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", default="tune")
    parser.add_argument("--threshold", type=float, nargs="+", default=[0.8, 0.85, 0.9])
    parser.add_argument("--k", type=int, default=12)
    args = parser.parse_args(argv)
    items = [i for i in build() if i.split == args.split]
    values, descriptors, ok, crops = fingerprints_and_crops(items)
    rows = np.zeros((len(items), check.DESCRIPTOR_BYTES), dtype=np.uint8)
    for n, d in enumerate(descriptors):
        if d:
            rows[n] = check.padded(np.frombuffer(d, np.uint8))[0]
    original = {i.group: n for n, i in enumerate(items) if i.edit == "original"}
    pos = [
        (original[i.group], n)
        for n, i in enumerate(items)
        if i.edit != "original" and i.group in original
    ]
    fam: dict[str, list[int]] = defaultdict(list)
    for n, i in enumerate(items):
        if i.edit == "original":
            fam[i.family].append(n)
    picture = pixel_twins(items)
    neg = [
        (a, b)
        for r in fam.values()
        for x, a in enumerate(r)
        for b in r[x + 1 :]
        if picture[items[a].group] != picture[items[b].group]
    ]
    pairs = np.array(pos + neg, dtype=np.int64)
    start = time.process_time()
    sims = np.zeros(len(pairs))
    for lo in range(0, len(pairs), 2048):
        chunk = pairs[lo : lo + 2048]
        sims[lo : lo + 2048] = check.pair_similarity(rows[chunk[:, 0]], rows[chunk[:, 1]])
    cpu = time.process_time() - start
    dist = hash_distance(values, crops, pairs)
    both = np.array([ok[a] and ok[b] for a, b in pairs.tolist()])
    print(
        f"{len(pos)} copies, {len(neg)} look-alike pairs, check {cpu / len(pairs) * 1e3:.3f} ms CPU a pair"
    )
    for t in args.threshold:
        kept = (sims >= t) & both
        proposed = kept & (dist <= args.k)
        table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        for (_a, b), k_, p_ in zip(
            pairs[: len(pos)].tolist(), kept[: len(pos)], proposed[: len(pos)], strict=True
        ):
            item = items[b]
            for kind in ("photo" if item.kind == "photo" else "graphic", item.kind):
                cell = table[(item.edit, kind)]
                cell[0] += int(k_)
                cell[1] += int(p_)
                cell[2] += 1
        nk = kept[len(pos) :]
        print(f"\n== threshold {t}: look-alikes kept by the check {int(nk.sum())}/{len(neg)}, "
              f"also within {args.k} bits {int((nk & (dist[len(pos):] <= args.k)).sum())}")  # fmt: skip
        edits = sorted({e for e, _ in table}, key=lambda e: ("+" in e, e.startswith("size"), e))
        print(
            f"{'edit':20} {'photo check/scan':>18} {'graphic check/scan':>20}   icon art screenshot (check)"
        )
        for e in edits:
            cells = []
            for kind in ("photo", "graphic"):
                c = table.get((e, kind))
                cells.append(f"{c[0] / c[2]:.2f}/{c[1] / c[2]:.2f} ({c[2]})" if c else "—")
            extra = " ".join(
                f"{table[(e, k)][0] / table[(e, k)][2]:.2f}" if (e, k) in table else "  — "
                for k in ("icon", "art", "screenshot")
            )
            print(f"{e:20} {cells[0]:>18} {cells[1]:>20}   {extra}")
    if len(neg):
        order = np.argsort(-sims[len(pos) :])[:12]
        for o in order.tolist():
            a, b = neg[o]
            print(f"  look-alike {sims[len(pos) + o]:.3f} {items[a].group} {items[b].group}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
