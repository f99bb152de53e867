"""Markdown's text is what markdown-it-py's token stream shows, on real documents.

The reader runs pulldown-cmark's event stream; markdown-it-py (a test dependency here) is the
reference it replaced: the same lines, word for word, on this project's own Markdown, the
Markdown shipped inside the installed packages and under /usr/share/doc.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from dupfinder.core.extract import markup
from dupfinder.core.extract.common import join_blocks
from dupfinder.core.extract.html import html_to_text
from dupfinder.core.extract.plain import decode_text

ROOT = Path(__file__).resolve().parents[3]
_LINE_ENDS = {"paragraph_close", "heading_close", "tr_close", "list_item_close", "blockquote_close"}
_MAX_BYTES = 3_000_000  # of real Markdown read by the reference parser (~1 MB/s)

TRICKY = [
    'See [the manual](https://exämple.org/a%20b/ü?q=1&r=2 "title") and ![a logo](logo.png).',
    "[ref][1] and [other]\n\n[1]: https://exämple.org/ünïcode\n[other]: </a b> 'x'\n",
    "*emphasis* and `code [x](y)` and \\[escaped](link) and [nested [x](y)](z)",
    "- one\n  - nested *two*\n- three\n\n1. first\n\n   second paragraph\n",
    "| a | b |\n|---|---|\n| 1 | ~~2~~ |\n\n> quoted\n> text\n\n```py\ncode\n  indented\n```\n",
    "line one  \nline two<br>three\\\nfour\n\n<div>\n<p>raw <b>html</b></p>\n</div>\n\n***\n",
    "Setext\n======\n\n    indented code\n\n&amp; &copy; &#169; <span>inline</span> html",
]


def _inline(children: Sequence[Token]) -> str:
    parts: list[str] = []
    for token in children:
        if token.type in ("text", "text_special", "code_inline"):
            parts.append(token.content)
        elif token.type == "softbreak":
            parts.append(" ")
        elif token.type == "hardbreak" or (
            token.type == "html_inline" and token.content.lower().startswith("<br")
        ):
            parts.append("\n")
    return "".join(parts)


def reference_text(source: str) -> str:
    """The text markdown-it-py's tokens give (the reader before pulldown-cmark)."""
    lines: list[str] = []
    current: list[str] = []
    for token in MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(source):
        if token.type == "inline":
            current.append(_inline(token.children or []))
        elif token.type in ("fence", "code_block"):
            lines.extend(token.content.splitlines())
        elif token.type == "html_block":
            lines.append(html_to_text(token.content))
        elif token.type in ("th_close", "td_close"):
            current.append("\t")
        if token.type in _LINE_ENDS and current:
            lines.append("".join(current))
            current = []
    if current:
        lines.append("".join(current))
    return join_blocks(lines)


def _real_markdown() -> list[Path]:
    """Real Markdown, largest folders first, up to ``_MAX_BYTES`` in all."""
    found: list[Path] = sorted(ROOT.glob("*.md")) + sorted((ROOT / "docs").glob("**/*.md"))
    for folder in (Path(sys.prefix) / "lib", Path("/usr/share/doc")):
        found += sorted(p for p in folder.glob("**/*.md") if p.is_file())
    chosen: list[Path] = []
    total = 0
    for path in found:
        size = path.stat().st_size
        if size > 0 and total + size <= _MAX_BYTES:
            chosen.append(path)
            total += size
    return chosen


@pytest.mark.parametrize("source", TRICKY)
def test_tricky_markdown_reads_as_the_reference(source: str) -> None:
    assert markup.markdown_to_text(source) == reference_text(source)


def test_real_markdown_reads_as_the_reference() -> None:
    files = _real_markdown()
    assert len(files) >= 5  # this project's README and docs at least
    for path in files:
        source = decode_text(path.read_bytes())
        assert markup.markdown_to_text(source) == reference_text(source), path


def test_what_a_reader_does_not_see_is_dropped() -> None:
    text = markup.markdown_to_text(TRICKY[0] + "\n\n" + TRICKY[1])
    assert text.split() == ["See", "the", "manual", "and", ".", "ref", "and", "other"]


def test_a_link_shows_its_words_whatever_its_target() -> None:
    # markdown-it-py left links to javascript: and file: targets as their source text
    source = "[unsafe](javascript:alert(1)) and [file](FILE:///etc/passwd) and [data](data:x)"
    assert markup.markdown_to_text(source) == "unsafe and file and data"


def test_an_autolink_reads_as_written() -> None:
    # markdown-it-py decoded punycode host names in the text it showed
    source = "Auto <https://xn--exmple-cua.org/päth> and <mailto:someone@exämple.org> as text."
    expected = "Auto https://xn--exmple-cua.org/päth and mailto:someone@exämple.org as text."
    assert markup.markdown_to_text(source) == expected


def test_a_lone_surrogate_is_read_not_raised() -> None:
    assert markup.markdown_to_text("# Title\n\nword \udcff word").split()[:2] == ["Title", "word"]
