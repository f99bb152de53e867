"""Content sniffing: which reader a file gets, decided in time linear in its first bytes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dupfinder.core.extract import Format, detect_format

COMMENT = b"<!-- generated file: do not edit by hand -->\n"


@pytest.mark.parametrize(
    ("body", "fmt"),
    [
        (COMMENT * 3 + b"<!DOCTYPE html><html><body><p>page</p></body></html>", Format.HTML),
        (COMMENT * 3 + b"  \n<html lang='en'><body>page</body></html>", Format.HTML),
        (COMMENT * 3 + b"Plain notes after some comments.\n", Format.PLAIN),
        (b"<!-- an unterminated comment <html> and more words\n", Format.PLAIN),
        (b"<!-- one --><!-- two --><html><body>x</body></html>", Format.HTML),
    ],
)
def test_comments_before_the_html_opening(tmp_path: Path, body: bytes, fmt: Format) -> None:
    path = tmp_path / "page.txt"
    path.write_bytes(body)
    assert detect_format(path) is fmt


def test_thousands_of_leading_comments_are_sniffed_quickly(tmp_path: Path) -> None:
    """Each comment line used to double the time; a separate process bounds a regression."""
    path = tmp_path / "comments.txt"
    path.write_bytes(COMMENT * 4000 + b"and then plain words\n")
    code = (
        "import sys\nfrom dupfinder.core.extract import detect_format\n"
        "print(detect_format(sys.argv[1]).name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout.strip() == Format.PLAIN.name
