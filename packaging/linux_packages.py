"""The onedir bundle as Linux users install it: a Debian package and a tarball.

    .venv/bin/python packaging/linux_packages.py        # after packaging/build.py

``dist/dupfinder_<version>_<arch>.deb`` (built with ``dpkg-deb``) puts the bundle in
``/opt/dupfinder``, ``dupfinder`` and ``dupfinder-gui`` on the PATH, the desktop entry, the
icons, the AppStream metainfo, the man page and the bash and zsh completions where the system
looks for them, and depends on the desktop libraries the bundle leaves to the system.
``dist/dupfinder-<version>-linux-<machine>.tar.gz`` is the same folder for any distribution:
unpack it anywhere, run ``dupfinder``, and ``dupfinder --install-desktop-entry`` adds the menu
entry. Neither unpacks anything at start-up.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
RESOURCES = ROOT / "resources"
ONEDIR = DIST / "dupfinder"

#: What the bundle leaves to the system (its spec's DESKTOP_LIBRARIES and the GL libraries
#: PyInstaller never bundles), as Debian 11 and 12 name the packages.
DEPENDS = (
    "libc6 (>= 2.31)",
    "libgl1",
    "libegl1",
    "libfontconfig1",
    "libfreetype6",
    "libdbus-1-3",
    "libglib2.0-0",
    "libx11-6",
    "libx11-xcb1",
    "libxkbcommon0",
    "libxkbcommon-x11-0",
    "libxcb1",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-render0",
    "libxcb-shape0",
    "libxcb-shm0",
    "libxcb-sync1",
    "libxcb-util1 | libxcb-util0",
    "libxcb-xfixes0",
    "libxcb-xinerama0",
    "libxcb-xkb1",
    "fonts-dejavu-core | fonts-liberation2 | fonts-noto-core",
)
#: Wayland sessions, and Chinese, Japanese and Korean text.
RECOMMENDS = ("libwayland-client0", "libwayland-cursor0", "fonts-noto-cjk | fonts-wqy-microhei")


def project_version() -> str:
    sys.path.insert(0, str(ROOT / "packaging"))
    from build import project_version as version

    return version()


def deb_architecture() -> str:
    machine = platform.machine().lower()
    return {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(
        machine, machine
    )


def _copy(source: Path, target: Path, mode: int = 0o644) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    target.chmod(mode)


def _gzip(source: Path, target: Path) -> None:
    """``gzip -9n``: no name or time inside, so the package is reproducible."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with (
        source.open("rb") as raw,
        target.open("wb") as out,
        gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=out, mtime=0) as gz,
    ):
        shutil.copyfileobj(raw, gz)
    target.chmod(0o644)


def desktop_files(share: Path, command: str) -> None:
    """The desktop entry (starting ``command``), the icons, the metainfo, the man page and the
    completions under ``share`` (``/usr/share`` in the package)."""
    entry = (RESOURCES / "dupfinder.desktop").read_text(encoding="utf-8")
    (share / "applications").mkdir(parents=True, exist_ok=True)
    (share / "applications" / "dupfinder.desktop").write_text(
        entry.replace("Exec=dupfinder-gui", f"Exec={command}"), encoding="utf-8"
    )
    icons = share / "icons" / "hicolor"
    _copy(RESOURCES / "icons" / "dupfinder.svg", icons / "scalable" / "apps" / "dupfinder.svg")
    for png in sorted((RESOURCES / "icons").glob("dupfinder-*.png")):
        size = png.stem.rsplit("-", 1)[1]
        _copy(png, icons / f"{size}x{size}" / "apps" / "dupfinder.png")
    _copy(
        RESOURCES / "io.github.dupfinder.metainfo.xml",
        share / "metainfo" / "io.github.dupfinder.metainfo.xml",
    )
    _gzip(RESOURCES / "man" / "dupfinder.1", share / "man" / "man1" / "dupfinder.1.gz")
    _copy(
        RESOURCES / "completions" / "dupfinder",
        share / "bash-completion" / "completions" / "dupfinder",
    )
    _copy(
        RESOURCES / "completions" / "_dupfinder",
        share / "zsh" / "vendor-completions" / "_dupfinder",
    )


def _installed_size_kib(folder: Path) -> int:
    return (
        sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
        // 1024
    )


