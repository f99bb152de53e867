"""Build the dupfinder bundles with PyInstaller and measure them: one command.

    .venv/bin/python packaging/build.py              # onedir bundle: dist/dupfinder/
    .venv/bin/python packaging/build.py --onefile    # one executable: dist/dupfinder-<version>-<os>-<machine>
    .venv/bin/python packaging/build.py --onedir --onefile

Installs what the build needs into the running environment when it is missing (dupfinder
with its ``gui``, ``heif`` and ``package`` extras), renders the icons when they are
missing, runs ``packaging/dupfinder.spec`` (both outputs from one analysis), then prints
each output's size and start-up times. Exits non-zero when any step fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
SPEC = ROOT / "packaging" / "dupfinder.spec"
SAMPLE = ROOT / "resources" / "sample"
EXE_SUFFIX = ".exe" if sys.platform == "win32" else ""


def project_version() -> str:
    """The version in pyproject.toml (what ``dupfinder.__version__`` reports once installed)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if found is None:
        raise SystemExit("build: no version in pyproject.toml")
    return found.group(1)


def onefile_name(version: str) -> str:
    """The onefile executable's name (without .exe): says what it is and what it runs on."""
    system = {"Darwin": "macos"}.get(platform.system(), platform.system().lower())
    machine = platform.machine().lower().replace("amd64", "x86_64")
    return f"dupfinder-{version}-{system}-{machine}"


def onedir_executables() -> tuple[Path, Path]:
    """The console and the windowed executable of the onedir bundle."""
    folder = DIST / "dupfinder"
    return folder / f"dupfinder{EXE_SUFFIX}", folder / f"dupfinder-gui{EXE_SUFFIX}"


def onefile_executable() -> Path:
    return DIST / f"{onefile_name(project_version())}{EXE_SUFFIX}"


def ensure_build_tools() -> None:
    """Install dupfinder and PyInstaller into this environment when they are missing."""
    if platform.system() == "Linux" and shutil.which("objdump") is None:
        raise SystemExit(
            "build: PyInstaller needs objdump (Debian: binutils); as root, "
            "'bash scripts/setup.sh gui,heif,package' installs it"
        )
    needed = ("PyInstaller", "PySide6", "dupfinder", "pi_heif")
    missing = [name for name in needed if importlib.util.find_spec(name) is None]
    if not missing:
        return
    if sys.prefix == sys.base_prefix:
        raise SystemExit(
            f"build: {', '.join(missing)} missing; run this with the project's virtual "
            "environment (.venv/bin/python packaging/build.py) so it can install them there"
        )
    print(f"build: installing {', '.join(missing)} (pip install -e '.[gui,heif,package]')")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-e",
            f"{ROOT}[gui,heif,package]",
        ],
        check=True,
    )


def ensure_icons() -> None:
    """Render the PNG/ICO/ICNS icons from the SVG when any of them is missing."""
    sys.path.insert(0, str(ROOT / "packaging"))
    import make_icons

    if any(not path.is_file() for path in make_icons.outputs()):
        print("build: rendering the icons (packaging/make_icons.py)")
        make_icons.write_icons()


def run_pyinstaller(bundles: Sequence[str], clean: bool) -> float:
    """Run the spec; returns the seconds it took."""
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN"]
    command += ["--distpath", str(DIST), "--workpath", str(WORK)]
    if clean:
        command.append("--clean")
    env = {**os.environ, "DUPFINDER_BUNDLES": ",".join(bundles)}
    print(f"build: {' '.join(bundles)} → {DIST.relative_to(ROOT)}/")
    started = time.perf_counter()
    subprocess.run([*command, str(SPEC)], check=True, cwd=ROOT, env=env)
    return time.perf_counter() - started


def size_of(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def startup_seconds(command: Sequence[str], runs: int = 3) -> float:
    """Median wall time of ``command`` after one warm-up run; fails if the command does."""
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    times = []
    for run in range(runs + 1):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
        if run:
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(executable: Path) -> None:
    version = startup_seconds([str(executable), "--version"])
    scan = startup_seconds([str(executable), "scan", str(SAMPLE), "--format", "json", "--no-cache"])
    print(f"  start-up: --version {version:.2f} s, scan of resources/sample {scan:.2f} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--onedir", action="store_true", help="build dist/dupfinder/ (default)")
    parser.add_argument("--onefile", action="store_true", help="build one executable")
    parser.add_argument("--clean", action="store_true", help="empty PyInstaller's caches first")
    parser.add_argument(
        "--no-measure", action="store_true", help="skip the start-up time measurements"
    )
    args = parser.parse_args(argv)
    bundles = [name for name in ("onedir", "onefile") if getattr(args, name)] or ["onedir"]

    ensure_build_tools()
    ensure_icons()
    seconds = run_pyinstaller(bundles, args.clean)
    print(f"build: done in {seconds:.0f} s")
    if "onedir" in bundles:
        console, _windowed = onedir_executables()
        print(f"{console.parent.relative_to(ROOT)}/  {megabytes(size_of(console.parent))}")
        app = DIST / "dupfinder.app"
        if app.is_dir():
            print(f"{app.relative_to(ROOT)}  {megabytes(size_of(app))}")
        if not args.no_measure:
            measure(console)
    if "onefile" in bundles:
        single = onefile_executable()
        print(f"{single.relative_to(ROOT)}  {megabytes(size_of(single))}")
        if not args.no_measure:
            measure(single)
    return 0


if __name__ == "__main__":
    sys.exit(main())
