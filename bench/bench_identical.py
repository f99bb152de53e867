"""Exact duplicates: dupfinder against the duplicate finders people use, on one real folder.

    python -m bench.bench_identical [FOLDER] [--repeat N] [--cold] [--jobs N]  (default: /usr)

Each tool runs as its own process on the same folder, with the page cache warm (a first,
untimed pass reads the folder), best wall time of ``--repeat`` and the CPU time of that run.
``--cold`` instead drops the folder's files from the page cache before every run (per file,
``POSIX_FADV_DONTNEED``: use it on a copy of your own, not on files others are using), so the
reads come from the disk. ``--jobs`` is dupfinder's ``-j`` (its reading threads: 2 × jobs).
Every tool is set to the same rules: regular files only, hidden files included, symbolic
links not followed, empty files left out, hard links of one inode counted once:

- dupfinder ``scan --exact-only --hidden --no-cache --format json`` (size, then head and
  tail, then whole content with BLAKE3, in threads);
- jdupes ``-r -q`` (size, partial hash, full hash, then a byte-by-byte comparison);
- rdfind ``-dryrun true`` (size, first bytes, last bytes, SHA-1 of the whole);
- fdupes ``-r -q -n`` (size, partial MD5, full MD5, then a byte-by-byte comparison).

fclones (a Rust crate) and Czkawka's duplicate finder are not here: the crates registry is not
reachable from this machine, and the ``czkawka`` package on PyPI binds only its similar-image
search. The sets each tool reports are compared with dupfinder's, so a figure never hides a
different answer. JSON goes to ``bench/out/bench_identical.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

OUT = Path(__file__).parent / "out" / "bench_identical.json"

Sets = frozenset[frozenset[str]]


@dataclass(frozen=True, slots=True)
class Run:
    tool: str
    wall: float
    cpu: float
    sets: int
    files_in_sets: int
    same_as_dupfinder: bool | None = None


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(
    argv: list[str], cwd: str | None = None, source: str | None = None
) -> tuple[float, float, str]:
    # an installed dupfinder runs from compiled modules: let the warm-up run write them
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if source is not None:  # another version's source tree comes first on the path
        env["PYTHONPATH"] = source
        cwd = cwd or source
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=cwd, env=env)
    wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    if done.returncode not in (0, 1):  # fdupes and jdupes may say 1 for "found some"
        raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr[-500:]}")
    return wall, cpu, done.stdout


def blank_line_sets(text: str) -> Sets:
    """jdupes and fdupes: one path per line, a blank line after each set."""
    sets, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(os.path.normpath(line))
        elif current:
            sets.append(frozenset(current))
            current = []
    if current:
        sets.append(frozenset(current))
    return frozenset(s for s in sets if len(s) > 1)


_JOBS: list[str] = []


def _dupfinder(folder: str, work: str, source: str | None = None) -> tuple[float, float, Sets]:
    """This checkout's dupfinder, or the one whose source tree is ``source`` (``--before``)."""
    out = os.path.join(work, "dupfinder.json")
    argv = [sys.executable, "-m", "dupfinder", "scan", folder, "--exact-only", "--hidden", *_JOBS]
    wall, cpu, _ = _timed([*argv, "--no-cache", "--format", "json", "-o", out], source=source)
    with open(out, encoding="utf-8") as handle:
        groups = json.load(handle)["groups"]
    return wall, cpu, frozenset(frozenset(m["path"] for m in g["members"]) for g in groups)


def _jdupes(folder: str, work: str) -> tuple[float, float, Sets]:
    wall, cpu, out = _timed(["jdupes", "-r", "-q", folder])
    return wall, cpu, blank_line_sets(out)


def _fdupes(folder: str, work: str) -> tuple[float, float, Sets]:
    wall, cpu, out = _timed(["fdupes", "-r", "-q", "-n", folder])
    return wall, cpu, blank_line_sets(out)


def _rdfind(folder: str, work: str) -> tuple[float, float, Sets]:
    results = os.path.join(work, "rdfind.txt")
    argv = ["rdfind", "-dryrun", "true", "-outputname", results, folder]
    wall, cpu, _ = _timed(argv, cwd=work)
    by_id: dict[int, set[str]] = {}
    with open(results, encoding="utf-8", errors="surrogateescape") as handle:
        for line in handle:
            if line.startswith("#"):
                continue
            # duptype id depth size device inode priority name (the name may hold spaces)
            fields = line.rstrip("\n").split(" ", 7)
            by_id.setdefault(abs(int(fields[1])), set()).add(os.path.normpath(fields[7]))
    return wall, cpu, frozenset(frozenset(s) for s in by_id.values() if len(s) > 1)


TOOLS: dict[str, Callable[[str, str], tuple[float, float, Sets]]] = {
    "dupfinder": _dupfinder,
    "jdupes": _jdupes,
    "rdfind": _rdfind,
    "fdupes": _fdupes,
}


