"""HTML read as it streams through the parser: real pages, bounded memory, any depth."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

from dupfinder.core.extract import extract_text

MiB = 1024 * 1024


def _dense_page(size: int) -> bytes:
    """A page with a tag every few dozen bytes, the costly kind for a tree of objects."""
    chooser = random.Random(5)
    vocabulary = "harbour tide buoy channel silt pier quay depth survey mooring".split()
    parts = [b"<!DOCTYPE html><html><body>"]
    total = 0
    while total < size:
        words = " ".join(chooser.choice(vocabulary) for _ in range(10))
        part = (
            f"<div><p>{words} <b>bold</b> <a href='#x'>link</a></p><ul><li>item</li></ul></div>\n"
        )
        parts.append(part.encode())
        total += len(part)
    return b"".join(parts) + b"</body></html>"


def test_large_page_is_read_in_memory_proportional_to_its_size(tmp_path: Path) -> None:
    """A parse tree of objects for every tag took ~27 bytes a byte of page; a stream takes few."""
    path = tmp_path / "large.html"
    data = _dense_page(12 * MiB)
    path.write_bytes(data)
    child = textwrap.dedent(
        """
        import resource, sys
        from dupfinder.core.extract import extract_text
        import dupfinder.core.extract.html
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        text = extract_text(sys.argv[1])
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(len(text.splitlines()), (peak - base) // 1024)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    lines, grown_mib = map(int, done.stdout.split())
    assert lines == 2 * data.count(b"<div>")  # the paragraph, then the list item
    assert grown_mib < 8 * len(data) // MiB


def test_nesting_far_deeper_than_any_parser_stack(tmp_path: Path) -> None:
    path = tmp_path / "deep.html"
    path.write_text("<div>" * 200_000 + "deep words " * 20 + "</div>" * 200_000)
    assert extract_text(path) == " ".join(["deep words"] * 20)


def test_text_split_across_feeds_and_entities_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "long.html"
    paragraph = "caf&eacute; " * 200_000  # longer than one feed to the parser
    path.write_text(f"<html><body><p>{paragraph}</p><p>end</p></body></html>")
    assert extract_text(path).splitlines() == [" ".join(["café"] * 200_000), "end"]


def test_undeclared_utf8_is_not_read_as_latin1(tmp_path: Path) -> None:
    """libxml2 alone assumes ISO-8859-1 for a page that declares nothing."""
    text = "Les élèves ont visité le musée — 東京の港"
    path = tmp_path / "utf8.html"
    path.write_bytes(f"<html><body><p>{text}</p></body></html>".encode())
    assert extract_text(path) == text


def test_xml_declaration_names_the_encoding(tmp_path: Path) -> None:
    text = "Ελληνικό κείμενο σε παλιά κωδικοποίηση"
    page = f"<?xml version='1.0' encoding='iso-8859-7'?><html><body><p>{text}</p></body></html>"
    path = tmp_path / "greek.xhtml"
    path.write_bytes(page.encode("iso-8859-7"))
    assert extract_text(path) == text
