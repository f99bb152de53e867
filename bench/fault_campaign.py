"""Fault campaign: the slow and violent ways to lose files, run against the command line.

Each scenario builds real files in a scratch folder, runs ``dupfinder`` in child processes
(as a user or a script would), does something hostile (a second apply at the same moment,
SIGKILL at a random point, a disk that fills, a trash with tens of thousands of entries),
then checks every file: the bytes of every file are still somewhere dupfinder can give back
(its place, the trash entry the journal names, the move destination) and undo brings them
back byte for byte. The report counts files lost (must be 0) and leftovers (temporary
files, half-made trash entries).

    python -m bench.fault_campaign [--quick] [--only NAME ...]

Full disks and a cross-device move need root (tmpfs mounts); they are skipped otherwise.
Figures go to stdout and bench/out/fault_campaign.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"
RESULT_VERSION = 1


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Sandbox:
    """A scratch folder with its own home, trash, journal and action lock."""

    #: another dupfinder checkout to run instead of this one (``--code``), to compare releases
    code: str | None = None

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.data.mkdir(parents=True)
        self.env = dict(os.environ)
        for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
            self.env[name] = str(root / name.lower())
        self.env["HOME"] = str(root / "home")
        if self.code:
            self.env["PYTHONPATH"] = self.code
        Path(self.env["HOME"]).mkdir()
        self.journal = root / "journal.jsonl"

    def pairs(self, count: int, size: int = 64) -> list[tuple[Path, Path]]:
        made = []
        for i in range(count):
            folder = self.data / f"{i // 1000:03d}"
            folder.mkdir(exist_ok=True)
            body = (f"copy {i} " * (size // 8 + 1))[:size].encode()
            a, b = folder / f"{i}-a.txt", folder / f"{i}-b.txt"
            a.write_bytes(body)
            b.write_bytes(body)
            os.utime(a, ns=(10**18, 10**18 + i))
            os.utime(b, ns=(10**18, 10**18 + 10**9 + i))
            made.append((a, b))
        return made

    def result_file(self, pairs: list[tuple[Path, Path]]) -> Path:
        groups = []
        for a, b in pairs:
            members = []
            for p in (a, b):
                st = p.stat()
                members.append(
                    {
                        "path": str(p),
                        "size": st.st_size,
                        "mtime_ns": st.st_mtime_ns,
                        "distance": 0,
                        "fingerprint": "0" * 16,
                        "dev": st.st_dev,
                        "ino": st.st_ino,
                        "ctime_ns": st.st_ctime_ns,
                    }
                )
            groups.append({"kind": "text", "members": members})
        path = self.root / "result.json"
        path.write_text(json.dumps({"version": 1, "groups": groups}))
        return path

    def dupfinder(self, *argv: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "dupfinder", *argv],
            env=self.env,
            cwd=self.root,  # not this checkout's folder: --code must decide which dupfinder runs
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def run(self, *argv: str) -> tuple[int, str]:
        proc = self.dupfinder(*argv)
        _, err = proc.communicate()
        return proc.returncode, err.decode(errors="replace")

    def apply(self, result: Path, *extra: str) -> subprocess.Popen[bytes]:
        return self.dupfinder("apply", str(result), "--yes", "--journal", str(self.journal), *extra)

    def undo(self) -> tuple[int, str]:
        return self.run("undo", "--journal", str(self.journal))

    def leftovers(self) -> int:
        """Temporary files and trash entries half made (info without file or file without info)."""
        count = sum(1 for p in self.root.rglob("*.dupfinder-*.tmp"))
        for info_dir in self.root.rglob("Trash*/info"):
            files = info_dir.parent / "files"
            names = {p.name for p in files.iterdir()} if files.exists() else set()
            infos = {p.name[: -len(".trashinfo")] for p in info_dir.iterdir()}
            count += len(names ^ infos)
        return count


def _lost(before: dict[Path, str]) -> int:
    """Files whose bytes are not back at their place after undo."""
    return sum(1 for p, d in before.items() if not p.exists() or _digest(p) != d)


def _snapshot(pairs: list[tuple[Path, Path]]) -> dict[Path, str]:
    return {p: _digest(p) for pair in pairs for p in pair}


def scenario_two_paths(box: Sandbox, quick: bool) -> dict[str, Any]:
    """A folder scanned with its symlink, keep shortest path, delete permanently."""
    folder = box.data / "docs"
    folder.mkdir()
    for i in range(3):
        words = " ".join(f"w{(i * 7 + j * (i + 3)) % 97}" for j in range(120))
        (folder / f"doc{i}.txt").write_text(words)
    (box.data / "link").symlink_to("docs")
    before = {p: _digest(p) for p in folder.iterdir()}
    code, _err = box.run(
        "scan",
        str(folder),
        str(box.data / "link"),
        "--no-cache",
        "--keep",
        "shortest-path",
        "--action",
        "delete",
        "--yes",
        "--journal",
        str(box.journal),
    )
    return {"exit": code, "lost": _lost(before), "leftovers": box.leftovers()}


def scenario_concurrent(box: Sandbox, quick: bool) -> dict[str, Any]:
    """Two applies of one result with opposite keep rules, started together."""
    pairs = box.pairs(300 if quick else 2000)
    result = box.result_file(pairs)
    procs = [
        box.apply(result, "--keep", keep, "--action", "delete") for keep in ("oldest", "newest")
    ]
    for proc in procs:
        proc.communicate()
    emptied = sum(1 for a, b in pairs if not a.exists() and not b.exists())
    return {
        "groups": len(pairs),
        "groups_emptied": emptied,
        "lost": 2 * emptied,
        "leftovers": box.leftovers(),
    }


def scenario_sigkill(box: Sandbox, quick: bool) -> dict[str, Any]:
    """SIGKILL at a random moment of a trash apply, then undo; many rounds."""
    rounds = 5 if quick else 20
    pairs = box.pairs(400)
    before = _snapshot(pairs)
    result = box.result_file(pairs)
    rng = random.Random(7)
    lost = leftovers = 0
    for _ in range(rounds):
        proc = box.apply(result, "--keep", "oldest")
        time.sleep(rng.uniform(0.3, 1.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        box.undo()
        lost += _lost(before)
        leftovers += box.leftovers()
        before = _snapshot(pairs)
    return {"rounds": rounds, "lost": lost, "leftovers": leftovers}


def _mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True
    )
    return done.returncode == 0


def _umount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def scenario_full_journal_disk(box: Sandbox, quick: bool) -> dict[str, Any]:
    """The journal's disk fills during an apply: it stops, says so, and undo works."""
    disk = box.root / "small"
    if not _mount_tmpfs(disk, "64k"):
        return {"skipped": "needs root (tmpfs)"}
    try:
        box.journal = disk / "journal.jsonl"
        pairs = box.pairs(600)
        before = _snapshot(pairs)
        result = box.result_file(pairs)
        proc = box.apply(result, "--keep", "oldest")
        _, err = proc.communicate()
        stopped = b"stopped early" in err
        done = sum(1 for _, b in pairs if not b.exists())
        # the user makes room, then undoes
        subprocess.run(["mount", "-o", "remount,size=4m", str(disk)], capture_output=True)
        code, _ = box.undo()
        return {
            "exit": proc.returncode,
            "said_stopped": stopped,
            "trashed_before_stop": done,
            "undo_exit": code,
            "lost": _lost(before),
            "leftovers": box.leftovers(),
        }
    finally:
        _umount(disk)


