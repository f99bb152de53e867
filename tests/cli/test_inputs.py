"""Inputs and messages of the command line: empty and over-long paths are usage errors, file
names are shown escaped to people (never to scripts), and what used to end in a traceback
(a folder in place of the lock, an unreadable journal, a results path that is a FIFO) ends
in one clear line and an exit code.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from dupfinder.cli import EXIT_FATAL, EXIT_OK, EXIT_USAGE, main
from dupfinder.core.actions import lock as lock_module

TEXT = "The same few sentences, word for word, in every copy of this small file. " * 4
ESCAPE = "\x1b[31mred\x1b[0m"
REVERSED = "\u202etxt.exe"
LONG = "x" * 5000


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def copies(folder: Path, *names: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for age, name in enumerate(names, start=1):
        path = folder / name
        path.write_text(TEXT)
        os.utime(path, (age * 1_000_000, age * 1_000_000))
        paths.append(path)
    return paths


def raw_controls(text: str) -> list[str]:
    """Characters a terminal would act on rather than show."""
    return [c for c in text if (ord(c) < 32 and c not in "\n") or c in "\x7f\u202e\u2066\u200f"]


# --- empty and over-long paths ------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("scan", ""),
        ("scan", "{dir}", ""),
        ("scan", "{dir}", "--reference", ""),
        ("scan", "{dir}", "--output", ""),
        ("scan", "{dir}", "--cache-dir", ""),
        ("scan", "{dir}", "--keep", "oldest", "--journal", ""),
        ("similar", ""),
        ("similar", "{file}", ""),
        ("apply", ""),
        ("apply", "{result}", "--keep", "oldest", "--journal", ""),
        ("undo", "--journal", ""),
        ("ignore", "", "--group", "1"),
        ("decisions", "list", "--decisions", ""),
    ],
)
def test_an_empty_path_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    folder = tmp_path / "docs"
    files = copies(folder, "a.txt", "b.txt")
    result = tmp_path / "result.json"
    result.write_text('{"version": 1, "groups": []}')
    monkeypatch.chdir(folder)  # an empty path must never mean "here"
    filled = [a.format(dir=folder, file=files[0], result=result) for a in args]
    code, out, err = run(*filled)
    assert code == EXIT_USAGE, (out, err)
    assert "empty" in err
    assert all(f.exists() for f in files)


@pytest.mark.parametrize(
    "args",
    [
        ("scan", LONG),
        ("scan", "{dir}", "--reference", LONG),
        ("similar", LONG),
        ("apply", LONG),
        ("undo", "--journal", LONG),
        ("ignore", LONG, "--group", "1"),
    ],
)
def test_a_5000_byte_path_is_a_usage_error(tmp_path: Path, args: tuple[str, ...]) -> None:
    folder = tmp_path / "docs"
    copies(folder, "a.txt")
    code, out, err = run(*(a.format(dir=folder) for a in args))
    assert code == EXIT_USAGE, (out, err[:300])
    assert "too long" in err
    assert LONG not in err  # the message does not repeat 5,000 bytes


# --- names shown to people ------------------------------------------------------------------


@pytest.fixture
def hostile(tmp_path: Path) -> list[Path]:
    return copies(tmp_path / "docs", f"{ESCAPE}.txt", f"{REVERSED}", "plain.txt")


def test_the_text_table_shows_names_escaped(hostile: list[Path], tmp_path: Path) -> None:
    code, out, err = run("scan", str(hostile[0].parent), "--no-cache")
    assert code == EXIT_OK, err
    assert raw_controls(out) == []
    assert "\\x1b[31mred\\x1b[0m.txt" in out
    assert "\\u202etxt.exe" in out


def test_json_keeps_names_exactly(hostile: list[Path]) -> None:
    code, out, err = run("scan", str(hostile[0].parent), "--no-cache", "--format", "json")
    assert code == EXIT_OK, err
    names = {Path(m["path"]).name for g in json.loads(out)["groups"] for m in g["members"]}
    assert names == {p.name for p in hostile}


def test_the_plan_the_apply_report_and_undo_show_names_escaped(
    hostile: list[Path], tmp_path: Path
) -> None:
    journal = str(tmp_path / "journal.jsonl")
    folder = str(hostile[0].parent)
    moved = tmp_path / f"moved{ESCAPE}"
    code, out, err = run(
        "scan",
        folder,
        "--no-cache",
        "--keep",
        "newest",
        "--action",
        f"move:{moved}",
        "--yes",
        "--journal",
        journal,
    )
    assert code == EXIT_OK, err
    assert raw_controls(out + err) == []
    assert "\\u202etxt.exe" in out + err
    code, out, err = run("undo", "--list", "--journal", journal)
    assert code == EXIT_OK, err
    assert raw_controls(out + err) == []
    assert "moved\\x1b[31mred" in out
    code, out, err = run("undo", "--journal", journal)
    assert code == EXIT_OK, err
    assert raw_controls(out + err) == []
    assert "\\x1b[31mred\\x1b[0m.txt" in out
    assert all(p.exists() for p in hostile)


def test_problems_are_shown_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    copies(folder, "a.txt")
    (folder / f"{ESCAPE} short.txt").write_text("too short")
    code, out, err = run("scan", str(folder), "--no-cache", "--kind", "text")
    assert code == EXIT_OK, err
    assert raw_controls(out + err) == []
    assert "\\x1b[31mred" in out


# --- tracebacks that became messages -----------------------------------------------------


def test_a_folder_where_the_lock_goes_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = tmp_path / "state" / "actions.lock"
    lock.mkdir(parents=True)
    monkeypatch.setattr(lock_module, "default_lock_path", lambda: lock)
    files = copies(tmp_path / "docs", "a.txt", "b.txt")
    journal = str(tmp_path / "journal.jsonl")
    code, out, err = run(
        "scan",
        str(files[0].parent),
        "--no-cache",
        "--keep",
        "oldest",
        "--yes",
        "--journal",
        journal,
    )
    assert code == EXIT_FATAL, (out, err)
    assert "lock" in err
    assert "nothing was changed" in err
    assert all(p.exists() for p in files)
    code, out, err = run("undo", "--journal", journal)
    assert code == EXIT_FATAL, (out, err)
    assert "lock" in err


@pytest.mark.parametrize("what", ["fifo", "/dev/zero", "folder"])
def test_a_results_path_that_is_not_a_regular_file_is_refused(tmp_path: Path, what: str) -> None:
    if what == "fifo":
        target = tmp_path / "result.json"
        os.mkfifo(target)
    elif what == "folder":
        target = tmp_path / "result.json"
        target.mkdir()
    else:
        target = Path(what)
    code = textwrap.dedent(
        f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # /dev/zero read unbounded
        from dupfinder.cli import main
        sys.exit(main(["apply", {str(target)!r}, "--keep", "oldest"]))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_FATAL, done.stderr
    assert "not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("what", ["fifo", "folder"])
def test_a_journal_path_that_is_not_a_regular_file_is_refused(tmp_path: Path, what: str) -> None:
    target = tmp_path / "journal.jsonl"
    if what == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    code = textwrap.dedent(
        f"""
        import sys
        from dupfinder.cli import main
        sys.exit(main(["undo", "--journal", {str(target)!r}]))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_FATAL, done.stderr
    assert "not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder another account can reach (the test's own folder is private to root)."""
    where = Path(tempfile.mkdtemp(prefix="dupfinder-other-user-", dir="/tmp"))
    os.chmod(where, 0o755)
    try:
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another account")
def test_an_unreadable_journal_is_a_clear_error_for_another_account(shared_folder: Path) -> None:
    """Run as an account that may not read the journal (the process drops root first)."""
    files = copies(shared_folder / "docs", "a.txt", "b.txt")
    for path in (files[0].parent, *files):
        os.chmod(path, 0o777 if path.is_dir() else 0o666)
    journal = shared_folder / "journal.jsonl"
    journal.write_text('{"type": "session", "session": "x", "kind": "apply"}\n')
    os.chmod(journal, 0)
    state = shared_folder / "state"
    state.mkdir(mode=0o777)
    os.chmod(state, 0o777)
    result = shared_folder / "result.json"
    status, _, err = run(
        "scan", str(files[0].parent), "--no-cache", "--format", "json", "-o", str(result)
    )
    assert status == EXIT_OK, err
    os.chmod(result, 0o644)
    code = textwrap.dedent(
        f"""
        import os, sys
        from pathlib import Path
        import dupfinder.cli.actions_cmd, dupfinder.cli.scan_cmd
        import dupfinder.core.actions.apply, dupfinder.core.actions.undo
        import dupfinder.core.results.session, dupfinder.core.results.decisions
        from dupfinder.cli import main
        from dupfinder.core.actions import lock
        # what the commands import late, imported while this process may still read it
        warm = {str(state / "warm")!r}
        lock.default_lock_path = lambda: Path(warm + ".lock")
        for args in (["undo", "--list", "--journal", warm], ["undo", "--journal", warm],
                     ["apply", {str(result)!r}, "--keep", "oldest", "--journal", warm]):
            main(args, open(os.devnull, "w"), open(os.devnull, "w"))
        lock.default_lock_path = lambda: Path({str(state)!r}) / "actions.lock"
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        which = sys.argv[1]
        if which == "undo":
            args = ["undo", "--journal", {str(journal)!r}]
        elif which == "list":
            args = ["undo", "--list", "--journal", {str(journal)!r}]
        else:
            args = ["apply", {str(result)!r}, "--keep", "oldest", "--yes",
                    "--journal", {str(journal)!r}]
        sys.exit(main(args))
        """
    )
    env = {
        **os.environ,
        "HOME": str(state),
        "XDG_DATA_HOME": str(state),
        "XDG_CACHE_HOME": str(state),
        "XDG_CONFIG_HOME": str(state),
    }
    for which in ("apply", "undo", "list"):
        done = subprocess.run(
            [sys.executable, "-c", code, which],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            cwd=str(shared_folder),
        )
        assert done.returncode == EXIT_FATAL, (which, done.stdout, done.stderr)
        assert "cannot read the journal" in done.stderr, done.stderr
        assert "permission denied" in done.stderr.lower()
        assert "Traceback" not in done.stderr
    assert all(p.exists() for p in files)
    assert stat.S_IMODE(journal.stat().st_mode) == 0
