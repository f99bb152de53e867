"""Look-alike icons in real themes: dupfinder and Czkawka on Debian's icon themes, names as truth.

    python -m bench.picture_themes [--sizes small|mid|all] [--tools dupfinder czkawka]
                                   [--before SOURCE] [--show N] [--quick] [ROOT ...]

The picture corpus (``bench/picture_corpus.py``) draws its edits on icons of 128 to 512
pixels; a theme's own icons at 16 to 64 pixels, where a drawing's parts are a few pixels
each, are another material. Each tool scans the theme folders of one size set at once
(``small``: 16 to 32 pixels, ``mid``: 48 and 64; every installed theme of
``/usr/share/icons``), or the ``ROOT`` folders given, in a fresh process with a throw-away
HOME, and every pair of files it puts in one group is told by the files' names:

- **one icon**: the same name (an icon drawn at two sizes, or by two themes), or the same
  pixels under two names (a theme's aliases);
- **look-alike**: other names and other pixels (a battery's levels, a face's moods, lines
  of text aligned four ways, a locked and an unlocked padlock).

Names are a person's reading of the theme, not proof: two themes' drawings of one name may
differ (counted as one icon here), and a theme may draw one picture under two names with a
pixel of difference (counted as look-alikes). Read the pairs printed (``--show N``) before
trusting a figure. ``--before SOURCE`` runs another version's dupfinder (a source tree with
its kernels built) in the same run. CPU is every process's (``bench.measure``). JSON goes to
``bench/out/picture_themes.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image

from bench.picture_bench import _run

OUT = Path(__file__).parent / "out" / "picture_themes.json"
ICONS = Path("/usr/share/icons")
SIZES = {
    "small": ("16x16", "22x22", "24x24", "32x32", "16", "22", "24", "32"),
    "mid": ("48x48", "64x64", "48", "64"),
}
#: Czkawka's presets for its 8x8 hash (High, Medium, Small), as ``bench.picture_bench``.
CZKAWKA_LEVELS = {"High": 2, "Medium": 5, "Small": 7}


def theme_folders(sizes: Sequence[str], icons: Path = ICONS) -> list[Path]:
    """Every folder of those sizes in the installed themes (``Tango/16x16``,
    ``oxygen/base/22x22``, ``elementary-xfce/apps/24``)."""
    found: list[Path] = []
    if not icons.is_dir():
        return found
    for theme in sorted(p for p in icons.iterdir() if p.is_dir()):
        for folder in sorted(theme.rglob("*")):
            if folder.is_dir() and folder.name in sizes and not folder.is_symlink():
                inside = folder.relative_to(theme).parts
                if len(inside) <= 2 and not any(p in sizes for p in inside[:-1]):
                    found.append(folder)
    return found


def _name(path: str) -> str:
    return os.path.basename(path).split(".", 1)[0]


class _Pixels:
    """A digest of each file's pixels (RGBA with its size), read once."""

    def __init__(self) -> None:
        self._known: dict[str, bytes | None] = {}

    def __call__(self, path: str) -> bytes | None:
        if path not in self._known:
            try:
                with Image.open(path) as im:
                    rgba = im.convert("RGBA")
                    self._known[path] = hashlib.blake2b(
                        repr(rgba.size).encode() + rgba.tobytes(), digest_size=16
                    ).digest()
            except (OSError, ValueError, Image.DecompressionBombError):
                self._known[path] = None
        return self._known[path]


def score(groups: Sequence[Sequence[str]], pixels: _Pixels) -> dict[str, Any]:
    """Pairs of one icon and look-alike pairs among every pair of files in one group."""
    one, shown = 0, []
    for group in groups:
        for a, b in itertools.combinations(sorted(group), 2):
            if _name(a) == _name(b) or (pixels(a) is not None and pixels(a) == pixels(b)):
                one += 1
            else:
                shown.append((a, b))
    return {
        "groups": len(groups),
        "files": sum(len(g) for g in groups),
        "one_icon_pairs": one,
        "look_alike_pairs": len(shown),
        "share_look_alike": round(len(shown) / max(one + len(shown), 1), 4),
        "look_alikes": shown,
    }


