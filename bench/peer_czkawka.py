"""dupfinder against Czkawka, side by side in one run: accuracy per edit and scan speed.

Czkawka is one of the desktop duplicate finders users compare us with; PyPI ``czkawka`` is a
PyO3 binding of its engine (``czkawka_core``), so both tools can scan the same folders here.

    python -m bench.peer_czkawka [--quick]        (needs: pip install czkawka)

What the binding fixes (its Rust constructor, no setter): a 64-bit *Gradient* hash (dHash,
``image_hasher`` hash size 8, Lanczos3 resize), Czkawka's own cache off, similarity 10. Only
the similarity level (a Hamming radius, 0..50) can be set. The Czkawka apps name radii as
presets; for hash size 8 ``czkawka_core``'s ``SIMILAR_VALUES`` row is VeryHigh 1, High 2,
Medium 5, Small 7, VerySmall 14 (the apps default to hash size 16, not reachable here).

Accuracy: the corpus of ``bench/image_corpus.py`` is staged into one folder (its icon
originals live under /usr/share), and each tool scans that folder once per setting. Its groups
become pairs (every pair within a group, so pairs joined only through a third file count as
predicted) and are scored by ``bench.image_accuracy._score``, the same labels and per-edit
rules as that benchmark. Both tools make stars for pictures (each file joins one centre
within the radius, so two members may be up to twice the radius apart). "star P" pairs each
member with its group's first file only.
Speed: cold scans (no cache of either tool; page cache warm for both) of 6 MP JPEGs made by
``bench.bench_imagesim`` and of the corpus folder, each in a fresh process, same thread
count (dupfinder ``jobs``, Czkawka ``RAYON_NUM_THREADS``), best of ``--repeat``, wall and CPU
time (CPU is the steadier figure when other jobs share the cores).
JSON goes to ``bench/out/peer_czkawka.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.bench_imagesim import SIZE as JPEG_SIZE
from bench.bench_imagesim import _make_files as make_jpegs
from bench.image_accuracy import _score
from bench.image_corpus import DEFAULT_CORPUS_DIR, CorpusItem, build_corpus
from dupfinder.core.model import DEFAULT_IMAGE_THRESHOLD

STAGE_DIR = Path(tempfile.gettempdir()) / "dupfinder-peer-czkawka"
JPEG_DIR = Path(tempfile.gettempdir()) / "dupfinder-jpeg6mp-peer"
#: Czkawka radii for hash size 8 (czkawka_core SIMILAR_VALUES row 0), plus the binding default.
CZKAWKA_LEVELS = {
    "Original": 0,
    "VeryHigh": 1,
    "High": 2,
    "Medium": 5,
    "Small": 7,
    "binding default": 10,
    "VerySmall": 14,
}
CZKAWKA_SPEED_LEVEL = CZKAWKA_LEVELS["binding default"]
DUPFINDER_KS = tuple(
    k for k in (DEFAULT_IMAGE_THRESHOLD - 4, DEFAULT_IMAGE_THRESHOLD - 2,
                DEFAULT_IMAGE_THRESHOLD, DEFAULT_IMAGE_THRESHOLD + 2) if 0 <= k <= 32
)  # fmt: skip
#: The edits that separate the tools: rotation flag, framing, overlay, alpha against white.
HARD_EDITS = ("exif_rotated", "crop5", "watermark", "flatten_png", "flatten_jpeg",
              "icon_resize64")  # fmt: skip
_NOT_PAIRED = 65  # pseudo-distance of two files in no common group: beyond every radius


# --------------------------------------------------------------------------- child processes


def _cpu_seconds() -> float:
    """CPU of this process, its threads and every reaped descendant (pool workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _stop_forkserver() -> None:
    """Reap the forkserver so its workers' CPU time reaches RUSAGE_CHILDREN (private API)."""
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)
    if stop is not None:
        stop()


def _scan_czkawka(folder: str, level: int) -> list[list[str]]:
    from czkawka import ImageSimilarity

    finder = ImageSimilarity()
    finder.set_directories([folder])
    finder.set_similarity(level)
    return [[str(p) for p in group] for group in finder.find_similar()]


def _scan_dupfinder(folder: str, k: int, jobs: int) -> list[list[str]]:
    from dupfinder.core.model import Kind, ScanOptions
    from dupfinder.core.scan import pipeline as scan

    options = ScanOptions(
        roots=(Path(folder),),
        kinds=frozenset({Kind.IMAGE}),
        image_threshold=k,
        use_cache=False,
        jobs=jobs,
    )
    result = scan.run(options)
    _stop_forkserver()
    return [[m.path for m in group.members] for group in result.groups]


