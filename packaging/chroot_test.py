"""The Debian package on a bare Debian: what a person who installs it gets, checked as root.

    sudo .venv/bin/python packaging/chroot_test.py dist/dupfinder_<version>_<arch>.deb

A minimal Debian (``debootstrap --variant=minbase``, kept in ``~/.cache/dupfinder-test`` with
the packages it downloads, and copied afresh for each run) first gets the package's files without its dependencies: the headless
scan must work there (it needs no desktop library) and the window must refuse to open with a
message naming the missing libraries and fonts, without a traceback. Then ``apt-get install``
installs the package with its dependencies, and ``dupfinder`` must be on the PATH, with its
desktop entry, icon, man page and completions in place, and the window must open (offscreen)
and close cleanly. Needs root, debootstrap and Debian's mirror. Exits 0 when every check passes.
"""

from __future__ import annotations

import argparse
import configparser
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The minimal Debian systems and the packages downloaded for them, kept between runs (and
#: between clones: a CI run in a fresh clone reuses them); DUPFINDER_CHROOT_CACHE moves them.
CACHE = Path(
    os.environ.get("DUPFINDER_CHROOT_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "dupfinder-test"
    / "chroot"
)
SAMPLE = ROOT / "resources" / "sample"
#: A clean environment inside the chroot (nothing of the host's leaks in).
ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/root",
    "LANG": "C.UTF-8",
    "DEBIAN_FRONTEND": "noninteractive",
}


def base_system(release: str) -> Path:
    """A minimal Debian ``release``, made once (about half a minute) and kept."""
    base = CACHE / f"{release}-minbase"
    if (base / ".complete").is_file():
        return base
    shutil.rmtree(base, ignore_errors=True)
    base.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["debootstrap", "--variant=minbase", release, str(base)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (base / ".complete").write_text("debootstrap done\n")
    return base


@contextmanager
def mounted(system: Path) -> Iterator[Path]:
    """``system`` with /proc, /dev and a fresh /tmp mounted (unmounted afterwards)."""
    mounts: list[Path] = []
    try:
        archives = CACHE / f"{system.name}-archives"
        (archives / "partial").mkdir(parents=True, exist_ok=True)
        for source, target, options in (
            ("proc", "proc", ["-t", "proc"]),
            ("/dev", "dev", ["--bind"]),
            ("tmpfs", "tmp", ["-t", "tmpfs"]),
            (str(archives), "var/cache/apt/archives", ["--bind"]),  # downloads kept
        ):
            subprocess.run(["mount", *options, source, str(system / target)], check=True)
            mounts.append(system / target)
        shutil.copy2("/etc/resolv.conf", system / "etc" / "resolv.conf")
        yield system
    finally:
        for mounted_at in reversed(mounts):
            subprocess.run(["umount", "-l", str(mounted_at)], check=False)


def inside(
    system: Path, *command: str, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in the chroot; returns the finished process (output captured)."""
    return subprocess.run(
        ["chroot", str(system), *command],
        env={**ENV, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def expect(done: subprocess.CompletedProcess[str], what: str) -> str:
    if done.returncode != 0:
        raise AssertionError(
            f"{what}: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
        )
    return done.stdout


def check_headless_without_desktop_libraries(system: Path) -> str:
    done = inside(
        system,
        "/tmp/unpacked/opt/dupfinder/dupfinder",
        "scan",
        "/tmp/sample",
        "--format",
        "json",
        "--no-cache",
    )
    if done.returncode not in (0, 1) or '"groups"' not in done.stdout:
        raise AssertionError(f"headless scan: exit {done.returncode}\n{done.stderr[-3000:]}")
    return "scan of the sample without any desktop library"


def check_missing_libraries_are_named(system: Path) -> str:
    done = inside(
        system, "/tmp/unpacked/opt/dupfinder/dupfinder-gui", env={"DISPLAY": ":0"}, timeout=120
    )
    message = done.stderr
    wanted = ("libxcb-cursor0", "libegl1", "fonts-dejavu-core", "apt-get install")
    absent = [word for word in wanted if word not in message]
    if done.returncode == 0 or absent or "Traceback" in message:
        raise AssertionError(f"exit {done.returncode}, missing {absent} in:\n{message[-3000:]}")
    return f"the window refuses with: {message.splitlines()[1].strip()} ..."


def check_install(system: Path, deb: Path) -> str:
    started = time.perf_counter()
    expect(inside(system, "apt-get", "update", "-qq"), "apt-get update")
    expect(
        inside(
            system, "apt-get", "install", "-y", "-qq", "--no-install-recommends", f"/tmp/{deb.name}"
        ),
        "apt-get install",
    )
    return f"apt-get install with its dependencies ({time.perf_counter() - started:.0f} s)"


def check_installed_files(system: Path) -> str:
    expect(
        inside(system, "sh", "-c", "command -v dupfinder && command -v dupfinder-gui"), "on PATH"
    )
    version = expect(inside(system, "dupfinder", "--version"), "--version").strip()
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(system / "usr/share/applications/dupfinder.desktop", encoding="utf-8")
    command = entry["Desktop Entry"]["Exec"].split()[0]
    expect(inside(system, "sh", "-c", f"command -v {command}"), "the desktop entry's command")
    for path in (
        f"usr/share/icons/hicolor/scalable/apps/{entry['Desktop Entry']['Icon']}.svg",
        "usr/share/icons/hicolor/256x256/apps/dupfinder.png",
        "usr/share/man/man1/dupfinder.1.gz",
        "usr/share/bash-completion/completions/dupfinder",
        "usr/share/zsh/vendor-completions/_dupfinder",
        "usr/share/metainfo/io.github.dupfinder.metainfo.xml",
        "usr/share/doc/dupfinder/copyright",
        "opt/dupfinder/THIRD-PARTY-NOTICES.txt",
    ):
        if not (system / path).is_file():
            raise AssertionError(f"{path} is missing")
    return f"{version} on PATH; desktop entry, icons, man page, completions, notices in place"


def check_window(system: Path) -> str:
    env = {
        "QT_QPA_PLATFORM": "offscreen",
        "DUPFINDER_QUIT_AFTER_MS": "0",
        "XDG_RUNTIME_DIR": "/tmp",
    }
    started = time.perf_counter()
    done = inside(system, "dupfinder-gui", env=env, timeout=120)
    seconds = time.perf_counter() - started
    expect(done, "the window")
    if "Traceback" in done.stderr:
        raise AssertionError(done.stderr[-3000:])
    return f"the window opened and closed (offscreen) in {seconds:.1f} s"


def step(name: str, check: Callable[[], str]) -> bool:
    started = time.perf_counter()
    try:
        detail = check()
    except (AssertionError, subprocess.SubprocessError, OSError, KeyError) as exc:
        print(f"FAIL  {name} ({time.perf_counter() - started:.1f} s): {exc}", flush=True)
        return False
    print(f"ok    {name} ({time.perf_counter() - started:.1f} s): {detail}", flush=True)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("deb", type=Path, help="the package to install")
    parser.add_argument("--release", default="bookworm", help="Debian release (default bookworm)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0 or shutil.which("debootstrap") is None:
        print("chroot_test: needs root and debootstrap", file=sys.stderr)
        return 2
    base = base_system(args.release)
    system = CACHE / f"{args.release}-run"
    shutil.rmtree(system, ignore_errors=True)
    subprocess.run(["cp", "-a", str(base), str(system)], check=True)
    results = []
    try:
        with mounted(system):
            shutil.copy2(args.deb, system / "tmp" / args.deb.name)
            shutil.copytree(SAMPLE, system / "tmp" / "sample")
            subprocess.run(
                ["dpkg-deb", "-x", str(args.deb), str(system / "tmp" / "unpacked")], check=True
            )
            for name, check in (
                (
                    "headless scan on a bare system",
                    lambda: check_headless_without_desktop_libraries(system),
                ),
                (
                    "missing libraries and fonts named",
                    lambda: check_missing_libraries_are_named(system),
                ),
                ("apt-get install", lambda: check_install(system, args.deb)),
                ("installed files", lambda: check_installed_files(system)),
                ("window", lambda: check_window(system)),
            ):
                results.append(step(name, check))
    finally:
        shutil.rmtree(system, ignore_errors=True)
    print(f"{results.count(True)} passed, {results.count(False)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
