"""How exactly dupfinder names what changed, on the picture corpus's own edits.

    python -m bench.edit_naming [--split held|tune|all] [--jobs N] [--rows]

Every copy in ``bench/picture_corpus.py`` was made by known edits (``resize50``, ``crop10``,
``text+resize50``…), so what a person should read for it is known too. For each copy whose
check against its original passes (the scan's threshold, 0.85), the edits named against the
original (``check.edits``, what the JSON's ``edits`` and the app's panel show) are compared
with what was done:

- **exact**: every edit done is named and nothing else is; a share per kind (graphic = icon,
  photo, art, screenshot) and per edit;
- the codes **missing** and the codes **named besides** (``+code``), counted per edit.

What an edit is named (``EXPECTED``) is what a person would say, with what an edit also does
to the measures allowed (``ALSO``: a brightness gain scales the grey levels' spread, so
"more contrast" is true of it too; a sepia print is lighter or darker and flatter), and a
crop named either way (``EITHER``: a cut that takes only an icon's empty margin is "border
removed", which is what it did). A flattened copy of an opaque picture is no edit. An icon's
own drawings at other sizes are left out (``picture_bench`` scores them). JSON goes to
``bench/out/edit_naming.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from bench.picture_corpus import Item, build
from dupfinder.core.image import check
from dupfinder.core.image.perceptual import image_fingerprint
from dupfinder.core.model import EditCode

OUT = Path(__file__).resolve().parent / "out"
#: The check's similarity a copy must reach to be in a group (the scan's default).
PASSES = 0.85

E = EditCode
#: What a person names each of the corpus's edits.
EXPECTED: dict[str, frozenset[EditCode]] = {
    "resize50": frozenset({E.SMALLER}),
    "resize25": frozenset({E.SMALLER}),
    "jpeg85": frozenset({E.REENCODED}),
    "jpeg60": frozenset({E.REENCODED}),
    "webp": frozenset({E.REENCODED}),
    "exif": frozenset({E.REENCODED}),
    "gif": frozenset({E.CONVERTED}),
    "flatten": frozenset({E.TRANSPARENCY_REMOVED}),
    "grey": frozenset({E.GREYSCALE}),
    "sepia": frozenset({E.TINTED}),
    "brighter": frozenset({E.BRIGHTER}),
    "darker": frozenset({E.DARKER}),
    "gamma": frozenset({E.BRIGHTER}),
    "contrast_up": frozenset({E.MORE_CONTRAST}),
    "contrast_down": frozenset({E.LESS_CONTRAST}),
    "saturate": frozenset(),
    "crop5": frozenset(),
    "crop10": frozenset(),
    "crop15": frozenset(),
    "pad10": frozenset({E.PADDED}),
    "text": frozenset({E.MARKED}),
    "overlay": frozenset({E.MARKED}),
}
#: Codes an edit may bring besides its own: what it also does to the measures.
ALSO: dict[str, frozenset[EditCode]] = {
    "brighter": frozenset({E.MORE_CONTRAST}),
    "darker": frozenset({E.LESS_CONTRAST}),
    "gamma": frozenset({E.LESS_CONTRAST, E.MORE_CONTRAST}),
    "sepia": frozenset({E.LESS_CONTRAST, E.BRIGHTER, E.DARKER}),
    "pad10": frozenset({E.UNCROPPED}),
}
#: Edits named rightly by any of these codes (at least one of them).
EITHER: dict[str, frozenset[EditCode]] = {
    crop: frozenset({E.CROPPED, E.BORDER_REMOVED}) for crop in ("crop5", "crop10", "crop15")
}
#: Transparency named with any edit that can drop or add it (a JPEG of an icon) is right.
ALWAYS_RIGHT = frozenset({E.TRANSPARENCY_REMOVED, E.TRANSPARENCY_ADDED})
KINDS = {"icon": "graphic", "art": "art", "photo": "photo", "screenshot": "screenshot"}


def _descriptor(path: str) -> tuple[str, tuple[bytes, int, int] | None]:
    try:
        found = image_fingerprint(path)
    except Exception:  # a file the corpus could not make readable: left out
        return path, None
    if not found.descriptor:
        return path, None
    return path, (found.descriptor, found.width, found.height)


def judged(
    item: Item, named: Iterable[EditCode], opaque_original: bool
) -> tuple[set[EditCode], set[EditCode]]:
    """The codes missing from ``named`` and those named besides, for ``item``'s edits."""
    parts = item.edit.split("+")
    want: set[EditCode] = set()
    allowed: set[EditCode] = set(ALWAYS_RIGHT)
    either: list[frozenset[EditCode]] = []
    for part in parts:
        if part == "flatten" and opaque_original:
            continue
        want |= EXPECTED[part]
        allowed |= ALSO.get(part, frozenset())
        if part in EITHER:
            either.append(EITHER[part])
            allowed |= EITHER[part]
    got = set(named)
    missing = want - got
    for codes in either:
        if not got & codes:
            missing |= codes
    return missing, got - want - allowed


