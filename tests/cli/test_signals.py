"""A signal to the command line's main process stops a scan at once and cleanly.

Each test scans a folder where one file never finishes reading (a hook on the workers'
path makes reading it sleep for an hour), so a command line that waited for the files in
hand would not return: the test sees it return, with the signal's exit code, no traceback,
no "leaked semaphore" from the multiprocessing resource tracker, and no worker left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from scan_helpers import essay, write

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: Loaded by every interpreter of the scan (the command, its fork server, its workers):
#: fingerprinting a file named ``never-ends`` announces itself, then sleeps for an hour.
_HOOK = """\
import os, time
from dupfinder.core.fingerprints import worker

_plain = worker.fingerprint_file

def _slow(task, **kwargs):
    if "never-ends" in task.path:
        open(os.environ["SLOW_MARKER"], "w").close()
        time.sleep(3600)
    return _plain(task, **kwargs)

worker.fingerprint_file = _slow
"""


def _slow_scan(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    folder = tmp_path / "folder"
    for i in range(60):  # more than a scan reads without its pool
        write(folder / f"doc{i:03d}.txt", essay(i))
    write(folder / "never-ends.txt", essay(999))
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_HOOK)
    marker = tmp_path / "reading"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")]),
        "SLOW_MARKER": str(marker),
    }
    argv = [sys.executable, "-m", "dupfinder", "scan", str(folder), "--no-cache", "-j", "2"]
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the slow file was never read"
        time.sleep(0.05)
    return process, marker


def _descendants(pid: int) -> list[int]:
    import psutil

    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_scan_without_waiting_for_the_files_in_hand(
    tmp_path: Path, signum: int, code: int
) -> None:
    process, _ = _slow_scan(tmp_path)
    workers = _descendants(process.pid)
    process.send_signal(signum)
    try:
        _, err = process.communicate(timeout=60)  # the file in hand would take an hour
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == code, err
    assert "scan cancelled" in err
    assert "leaked semaphore" not in err
    assert "Traceback" not in err
    assert _all_gone(workers), "a worker process outlived the command"


def _all_gone(pids: list[int]) -> bool:
    """Whether every process of ``pids`` has ended (a zombie not yet reaped has): the fork
    server and resource tracker see their parent's end through a pipe, on a busy machine a
    moment later; a worker left computing would run on for an hour."""
    import psutil

    deadline = time.monotonic() + 60
    while True:
        running = []
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    running.append(pid)
            except psutil.NoSuchProcess:
                continue
        if not running or time.monotonic() > deadline:
            return not running
        time.sleep(0.1)