def _child(argv: Sequence[str]) -> int:
    """Scan one folder once per setting; one JSON line per scan on stdout."""
    tool, folder, jobs, *settings = argv
    for setting in map(int, settings):
        cpu, wall = _cpu_seconds(), time.perf_counter()
        if tool == "czkawka":
            groups = _scan_czkawka(folder, setting)
        else:
            groups = _scan_dupfinder(folder, setting, int(jobs))
        wall, cpu = time.perf_counter() - wall, _cpu_seconds() - cpu
        line = {"setting": setting, "wall": wall, "cpu": cpu, "groups": groups}
        print(json.dumps(line), flush=True)
    return 0


def _run_child(tool: str, folder: Path, settings: Sequence[int], jobs: int) -> list[dict[str, Any]]:
    """Run ``_child`` in a fresh process with a throw-away HOME (so no cache of any tool is
    read or kept) and the thread count pinned; records the most threads the process had."""
    with tempfile.TemporaryDirectory(prefix="peer-home-") as home:
        env = {
            **os.environ,
            "HOME": home,
            "XDG_CACHE_HOME": f"{home}/cache",
            "XDG_CONFIG_HOME": f"{home}/config",
            "RAYON_NUM_THREADS": str(jobs),
            "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
        }
        code = "import sys; from bench.peer_czkawka import _child; sys.exit(_child(sys.argv[1:]))"
        command = [sys.executable, "-c", code, tool, str(folder), str(jobs), *map(str, settings)]
        with tempfile.TemporaryFile("w+") as out:
            proc = subprocess.Popen(command, env=env, stdout=out)
            threads = 0
            while proc.poll() is None:
                with contextlib.suppress(OSError):  # the process may end between checks
                    threads = max(threads, len(os.listdir(f"/proc/{proc.pid}/task")))
                time.sleep(0.05)
            if proc.returncode:
                raise RuntimeError(f"{tool} scan of {folder} failed (exit {proc.returncode})")
            out.seek(0)
            runs = [json.loads(line) for line in out if line.strip()]
        left = sorted(str(p.relative_to(home)) for p in Path(home).rglob("*") if p.is_file())
    for run in runs:
        run["max_threads"] = threads
        run["files_left_in_home"] = left
    return runs


# --------------------------------------------------------------------------- corpus staging


def _subset(items: Sequence[CorpusItem]) -> list[CorpusItem]:
    """Every fourth family, whole: keeps groups and their hard negatives together."""
    families = sorted({it.family for it in items})
    kept = set(families[::4])
    return [it for it in items if it.family in kept]


def _stage(items: Sequence[CorpusItem], dest: Path) -> list[CorpusItem]:
    """One folder holding a copy of every corpus file: the tools scan folders, and the icon
    originals live under /usr/share, outside the corpus folder. Copies, not links: the theme's
    icons include relative symlinks, and Czkawka reports files sharing an inode only once."""
    dest = dest.resolve()
    names = [f"{i:04d}-{Path(it.path).name}" for i, it in enumerate(items)]
    marker = dest / ".staged.json"
    wanted = [[it.path, os.stat(it.path).st_size] for it in items]
    if not (marker.exists() and json.loads(marker.read_text()) == wanted):
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        for item, name in zip(items, names, strict=True):
            shutil.copyfile(item.path, dest / name)  # follows symlinks
        marker.write_text(json.dumps(wanted))
    return [dataclasses.replace(it, path=str(dest / n)) for it, n in zip(items, names, strict=True)]


# --------------------------------------------------------------------------- scoring


def _group_distances(
    items: Sequence[CorpusItem], groups: Sequence[Sequence[str]], *, star: bool = False
) -> np.ndarray:
    """0 for two files in one group, else beyond any radius: ``_score`` read at k=0 then scores
    group-derived pairs by exactly the rules it applies to hash pairs. ``star`` pairs each
    member with its group's first file only (both tools list the representative first)."""
    index = {it.path: i for i, it in enumerate(items)}
    dist = np.full((len(items), len(items)), _NOT_PAIRED, dtype=np.int64)
    for group in groups:
        rows = [index[p] for p in group if p in index]
        if star and rows:
            dist[rows[0], rows] = dist[rows, rows[0]] = 0
        else:
            dist[np.ix_(rows, rows)] = 0
    return dist