def _folder_size(folder: str) -> tuple[int, int]:
    """Regular files (not links, not hidden-skipped) and their bytes, as every tool sees them."""
    count = size = 0
    seen: set[tuple[int, int]] = set()
    for top, _, names in os.walk(folder):
        for name in names:
            info = os.lstat(os.path.join(top, name))
            if stat.S_ISREG(info.st_mode) and (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                count += 1
                size += info.st_size
    return count, size


def _evict(folder: str) -> None:
    """Drop every regular file under ``folder`` from the page cache."""
    for top, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="/usr")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="read from the disk, not the cache")
    parser.add_argument("--jobs", type=int, help="dupfinder -j (reading threads: 2 x jobs)")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset")
    parser.add_argument("--quick", action="store_true", help="/usr/share, one run per tool")
    parser.add_argument(
        "--before",
        metavar="SOURCE",
        help="also run the dupfinder of this source tree (e.g. `git archive REV | tar -x -C DIR`)"
        " in the same rounds, as 'dupfinder-before'",
    )
    args = parser.parse_args(argv)
    if args.before:
        before = os.path.realpath(args.before)
        TOOLS["dupfinder-before"] = lambda folder, work: _dupfinder(folder, work, before)
        args.tools += ",dupfinder-before"
    if args.quick:
        args.folder, args.repeat = "/usr/share", 1
    if args.jobs:
        _JOBS[:] = ["-j", str(args.jobs)]
    folder = os.path.realpath(args.folder)
    files, size = _folder_size(folder)
    cache = "cold (evicted before each run)" if args.cold else "warm cache"
    print(
        f"{folder}: {files:,} files, {size / 1e6:,.0f} MB; {args.repeat} rounds (every tool "
        f"once a round), best wall and best CPU of each; {cache}"
    )
    tools = [t for t in TOOLS if t in args.tools.split(",")]
    for tool in [t for t in tools if not t.startswith("dupfinder") and shutil.which(t) is None]:
        print(f"{tool}: not installed (apt-get install {tool})")
        tools.remove(tool)
    timings: dict[str, list[tuple[float, float, Sets]]] = {tool: [] for tool in tools}
    with tempfile.TemporaryDirectory(prefix="bench-identical-") as work:
        if not args.cold:
            for tool in tools:
                TOOLS[tool](folder, work)  # warms the page cache (and Python's compiled modules)
        for _ in range(args.repeat):  # rounds: a spell of load on the machine hits every tool
            for tool in tools:
                if args.cold:
                    _evict(folder)
                timings[tool].append(TOOLS[tool](folder, work))
    runs = _report(timings, files, size)
    OUT.parent.mkdir(exist_ok=True)
    data = {
        "folder": folder,
        "files": files,
        "bytes": size,
        "cold": args.cold,
        "dupfinder_jobs": args.jobs,
        "load_average": os.getloadavg(),
        "runs": [asdict(r) for r in runs],
    }
    out = OUT.with_name(f"{OUT.stem}{'-cold' if args.cold else ''}.json")
    out.write_text(json.dumps(data, indent=2) + "\n")
    return 0


def _report(
    timings: dict[str, list[tuple[float, float, Sets]]], files: int, size: int
) -> list[Run]:
    """One line per tool (best wall, best CPU, its sets against dupfinder's) and the ratios."""
    runs: list[Run] = []
    reference = timings["dupfinder"][0][2] if "dupfinder" in timings else None
    for tool, rounds in timings.items():
        wall = min(r[0] for r in rounds)
        cpu = min(r[1] for r in rounds)
        sets = rounds[0][2]
        same = None if tool == "dupfinder" or reference is None else sets == reference
        steady = all(r[2] == sets for r in rounds)
        run = Run(tool, round(wall, 3), round(cpu, 3), len(sets), sum(len(s) for s in sets), same)
        runs.append(run)
        note = "" if same is None else f"  same sets: {same}"
        print(
            f"{tool:<16} {wall:7.2f} s wall {cpu:7.3f} s CPU  {files / wall:9,.0f} files/s "
            f"{size / 1e6 / wall:8,.0f} MB/s  {len(sets):,} sets, {run.files_in_sets:,} files"
            f"{note}{'' if steady else '  (sets differ between rounds)'}"
        )
        if same is False and reference is not None:
            print(f"   only {tool}: {sorted(map(sorted, sets - reference))[:3]}")
            print(f"   only dupfinder: {sorted(map(sorted, reference - sets))[:3]}")
    ours = next((r for r in runs if r.tool == "dupfinder"), None)
    if ours is not None:
        ratios = [f"{r.tool} {ours.cpu / r.cpu:.2f}x" for r in runs if r is not ours and r.cpu]
        print("dupfinder's best CPU against theirs: " + ", ".join(ratios))
        spreads = [
            f"{tool} {_spread(_round_ratios(timings, tool))}"
            for tool in timings
            if tool != "dupfinder" and _round_ratios(timings, tool)
        ]
        print("round by round (lowest, median, highest): " + ", ".join(spreads))
    return runs


def _round_ratios(timings: dict[str, list[tuple[float, float, Sets]]], tool: str) -> list[float]:
    """dupfinder's CPU over ``tool``'s in each round: the two ran within seconds of each
    other, so a spell of load on the shared machine weighs on both."""
    pairs = zip(timings["dupfinder"], timings[tool], strict=True)
    return sorted(ours[1] / theirs[1] for ours, theirs in pairs if theirs[1])


def _spread(ratios: list[float]) -> str:
    return f"{ratios[0]:.2f}/{ratios[len(ratios) // 2]:.2f}/{ratios[-1]:.2f}x"


if __name__ == "__main__":
    raise SystemExit(main())
