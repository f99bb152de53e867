"""Where a whole scan's time goes: phases × kinds, CPU and wall, against the first release and peers.

    python -m bench.bench_profile [FOLDER] [--repeat N] [--no-first] [--no-peers] [--jobs N]
                                  [--exact-only] [--large FOLDER | --no-large]

FOLDER defaults to the mixed real folder of ``bench.mixed_corpus`` (documents, photos, icons,
programs from this machine's packages, with planted near copies). In one run, each measured
with ``bench.measure`` (CPU of every process, wall, peak memory of all processes):

1. **dupfinder, cold and warm**: a scan with an empty cache, then the same scan again with
   nothing changed, each in a fresh process that times its phases from inside (walk,
   cache look-ups and fingerprinting in the pool, the byte-identical pass, index, second
   check, grouping, the JSON report; the CPU of each phase counts every process).
2. **the first release** (commit 208809b), cold and warm, as a command (``--no-first``
   skips it): a copy of that commit under bench/out/first, its two extra dependencies
   installed beside it.
3. **peers on the same files**: jdupes, rdfind and fdupes against ``--exact-only --hidden``
   (the folder read once, untimed, before them: the cold scans evict it from the page cache;
   the order alternating round by round; dupfinder's sets checked against jdupes'; the CPU
   ratios printed of the medians, of the bests and round by round; ``--exact-only`` runs
   these alone), on the folder and on a larger one (``--large``, default ``/usr/share``:
   76k files, where jdupes takes about a second, the scale the byte-identical goal was set
   at; on the mixed folder's 14k files jdupes' whole run is what Python's start alone costs);
   Czkawka's similar-image search (PyPI ``czkawka``) against ``--kind image``; datasketch's
   MinHash LSH (3-word shingles, 128 permutations, threshold 0.7), *with dupfinder's own
   text extraction counted*, against ``--kind text``. Each without a cache.
4. **kinds**: per kind of file (documents by format, photos, graphics, other files), the
   CPU of each step a worker takes (read, extract or decode, fingerprint and sketch; a
   picture's decoding, hashes and descriptor as one figure, since a scan takes them in one
   pass), measured on one core over a sample of each kind and scaled up to the folder's
   counts.

Every run is repeated ``--repeat`` times and medians are printed (Markdown tables, for the
README) and written with every sample to ``bench/out/bench_profile.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.measure import Measured, group_cpu, measure

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
FIRST_RELEASE = "208809b"
FIRST_DEPS = ("ebooklib", "beautifulsoup4")
PHASES = (
    "start-up",
    "walk",
    "fingerprints",
    "byte-identical",
    "index",
    "second check",
    "grouping",
    "kept result",
    "report",
)


# ---------------------------------------------------------------- inside a measured process


class _Clock:
    """CPU (every process of this cgroup, else this process alone) and wall per phase."""

    def __init__(self, started_wall: float) -> None:
        self.phases: dict[str, list[float]] = {name: [0.0, 0.0, 0.0] for name in PHASES}
        self.phases["start-up"] = [self._cpu(), self._own(), time.perf_counter() - started_wall]

    @staticmethod
    def _cpu() -> float:
        cpu = group_cpu()
        return cpu if cpu is not None else time.process_time()

    @staticmethod
    def _own() -> float:
        return time.process_time()

    def wrap(self, phase: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            cpu, own, wall = self._cpu(), self._own(), time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                row = self.phases[phase]
                row[0] += self._cpu() - cpu
                row[1] += self._own() - own
                row[2] += time.perf_counter() - wall

        return timed


def _scan_child(folder: str, cache: str, jobs: int, started_wall: float) -> int:
    """One scan as ``dupfinder scan FOLDER --format json`` runs it, its phases timed."""
    from dupfinder.__main__ import one_blas_thread

    one_blas_thread()  # as the program's entry does, before numpy is imported
    from dupfinder.core.model import ScanOptions
    from dupfinder.core.results import report
    from dupfinder.core.scan import last_result, pipeline

    clock = _Clock(started_wall)  # start-up: the interpreter and the engine's imports

    for module, name, phase in (
        (pipeline, "walk_into", "walk"),
        (pipeline, "_fingerprint_all", "fingerprints"),
        (pipeline, "_identical", "byte-identical"),
        (last_result, "recall", "kept result"),
    ):
        setattr(module, name, clock.wrap(phase, getattr(module, name)))
    grouping = pipeline._compare

    def compared(*args: Any, **kwargs: Any) -> Any:
        """The grouping, its index and check timed apart: imported only by a scan that
        groups (a rescan given its last result imports neither, nor numpy)."""
        from dupfinder.core.grouping import checked, verify

        # (a scan groups once)
        verify.candidates = clock.wrap("index", verify.candidates)
        checked.checked_pairs = clock.wrap("second check", checked.checked_pairs)
        return grouping(*args, **kwargs)

    pipeline._compare = clock.wrap("grouping", compared)
    options = ScanOptions(roots=(Path(folder),), cache_dir=Path(cache), jobs=jobs)
    result = pipeline.run(options)
    with open(os.devnull, "w", encoding="utf-8") as sink:
        clock.wrap("report", report.write_json)(result, sink)
    # grouping held index and second check inside it: keep only its own part
    for part in ("index", "second check"):
        for i in range(3):
            clock.phases["grouping"][i] -= clock.phases[part][i]
    stats = result.stats
    print(
        json.dumps(
            {
                "phases": clock.phases,
                "files": stats.files_seen,
                "groups": len(result.groups),
                "from_cache": stats.files_from_cache,
                "fingerprinted": stats.files_fingerprinted,
            }
        )
    )
    return 0


def _kinds_child(folder: str, per_class: int) -> int:
    """CPU per file of each worker step, by kind of file, on a sample of each kind."""
    import random

    from dupfinder.core import extract
    from dupfinder.core.fingerprints.digest import digest_of
    from dupfinder.core.image import perceptual
    from dupfinder.core.model import Kind, ScanOptions
    from dupfinder.core.scan.walk import WalkReport, walk
    from dupfinder.core.text import simhash

    classes: dict[str, list[tuple[str, int, Kind]]] = {}
    for entry in walk(ScanOptions(roots=(Path(folder),)), WalkReport(), None):
        if entry.kind is Kind.TEXT:
            try:
                name = "documents: " + extract.detect_format(entry.path).name.lower()
            except Exception:
                name = "other files"
        elif entry.kind is Kind.IMAGE:
            name = "photos" if entry.size > 200_000 else "graphics (icons, art)"
        else:
            name = "other files"
        classes.setdefault(name, []).append((entry.path, entry.size, entry.kind))
    rng = random.Random(27)
    rows: dict[str, dict[str, float]] = {}
    for name, files in sorted(classes.items()):
        sample = files if len(files) <= per_class else rng.sample(files, per_class)
        steps = {"read": 0.0, "extract or decode": 0.0, "fingerprint": 0.0, "sketch/descr.": 0.0}
        for path, _, kind in rng.sample(files, min(5, len(files))):  # a worker's warm-up:
            with contextlib.suppress(Exception):  # imports, kernels, plans (once a process)
                if kind is Kind.TEXT:
                    simhash.text_fingerprint(extract.extract_text(path))
                elif kind is Kind.IMAGE:
                    perceptual.image_fingerprint(path)
        for path, _, kind in sample:
            t = time.process_time()
            with open(path, "rb") as handle:
                data = handle.read()
            digest_of(data[: 64 << 10])
            steps["read"] += time.process_time() - t
            if kind is Kind.OTHER or name == "other files":
                continue
            try:
                if kind is Kind.TEXT:
                    t = time.process_time()
                    text = extract.extract_text(path)
                    steps["extract or decode"] += time.process_time() - t
                    t = time.process_time()
                    simhash.text_fingerprint(text)
                    steps["fingerprint"] += time.process_time() - t
                else:  # decoding, hashes and descriptor in one pass, as a scan takes them
                    t = time.process_time()
                    perceptual.image_fingerprint(path)
                    steps["extract or decode"] += time.process_time() - t
            except Exception:
                continue
        scale = len(files) / max(len(sample), 1)
        rows[name] = {
            "files": len(files),
            "mb": sum(size for _, size, _ in files) / 1e6,
            "sampled": len(sample),
            **{step: seconds * scale for step, seconds in steps.items()},
        }
    print(json.dumps(rows))
    return 0


def _datasketch_child(folder: str) -> int:
    """datasketch's MinHash LSH over the documents, with dupfinder's text extraction."""
    from datasketch import MinHash, MinHashLSH

    from dupfinder.core import extract
    from dupfinder.core.model import Kind, ScanOptions
    from dupfinder.core.scan.walk import WalkReport, walk
    from dupfinder.core.text import simhash

    options = ScanOptions(roots=(Path(folder),), kinds=frozenset({Kind.TEXT}))
    lsh = MinHashLSH(threshold=0.7, num_perm=128)
    hashes = {}
    for entry in walk(options, WalkReport(), None):
        if entry.kind is not Kind.TEXT:
            continue
        try:
            words = simhash.tokens(extract.extract_text(entry.path))
        except Exception:
            continue
        if len(words) < simhash.MIN_TOKENS:
            continue
        minhash = MinHash(num_perm=128)
        minhash.update_batch(
            {" ".join(words[j : j + 3]).encode("utf-8") for j in range(len(words) - 2)}
        )
        hashes[entry.path] = minhash
        lsh.insert(entry.path, minhash)
    pairs = {
        tuple(sorted((path, other)))
        for path, minhash in hashes.items()
        for other in lsh.query(minhash)
        if other != path
    }
    print(json.dumps({"documents": len(hashes), "pairs": len(pairs)}))
    return 0


def _czkawka_child(folder: str) -> int:
    from czkawka import ImageSimilarity

    finder = ImageSimilarity()
    finder.set_directories([folder])
    groups = finder.find_similar()
    print(json.dumps({"groups": len(groups), "files": sum(len(g) for g in groups)}))
    return 0


# ---------------------------------------------------------------- the driver


def _python(*args: str) -> list[str]:
    return [sys.executable, "-m", "bench.bench_profile", *args]


def _env(pythonpath: str | None = None, home: str | None = None) -> dict[str, str]:
    """The environment of a measured run: bytecode cached as an installed package has it
    (``PYTHONDONTWRITEBYTECODE`` would compile every module on every start)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    if home is not None:
        env["HOME"] = home
        env["XDG_CACHE_HOME"] = os.path.join(home, ".cache")
    return env


