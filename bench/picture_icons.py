"""Small icons, built differently from the picture corpus: their edits found, their look-alikes not.

    python -m bench.picture_icons [--per-folder 12] [--jobs 2] [--no-peers]

The picture corpus (``bench/picture_corpus.py``) edits icons at their largest drawing (256 or
512 px). People also keep the small ones, and a folder of an icon theme is the hardest test
of precision there is: every file in ``/usr/share/icons/<theme>/<size>x<size>/`` is another
icon (or a byte-identical copy of one under a second name), drawn on one grid in one style.
On this machine's themes (oxygen, Adwaita, GNOME, Tango, Moka, Faba, elementary-xfce,
hicolor), sizes 16 to 64 px:

- **edits of small icons**: ``--per-folder`` icons drawn at each size, each with the corpus's
  single edits (``picture_corpus.SINGLE_EDITS`` but EXIF), fingerprinted and checked against
  its original as a scan checks a pair; recall per edit at the scan's default similarity;
- **look-alikes**: every pair of icons of one folder that the index proposes (hashes within
  the scan's radius, crops included) and that are not byte-identical, checked; the pairs that
  pass are icons a scan would call the same (per size);
- **whole scans** (unless ``--no-peers``): ``dupfinder scan --kind image`` and Czkawka's
  similar images (Medium) on a few theme folders, the files each puts in groups that are not
  byte-identical to their group's first member, and CPU seconds.

JSON goes to ``bench/out/picture_icons.json``.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import multiprocessing
import os
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from bench.picture_bench import CZKAWKA_LEVELS, _czkawka, _dupfinder
from bench.picture_corpus import SINGLE_EDITS, _apply, _save
from bench.picture_pairs import _one, proposed
from dupfinder.core.image import check
from dupfinder.core.model import DEFAULT_IMAGE_SIMILARITY

OUT = Path(__file__).resolve().parent / "out" / "picture_icons.json"
THEMES = ("oxygen/base", "Adwaita", "gnome", "Tango", "Moka", "Faba", "elementary-xfce", "hicolor")
SIZES = (16, 22, 24, 32, 48, 64)
#: Theme folders scanned whole by both tools.
SCANNED = ("oxygen/base/32x32", "oxygen/base/64x64", "Adwaita/48x48", "Moka/48x48")


def _folders() -> list[tuple[int, list[str]]]:
    """(size, PNG files that are not links) of every theme folder of ``SIZES``."""
    out = []
    for theme in THEMES:
        for size in SIZES:
            folder = f"/usr/share/icons/{theme}/{size}x{size}"
            files = sorted(
                p for p in glob.glob(f"{folder}/**/*.png", recursive=True) if not os.path.islink(p)
            )
            if len(files) >= 2:
                out.append((size, files))
    return out


def _edited(job: tuple[int, str, str]) -> list[tuple[str, str]]:
    """The original (as PNG) and each single edit of one icon, written under ``job[2]``."""
    number, source, root = job
    folder = Path(root) / f"{number:05d}"
    folder.mkdir(parents=True, exist_ok=True)
    with Image.open(source) as im:
        im.load()
        picture = im.convert("RGBA" if im.mode in ("RGBA", "LA", "P", "PA") else "RGB")
    original = folder / "original.png"
    picture.save(original)
    made = [("original", str(original))]
    for name in SINGLE_EDITS:
        if name == "exif":
            continue
        edited, fmt = _apply(picture, (name,), f"{source}{name}")
        made.append((name, str(_save(edited, folder / name, fmt))))
    return made


def _descriptors(found: list[Any]) -> np.ndarray:
    rows = np.zeros((len(found), check.DESCRIPTOR_BYTES), np.uint8)
    for i, one in enumerate(found):
        if one:
            rows[i] = check.padded(np.frombuffer(one[1], np.uint8))[0]
    return rows


def edits_of_small_icons(per_folder: int, jobs: int) -> dict[str, Any]:
    rng = random.Random(7)
    icons: list[tuple[int, str]] = []
    for size, files in _folders():
        chosen = rng.sample(files, min(per_folder, len(files)))
        icons.extend((size, f) for f in chosen)
    with (
        tempfile.TemporaryDirectory() as root,
        multiprocessing.get_context("fork").Pool(jobs) as pool,
    ):
        made = pool.map(_edited, [(i, f, root) for i, (_, f) in enumerate(icons)], chunksize=8)
        paths = [p for pictures in made for _, p in pictures]
        found = dict(zip(paths, pool.map(_one, paths, chunksize=32), strict=True))
    a, b, names, sizes = [], [], [], []
    for (size, _), pictures in zip(icons, made, strict=True):
        original = found[pictures[0][1]]
        for name, path in pictures[1:]:
            if original and found[path]:
                a.append(original)
                b.append(found[path])
                names.append(name)
                sizes.append(size)
    similarity = check.pair_similarity(_descriptors(a), _descriptors(b))
    per_edit: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, value in zip(names, similarity.tolist(), strict=True):
        per_edit[name][0] += value >= DEFAULT_IMAGE_SIMILARITY
        per_edit[name][1] += 1
    return {"icons": len(icons), "per_edit": dict(per_edit)}


def look_alikes(jobs: int) -> dict[str, Any]:
    folders = _folders()
    files = [f for _, group in folders for f in group]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        answers = pool.map(_one, files, chunksize=32)
    found = {f: one for f, one in zip(files, answers, strict=True) if one is not None}
    per_size: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    passing: list[tuple[str, str, float]] = []
    for size, group in folders:
        ok = [f for f in group if f in found]
        if len(ok) < 2:
            continue
        digest = {f: hashlib.blake2b(Path(f).read_bytes()).digest() for f in ok}
        values = np.array([found[f][0] for f in ok], dtype=np.uint64)
        crops = np.array([list(found[f][4]) for f in ok], dtype=np.uint64)
        pairs = proposed(values, np.ones(len(ok), bool), 12, crops)
        pairs = np.array(
            [(x, y) for x, y in pairs.tolist() if digest[ok[x]] != digest[ok[y]]], np.int64
        ).reshape(-1, 2)
        per_size[size][0] += len(ok)
        if not len(pairs):
            continue
        rows = _descriptors([found[f] for f in ok])
        similarity = check.pair_similarity(rows[pairs[:, 0]], rows[pairs[:, 1]])
        passed = similarity >= DEFAULT_IMAGE_SIMILARITY
        per_size[size][1] += len(pairs)
        per_size[size][2] += int(passed.sum())
        passing.extend(
            (ok[x], ok[y], s)
            for (x, y), s, p in zip(pairs.tolist(), similarity.tolist(), passed, strict=True)
            if p
        )
    return {
        "icons": len(files),
        "per_size": {
            s: {"icons": v[0], "proposed": v[1], "passed": v[2]} for s, v in per_size.items()
        },
        "examples": sorted(passing, key=lambda t: -t[2])[:: max(1, len(passing) // 40)],
    }


def _not_identical(groups: list[list[str]]) -> tuple[int, int]:
    """Groups, and members not byte-identical to their group's first file."""
    members = 0
    for group in groups:
        first = hashlib.blake2b(Path(group[0]).read_bytes()).digest()
        members += sum(
            1 for p in group[1:] if hashlib.blake2b(Path(p).read_bytes()).digest() != first
        )
    return len(groups), members


