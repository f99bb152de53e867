"""dupfinder, Czkawka and imagededup on the picture corpus in one run: whole scans, scored.

    python -m bench.picture_bench [--split held|tune|all] [--tools dupfinder czkawka imagededup]
                                  [--kinds icon art photo screenshot]

Each tool scans the whole corpus of ``bench/picture_corpus.py`` (both halves: 10,388 files) in
a fresh process with a throw-away HOME (no cache of any tool), and its groups are scored on
the files of ``--split`` (the README's figures: the held-out half):

- **recall per edit and kind**: an original and its edited copy in one group (photo, graphic =
  icon and drawn art, screenshot), single edits, pairs of edits, and an icon's own drawings at
  other sizes (``size<N>``);
- **precision**: of every pair of files two tools put in one group, the share that are one
  picture (same corpus group);
- **look-alikes grouped**: pairs of originals of one family (icons of one theme with
  look-alike names, variants of one wallpaper, two framings of one scene) in one group;
- **CPU seconds** of each scan, every process it started included (``bench.measure``).

Tools: dupfinder (``dupfinder scan --kind image --format json``, its defaults); Czkawka
(PyPI ``czkawka``, the binding of ``czkawka_core``: 8x8 Gradient hash, its similarity presets
for that hash size, ``bench/peer_czkawka.py``); imagededup's hash methods (PHash, DHash, WHash
at its default max distance 10) from a separate venv given by ``--imagededup-python`` (only a
bench peer: ``pip install --no-deps imagededup`` with numpy, Pillow, PyWavelets, scipy, tqdm,
scikit-learn and matplotlib; ``imagededup.methods.__init__`` imports its CNN method, so torch
is stubbed out in the child).
A tool that is not installed is reported and left out. JSON goes to
``bench/out/picture_bench.json``. ``--kinds`` scans only the corpus's files of those kinds,
hard-linked into a folder of their own under ``bench/out/`` (``--kinds art photo``: the
*photo folder*, wallpapers and photos with their edits, 3,092 files).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bench.measure import measure
from bench.picture_corpus import DEFAULT_DIR, Item, build, pixel_twins

OUT = Path(__file__).resolve().parent / "out"
#: Czkawka's presets for an 8x8 hash (czkawka_core SIMILAR_VALUES row 0): High, Medium.
CZKAWKA_LEVELS = {"High": 2, "Medium": 5, "Small": 7}
IMAGEDEDUP_METHODS = ("PHash", "DHash", "WHash")
IMAGEDEDUP_PYTHON = Path(tempfile.gettempdir()) / "imagededup-venv" / "bin" / "python"

_IMAGEDEDUP_CHILD = r"""
import json, sys, types
for name in ("torch", "torchvision", "torch.nn", "torchvision.transforms"):
    sys.modules.setdefault(name, types.ModuleType(name))  # its CNN method: not used
sys.modules["torch"].Tensor = type("Tensor", (), {})  # scipy asks whether arrays are these
for name in ("imagededup.utils.models", "imagededup.utils.data_generator"):
    stub = sys.modules.setdefault(name, types.ModuleType(name))
    stub.CustomModel = stub.img_dataloader = None  # the CNN's, which hashing never calls
import importlib.util, pathlib, imagededup
package = types.ModuleType("imagededup.methods")  # its __init__ imports the CNN method
package.__path__ = [str(pathlib.Path(imagededup.__file__).parent / "methods")]
sys.modules["imagededup.methods"] = package
spec = importlib.util.spec_from_file_location(
    "imagededup.methods.hashing", pathlib.Path(package.__path__[0]) / "hashing.py")
