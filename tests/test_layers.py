"""The core and the CLI never load Qt: headless use must work without Qt's libraries."""

from __future__ import annotations

import subprocess
import sys

import dupfinder.core.errors as errors


def test_core_and_cli_do_not_import_qt() -> None:
    code = (
        "import sys, dupfinder.cli, dupfinder.cli.scan_cmd, dupfinder.core.scan, "
        "dupfinder.core.report, dupfinder.core.cache\n"
        "dupfinder.cli.build_parser()\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""


def test_error_tree_is_exported_and_rooted() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.DupfinderError)
    assert issubclass(errors.ResultFormatError, ValueError)