def whole_scans(jobs: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for folder in SCANNED:
        path = Path("/usr/share/icons") / folder
        if not path.is_dir():
            continue
        row: dict[str, Any] = {"icons": sum(1 for _ in path.rglob("*.png"))}
        groups, _, cpu = _dupfinder(path, jobs)
        row["dupfinder"] = (*_not_identical(groups), round(cpu, 2))
        try:
            groups, _, cpu = _czkawka(path, CZKAWKA_LEVELS["Medium"], jobs)
            row["czkawka Medium"] = (*_not_identical(groups), round(cpu, 2))
        except (RuntimeError, json.JSONDecodeError) as exc:
            row["czkawka Medium"] = str(exc)[:200]
        out[folder] = row
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-folder", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args(argv)
    result: dict[str, Any] = {
        "edits": edits_of_small_icons(args.per_folder, args.jobs),
        "look_alikes": look_alikes(args.jobs),
    }
    if not args.no_peers:
        result["scans"] = whole_scans(args.jobs)
    edits = result["edits"]
    print(f"edits of {edits['icons']} small icons (16-64 px), found at the default similarity:")
    for name, (hit, total) in edits["per_edit"].items():
        print(f"  {name:14} {hit / total:.3f} ({total})")
    looks = result["look_alikes"]
    print(f"look-alikes among {looks['icons']} icons (pairs proposed, pairs that pass):")
    for size, row in sorted(looks["per_size"].items()):
        print(
            f"  {size:3} px: {row['icons']} icons, {row['proposed']} proposed, {row['passed']} pass"
        )
    for folder, row in result.get("scans", {}).items():
        print(f"scan {folder}: {row}")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
