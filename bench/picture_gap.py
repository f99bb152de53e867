"""Where a whole scan loses the edited copies of the picture corpus: hash, check or grouping.

    python -m bench.picture_gap [--split held|tune|all] [--kinds graphic] [--scan RESULT.json]

Every original of ``bench/picture_corpus.py`` against each of its edited copies (single
edits and pairs; the theme's other drawings left out), in the groups of one ``dupfinder scan
--kind image`` of the whole corpus (``--scan``: a JSON result already made). Each pair is
counted once, in the first place it is lost:

- **grouped**: in one group;
- **not proposed**: the hashes (and crop hashes) are further apart than the scan's radius;
- **check failed**: proposed, and the picture check rates it under the scan's similarity;
- **lost in grouping**: proposed and passed, yet the two files ended in different groups
  (a star centred on another copy, or ``grouping.split`` cutting one picture's copies).

Per edit, then the pictures that lose most copies in grouping. Nothing is written.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from bench.picture_bench import _dupfinder, _kind
from bench.picture_corpus import DEFAULT_DIR, Item, build
from bench.picture_pairs import fingerprints_and_crops, hash_distance
from dupfinder.core.image import check
from dupfinder.core.model import DEFAULT_IMAGE_SIMILARITY, DEFAULT_IMAGE_THRESHOLD

PLACES = ("grouped", "not proposed", "check failed", "lost in grouping")


def _scan_groups(result: Path | None) -> dict[str, int]:
    """Each file's group in a scan of the whole corpus (made here, as ``picture_bench`` makes
    it, unless ``result``)."""
    if result is None:
        groups, _, _ = _dupfinder(DEFAULT_DIR, jobs=2)
    else:
        data = json.loads(result.read_text())
        groups = [[member["path"] for member in group["members"]] for group in data["groups"]]
    return {os.path.realpath(path): number for number, group in enumerate(groups) for path in group}


def places(items: list[Item], groups: dict[str, int]) -> list[tuple[Item, str]]:
    """Each edited copy with the first place its pair with the original is lost (or grouped)."""
    originals = {item.group: n for n, item in enumerate(items) if item.edit == "original"}
    pairs = np.array(
        [
            (originals[item.group], n)
            for n, item in enumerate(items)
            if item.edit != "original"
            and item.group in originals
            and not item.edit.startswith("size")
        ],
        dtype=np.int64,
    ).reshape(-1, 2)
    values, descriptors, _, crops = fingerprints_and_crops(items)
    rows = np.zeros((len(items), check.DESCRIPTOR_BYTES), np.uint8)
    for n, descriptor in enumerate(descriptors):
        if descriptor:
            rows[n] = check.padded(np.frombuffer(descriptor, np.uint8))[0]
    distance = hash_distance(values, crops, pairs)
    similarity = check.pair_similarity(rows[pairs[:, 0]], rows[pairs[:, 1]])
    out = []
    for (a, b), bits, alike in zip(
        pairs.tolist(), distance.tolist(), similarity.tolist(), strict=True
    ):
        here = groups.get(os.path.realpath(items[a].path))
        together = here is not None and here == groups.get(os.path.realpath(items[b].path))
        if together:
            place = "grouped"
        elif bits > DEFAULT_IMAGE_THRESHOLD:
            place = "not proposed"
        elif alike < DEFAULT_IMAGE_SIMILARITY:
            place = "check failed"
        else:
            place = "lost in grouping"
        out.append((items[b], place))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", default="held", choices=("held", "tune", "all"))
    parser.add_argument(
        "--kinds", nargs="+", default=["graphic"], choices=("photo", "graphic", "screenshot")
    )
    parser.add_argument("--scan", type=Path, help="a scan's JSON result of the whole corpus")
    args = parser.parse_args(argv)
    items = [
        item
        for item in build()
        if (args.split == "all" or item.split == args.split) and _kind(item) in args.kinds
    ]
    found = places(items, _scan_groups(args.scan))
    total: Counter[str] = Counter(place for _, place in found)
    per_edit: dict[str, Counter[str]] = defaultdict(Counter)
    lost: Counter[str] = Counter()
    for item, place in found:
        per_edit[item.edit][place] += 1
        if place == "lost in grouping":
            lost[item.group] += 1
    print(f"{len(found)} pairs of an original and its copy ({args.split}, {' '.join(args.kinds)})")
    print(f"{'edit':22}" + "".join(f"{p:>18}" for p in PLACES))
    for edit in sorted(per_edit, key=lambda e: ("+" in e, e)):
        print(f"{edit:22}" + "".join(f"{per_edit[edit][p]:>18}" for p in PLACES))
    print(f"{'all':22}" + "".join(f"{total[p]:>18}" for p in PLACES))
    print("lost in grouping, most:", ", ".join(f"{g} {n}" for g, n in lost.most_common(10)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