def run(split: str, jobs: int) -> dict[str, Any]:
    items = build()
    originals = {i.group: i for i in items if i.edit == "original"}
    copies = [
        i
        for i in items
        if (split == "all" or i.split == split)
        and i.group in originals
        and i.edit != "original"
        and all(part in EXPECTED for part in i.edit.split("+"))
    ]
    paths = sorted({i.path for i in copies} | {originals[i.group].path for i in copies})
    with ProcessPoolExecutor(jobs) as pool:
        described = dict(pool.map(_descriptor, paths, chunksize=64))
    rows: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for item in copies:
        a, b = described[originals[item.group].path], described[item.path]
        if a is None or b is None:
            continue
        da, db = np.frombuffer(a[0], np.uint8), np.frombuffer(b[0], np.uint8)
        if check.similarity(da, db) < PASSES:
            continue
        named = {e.code for e in check.edits(da, db, (a[1], a[2]), (b[1], b[2]))}
        missing, besides = judged(item, named, not check.header(da).transparent)
        row = rows[(KINDS[item.kind], item.edit)]
        row["copies"] += 1
        row["exact"] += not missing and not besides
        row.update(f"-{code}" for code in missing)
        row.update(f"+{code}" for code in besides)
    return _summary(rows, split)


def _summary(rows: dict[tuple[str, str], Counter[str]], split: str) -> dict[str, Any]:
    def share(selected: list[Counter[str]]) -> dict[str, Any]:
        copies = sum(r["copies"] for r in selected)
        exact = sum(r["exact"] for r in selected)
        return {
            "copies": copies,
            "exact": exact,
            "share": round(exact / copies, 3) if copies else None,
        }

    kinds = sorted({kind for kind, _ in rows})
    return {
        "split": split,
        "overall": share(list(rows.values())),
        "kinds": {k: share([r for (kind, _), r in rows.items() if kind == k]) for k in kinds},
        "rows": [
            {"kind": kind, "edit": edit, **dict(rows[(kind, edit)])} for kind, edit in sorted(rows)
        ],
    }


def _print(summary: dict[str, Any], with_rows: bool) -> None:
    if with_rows:
        for row in summary["rows"]:
            errors = sorted(((k, v) for k, v in row.items() if k[0] in "+-"), key=lambda kv: -kv[1])
            said = ", ".join(f"{k} {v}" for k, v in errors)
            print(f"{row['kind']:10} {row['edit']:18} {row['exact']:4}/{row['copies']:<4} {said}")
    print(f"split {summary['split']}: exactly named")
    for name, part in [("all", summary["overall"]), *summary["kinds"].items()]:
        print(f"  {name:10} {part['exact']:5} of {part['copies']:5}  {part['share']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="held", choices=("held", "tune", "all"))
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--rows", action="store_true", help="every edit's row")
    parser.add_argument("--out", type=Path, default=OUT / "edit_naming.json")
    args = parser.parse_args(argv)
    summary = run(args.split, args.jobs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=1))
    _print(summary, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