def _first_release() -> Path | None:
    """A copy of the first release with its extra dependencies (None if it cannot be made)."""
    first = OUT / "first"
    if not (first / "dupfinder").is_dir():
        first.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", FIRST_RELEASE], capture_output=True, check=False
        )
        if archive.returncode:
            return None
        subprocess.run(["tar", "-x", "-C", str(first)], input=archive.stdout, check=True)
    deps = first / "_deps"
    if not deps.is_dir():
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--target", str(deps), *FIRST_DEPS],
            check=False,
        )
    return first


def _median(runs: Sequence[dict[str, Any]], key: str) -> float:
    return statistics.median(float(r[key]) for r in runs)


def _row(measured: Measured, **extra: Any) -> dict[str, Any]:
    return {
        "wall": measured.wall,
        "cpu": measured.cpu,
        "peak_mb": measured.peak_mb,
        "exact_cpu": measured.exact_cpu,
        **extra,
    }


def _dupfinder_scan(folder: Path, cache: str, jobs: int) -> dict[str, Any]:
    started = f"{time.perf_counter():.6f}"
    measured = measure(
        _python("--child", "scan", str(folder), cache, str(jobs), started), _env(), cwd=str(REPO)
    )
    if measured.returncode:
        raise RuntimeError(measured.stderr[-2000:])
    inside = json.loads(measured.stdout.strip().splitlines()[-1])
    return _row(measured, **inside)


