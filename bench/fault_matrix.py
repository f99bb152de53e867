"""Fault matrix: every action against every way a removal can be fooled, counted by digests.

Each scenario makes a scratch world (documents, copies, a unique file, a trash, a journal),
writes a results file the way a scan or a hostile hand would, then runs ``dupfinder apply`` in
a child process with one fault injected at the worst moment (the kept file rewritten,
replaced or deleted mid-apply, the file's name swapped with a unique file's, a forged
results file, one file under two names, a ``..`` through a link, SIGKILL, a second apply
with the opposite keep rule, ...), then ``dupfinder undo``. Before and after, every regular
file under the scratch folder (trash and move destinations included) is hashed: a content
is *lost* when its digest was there before and is nowhere after. A traceback on stderr is
counted too. 20 faults x 5 actions = 100 scenarios; ``--only`` picks some.

    python -m bench.fault_matrix [--only FAULT ...] [--actions trash delete ...]

Figures go to stdout and bench/out/fault_matrix.json (the README's table comes from it).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"
ACTIONS = ("trash", "delete", "move", "hardlink", "symlink")
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def document(seed: int, words: int = 200) -> str:
    return " ".join(
        WORDS[(i * (seed + 3) + seed) % len(WORDS)] + str(i % (seed + 5)) for i in range(words)
    )


def digests(root: Path) -> collections.Counter[str]:
    """Every regular file's content under ``root`` (links not followed)."""
    found: collections.Counter[str] = collections.Counter()
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as handle:
                    found[hashlib.sha256(handle.read()).hexdigest()] += 1
    return found


