"""Smoke test of the built bundles: what users download must do what the package does.

    .venv/bin/python packaging/smoke_test.py            # test dist/ as it is (builds if missing)
    .venv/bin/python packaging/smoke_test.py --build    # build the onedir bundle first
    .venv/bin/python packaging/smoke_test.py --build --onefile   # and the onefile (not shipped on Linux)

Checks, each printed with its time:

1. ``--version`` of every executable reports the package's version;
2. a headless ``scan resources/sample --format json --no-cache`` prints the same groups and
   errors (paths, kinds, members, distances, fingerprints; not timings) as the installed
   package on the same folder;
3. the fingerprinting process pool works inside the bundle: a scan of more than 48 files
   with ``--jobs 2`` starts worker processes from the bundled executable and agrees with
   the package scanning in-process;
4. (Linux) the headless scan loads no GUI library (Qt, libGL, libEGL, X11, fontconfig);
5. LICENSE and the third-party notices sit at the top of the folder, every bundled package's
   licence may ship under MIT, no GPL library (x265 and the like) is among the files, and
   neither numba, llvmlite nor scipy is;
6. the windowed executable opens the app offscreen, stays up for a few seconds, and closes
   cleanly on Ctrl+C (SIGINT) with exit status 0, saving its settings.

Every run gets its own empty HOME and XDG folders, so nothing reads or writes the user's
cache, settings, decisions or trash. Exits 0 when every check passes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import (
    ROOT,
    SAMPLE,
    onedir_executables,
    onefile_executable,
    project_version,
)

#: A scan with more files than this to fingerprint uses the process pool (core.scan).
POOL_THRESHOLD = 48
GUI_SECONDS = 4.0
#: Starting takes seconds on a busy machine (imports from the bundle); Ctrl+C comes only once
#: the window is up and scanning (its fingerprint cache appears), as a person would press it.
GUI_START_LIMIT = 120.0
#: Closing stops the scan in progress and saves the settings; slow when the machine is busy.
GUI_CLOSE_LIMIT = 60.0
#: Libraries only the desktop app needs; the headless path must load none of them. (Qt's
#: core library is loaded by PyInstaller's start-up hook for PySide6; it is in the bundle.)
GUI_LIBRARIES = ("libQt6Gui", "libQt6Widgets", "libGL.", "libEGL.", "libX11.", "libfontconfig")
#: What the headless bundle may load from the system: the C library family and zlib, which
#: every Linux system has (Debian: priority "required").
SYSTEM_LIBRARIES = ("ld-linux", "libc.", "libm.", "libdl.", "libpthread.", "librt.", "libz.")
#: GLib, left to the system like every desktop library: PyInstaller's start-up hook for PySide6
#: loads Qt's core library, which links it, where it is installed; where it is not, the hook
#: carries on and the scan works (packaging/chroot_test.py scans on a bare Debian).
OPTIONAL_SYSTEM_LIBRARIES = ("libglib-2.0.", "libgthread-2.0.", "libpcre2-8.")


class SmokeFailure(Exception):
    pass


def isolated_env(home: Path) -> dict[str, str]:
    """The environment with a fresh HOME and XDG folders, and Qt on its offscreen platform."""
    env = dict(os.environ)
    env["HOME"] = str(home)
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        folder = home / name.lower()
        folder.mkdir(parents=True, exist_ok=True)
        env[name] = str(folder)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.pop("LD_DEBUG", None)
    return env


def run(command: Sequence[str], env: dict[str, str], timeout: float = 120) -> str:
    """Stdout of ``command``; raises SmokeFailure with its stderr when it fails."""
    done = subprocess.run(
        list(command), env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise SmokeFailure(
            f"{' '.join(command)} exited with {done.returncode}:\n{done.stderr[-3000:]}"
        )
    return done.stdout


def groups_of(report_json: str) -> dict[str, Any]:
    """What must agree between two scans: groups and errors, without timings or mtimes."""
    report = json.loads(report_json)
    groups = [
        {
            "kind": group["kind"],
            "representative": group["representative"],
            "members": [
                (m["path"], m["size"], m["distance"], m["fingerprint"]) for m in group["members"]
            ],
        }
        for group in report["groups"]
    ]
    errors = sorted((e["path"], e["code"]) for e in report["errors"])
    return {"groups": groups, "errors": errors, "files_seen": report["stats"]["files_seen"]}


def compare(bundle_json: str, package_json: str, what: str) -> str:
    bundle, package = groups_of(bundle_json), groups_of(package_json)
    if bundle != package:
        raise SmokeFailure(
            f"{what}: the bundle and the package disagree\n"
            f"bundle:  {json.dumps(bundle, ensure_ascii=False)[:2000]}\n"
            f"package: {json.dumps(package, ensure_ascii=False)[:2000]}"
        )
    return f"{len(bundle['groups'])} groups, {len(bundle['errors'])} errors, same as the package"


def package_scan(folder: Path, env: dict[str, str], *extra: str) -> str:
    """The installed package's JSON report of ``folder``."""
    return run(
        [
            sys.executable,
            "-m",
            "dupfinder",
            "scan",
            str(folder),
            "--format",
            "json",
            "--no-cache",
            *extra,
        ],
        env,
    )


