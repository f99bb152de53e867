"""What a reader prints never reaches the terminal: stdout keeps the JSON contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Loaded at start-up by every Python process of the scan (the CLI, the fork server and the
#: workers it forks): it wraps each reader in one that prints every way a library can.
NOISY_READERS = """
import logging, os, sys, warnings
import dupfinder.core.extract as extract

_original = extract._reader

def _noisy(fmt):
    reader = _original(fmt)
    def read(path, max_bytes):
        print("NOISE on sys.stdout")
        print("NOISE on sys.stderr", file=sys.stderr)
        os.write(1, b"NOISE on fd 1\\n")
        os.write(2, b"NOISE on fd 2\\n")
        warnings.warn("NOISE as a warning")
        logging.getLogger("some.library").error("NOISE as a log record")
        return reader(path, max_bytes)
    return read

extract._reader = _noisy
"""


def _corpus(root: Path, files: int) -> Path:
    folder = root / "docs"
    folder.mkdir()
    for number in range(files):
        words = " ".join(f"word{(number // 2) * 50 + i}" for i in range(50))
        (folder / f"note-{number:03d}.txt").write_text(f"Note about {words}.\n")
    return folder


@pytest.mark.parametrize(("files", "jobs"), [(4, 1), (60, 2)], ids=["in-process", "pool"])
def test_json_on_stdout_stays_valid_whatever_a_reader_prints(
    tmp_path: Path, files: int, jobs: int
) -> None:
    folder = _corpus(tmp_path, files)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(NOISY_READERS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hooks), *sys.path])}
    command = ["scan", str(folder), "--format", "json", "--jobs", str(jobs), "--no-cache"]
    done = subprocess.run(
        [sys.executable, "-m", "dupfinder", *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: groups were found
    result = json.loads(done.stdout)
    assert len(result["groups"]) == files // 2
    assert "NOISE" not in done.stderr