class World:
    """A scratch folder: data, a home with its trash, a journal, a results file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.kept = self.data / "kept"
        self.kept.mkdir(parents=True)
        self.env = dict(os.environ)
        for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
            self.env[name] = str(root / name.lower())
        self.env["HOME"] = str(root / "home")
        Path(self.env["HOME"]).mkdir()
        self.env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
        self.journal = root / "journal.jsonl"
        self.keep = self.kept / "report.txt"
        self.copy = self.data / "report copy.txt"
        self.unique = self.data / "unique.txt"
        self.keep.write_text(document(1))
        self.copy.write_text(document(1))
        self.unique.write_text(document(2))

    def member(self, path: Path, *, copy: bool, at: str | None = None) -> dict[str, Any]:
        st = path.stat()
        data = {
            "path": at or str(path),
            "size": st.st_size,
            "mtime_ns": st.st_mtime_ns,
            "distance": 0,
            "fingerprint": "0000000000000abc",
            "dev": st.st_dev,
            "ino": st.st_ino,
            "ctime_ns": st.st_ctime_ns,
        }
        if copy:
            data["content_hash"] = hashlib.sha256(path.read_bytes()).hexdigest()[:32]
        return data

    def results(self, members: list[dict[str, Any]], name: str = "result.json") -> Path:
        path = self.root / name
        document_ = {"version": 1, "groups": [{"kind": "text", "members": members}]}
        path.write_text(json.dumps(document_))
        return path

    def apply_argv(self, result: Path, action: str, *extra: str) -> list[str]:
        chosen = f"move:{self.root / 'moved'}" if action == "move" else action
        return [
            "apply", str(result), "--keep", f"in:{self.kept}", "--action", chosen, "--yes",
            "--journal", str(self.journal), *extra,
        ]  # fmt: skip

    def child(
        self, argv: list[str], fault: str, extra_env: dict[str, str] | None = None
    ) -> tuple[int, str]:
        env = dict(self.env, FAULT=fault, KEEP=str(self.keep), COPY=str(self.copy))
        env.update(UNIQUE=str(self.unique), **(extra_env or {}))
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, json.dumps(argv)],
            env=env,
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return proc.returncode, proc.stderr


#: The child: a dupfinder command line with one fault hooked into apply at the worst moment.
CHILD = textwrap.dedent(
    """
    import json, os, sys
    from dupfinder.core.actions import apply as A

    fault, keep, copy, unique = (os.environ[k] for k in ("FAULT", "KEEP", "COPY", "UNIQUE"))
    fired = []

    def once(action):
        if not fired:
            fired.append(1)
            action()

    def swap():
        os.rename(copy, copy + ".swap")
        os.rename(unique, copy)
        os.rename(copy + ".swap", unique)

    def rewrite_kept():
        with open(keep, "r+b") as handle:
            handle.write(b"SOMEBODY SAVED OVER IT")

    def replace_kept():
        with open(keep + ".new", "w") as handle:
            handle.write("another file under the kept name")
        os.replace(keep + ".new", keep)

    mid_apply = {
        "kept-rewritten": rewrite_kept,
        "kept-replaced": replace_kept,
        "kept-deleted": lambda: os.unlink(keep),
        "name-swapped": swap,
    }
    if fault in mid_apply:
        hook = mid_apply[fault]
        for name in ("_claim", "send_to_trash", "move_no_overwrite"):
            real = getattr(A, name)
            def wrapped(*args, _real=real, **kwargs):
                once(hook)
                return _real(*args, **kwargs)
            setattr(A, name, wrapped)
        real_link = A.os.link
        def link(*args, **kwargs):
            once(hook)
            return real_link(*args, **kwargs)
        A.os.link = link
    from dupfinder.cli import main
    sys.exit(main(json.loads(sys.argv[1])))
    """
)


def run_scenario(fault: str, action: str, root: Path) -> dict[str, Any]:
    world = World(root)
    plain = [world.member(world.keep, copy=True), world.member(world.copy, copy=True)]
    result = world.results(plain)
    argv = world.apply_argv(result, action)
    env: dict[str, str] = {}
    prepare = PREPARE.get(fault)
    if prepare is not None:
        argv = prepare(world, action) or argv
    before = digests(root)
    code, err = 0, ""
    if fault == "sigkill":
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, json.dumps(argv)],
            env=dict(world.env, FAULT="none", KEEP=str(world.keep), COPY=str(world.copy), UNIQUE=str(world.unique)),
            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        time.sleep(0.35)
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate()
        code, err2 = world.child(world.apply_argv(result, action, "--dry-run"), "none")
        err += err2
    elif fault == "concurrent-opposite":
        other = dict(world.env, XDG_DATA_HOME=str(root / "second-data"))
        opposite = world.apply_argv(result, action)
        opposite[opposite.index("--keep") + 1] = "newest"
        opposite[opposite.index("--journal") + 1] = str(root / "second.jsonl")
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", CHILD, json.dumps(a)],
                env=dict(
                    e,
                    FAULT="none",
                    KEEP=str(world.keep),
                    COPY=str(world.copy),
                    UNIQUE=str(world.unique),
                ),
                cwd=root,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for a, e in ((argv, world.env), (opposite, other))
        ]
        for proc in procs:
            _, part = proc.communicate(timeout=120)
            err += part
    else:
        code, err = world.child(argv, fault, env)
    after_apply = digests(root)
    lost = sum(1 for digest in before if digest not in after_apply)
    undo_code, undo_err = world.child(["undo", "--journal", str(world.journal)], "none")
    after_undo = digests(root)
    lost_after_undo = sum(1 for digest in before if digest not in after_undo)
    tracebacks = (err + undo_err).count("Traceback")
    return {
        "lost": max(lost, lost_after_undo),
        "tracebacks": tracebacks,
        "exit": code,
        "undo_exit": undo_code,
        "copy_still_there": world.copy.exists(),
        "unique_intact": any(
            p.read_text(errors="replace") == document(2)
            for p in root.rglob("*")
            if p.is_file() and not p.is_symlink()
        ),
    }


# --- how each fault prepares its world (argv returned when it changes) ---------------------


def _forged_identical(world: World, action: str) -> list[str]:
    forged = world.member(world.unique, copy=False)
    forged["content_hash"] = world.member(world.keep, copy=True)["content_hash"]
    return world.apply_argv(world.results([world.member(world.keep, copy=True), forged]), action)


def _forged_near(world: World, action: str) -> list[str]:
    members = [world.member(world.keep, copy=False), world.member(world.unique, copy=False)]
    return world.apply_argv(world.results(members), action)


def _hardlinked_names(world: World, action: str) -> list[str]:
    second = world.data / "second name.txt"
    os.link(world.keep, second)
    members = [world.member(world.keep, copy=True), world.member(second, copy=True)]
    return world.apply_argv(world.results(members), action)


def _folder_link(world: World, action: str) -> list[str]:
    (world.data / "kept-link").symlink_to(world.kept)
    via = str(world.data / "kept-link" / world.keep.name)
    members = [world.member(world.keep, copy=True), world.member(world.keep, copy=True, at=via)]
    return world.apply_argv(world.results(members), action)


def _dotdot(world: World, action: str) -> list[str]:
    other = world.root / "elsewhere" / "sub"
    other.mkdir(parents=True)
    (world.data / "hop").symlink_to(other)
    victim = world.root / "elsewhere" / "victim.txt"
    victim.write_text(document(3))
    lexical = world.data / "victim.txt"
    lexical.write_text(document(1))
    through = str(world.data / "hop" / ".." / "victim.txt")
    members = [world.member(world.keep, copy=True), world.member(lexical, copy=True, at=through)]
    return world.apply_argv(world.results(members), action)


def _wrong_identity(world: World, action: str) -> list[str]:
    lying = world.member(world.copy, copy=True)
    unique = world.unique.stat()
    lying["dev"], lying["ino"] = unique.st_dev, unique.st_ino
    return world.apply_argv(world.results([world.member(world.keep, copy=True), lying]), action)


def _rewritten_after_scan(world: World, action: str) -> None:
    time.sleep(0.01)
    world.copy.write_text(document(4))


def _vanished(world: World, action: str) -> None:
    world.copy.unlink()


def _fifo(world: World, action: str) -> None:
    world.copy.unlink()
    os.mkfifo(world.copy)


def _long_name(world: World, action: str) -> list[str]:
    long = world.data / ("n" * 250 + ".txt")
    long.write_text(document(1))
    members = [world.member(world.keep, copy=True), world.member(long, copy=True)]
    return world.apply_argv(world.results(members), action)


def _hostile_name(world: World, action: str) -> list[str]:
    odd = world.data / "\x1b[31mred\u202etxt.exe\n.txt"
    odd.write_text(document(1))
    members = [world.member(world.keep, copy=True), world.member(odd, copy=True)]
    return world.apply_argv(world.results(members), action)


def _folder_replaced_by_link(world: World, action: str) -> None:
    """The copy's folder is replaced by a link to a folder holding a unique file of that name
    after the scan."""
    folder = world.data / "sub"
    folder.mkdir()
    moved = folder / world.copy.name
    os.rename(world.copy, moved)
    world.copy = moved
    world.results([world.member(world.keep, copy=True), world.member(moved, copy=True)])
    decoy = world.root / "decoy"
    decoy.mkdir()
    (decoy / moved.name).write_text(document(5))
    os.rename(folder, world.root / "sub-away")
    folder.symlink_to(decoy)


def _empty_path(world: World, action: str) -> list[str]:
    return ["apply", "", "--yes", "--journal", str(world.journal)]


PREPARE: dict[str, Callable[[World, str], list[str] | None]] = {
    "forged-identical": _forged_identical,
    "forged-near": _forged_near,
    "one-file-two-names": _hardlinked_names,
    "folder-through-link": _folder_link,
    "dotdot-through-link": _dotdot,
    "results-wrong-identity": _wrong_identity,
    "rewritten-after-scan": _rewritten_after_scan,
    "vanished": _vanished,
    "fifo-in-place": _fifo,
    "name-254-bytes": _long_name,
    "hostile-name": _hostile_name,
    "folder-replaced-by-link": _folder_replaced_by_link,
    "empty-path": _empty_path,
}
FAULTS = (
    "none",
    "kept-rewritten",
    "kept-replaced",
    "kept-deleted",
    "name-swapped",
    *PREPARE,
    "sigkill",
    "concurrent-opposite",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="*", choices=FAULTS, help="run only these faults")
    parser.add_argument("--actions", nargs="*", choices=ACTIONS, help="run only these actions")
    args = parser.parse_args(argv)
    rows: dict[str, dict[str, Any]] = {}
    lost = tracebacks = 0
    for fault in args.only or FAULTS:
        for action in args.actions or ACTIONS:
            folder = tempfile.mkdtemp(prefix="dupfinder-matrix-")
            try:
                figures = run_scenario(fault, action, Path(folder))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            rows[f"{fault}/{action}"] = figures
            lost += figures["lost"]
            tracebacks += figures["tracebacks"]
            print(f"{fault:<26} {action:<9} {json.dumps(figures)}", flush=True)
    print(f"scenarios: {len(rows)}  content lost: {lost}  tracebacks: {tracebacks}")
    OUT.mkdir(exist_ok=True)
    report = {"version": 1, "scenarios": rows, "lost": lost, "tracebacks": tracebacks}
    (OUT / "fault_matrix.json").write_text(json.dumps(report, indent=2) + "\n")
    return 1 if lost or tracebacks else 0


if __name__ == "__main__":
    sys.exit(main())