def check_version(executable: Path, env: dict[str, str]) -> str:
    out = run([str(executable), "--version"], env).strip()
    if out != f"dupfinder {project_version()}":
        raise SmokeFailure(f"{executable.name} --version printed {out!r}")
    return out


def check_headless_scan(executable: Path, env: dict[str, str]) -> str:
    command = [str(executable), "scan", str(SAMPLE), "--format", "json", "--no-cache"]
    return compare(run(command, env), package_scan(SAMPLE, env), "scan of resources/sample")


def make_pool_corpus(folder: Path) -> Path:
    """Copies of the sample corpus, enough of them that the scan uses its process pool."""
    copies = 1 + POOL_THRESHOLD // sum(1 for p in SAMPLE.rglob("*") if p.is_file())
    for n in range(copies):
        shutil.copytree(SAMPLE, folder / f"copy{n}")
    return folder


def worker_pids(ancestor: int) -> set[int]:
    """Processes started by multiprocessing's spawn below ``ancestor`` (Linux)."""
    parents: dict[int, int] = {}
    spawned = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        if b"--multiprocessing-fork" in cmdline:
            spawned.add(int(entry.name))

    def descends(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == ancestor:
                return True
        return False

    return {pid for pid in spawned if descends(pid)}


def check_pool_scan(executable: Path, env: dict[str, str], folder: Path) -> str:
    command = [str(executable), "scan", str(folder), "--format", "json", "--no-cache"]
    process = subprocess.Popen(
        [*command, "--jobs", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    workers: set[int] = set()
    while process.poll() is None and sys.platform == "linux":
        workers |= worker_pids(process.pid)
        time.sleep(0.02)
    out, err = process.communicate(timeout=120)
    if process.returncode != 0:
        raise SmokeFailure(f"pool scan exited with {process.returncode}:\n{err[-3000:]}")
    if "crashed" in {e["code"] for e in json.loads(out)["errors"]}:
        raise SmokeFailure(f"pool scan: worker processes died:\n{err[-3000:]}")
    if sys.platform == "linux" and not workers:
        raise SmokeFailure("pool scan: no worker process was started")
    agreed = compare(out, package_scan(folder, env, "--jobs", "1"), "pool scan")
    seen = f"{len(workers)} worker processes, " if workers else ""
    return f"{seen}{agreed}"


def check_headless_libraries(executable: Path, env: dict[str, str]) -> str:
    """Which shared libraries the headless scan initialises, from the dynamic loader's log."""
    traced = {**env, "LD_DEBUG": "libs"}
    traced.pop("DISPLAY", None)
    traced.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run(
        [str(executable), "scan", str(SAMPLE), "--format", "json", "--no-cache"],
        env=traced,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise SmokeFailure(f"traced scan exited with {done.returncode}")
    loaded = {
        Path(line.split("calling init:", 1)[1].strip())
        for line in done.stderr.splitlines()
        if "calling init:" in line
    }
    gui = sorted(path.name for path in loaded if path.name.startswith(GUI_LIBRARIES))
    if gui:
        raise SmokeFailure(f"the headless scan loaded GUI libraries: {', '.join(gui)}")
    bundle = executable.resolve().parent
    system = sorted(str(path) for path in loaded if not path.resolve().is_relative_to(bundle))
    allowed = SYSTEM_LIBRARIES + OPTIONAL_SYSTEM_LIBRARIES
    foreign = [path for path in system if not Path(path).name.startswith(allowed)]
    if foreign:
        raise SmokeFailure(f"the headless scan needs system libraries: {', '.join(foreign)}")
    return (
        f"{len(loaded)} libraries, no Qt GUI/GL/EGL/X11/fontconfig; from the system only "
        + ", ".join(sorted(Path(path).name for path in system))
    )


def check_notices(executable: Path) -> str:
    """The licence files at the top of the onedir folder, and what they say holds."""
    import notices

    folder = executable.parent
    missing = [
        name
        for name in ("LICENSE", "THIRD-PARTY-NOTICES.txt", "THIRD-PARTY-NOTICES.json")
        if not (folder / name).is_file()
    ]
    if missing:
        raise SmokeFailure(f"missing at the top of the bundle: {', '.join(missing)}")
    listed = json.loads((folder / "THIRD-PARTY-NOTICES.json").read_text(encoding="utf-8"))
    packages = [notices.Component(**entry, texts={"listed": "..."}) for entry in listed]
    bundled = [str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()]
    found = notices.problems(packages)
    found += [path for path in bundled if notices.GPL_LIBRARIES.search(path)]
    heavy = {"numba", "llvmlite", "scipy", "imagehash", "pywavelets", "cython"}
    found += [f"{p.name} is bundled" for p in packages if p.name in heavy]
    found += [path for path in bundled if path.split("/")[1:2] in (["numba"], ["scipy"])]
    if found:
        raise SmokeFailure("; ".join(found))
    return f"{len(packages)} packages, every licence allowed under MIT, no numba or scipy"


def check_gui(executable: Path, env: dict[str, str], home: Path) -> str:
    """Open the window offscreen, let it run, close it as Ctrl+C would, expect a clean exit."""
    config = Path(env["XDG_CONFIG_HOME"])
    process = subprocess.Popen(
        [str(executable), str(SAMPLE)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=home,
    )
    started = time.monotonic()
    cache = Path(env["XDG_CACHE_HOME"])
    ready: float | None = None  # when the scan of SAMPLE began: the event loop is running
    try:
        while ready is None or time.monotonic() - ready < GUI_SECONDS:
            if ready is None and any(p.is_file() for p in cache.rglob("*")):
                ready = time.monotonic()
            if time.monotonic() - started > GUI_START_LIMIT:
                raise SmokeFailure(f"the app did not start scanning in {GUI_START_LIMIT:.0f} s")
            if process.poll() is not None:
                _, err = process.communicate()
                raise SmokeFailure(
                    f"the app exited by itself after {time.monotonic() - started:.1f} s "
                    f"with {process.returncode}:\n{err[-3000:]}"
                )
            time.sleep(0.1)
        if sys.platform == "win32":  # a windowed process gets no Ctrl+C: it is only stopped
            process.terminate()
            process.communicate(timeout=20)
            return f"stayed up {GUI_SECONDS:.0f} s (stopped: no clean close on Windows)"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=GUI_CLOSE_LIMIT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    if process.returncode != 0 or "Traceback" in err:
        raise SmokeFailure(f"the app did not close cleanly ({process.returncode}):\n{err[-3000:]}")
    saved = [p for p in config.rglob("*") if p.is_file()]
    if not saved:
        raise SmokeFailure("the app closed without saving its settings")
    return f"up {GUI_SECONDS:.0f} s, closed on SIGINT with status 0, saved {saved[0].name}"


def step(name: str, check: Callable[[], str]) -> bool:
    started = time.perf_counter()
    try:
        detail = check()
    except (SmokeFailure, subprocess.TimeoutExpired, OSError) as exc:
        print(f"FAIL  {name} ({time.perf_counter() - started:.1f} s): {exc}", flush=True)
        return False
    print(f"ok    {name} ({time.perf_counter() - started:.1f} s): {detail}", flush=True)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", action="store_true", help="build the bundle(s) first")
    parser.add_argument("--onefile", action="store_true", help="also test the onefile executable")
    parser.add_argument("--no-gui", action="store_true", help="skip opening the window")
    args = parser.parse_args(argv)

    console, windowed = onedir_executables()
    single = onefile_executable()
    wanted = [console, windowed] + ([single] if args.onefile else [])
    if args.build or any(not path.is_file() for path in wanted):
        command = [sys.executable, str(ROOT / "packaging" / "build.py"), "--onedir"]
        command += ["--onefile"] if args.onefile else []
        started = time.perf_counter()
        subprocess.run([*command, "--no-measure"], check=True)
        print(f"ok    build ({time.perf_counter() - started:.0f} s)", flush=True)

    with tempfile.TemporaryDirectory(prefix="dupfinder-smoke-") as temp:
        home = Path(temp) / "home"
        env = isolated_env(home)
        corpus = make_pool_corpus(Path(temp) / "pool")
        results = [
            step("dupfinder --version", lambda: check_version(console, env)),
            step("headless scan (onedir)", lambda: check_headless_scan(console, env)),
            step("process pool (onedir, --jobs 2)", lambda: check_pool_scan(console, env, corpus)),
        ]
        results.append(step("licences and notices", lambda: check_notices(console)))
        if sys.platform == "linux":
            results.append(
                step(
                    "headless needs no GUI libraries",
                    lambda: check_headless_libraries(console, env),
                )
            )
        if args.onefile:
            results += [
                step(f"{single.name} --version", lambda: check_version(single, env)),
                step("headless scan (onefile)", lambda: check_headless_scan(single, env)),
                step("process pool (onefile)", lambda: check_pool_scan(single, env, corpus)),
            ]
        if not args.no_gui:
            results.append(step("desktop app offscreen", lambda: check_gui(windowed, env, home)))
    failed = results.count(False)
    print(f"smoke test: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