def build_deb(version: str, out: Path = DIST, compression: str = "xz") -> Path:
    """``dupfinder_<version>_<arch>.deb`` from the onedir bundle, with ``dpkg-deb``: xz for
    releases (53 MB, a minute of CPU), gzip for tests (seconds); both read on Debian 11."""
    if not (ONEDIR / "dupfinder").is_file():
        raise SystemExit("linux_packages: build the onedir bundle first (packaging/build.py)")
    if shutil.which("dpkg-deb") is None:
        raise SystemExit("linux_packages: dpkg-deb is needed (Debian: the dpkg package)")
    arch = deb_architecture()
    stage = ROOT / "build" / "deb" / f"dupfinder_{version}_{arch}"
    shutil.rmtree(stage, ignore_errors=True)
    shutil.copytree(ONEDIR, stage / "opt" / "dupfinder", symlinks=True)
    bin_dir = stage / "usr" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("dupfinder", "dupfinder-gui"):
        (bin_dir / name).symlink_to(f"/opt/dupfinder/{name}")
    desktop_files(stage / "usr" / "share", "dupfinder-gui %F")
    doc = stage / "usr" / "share" / "doc" / "dupfinder"
    doc.mkdir(parents=True)
    copyright_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    (doc / "copyright").write_text(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        "Upstream-Name: dupfinder\n\nFiles: *\nLicense: MIT\n"
        + "".join(f" {line}\n" if line.strip() else " .\n" for line in copyright_text.splitlines())
        + "\nThe libraries inside /opt/dupfinder come with their own licences:\n"
        " /opt/dupfinder/THIRD-PARTY-NOTICES.txt lists each one, its licence text and where\n"
        " its source is.\n",
        encoding="utf-8",
    )
    control = stage / "DEBIAN" / "control"
    control.parent.mkdir()
    control.write_text(
        f"Package: dupfinder\nVersion: {version}\nArchitecture: {arch}\n"
        "Maintainer: dupfinder developers <dupfinder@users.noreply.github.com>\n"
        f"Installed-Size: {_installed_size_kib(stage)}\n"
        f"Depends: {', '.join(DEPENDS)}\nRecommends: {', '.join(RECOMMENDS)}\n"
        "Section: utils\nPriority: optional\nHomepage: https://github.com/dupfinder/dupfinder\n"
        "Description: find near-duplicate documents and pictures\n"
        " dupfinder finds files that are the same to a person though not byte for byte:\n"
        " documents with the same text in another format or edit, pictures resized,\n"
        " re-encoded, cropped or turned. A desktop app and a command line share one engine.\n",
        encoding="utf-8",
    )
    for path in stage.rglob("*"):  # what dpkg expects, whatever the umask was
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)
    target = out / f"dupfinder_{version}_{arch}.deb"
    subprocess.run(
        [
            "dpkg-deb",
            "--root-owner-group",
            f"-Z{compression}",
            *(["-z1"] if compression == "gzip" else []),  # tests: seconds, not a minute
            "--build",
            str(stage),
            str(target),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return target


def build_tarball(version: str, out: Path = DIST) -> Path:
    """``dupfinder-<version>-linux-<machine>.tar.gz``: the onedir bundle with the desktop files
    beside it under ``share/`` (``dupfinder --install-desktop-entry`` installs them)."""
    machine = platform.machine().lower().replace("amd64", "x86_64")
    name = f"dupfinder-{version}-linux-{machine}"
    stage = ROOT / "build" / "tarball" / name
    shutil.rmtree(stage, ignore_errors=True)
    shutil.copytree(ONEDIR, stage, symlinks=True)
    desktop_files(stage / "share", "dupfinder-gui %F")
    target = out / f"{name}.tar.gz"
    with tarfile.open(target, "w:gz", compresslevel=6) as tar:
        tar.add(stage, arcname=name)
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-deb", action="store_true", help="only the tarball")
    parser.add_argument("--no-tarball", action="store_true", help="only the Debian package")
    parser.add_argument(
        "--fast", action="store_true", help="gzip instead of xz inside the .deb (for tests)"
    )
    args = parser.parse_args(argv)
    version = project_version()
    built = []
    if not args.no_deb:
        built.append(build_deb(version, compression="gzip" if args.fast else "xz"))
    if not args.no_tarball:
        built.append(build_tarball(version))
    for path in built:
        print(f"{path.relative_to(ROOT)}  {path.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
