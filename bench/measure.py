"""CPU seconds of every process a command starts, its wall time and its peak memory.

A scan's work happens in its worker processes and their fork server, which are not the
command's own children, so ``RUSAGE_CHILDREN`` misses most of it. Where the cgroup v1
``cpuacct`` controller is writable (root on Linux), the command runs in a fresh cgroup of its
own and its CPU is the group's ``cpuacct.usage``: every thread of every process, exactly.
Elsewhere the process tree is sampled with psutil every 50 ms (each process's last sample:
a little under the truth). Peak memory is the largest sum of the tree's resident sets seen
at a sample (all processes together, as a person's machine feels them).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

__all__ = ["Measured", "group_cpu", "measure"]

_CPUACCT = Path("/sys/fs/cgroup/cpuacct")
_counter = itertools.count()


@dataclass(frozen=True, slots=True)
class Measured:
    wall: float
    cpu: float
    peak_mb: float
    returncode: int
    stdout: str
    stderr: str
    exact_cpu: bool


def _new_group() -> Path | None:
    if not (_CPUACCT / "cgroup.procs").exists():
        return None
    group = _CPUACCT / f"dupfinder-bench-{os.getpid()}-{next(_counter)}"
    try:
        group.mkdir()
        (group / "cpuacct.usage").read_text()
    except OSError:
        return None
    return group


def group_cpu() -> float | None:
    """CPU seconds of this process's own cpuacct group (None when it has none of its own)."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if "cpuacct" in controllers.split(",") and path != "/":
                return int((_CPUACCT / path.lstrip("/") / "cpuacct.usage").read_text()) / 1e9
    except (OSError, ValueError):
        return None
    return None


def measure(
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float | None = None,
) -> Measured:
    """Run ``argv`` to its end and measure it (see the module's docstring)."""
    group = _new_group()

    def enter() -> None:
        if group is not None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

    started = time.perf_counter()
    process = subprocess.Popen(
        list(argv),
        env=dict(env) if env is not None else None,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        preexec_fn=enter,
    )
    seen: dict[int, float] = {}
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        root = psutil.Process(process.pid)
        while not stop.is_set():
            try:
                tree = [root, *root.children(recursive=True)]
            except psutil.Error:
                break
            rss = 0
            for proc in tree:
                try:
                    with proc.oneshot():
                        times = proc.cpu_times()
                        rss += proc.memory_info().rss
                    seen[proc.pid] = times.user + times.system
                except psutil.Error:
                    continue
            peak[0] = max(peak[0], rss)
            stop.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        stop.set()
        sampler.join()
    wall = time.perf_counter() - started
    if group is not None:
        # the scan's fork server and resource tracker end a moment after the command
        deadline = time.monotonic() + 30
        while (group / "cgroup.procs").read_text().strip() and time.monotonic() < deadline:
            time.sleep(0.05)
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
        with contextlib.suppress(OSError):  # a process still in it: the group stays behind
            group.rmdir()
    else:
        cpu = sum(seen.values())
    return Measured(
        wall, cpu, peak[0] / 1e6, process.returncode, out, err, exact_cpu=group is not None
    )
