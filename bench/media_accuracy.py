"""Accuracy and cost of the music and video fingerprints on the corpus of ``bench.media_corpus``.

Run ``python -m bench.media_accuracy [--quick]``. Every file is printed (``audio_print`` /
``video_print``), timed in CPU seconds of this process and of every ffmpeg it started
(``getrusage``), and every pair of files of one kind is scored the way a scan decides:
the index proposes a pair when some SimHash of one (its ``value`` or a window) is within the
radius of some SimHash of the other, and the check (``compare``) keeps it when its similarity
reaches the threshold. Same group = duplicates.

Reported per kind, at the shipped radius and threshold and over a grid of both: recall per
edit (pairs of an original and its edited copy), recall over all duplicate pairs (two edits
of one source included), precision over every pair kept, the hard negatives (same album,
speaker or channel) the index proposes and the highest similarity the check gives them, and
the cost: CPU seconds per hour of media for printing, milliseconds per check, candidate pairs
per file. Czkawka: its PyPI binding exposes only picture similarity (no "same music" or
"similar videos"), so there is no peer to run side by side here; the result says so.
JSON goes to ``bench/out/media_accuracy.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.media_corpus import DEFAULT_CORPUS_DIR, MediaItem, build_corpus
from dupfinder.core.errors import FileProblem
from dupfinder.core.media import audio, video
from dupfinder.core.media.match import MediaMatch

OUT = Path(__file__).resolve().parent / "out" / "media_accuracy.json"
RADII = (6, 8, 10, 12, 14, 16)
THRESHOLDS = (0.3, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True)
class Printed:
    item: MediaItem
    hashes: tuple[int, ...]  # value, then windows
    sequence: bytes
    duration_s: float


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _print_all(items: Sequence[MediaItem], kind: str) -> tuple[list[Printed], dict[str, Any]]:
    printer = audio.audio_print if kind == "audio" else video.video_print
    done: list[Printed] = []
    failed: list[str] = []
    seconds = 0.0
    start = _cpu()
    for item in items:
        try:
            found = printer(item.path)
        except FileProblem as exc:
            failed.append(f"{Path(item.path).name}: {exc}")
            continue
        seconds += found.duration_s
        done.append(Printed(item, (found.value, *found.windows), found.sequence, found.duration_s))
    cpu = _cpu() - start
    cost = {
        "files": len(items),
        "failed": failed,
        "media_hours": round(seconds / 3600, 3),
        "cpu_s": round(cpu, 2),
        "cpu_s_per_media_hour": round(cpu / max(seconds / 3600, 1e-9), 1),
        "cpu_s_per_file": round(cpu / max(1, len(items)), 3),
    }
    return done, cost


def _distances(prints: Sequence[Printed]) -> npt.NDArray[np.int64]:
    """The least Hamming distance between any SimHash of one file and any of another."""
    n = len(prints)
    out = np.full((n, n), 64, dtype=np.int64)
    arrays = [np.array(p.hashes, dtype=np.uint64) for p in prints]
    for i in range(n):
        for j in range(i + 1, n):
            xor = arrays[i][:, None] ^ arrays[j][None, :]
            out[i, j] = out[j, i] = int(np.bitwise_count(xor).min())
    return out


def _score(
    prints: Sequence[Printed],
    distance: npt.NDArray[np.int64],
    checks: dict[tuple[int, int], MediaMatch | None],
    radius: int,
    threshold: float,
) -> dict[str, Any]:
    kept = positives = true = 0
    per_edit: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed: dict[str, int] = defaultdict(int)
    n = len(prints)
    for i in range(n):
        for j in range(i + 1, n):
            same = prints[i].item.group == prints[j].item.group
            found = checks.get((i, j))
            hit = bool(
                distance[i, j] <= radius and found is not None and found.similarity >= threshold
            )
            kept += hit
            positives += same
            true += hit and same
            if same and not hit:
                missed["+".join(sorted((prints[i].item.edit, prints[j].item.edit)))] += 1
            edits = {prints[i].item.edit, prints[j].item.edit}
            if same and "original" in edits and len(edits) == 2:
                edit = (edits - {"original"}).pop()
                per_edit[edit][0] += hit
                per_edit[edit][1] += 1
    return {
        "radius": radius,
        "threshold": threshold,
        "precision": round(true / kept, 4) if kept else 1.0,
        "recall": round(true / positives, 4) if positives else 1.0,
        "kept": kept,
        "false": kept - true,
        "recall_per_edit": {e: round(h / t, 3) for e, (h, t) in sorted(per_edit.items())},
        "missed_by_edits": dict(sorted(missed.items(), key=lambda kv: -kv[1])),
    }


def _evaluate(items: Sequence[MediaItem], kind: str) -> dict[str, Any]:
    compare: Callable[[bytes, bytes], MediaMatch | None]
    module: Any = audio if kind == "audio" else video
    compare = module.compare
    prints, cost = _print_all([i for i in items if i.kind == kind], kind)
    distance = _distances(prints)
    n = len(prints)
    checks: dict[tuple[int, int], MediaMatch | None] = {}
    timed = {True: 0.0, False: 0.0}  # CPU seconds of checks of duplicate pairs, of the others
    counted = {True: 0, False: 0}
    for i in range(n):
        for j in range(i + 1, n):
            same_family = prints[i].item.family == prints[j].item.family
            if distance[i, j] <= max(RADII) or same_family:
                same = prints[i].item.group == prints[j].item.group
                start = time.process_time()
                checks[(i, j)] = compare(prints[i].sequence, prints[j].sequence)
                timed[same] += time.process_time() - start
                counted[same] += 1
    shipped = _score(prints, distance, checks, module.INDEX_RADIUS, module.MIN_SIMILARITY)
    index_only = _score(
        prints, distance, {k: MediaMatch(1, 0, 0, 0, 0) for k in checks}, module.INDEX_RADIUS, 0.0
    )
    hard = [
        (distance[i, j], checks[(i, j)])
        for (i, j) in checks
        if prints[i].item.family == prints[j].item.family
        and prints[i].item.group != prints[j].item.group
    ]
    hard_sims = [m.similarity for _, m in hard if m is not None]
    candidates = int((distance[np.triu_indices(n, 1)] <= module.INDEX_RADIUS).sum())
    return {
        "kind": kind,
        "index_radius": module.INDEX_RADIUS,
        "min_similarity": module.MIN_SIMILARITY,
        "cost": cost
        | {
            "checks": len(checks),
            "ms_per_check": round(1000 * sum(timed.values()) / max(1, len(checks)), 2),
            "ms_per_check_duplicates": round(1000 * timed[True] / max(1, counted[True]), 2),
            "ms_per_check_others": round(1000 * timed[False] / max(1, counted[False]), 2),
            "candidate_pairs_per_file": round(candidates / max(1, n), 2),
        },
        "shipped": shipped,
        "index_recall_per_edit": index_only["recall_per_edit"],
        "index_recall": index_only["recall"],
        "hard_negatives": {
            "pairs": len(hard),
            "proposed_by_index": int(sum(d <= module.INDEX_RADIUS for d, _ in hard)),
            "max_similarity": round(max(hard_sims, default=0.0), 3),
            "over_threshold": int(sum(s >= module.MIN_SIMILARITY for s in hard_sims)),
        },
        "grid": [
            {
                k: v
                for k, v in _score(prints, distance, checks, r, t).items()
                if k != "recall_per_edit"
            }
            for r in RADII
            for t in THRESHOLDS
        ],
    }


def _czkawka() -> str:
    if importlib.util.find_spec("czkawka") is None:
        return "not installed (pip install czkawka)"
    import czkawka

    names = [n for n in dir(czkawka) if not n.startswith("_")]
    media = [n for n in names if "music" in n.lower() or "video" in n.lower()]
    if not media:
        return (
            f"the czkawka binding exposes {sorted(names)}: picture similarity only, no "
            "same-music or similar-videos mode to run side by side"
        )
    return f"media modes in the binding: {media} (not wired into this benchmark yet)"


def _report(result: dict[str, Any]) -> str:
    lines = []
    for part in result["kinds"]:
        s, c, h = part["shipped"], part["cost"], part["hard_negatives"]
        lines.append(
            f"{part['kind']}: radius {part['index_radius']}, similarity >= "
            f"{part['min_similarity']}: precision {s['precision']}, recall {s['recall']} "
            f"({s['kept']} kept, {s['false']} false)"
        )
        for edit, value in s["recall_per_edit"].items():
            lines.append(
                f"  {edit:14s} recall {value:.3f}  (index alone "
                f"{part['index_recall_per_edit'].get(edit, 0):.3f})"
            )
        if s["missed_by_edits"]:
            lines.append(f"  duplicate pairs missed, by their two edits: {s['missed_by_edits']}")
        lines.append(
            f"  hard negatives: {h['pairs']} pairs, {h['proposed_by_index']} proposed by the "
            f"index, highest similarity {h['max_similarity']}, {h['over_threshold']} over"
        )
        lines.append(
            f"  cost: {c['cpu_s_per_media_hour']} CPU s per hour of media "
            f"({c['cpu_s']} s for {c['media_hours']} h, {c['files']} files), "
            f"{c['ms_per_check']} ms per check ({c['ms_per_check_duplicates']} for duplicates, "
            f"{c['ms_per_check_others']} for the others), {c['candidate_pairs_per_file']} candidates "
            f"per file; failed: {len(c['failed'])}"
        )
    lines.append(f"czkawka: {result['czkawka']}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small corpus")
    parser.add_argument("--dir", type=Path, default=DEFAULT_CORPUS_DIR)
    parser.add_argument("--kind", choices=("audio", "video", "all"), default="all")
    args = parser.parse_args(argv)
    items = build_corpus(args.dir, quick=args.quick)
    kinds = ("audio", "video") if args.kind == "all" else (args.kind,)
    result = {
        "quick": args.quick,
        "kinds": [_evaluate(items, kind) for kind in kinds],
        "czkawka": _czkawka(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.write(_report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