def _command(
    argv: list[str],
    env: dict[str, str],
    cwd: str | None = None,
    succeeded: tuple[int, ...] = (0, 1),
) -> dict[str, Any]:
    """One measured run; a status outside ``succeeded`` raises (dupfinder exits 1 where it
    found duplicates; a peer's child exits 0, and 1 where Python stopped on an error)."""
    measured = measure(argv, env, cwd=cwd)
    if measured.returncode not in succeeded:
        raise RuntimeError(f"{argv[:3]} failed: {measured.stderr[-2000:]}")
    return _row(measured, stdout_tail=measured.stdout[-300:])


#: The byte-identical peers, as ``bench.bench_identical`` runs them (same rules: hidden files
#: in, links not followed, empty files and second names of one inode left out).
EXACT_PEERS = {
    "jdupes": ["jdupes", "-r", "-q"],
    "rdfind": ["rdfind", "-dryrun", "true", "-outputname", "r.txt"],
    "fdupes": ["fdupes", "-r", "-q", "-n"],
}


def _exact_peers(
    folder: Path,
    dupfinder: list[str],
    work: str,
    attempt: int,
    add: Callable[[str, dict[str, Any]], None],
    label: str = "",
) -> None:
    """``dupfinder --exact-only`` and jdupes, rdfind and fdupes on the same files, with the
    page cache warm for all of them: the cold scans before evict much of the folder, so an
    untimed read of it comes first (otherwise dupfinder, run first, paid the disk and the
    peers after it found the cache warm: 4.8x jdupes' CPU in a run where the same two, run
    alone, used 2.5x); the order alternates round by round. dupfinder's sets are compared
    with jdupes' (``same_sets`` in the row)."""
    from bench.bench_identical import blank_line_sets

    _read_all(folder)
    result = os.path.join(work, "o.json")
    exact = [
        *_on(dupfinder, folder),
        *("--exact-only", "--hidden", "--no-cache", "--format", "json", "-o", result),
    ]
    order = ["dupfinder --exact-only", *(tool for tool in EXACT_PEERS if shutil.which(tool))]
    if attempt % 2:
        order.reverse()
    found: dict[str, frozenset[frozenset[str]]] = {}
    for name in order:
        if name in EXACT_PEERS:
            measured = measure([*EXACT_PEERS[name], str(folder)], _env(), cwd=work)
            if measured.returncode not in (0, 1):
                raise RuntimeError(f"{name} failed: {measured.stderr[-2000:]}")
            if name == "jdupes":
                found[name] = blank_line_sets(measured.stdout)
            add(name + label, _row(measured))
            continue
        measured = measure(exact, _env())
        if measured.returncode:
            raise RuntimeError(f"{name} failed: {measured.stderr[-2000:]}")
        with open(result, encoding="utf-8") as handle:
            groups = json.load(handle)["groups"]
        found[name] = frozenset(frozenset(m["path"] for m in g["members"]) for g in groups)
        add(name + label, _row(measured, sets=len(groups)))
    if "jdupes" in found:
        same = found["jdupes"] == found["dupfinder --exact-only"]
        print(f"  dupfinder's sets are jdupes': {same}", file=sys.stderr)
        if not same:
            raise RuntimeError("dupfinder --exact-only and jdupes found different sets")