def _dupfinder(roots: Sequence[Path], source: str | None) -> tuple[list[list[str]], float]:
    with tempfile.TemporaryDirectory() as out:
        result = Path(out) / "result.json"
        command = [sys.executable, "-m", "dupfinder", "scan", *map(str, roots), "--kind",
                   "image", "--no-cache", "--format", "json", "-o", str(result)]  # fmt: skip
        # another tree runs from its own folder: ``-m`` puts the working folder first
        env, cwd = ({"PYTHONPATH": source}, source) if source else (None, None)
        _, _, cpu = _run(command, env, cwd)
        data = json.loads(result.read_text())
    return [[m["path"] for m in g["members"]] for g in data["groups"]], cpu


def _czkawka(roots: Sequence[Path], level: int) -> tuple[list[list[str]], float]:
    """Czkawka's groups over all ``roots`` at once (the binding's folder list), 2 threads."""
    code = (
        "import json, sys\nfrom czkawka import ImageSimilarity\n"
        "f = ImageSimilarity(); f.set_directories(json.loads(sys.argv[1]))\n"
        "f.set_similarity(int(sys.argv[2]))\n"
        "print(json.dumps([[str(p) for p in g] for g in f.find_similar()]))\n"
    )
    folders = json.dumps([str(r) for r in roots])
    command = [sys.executable, "-c", code, folders, str(level)]
    out, _, cpu = _run(command, {"RAYON_NUM_THREADS": "2"})
    return json.loads(out), cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--sizes", choices=(*SIZES, "all"), default="small")
    parser.add_argument("--tools", nargs="+", default=["dupfinder", "czkawka"])
    parser.add_argument("--before", help="another version's source tree, run beside")
    parser.add_argument("--show", type=int, default=0, help="print this many look-alike pairs")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--quick", action="store_true", help="48-64 px only (the fewer files)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes = "mid"
    sizes = [s for key, names in SIZES.items() if args.sizes in (key, "all") for s in names]
    roots = args.roots or theme_folders(sizes)
    if not roots:
        print("no icon theme folders of those sizes", file=sys.stderr)
        return 1
    pixels = _Pixels()
    runs: dict[str, dict[str, Any]] = {}
    if "dupfinder" in args.tools:
        groups, cpu = _dupfinder(roots, None)
        runs["dupfinder"] = {**score(groups, pixels), "cpu": round(cpu, 1)}
        if args.before:
            groups, cpu = _dupfinder(roots, os.path.abspath(args.before))
            runs["dupfinder before"] = {**score(groups, pixels), "cpu": round(cpu, 1)}
    if "czkawka" in args.tools:
        try:
            import czkawka  # noqa: F401
        except ImportError:
            print("czkawka is not installed: left out", file=sys.stderr)
        else:
            for preset, level in CZKAWKA_LEVELS.items():
                groups, cpu = _czkawka(roots, level)
                runs[f"Czkawka {preset}"] = {**score(groups, pixels), "cpu": round(cpu, 1)}
    files = sum(1 for root in roots for p in root.rglob("*") if p.is_file())
    print(f"{len(roots)} theme folders ({args.sizes}), {files:,} files")
    print(f"{'tool':18s} {'groups':>7s} {'files':>7s} {'one icon':>9s} {'look-alike':>11s} "
          f"{'share':>6s} {'CPU s':>6s}")  # fmt: skip
    for tool, run in runs.items():
        print(f"{tool:18s} {run['groups']:7d} {run['files']:7d} {run['one_icon_pairs']:9d} "
              f"{run['look_alike_pairs']:11d} {run['share_look_alike']:6.3f} {run['cpu']:6.1f}")  # fmt: skip
    for tool, run in runs.items():
        for a, b in run["look_alikes"][: args.show]:
            print(f"  {tool}: {a}  ~  {b}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    record = {"roots": [str(r) for r in roots], "sizes": args.sizes, "runs": runs}
    args.out.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
