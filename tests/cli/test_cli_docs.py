"""The committed man page and shell completions match the parser (packaging/cli_docs.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))

pytest.importorskip("argparse_manpage")

import cli_docs  # noqa: E402


def test_generated_files_are_up_to_date() -> None:
    stale = [
        str(path.relative_to(ROOT))
        for path, text in cli_docs.generated().items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
    assert not stale, f"run: .venv/bin/python packaging/cli_docs.py  ({', '.join(stale)})"


def test_man_page_has_every_command_and_the_patterns() -> None:
    page = cli_docs.man_page()
    for text in (
        "dupfinder scan",
        "dupfinder undo",
        "\\-\\-exclude",
        ".SH PATTERNS",
        ".SH EXIT STATUS",
    ):
        assert text in page, text


def test_man_page_renders_without_warnings() -> None:
    if shutil.which("groff") is None:
        pytest.skip("groff is not installed")
    done = subprocess.run(
        ["groff", "-man", "-Tutf8", "-ww", "-z"],
        input=cli_docs.man_page(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stderr == ""