def _accuracy(items: Sequence[CorpusItem], groups: Sequence[Sequence[str]]) -> dict[str, Any]:
    known = {it.path for it in items}
    score = _score(items, _group_distances(items, groups))
    star = _score(items, _group_distances(items, groups, star=True))
    row: dict[str, Any] = dict(score["by_k"][0])
    row["star_pairs"] = {k: v for k, v in star["by_k"][0].items() if k != "by_edit"}
    row["groups"] = len(groups)
    row["largest_group"] = max(map(len, groups), default=0)
    row["files_grouped"] = sum(len(g) for g in groups)
    row["unknown_paths"] = sum(p not in known for g in groups for p in g)
    return row


# --------------------------------------------------------------------------- speed


def _warm_page_cache(folder: Path) -> int:
    """Read every file once so neither tool pays the disk for the other; returns the count."""
    count = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.name.startswith("."):
            path.read_bytes()
            count += 1
    return count


def _speed(folder: Path, jobs: int, repeat: int) -> dict[str, Any]:
    """Best-of-``repeat`` cold scans of ``folder`` per tool, alternating which goes first."""
    files = _warm_page_cache(folder)
    settings = {"czkawka": CZKAWKA_SPEED_LEVEL, "dupfinder": DEFAULT_IMAGE_THRESHOLD}
    runs: dict[str, list[dict[str, Any]]] = {tool: [] for tool in settings}
    for rep in range(repeat):
        order = list(settings) if rep % 2 == 0 else list(reversed(settings))
        for tool in order:
            (run,) = _run_child(tool, folder, [settings[tool]], jobs)
            run["groups"] = len(run["groups"])
            runs[tool].append(run)
    out: dict[str, Any] = {"files": files, "jobs": jobs, "repeat": repeat}
    for tool, rows in runs.items():
        wall, cpu = min(r["wall"] for r in rows), min(r["cpu"] for r in rows)
        out[tool] = {
            "setting": settings[tool],
            "wall_s": round(wall, 3),
            "cpu_s": round(cpu, 3),
            "files_per_s": round(files / wall, 1),
            "cpu_ms_per_file": round(1000 * cpu / files, 2),
            "max_threads": max(r["max_threads"] for r in rows),
            "groups": rows[0]["groups"],
            "files_left_in_home": sorted({f for r in rows for f in r["files_left_in_home"]}),
            "runs": [{"wall_s": round(r["wall"], 3), "cpu_s": round(r["cpu"], 3)} for r in rows],
        }
    return out


# --------------------------------------------------------------------------- report


def _print_accuracy(results: dict[str, dict[str, Any]]) -> None:
    print("\naccuracy on group-derived pairs: every pair within a reported group; "
          "star P = precision of each member with its group's first file only")  # fmt: skip
    head = f"{'tool / setting':28} {'P':>6} {'R':>6} {'F1':>6} {'hardFP':>6}"
    print(f"{head}   {'photo F1':>8} {'icon F1':>7} {'star P':>6} "
          f"{'groups':>6} {'largest':>7}")  # fmt: skip
    for name, row in results.items():
        o, star = row["all"], row["star_pairs"]["all"]
        print(f"{name:28} {o['precision']:6.3f} {o['recall']:6.3f} {o['f1']:6.3f} "
              f"{o['hard_negative_fp']:6d}   {row['photos']['f1']:8.3f} "
              f"{row['icons']['f1']:7.3f} {star['precision']:6.3f} "
              f"{row['groups']:6d} {row['largest_group']:7d}")  # fmt: skip


def _print_edits(results: dict[str, dict[str, Any]], shown: Sequence[str]) -> None:
    print("\nper edit, recall / precision (* = the hard edits)")
    print(f"{'edit':14} " + " ".join(f"{name[:17]:>17}" for name in shown))
    edits = results[shown[0]]["by_edit"]
    for edit in sorted(edits, key=lambda e: (e not in HARD_EDITS, e)):
        cells = []
        for name in shown:
            e = results[name]["by_edit"][edit]
            cells.append(f"{e['recall']:8.3f}/{e['precision']:.3f}")
        mark = "*" if edit in HARD_EDITS else " "
        print(f"{edit:13}{mark} " + " ".join(f"{c:>17}" for c in cells))


