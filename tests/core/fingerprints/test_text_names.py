"""Text files named by convention (copyright, README.Debian, COPYING) are documents, never
"other" files: ``--kind other`` lists only what is compared by its bytes alone."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dupfinder.cli import main
from dupfinder.core.fingerprints.formats import kind_for_path, may_be_text
from dupfinder.core.model import Kind


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("copyright", Kind.TEXT),
        ("README.Debian", Kind.TEXT),
        ("NEWS.Debian", Kind.TEXT),
        ("COPYING", Kind.TEXT),
        ("LICENSE", Kind.TEXT),
        ("changelog", Kind.TEXT),
        ("changelog.Debian.gz", None),  # compressed: bytes only
        ("COPYING.LIB", None),  # ".lib" is a library's suffix: left to the content
        ("Makefile", None),  # no convention: sniffed, as before
        ("program", None),
    ],
)
def test_text_by_name(name: str, kind: Kind | None) -> None:
    assert kind_for_path(f"/usr/share/doc/pkg/{name}") is kind
    if kind is Kind.TEXT:
        assert not may_be_text(name)  # told, not guessed


def test_kind_other_leaves_out_suffixless_debian_text(tmp_path: Path) -> None:
    for package in ("alpha", "beta"):
        folder = tmp_path / package
        folder.mkdir()
        (folder / "copyright").write_text("Format: https://www.debian.org/doc/\n" * 40)
        (folder / "README.Debian").write_text("Notes for Debian users of this package.\n" * 40)
        (folder / "data.bin").write_bytes(bytes(range(256)) * 8)
    out = io.StringIO()
    args = ["scan", str(tmp_path), "--kind", "other", "--no-cache", "--format", "json"]
    assert main(args, out, io.StringIO()) == 0
    groups = json.loads(out.getvalue())["groups"]
    names = sorted({Path(m["path"]).name for g in groups for m in g["members"]})
    assert names == ["data.bin"]
    assert {g["kind"] for g in groups} == {"other"}
