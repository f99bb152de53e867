"""HTML: real pages, bounded memory, any depth; the same text read as a tree or a stream."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dupfinder.core.errors import UnsupportedFile
from dupfinder.core.extract import extract_text
from dupfinder.core.extract.html import decode_html, html_to_text

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


# What a page shows, rule by rule: recorded once, read back whichever way the page is read.
RULES_PAGE = (
    "<!DOCTYPE html><html><head><title>Tab title</title><style>p {color: red}</style>"
    "<script>var hidden = 1;</script></head><body>\n"
    "<h1>Tide   tables</h1>\n"
    "<p>High water at <b>six</b>,\n   low at <i>noon</i>.<br>Next line</p>\n"
    "<div hidden>hidden words</div><p style='color: red; DISPLAY : none'>styled away</p>"
    "<span style='visibility:hidden'>invisible</span><p style='display: block'>shown</p>\n"
    "<table><tr><th>port</th> <th> depth </th></tr><tr><td>Brest</td><td></td>"
    "<td>7&nbsp;m</td></tr></table>\n"
    "<pre>  keep   these\n\tspaces</pre>\n"
    "<ul><li>one</li><li>two <o:p></o:p>three</li></ul>"
    "<svg:svg><svg:text>drawn</svg:text></svg:svg>"
    "<noscript>no script</noscript><template>template</template><textarea>a  b</textarea>"
    "</body></html>\n<p>after the end</p>"
)
RULES_TEXT = [
    "Tide tables",
    "High water at six, low at noon.",
    "Next line",
    "shown",
    "port\tdepth",
    "Brest\t\t7\xa0m",
    "keep   these",
    "spaces",
    "one",
    "two",
    "three",
    "a  b",
    "after the end",
]


def test_page_shows_visible_text_by_the_rules() -> None:
    assert html_to_text(RULES_PAGE).splitlines() == RULES_TEXT


def test_page_read_in_parts_shows_the_same_text(tmp_path: Path) -> None:
    """A page of megabytes is read as the parser goes; every cut between parts reads alike."""
    body = RULES_PAGE.split("<body>")[1].split("</body>")[0]
    page = "<html><body>" + "<div>" + body * 9_000 + "</div></body></html>"
    assert len(page) > 3 * MiB
    path = tmp_path / "long.html"
    path.write_text(page, encoding="utf-8")
    expected = RULES_TEXT[:-1] * 9_000
    assert extract_text(path).splitlines() == expected


def test_text_after_a_deep_nesting_is_kept() -> None:
    """Deeper than libxml2 builds a tree: what follows the deep part is not lost."""
    page = "<p>before</p>" + "<div>" * 300 + "deep" + "</div>" * 300 + "<p>after</p>"
    assert html_to_text(page).splitlines() == ["before", "deep", "after"]


def test_page_holding_a_marker_like_character_keeps_it() -> None:
    page = "<p>a\x81b &#x8d; &#144;</p><p>c</p>"
    assert html_to_text(page).splitlines() == ["a\x81b \x8d \x90", "c"]


def _real_pages() -> list[Path]:
    """Up to 80 HTML pages under /usr/share/doc that are text (a package may ship a page
    compressed or in an encoding the detector refuses: that is the reader's job, not this
    comparison's)."""
    found = sorted(Path("/usr/share/doc").rglob("*.htm*"))
    pages = []
    for path in found:
        if not path.is_file() or path.stat().st_size >= 400_000:
            continue
        try:
            decode_html(path.read_bytes())
        except UnsupportedFile:
            continue
        pages.append(path)
        if len(pages) == 80:
            break
    return pages


@pytest.mark.skipif(not _real_pages(), reason="no HTML documentation on this machine")
def test_real_pages_read_as_a_tree_show_what_the_stream_shows() -> None:
    """Both ways of reading (a tree for most pages, the stream for deep ones) agree."""
    for path in _real_pages():
        text = decode_html(path.read_bytes())
        assert html_to_text(text) == html_to_text(text, streamed=True), path


def _random_markup(chooser: random.Random, depth: int = 0) -> str:
    """Tags that break lines or not, unclosed ones, hidden ones, and awkward whitespace."""
    tags = "div p span b td tr table pre br li script textarea o:p a h1 html body head svg"
    texts = ["x", " y ", "\n  z\t", "  ", "\xa0", "w  w", "&amp;", "&nbsp;", "<", "q\r\nr"]
    attributes = ["", " hidden", " style='display:none'", " style='color:red'", " class=c"]
    parts = []
    for _ in range(chooser.randint(0, 4)):
        if chooser.random() < 0.4 or depth > 6:
            parts.append(chooser.choice(texts))
            continue
        tag = chooser.choice(tags.split())
        inner = _random_markup(chooser, depth + 1)
        end = "" if chooser.random() < 0.15 else f"</{tag}>"
        parts.append(f"<{tag}{chooser.choice(attributes)}>{inner}{end}")
    return "".join(parts)


def test_random_markup_reads_the_same_as_a_tree_and_as_a_stream() -> None:
    chooser = random.Random(27)
    for _ in range(400):
        page = _random_markup(chooser) + "<p>end</p>"
        assert html_to_text(page) == html_to_text(page, streamed=True), page


def test_spaces_around_an_empty_preformatted_element_collapse() -> None:
    page = "<p>tide <textarea></textarea> table</p><p>a <pre></pre> b</p>"
    assert html_to_text(page).splitlines() == ["tide table", "a", "b"]