def scenario_full_data_disk(box: Sandbox, quick: bool) -> dict[str, Any]:
    """Files on a full disk: the trash entry cannot be written; every file stays put."""
    disk = box.root / "full"
    if not _mount_tmpfs(disk, "1m"):
        return {"skipped": "needs root (tmpfs)"}
    try:
        files = []
        for i in range(20):
            a, b = disk / f"{i}-a.bin", disk / f"{i}-b.bin"
            a.write_bytes(b"x" * 20_000)
            b.write_bytes(b"x" * 20_000)
            os.utime(b, ns=(10**18, 10**18))
            files.append((a, b))
        before = _snapshot(files)
        try:  # fill what is left (closing flushes the last buffer into a full disk too)
            with open(disk / "filler", "wb") as filler:
                while True:
                    filler.write(b"\0" * 4096)
                    filler.flush()
        except OSError:
            pass
        result = box.result_file(files)
        proc = box.apply(result, "--keep", "oldest")
        proc.communicate()
        (disk / "filler").unlink()
        box.undo()
        return {"exit": proc.returncode, "lost": _lost(before), "leftovers": box.leftovers()}
    finally:
        _umount(disk)


def scenario_killed_cross_device_move(box: Sandbox, quick: bool) -> dict[str, Any]:
    """SIGKILL during the copy of a big file to another filesystem; the next run cleans up."""
    disk = box.root / "other"
    if not _mount_tmpfs(disk, "256m"):
        return {"skipped": "needs root (tmpfs)"}
    try:
        big = 58 * 1024 * 1024
        a, b = box.data / "big-a.bin", box.data / "big-b.bin"
        chunk = os.urandom(1 << 20)
        for p in (a, b):
            with open(p, "wb") as out:
                for _ in range(big >> 20):
                    out.write(chunk)
        os.utime(b, ns=(10**18, 10**18))
        before = _snapshot([(a, b)])
        result = box.result_file([(a, b)])
        proc = box.apply(result, "--keep", "oldest", "--action", f"move:{disk}")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not list(disk.rglob("*.tmp")):
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        tmp_seen = len(list(disk.rglob("*.tmp")))
        box.undo()  # the next run clears what the killed one left
        return {
            "tmp_seen_after_kill": tmp_seen,
            "lost": _lost(before),
            "leftovers": box.leftovers() + len(list(disk.rglob("*.tmp"))),
        }
    finally:
        _umount(disk)