def _on(dupfinder: list[str], folder: Path) -> list[str]:
    """The ``dupfinder scan FOLDER ...`` command line with ``folder`` in place of its folder."""
    at = dupfinder.index("scan") + 1
    return [*dupfinder[:at], str(folder), *dupfinder[at + 1 :]]


#: A larger real folder for the byte-identical peers, beside the mixed one: at the mixed
#: folder's 14k files jdupes' whole run (0.15-0.2 s) is what the interpreter's start and
#: imports alone cost; this one is at the scale the issue measured (57k files, jdupes ~1 s).
LARGE_EXACT_FOLDER = Path("/usr/share")


def _read_all(folder: Path) -> None:
    """Every regular file under ``folder`` read once, untimed: the page cache warm."""
    for top, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with contextlib.suppress(OSError), open(path, "rb", buffering=0) as handle:
                while handle.read(1 << 20):
                    pass


def run(
    folder: Path,
    repeat: int,
    jobs: int,
    first: bool,
    peers: bool,
    exact_only: bool = False,
    large: Path | None = None,
) -> dict[str, Any]:
    """Every run ``repeat`` times; ``exact_only``: only the byte-identical peers; ``large``:
    a larger folder the byte-identical peers also run on (rows named after it)."""
    runs: dict[str, list[dict[str, Any]]] = {}

    def add(name: str, row: dict[str, Any]) -> None:
        runs.setdefault(name, []).append(row)
        print(f"  {name}: {row['cpu']:.1f} s CPU, {row['wall']:.1f} s wall", file=sys.stderr)

    first_copy = _first_release() if first else None
    for tree in (REPO / "dupfinder", first_copy):
        if tree is not None:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], check=False)
    dupfinder = [sys.executable, "-m", "dupfinder", "scan", str(folder), "-j", str(jobs)]
    for attempt in range(repeat):
        print(f"round {attempt + 1} of {repeat}", file=sys.stderr)
        if (exact_only or peers) and large is not None:
            with tempfile.TemporaryDirectory(prefix="profile-") as work:
                _exact_peers(large, dupfinder, work, attempt, add, f" ({large})")
        if exact_only:
            with tempfile.TemporaryDirectory(prefix="profile-") as work:
                _exact_peers(folder, dupfinder, work, attempt, add)
            continue
        with tempfile.TemporaryDirectory(prefix="profile-") as work:
            cache = os.path.join(work, "cache")
            add("dupfinder cold", _dupfinder_scan(folder, cache, jobs))
            add("dupfinder warm", _dupfinder_scan(folder, cache, jobs))
            if first_copy is not None:
                path = f"{first_copy}{os.pathsep}{first_copy / '_deps'}"
                argv = [sys.executable, "-m", "dupfinder", "scan", str(folder), "-j", str(jobs)]
                first_cache = ["--cache-dir", os.path.join(work, "first-cache")]
                home = os.path.join(work, "home")
                for name in ("first release cold", "first release warm"):
                    add(name, _command([*argv, *first_cache], _env(path, home), cwd=work))
            if peers:
                out = ["--no-cache", "--format", "json", "-o", os.path.join(work, "o.json")]
                _exact_peers(folder, dupfinder, work, attempt, add)
                add(
                    "dupfinder --kind image",
                    _command([*dupfinder, "--kind", "image", *out], _env()),
                )
                home = os.path.join(work, "peer-home")
                try:
                    add(
                        "czkawka",
                        _command(
                            _python("--child", "czkawka", str(folder)),
                            _env(home=home),
                            cwd=str(REPO),
                            succeeded=(0,),
                        ),
                    )
                except RuntimeError as exc:
                    print(f"  czkawka: {exc}", file=sys.stderr)
                add("dupfinder --kind text", _command([*dupfinder, "--kind", "text", *out], _env()))
                try:
                    add(
                        "datasketch + extraction",
                        _command(
                            _python("--child", "datasketch", str(folder)),
                            _env(),
                            cwd=str(REPO),
                            succeeded=(0,),
                        ),
                    )
                except RuntimeError as exc:
                    print(f"  datasketch: {exc}", file=sys.stderr)
    by_kind: dict[str, Any] = {}
    if not exact_only:
        kinds = measure(_python("--child", "kinds", str(folder), "120"), _env(), cwd=str(REPO))
        by_kind = json.loads(kinds.stdout.strip().splitlines()[-1]) if kinds.returncode == 0 else {}
    return {
        "folder": str(folder),
        "large": str(large) if large is not None else None,
        "jobs": jobs,
        "runs": runs,
        "kinds": by_kind,
    }