def _print_speed(speed: dict[str, dict[str, Any]]) -> None:
    print("\nspeed: cold scans (no tool cache), best of N; ratio = dupfinder / Czkawka")
    print(f"{'folder':12} {'files':>5} {'tool':10} {'wall s':>7} {'files/s':>8} "
          f"{'CPU s':>7} {'CPU ms/file':>11} {'threads':>7}")  # fmt: skip
    for folder, row in speed.items():
        for tool in ("czkawka", "dupfinder"):
            t = row[tool]
            print(f"{folder:12} {row['files']:5d} {tool:10} {t['wall_s']:7.2f} "
                  f"{t['files_per_s']:8.1f} {t['cpu_s']:7.2f} {t['cpu_ms_per_file']:11.2f} "
                  f"{t['max_threads']:7d}")  # fmt: skip
        c, d = row["czkawka"], row["dupfinder"]
        print(f"{'':12} {'':5} {'ratio':10} {'':7} {d['files_per_s'] / c['files_per_s']:7.2f}x "
              f"{'':7} {c['cpu_ms_per_file'] / d['cpu_ms_per_file']:10.2f}x")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the corpus, 1 pass")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS_DIR)
    parser.add_argument("--jpegs", type=int, default=60, help="6 MP JPEGs in the speed folder")
    parser.add_argument("--jpeg-dir", type=Path, default=JPEG_DIR)
    parser.add_argument("--jobs", type=int, default=2, help="dupfinder jobs = Czkawka threads")
    parser.add_argument("--repeat", type=int, default=None, help="speed passes (default 3)")
    parser.add_argument("--out", type=Path, default=Path("bench/out/peer_czkawka.json"))
    args = parser.parse_args(argv)
    try:
        import czkawka
    except ImportError:
        print("needs the Czkawka bindings: pip install czkawka", file=sys.stderr)
        return 2
    from importlib.metadata import version

    repeat = args.repeat or (1 if args.quick else 3)
    items = build_corpus(args.corpus)
    if args.quick:
        items = _subset(items)
    staged = _stage(items, STAGE_DIR / ("quick" if args.quick else "full"))
    folder = Path(staged[0].path).parent
    print(f"corpus: {len(staged)} files, {len({it.group for it in staged})} groups in {folder}; "
          f"czkawka {version('czkawka')}", file=sys.stderr)  # fmt: skip

    started = time.perf_counter()
    levels = list(CZKAWKA_LEVELS.values())
    czk_runs = _run_child("czkawka", folder, levels, args.jobs)
    dup_runs = _run_child("dupfinder", folder, DUPFINDER_KS, args.jobs)
    results: dict[str, dict[str, Any]] = {}
    for name, run in zip(CZKAWKA_LEVELS, czk_runs, strict=True):
        results[f"czkawka {name} ({run['setting']})"] = _accuracy(staged, run["groups"])
    for run in dup_runs:
        tag = " default" if run["setting"] == DEFAULT_IMAGE_THRESHOLD else ""
        results[f"dupfinder k={run['setting']}{tag}"] = _accuracy(staged, run["groups"])
    accuracy_s = time.perf_counter() - started
    _print_accuracy(results)
    shown = [
        f"czkawka High ({CZKAWKA_LEVELS['High']})",
        f"czkawka Medium ({CZKAWKA_LEVELS['Medium']})",
        f"czkawka binding default ({CZKAWKA_LEVELS['binding default']})",
        f"dupfinder k={DEFAULT_IMAGE_THRESHOLD} default",
    ]
    _print_edits(results, shown)

    jpeg_paths = make_jpegs(args.jpeg_dir, args.jpegs)
    speed = {
        "jpeg6mp": _speed(jpeg_paths[0].parent, args.jobs, repeat),
        "corpus": _speed(folder, args.jobs, repeat),
    }
    _print_speed(speed)

    report = {
        "quick": args.quick,
        "czkawka_version": version("czkawka"),
        "czkawka_module": czkawka.__file__,
        "czkawka_settings": {
            "hash": "image_hasher Gradient (dHash), hash size 8 = 64 bits, Lanczos3 resize",
            "cache": "off in the binding; HOME and XDG dirs point at an empty temp dir per run",
            "presets_hash_size_8": CZKAWKA_LEVELS,
            "threads": f"rayon, RAYON_NUM_THREADS={args.jobs}",
        },
        "dupfinder_settings": {"jobs": args.jobs, "use_cache": False, "kinds": ["image"]},
        "pairs": "all pairs within a reported group (transitive pairs included), both tools",
        "corpus_files": len(staged),
        "groups": len({it.group for it in staged}),
        "staged_folder": str(folder),
        "accuracy": results,
        "accuracy_seconds": round(accuracy_s, 1),
        "accuracy_scan_seconds": {
            "czkawka": {r["setting"]: round(r["wall"], 2) for r in czk_runs},
            "dupfinder": {r["setting"]: round(r["wall"], 2) for r in dup_runs},
        },
        "speed": speed,
        "jpeg_size": JPEG_SIZE,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