def _rate(stamps: list[float], window: int) -> tuple[float, float]:
    first = stamps[window] - stamps[0]
    last = stamps[-1] - stamps[-1 - window]
    return window / max(first, 1e-9), window / max(last, 1e-9)


def scenario_big_trash(box: Sandbox, quick: bool) -> dict[str, Any]:
    """Trash 50,000 files (into a trash already holding 20,000), then undo: files/s at the
    start and the end of each run (a constant rate means no search of the trash)."""
    count = 5_000 if quick else 50_000
    old = 2_000 if quick else 20_000
    trash = Path(box.env["XDG_DATA_HOME"]) / "Trash"
    (trash / "files").mkdir(parents=True)
    (trash / "info").mkdir()
    for i in range(old):
        (trash / "files" / f"old-{i}.txt").write_text("old")
        (trash / "info" / f"old-{i}.txt.trashinfo").write_text(f"[Trash Info]\nPath=/old-{i}.txt\n")
    pairs = box.pairs(count)
    before = _snapshot(pairs)
    code = """
import json, sys, time
from dupfinder.core.actions import make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.results.report import load_result
from dupfinder.core.actions.undo import undo
result, _ = load_result(sys.argv[1])
journal = Journal(sys.argv[2])
marks = {g.members[1].path for g in result.groups}
stamps = []
def seen(progress):
    stamps.append(time.perf_counter())
apply(make_plan(result, marks), journal=journal, progress=seen)
applied, stamps = stamps, []
undo(journal=journal, progress=seen)
print(json.dumps({"apply": applied, "undo": stamps}))
"""
    result = box.result_file(pairs)
    done = subprocess.run(
        [sys.executable, "-c", code, str(result), str(box.journal)],
        env=box.env,
        capture_output=True,
        text=True,
        check=True,
    )
    stamps = json.loads(done.stdout)
    window = 1000 if not quick else 500
    apply_start, apply_end = _rate(stamps["apply"], window)
    undo_start, undo_end = _rate(stamps["undo"], window)
    return {
        "files": count,
        "trash_entries_before": old,
        "apply_files_per_s_start": round(apply_start),
        "apply_files_per_s_end": round(apply_end),
        "undo_files_per_s_start": round(undo_start),
        "undo_files_per_s_end": round(undo_end),
        "lost": _lost(before),
        "leftovers": box.leftovers(),
    }


SCENARIOS: dict[str, Callable[[Sandbox, bool], dict[str, Any]]] = {
    "two-paths": scenario_two_paths,
    "concurrent-applies": scenario_concurrent,
    "sigkill-mid-apply": scenario_sigkill,
    "journal-disk-full": scenario_full_journal_disk,
    "data-disk-full": scenario_full_data_disk,
    "sigkill-cross-device-move": scenario_killed_cross_device_move,
    "big-trash": scenario_big_trash,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer files and rounds")
    parser.add_argument("--only", nargs="*", choices=sorted(SCENARIOS), help="run only these")
    parser.add_argument(
        "--code", metavar="DIR", help="run another checkout of dupfinder (e.g. an older release)"
    )
    args = parser.parse_args(argv)
    Sandbox.code = args.code
    report: dict[str, Any] = {"version": RESULT_VERSION, "quick": args.quick, "scenarios": {}}
    total_lost = 0
    for name in args.only or SCENARIOS:
        with tempfile.TemporaryDirectory(
            prefix=f"dupfinder-fault-{name}-", dir=os.environ.get("FAULT_DIR")
        ) as tmp:
            started = time.perf_counter()
            figures = SCENARIOS[name](Sandbox(Path(tmp)), args.quick)
            figures["seconds"] = round(time.perf_counter() - started, 1)
            print(f"{name:<28} {json.dumps(figures)}", flush=True)  # before the slow clean-up
        total_lost += int(figures.get("lost", 0))
        report["scenarios"][name] = figures
    report["files_lost"] = total_lost
    print(f"files lost: {total_lost}")
    OUT.mkdir(exist_ok=True)
    name = "fault_campaign-other.json" if args.code else "fault_campaign.json"
    (OUT / name).write_text(json.dumps(report, indent=2) + "\n")
    return 1 if total_lost else 0


if __name__ == "__main__":
    sys.exit(main())