hashing = importlib.util.module_from_spec(spec)
sys.modules["imagededup.methods.hashing"] = hashing
spec.loader.exec_module(hashing)
method = getattr(hashing, sys.argv[1])(verbose=False)
found = method.find_duplicates(image_dir=sys.argv[2], recursive=True)
print(json.dumps({k: v for k, v in found.items() if v}))
"""


def _kind(item: Item) -> str:
    return (
        "photo"
        if item.kind == "photo"
        else "screenshot"
        if item.kind == "screenshot"
        else ("graphic")
    )


# --------------------------------------------------------------------------- the tools


def _run(
    command: Sequence[str], env: dict[str, str] | None = None, cwd: str | None = None
) -> tuple[str, float, float]:
    """Run a command to its end: stdout, wall seconds, CPU seconds of every process it started
    (``bench.measure``: a scan's workers and their fork server are not its children)."""
    with tempfile.TemporaryDirectory(prefix="picture-bench-home-") as home:
        full = {
            **os.environ,
            "HOME": home,
            "XDG_CACHE_HOME": f"{home}/cache",
            "XDG_CONFIG_HOME": f"{home}/config",
            **(env or {}),
        }
        done = measure(command, env=full, cwd=cwd)
    if done.returncode:
        raise RuntimeError(f"{command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout, done.wall, done.cpu


def _dupfinder(
    folder: Path, jobs: int, extra: Sequence[str] = ()
) -> tuple[list[list[str]], float, float]:
    with tempfile.TemporaryDirectory() as out:
        result = Path(out) / "result.json"
        command = [sys.executable, "-m", "dupfinder", "scan", str(folder), "--kind",
                   "image", "--no-cache", "--jobs", str(jobs), "--format", "json", "-o",
                   str(result), *extra]  # fmt: skip
        _, wall, cpu = _run(command)
        data = json.loads(result.read_text())
    return [[m["path"] for m in g["members"]] for g in data["groups"]], wall, cpu


def _czkawka(folder: Path, level: int, jobs: int) -> tuple[list[list[str]], float, float]:
    code = (
        "import json, sys\nfrom czkawka import ImageSimilarity\n"
        "f = ImageSimilarity(); f.set_directories([sys.argv[1]]); f.set_similarity(int(sys.argv[2]))\n"
        "print(json.dumps([[str(p) for p in g] for g in f.find_similar()]))\n"
    )
    out, wall, cpu = _run(
        [sys.executable, "-c", code, str(folder), str(level)], {"RAYON_NUM_THREADS": str(jobs)}
    )
    return json.loads(out), wall, cpu


def _imagededup(python: Path, folder: Path, method: str) -> tuple[list[list[str]], float, float]:
    out, wall, cpu = _run([str(python), "-c", _IMAGEDEDUP_CHILD, method, str(folder)])
    found: dict[str, list[str]] = json.loads(out)
    # imagededup names files relative to the folder; its answer is a neighbour list per file,
    # so each neighbour is a pair (not a group: two neighbours of one file need not be near)
    groups = [[str(folder / k), str(folder / v)] for k, vs in found.items() for v in vs]
    return groups, wall, cpu


def _linked(items: Sequence[Item], folder: Path) -> list[Item]:
    """``items`` hard-linked (copied where a link cannot be made) into ``folder``, as they
    lie in the corpus, with their paths there; a file left from a build before is replaced."""
    out = []
    for item in items:
        dest = folder / os.path.relpath(item.path, DEFAULT_DIR)
        if dest.exists() and not os.path.samefile(item.path, dest):
            dest.unlink()
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(item.path, dest)
            except OSError:
                shutil.copy2(item.path, dest)
        out.append(dataclasses.replace(item, path=str(dest)))
    return out


# --------------------------------------------------------------------------- scoring


def _pairs(groups: Iterable[Sequence[str]], known: dict[str, int]) -> set[tuple[int, int]]:
    """Every pair of corpus files the tool put in one group (neighbour lists count as groups)."""
    out: set[tuple[int, int]] = set()
    for group in groups:
        rows = sorted({known[os.path.realpath(p)] for p in group if os.path.realpath(p) in known})
        out.update(itertools.combinations(rows, 2))
    return out


def score(items: Sequence[Item], groups: Iterable[Sequence[str]], split: str) -> dict[str, Any]:
    """Recall per edit and kind, precision and look-alikes grouped, on ``split``'s files."""
    chosen = [i for i, item in enumerate(items) if split == "all" or item.split == split]
    known = {os.path.realpath(items[i].path): i for i in chosen}
    found = _pairs(groups, known)
    picture = pixel_twins([items[i] for i in chosen])
    same = sum(1 for a, b in found if picture[items[a].group] == picture[items[b].group])
    originals = {items[i].group: i for i in chosen if items[i].edit == "original"}
    per_edit: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for i in chosen:
        item = items[i]
        if item.edit == "original" or item.group not in originals:
            continue
        o = originals[item.group]
        cell = per_edit[item.edit][_kind(item)]
        cell[0] += (min(o, i), max(o, i)) in found
        cell[1] += 1
    family: dict[str, list[int]] = defaultdict(list)
    for i in originals.values():
        family[items[i].family].append(i)
    look = [
        (min(a, b), max(a, b))
        for rows in family.values()
        for a, b in itertools.combinations(rows, 2)
        if picture[items[a].group] != picture[items[b].group]
    ]
    grouped = [p for p in look if p in found]
    return {
        "precision": same / len(found) if found else 1.0,
        "pairs": len(found),
        "false_pairs": len(found) - same,
        "per_edit": {e: {k: tuple(v) for k, v in kinds.items()} for e, kinds in per_edit.items()},
        "lookalike": (len(grouped), len(look)),
        "lookalike_grouped": [(items[a].group, items[b].group) for a, b in grouped][:50],
    }


def _kind_recall(per_edit: dict[str, dict[str, tuple[int, int]]], kind: str, paired: bool) -> str:
    hits = sum(v[0] for e, ks in per_edit.items() for k, v in ks.items()
               if k == kind and ("+" in e) == paired and not e.startswith("size"))  # fmt: skip
    total = sum(v[1] for e, ks in per_edit.items() for k, v in ks.items()
                if k == kind and ("+" in e) == paired and not e.startswith("size"))  # fmt: skip
    return f"{hits / total:.3f}" if total else "—"


def report(runs: dict[str, dict[str, Any]]) -> None:
    """Recall per edit (photo / graphic / screenshot) for every tool, then the totals."""
    names = list(runs)
    edits = sorted(
        {e for run in runs.values() for e in run["score"]["per_edit"]},
        key=lambda e: ("+" in e, e.startswith("size"), e),
    )
    width = max(14, *(len(n) for n in names))
    print(f"{'edit':22}" + "".join(f"{n:>{width}}" for n in names))
    for kind in ("photo", "graphic", "screenshot"):
        print(f"-- {kind}")
        for edit in edits:
            cells = []
            for name in names:
                hit, total = runs[name]["score"]["per_edit"].get(edit, {}).get(kind, (0, 0))
                cells.append(f"{hit / total:.2f} ({total})" if total else "—")
            if any(c != "—" for c in cells):
                print(f"{edit:22}" + "".join(f"{c:>{width}}" for c in cells))
    print()
    for name in names:
        s = runs[name]["score"]
        per = s["per_edit"]
        look = s["lookalike"]
        print(
            f"{name}: precision {s['precision']:.4f} ({s['false_pairs']} false of {s['pairs']} "
            f"pairs); single edits photo {_kind_recall(per, 'photo', False)} graphic "
            f"{_kind_recall(per, 'graphic', False)} screenshot "
            f"{_kind_recall(per, 'screenshot', False)}; pairs of edits photo "
            f"{_kind_recall(per, 'photo', True)} graphic {_kind_recall(per, 'graphic', True)}; "
            f"look-alikes grouped {look[0]}/{look[1]} ({look[0] / max(look[1], 1):.1%}); "
            f"CPU {runs[name]['cpu']:.1f} s, wall {runs[name]['wall']:.1f} s"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", default="held", choices=("held", "tune", "all"))
    parser.add_argument("--tools", nargs="+", default=["dupfinder", "czkawka", "imagededup"])
    parser.add_argument("--imagededup-methods", nargs="+", default=list(IMAGEDEDUP_METHODS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--imagededup-python", type=Path, default=IMAGEDEDUP_PYTHON)
    parser.add_argument("--out", type=Path, default=OUT / "picture_bench.json")
    parser.add_argument(
        "--kinds",
        nargs="+",
        choices=("icon", "art", "photo", "screenshot"),
        help="only the corpus's files of these kinds, in a folder of their own",
    )
    args = parser.parse_args(argv)
    items = build()
    folder = DEFAULT_DIR
    if args.kinds:
        folder = OUT / ("pictures-" + "-".join(sorted(args.kinds)))
        items = _linked([item for item in items if item.kind in args.kinds], folder)
    runs: dict[str, dict[str, Any]] = {}

    def record(name: str, found: tuple[list[list[str]], float, float]) -> None:
        groups, wall, cpu = found
        runs[name] = {"wall": wall, "cpu": cpu, "score": score(items, groups, args.split)}
        print(f"{name}: {len(groups)} groups, CPU {cpu:.1f} s", flush=True)

    if "dupfinder" in args.tools:
        record("dupfinder", _dupfinder(folder, args.jobs))
    if "czkawka" in args.tools:
        try:
            import czkawka  # noqa: F401
        except ImportError:
            print("czkawka is not installed (pip install czkawka): left out")
        else:
            for preset, level in CZKAWKA_LEVELS.items():
                record(f"czkawka {preset}", _czkawka(folder, level, args.jobs))
    if "imagededup" in args.tools:
        if not args.imagededup_python.exists():
            print(f"imagededup: no {args.imagededup_python} (see the notes): left out")
        else:
            for method in args.imagededup_methods:
                with contextlib.suppress(RuntimeError):
                    record(
                        f"imagededup {method}", _imagededup(args.imagededup_python, folder, method)
                    )
    report(runs)
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(json.dumps({"split": args.split, "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