def _exact_ratios(runs: dict[str, list[dict[str, Any]]], label: str = "") -> list[str]:
    """dupfinder --exact-only's CPU against each peer's: of the medians, of the bests, and
    round by round (lowest, median, highest), the two run within seconds of each other;
    ``label``: the rows of the larger folder."""
    ours = runs.get("dupfinder --exact-only" + label)
    lines = []
    for peer in EXACT_PEERS:
        theirs = runs.get(peer + label)
        if not ours or not theirs:
            continue
        best = min(r["cpu"] for r in ours) / min(r["cpu"] for r in theirs)
        rounds = sorted(a["cpu"] / b["cpu"] for a, b in zip(ours, theirs, strict=True))
        lines.append(
            f"dupfinder --exact-only / {peer}{label} CPU: median {_median(ours, 'cpu'):.3f} s / "
            f"{_median(theirs, 'cpu'):.3f} s = {_median(ours, 'cpu') / _median(theirs, 'cpu'):.2f}x, "
            f"best {best:.2f}x, rounds {rounds[0]:.2f}/{statistics.median(rounds):.2f}/"
            f"{rounds[-1]:.2f}x"
        )
    return lines


def report(found: dict[str, Any]) -> str:
    runs = found["runs"]
    rounds = max(map(len, runs.values()))
    lines = [f"folder: {found['folder']}, {found['jobs']} jobs; medians of {rounds} runs", ""]
    lines += ["| run | CPU s (all processes) | wall s | peak MB (all) |", "|---|---:|---:|---:|"]
    for name, rows in runs.items():
        lines.append(
            f"| {name} | {_median(rows, 'cpu'):.1f} | {_median(rows, 'wall'):.1f} | "
            f"{_median(rows, 'peak_mb'):.0f} |"
        )
    lines += ["", *_exact_ratios(runs)]
    if found.get("large"):
        lines += _exact_ratios(runs, f" ({found['large']})")
    if "dupfinder cold" not in runs:  # the byte-identical peers alone
        return "\n".join(lines)
    cold, warm = runs["dupfinder cold"], runs["dupfinder warm"]
    ratios = [f"warm/cold wall {_median(warm, 'wall') / _median(cold, 'wall'):.1%}"]
    if "first release cold" in runs:
        first = runs["first release cold"]
        ratios.append(
            f"first release / now, cold: CPU {_median(first, 'cpu') / _median(cold, 'cpu'):.2f}x, wall {_median(first, 'wall') / _median(cold, 'wall'):.2f}x"
        )
    for peer, ours in (
        ("czkawka", "dupfinder --kind image"),
        ("datasketch + extraction", "dupfinder --kind text"),
    ):
        if peer in runs and ours in runs:
            ratios.append(
                f"{ours} / {peer} CPU: {_median(runs[ours], 'cpu') / _median(runs[peer], 'cpu'):.2f}x"
            )
    lines += ["", "; ".join(ratios), ""]
    lines += [
        "| phase | cold CPU s | cold parent CPU s | cold wall s | warm CPU s | warm wall s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for phase in PHASES:
        c = [statistics.median(r["phases"][phase][i] for r in cold) for i in range(3)]
        w = [statistics.median(r["phases"][phase][i] for r in warm) for i in range(3)]
        lines.append(
            f"| {phase} | {c[0]:.2f} | {c[1]:.2f} | {c[2]:.2f} | {w[0]:.2f} | {w[2]:.2f} |"
        )
    if found["kinds"]:
        steps = ("read", "extract or decode", "fingerprint", "sketch/descr.")
        lines += [
            "",
            "| kind | files | MB | " + " | ".join(f"{s} CPU s" for s in steps) + " | total |",
            "|---|---:|---:|" + "---:|" * (len(steps) + 1),
        ]
        for name, row in sorted(
            found["kinds"].items(), key=lambda kv: -sum(kv[1][s] for s in steps)
        ):
            total = sum(row[s] for s in steps)
            cells = " | ".join(f"{row[s]:.1f}" for s in steps)
            lines.append(f"| {name} | {row['files']:,} | {row['mb']:.0f} | {cells} | {total:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        kind, *rest = argv[1:]
        if kind == "scan":
            return _scan_child(rest[0], rest[1], int(rest[2]), float(rest[3]))
        if kind == "kinds":
            return _kinds_child(rest[0], int(rest[1]))
        if kind == "datasketch":
            return _datasketch_child(rest[0])
        return _czkawka_child(rest[0])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--no-first", action="store_true")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--quick", action="store_true", help="one round, a quarter of the folder")
    parser.add_argument(
        "--exact-only",
        action="store_true",
        help="only dupfinder --exact-only against jdupes, rdfind and fdupes",
    )
    parser.add_argument(
        "--large",
        type=Path,
        default=LARGE_EXACT_FOLDER if LARGE_EXACT_FOLDER.is_dir() else None,
        help="a larger folder the byte-identical peers also run on (default /usr/share)",
    )
    parser.add_argument("--no-large", action="store_true", help="no larger folder")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeat = 1
    if args.folder is None:
        from bench import mixed_corpus

        if args.quick:
            args.folder = mixed_corpus.build(mixed_corpus.OUT.with_name("mixed-quick"), 0.25)
        else:
            args.folder = mixed_corpus.build()
    found = run(
        args.folder.resolve(),
        args.repeat,
        args.jobs,
        not args.no_first,
        not args.no_peers,
        args.exact_only,
        None if args.no_large or args.large is None else args.large.resolve(),
    )
    OUT.mkdir(exist_ok=True)
    name = "bench_profile-exact.json" if args.exact_only else "bench_profile.json"
    (OUT / name).write_text(json.dumps(found, indent=1))
    print(report(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
