"""Build the PyInstaller bundles and smoke-test them (``packaging/smoke_test.py``).

A build takes a minute or two of CPU, so this runs only when ``DUPFINDER_BUNDLE_TEST=1``
(``.ci/run`` sets it); ``pytest -m bundle`` selects it alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.bundle,
    pytest.mark.skipif(
        os.environ.get("DUPFINDER_BUNDLE_TEST") != "1",
        reason="builds the bundles; set DUPFINDER_BUNDLE_TEST=1 to run",
    ),
]


def test_built_bundles_match_the_package_and_open_the_app() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "smoke_test.py"), "--build", "--onefile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    report = done.stdout + done.stderr[-5000:]
    assert done.returncode == 0, report
    assert "0 failed" in done.stdout, report
