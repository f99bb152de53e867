"""Build the PyInstaller bundle and smoke-test it (``packaging/smoke_test.py``); package it as
Linux users install it (``packaging/linux_packages.py``) and install the ``.deb`` on a bare
Debian 12 (``packaging/chroot_test.py``).

A build takes a minute or two of CPU and the Debian test another one or two (a minimal Debian
is made once, then the package's dependencies come from Debian's mirror), so these run only
when ``DUPFINDER_BUNDLE_TEST=1`` (``.ci/run`` sets it); ``pytest -m bundle`` selects them alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"

pytestmark = [
    pytest.mark.bundle,
    # one worker runs both, in order: the second installs the bundle the first built
    pytest.mark.xdist_group("bundle"),
    pytest.mark.skipif(
        os.environ.get("DUPFINDER_BUNDLE_TEST") != "1",
        reason="builds the bundles; set DUPFINDER_BUNDLE_TEST=1 to run",
    ),
]


def _run(*args: str, timeout: float = 900) -> str:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    report = done.stdout + done.stderr[-5000:]
    assert done.returncode == 0, report
    return done.stdout


def test_built_bundle_matches_the_package_and_opens_the_app() -> None:
    report = _run(str(PACKAGING / "smoke_test.py"), "--build")
    assert "0 failed" in report, report


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Debian packages")
def test_debian_package_and_tarball_install_and_run() -> None:
    if not (ROOT / "dist" / "dupfinder" / "dupfinder").is_file():
        _run(str(PACKAGING / "build.py"), "--no-measure")
    if shutil.which("dpkg-deb") is None:
        pytest.skip("dpkg-deb is not installed")
    listed = _run(str(PACKAGING / "linux_packages.py"), "--fast")
    deb, tarball = (ROOT / line.split()[0] for line in listed.splitlines()[-2:])
    with tarfile.open(tarball) as tar:
        names = set(tar.getnames())
    top = tarball.name.removesuffix(".tar.gz")
    for inside in (
        "dupfinder",
        "dupfinder-gui",
        "THIRD-PARTY-NOTICES.txt",
        "share/man/man1/dupfinder.1.gz",
    ):
        assert f"{top}/{inside}" in names
    if os.geteuid() != 0 or shutil.which("debootstrap") is None:
        pytest.skip("installing on a bare Debian needs root and debootstrap")
    report = _run(str(PACKAGING / "chroot_test.py"), str(deb))
    assert "0 failed" in report, report
