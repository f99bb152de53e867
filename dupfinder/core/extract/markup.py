"""Markdown and reStructuredText: the words a reader sees once the markup is rendered.

Markdown goes through markdown-it-py's token stream (CommonMark plus tables and
strikethrough): headings, paragraphs, list items and table rows become lines, inline markup
disappears, code keeps its text, link targets and image alt text are dropped, raw HTML is
reduced to its visible text. Link targets are never normalised (percent-encoding, punycode
of host names): they are thrown away, and normalising them was a quarter of the parse. reStructuredText is parsed by docutils into a doctree whose
text blocks become lines; comments, targets, substitution definitions and parser messages
are dropped. Neither ever fails on bad markup: at worst the source is returned as text.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from dupfinder.core.extract.common import LIBRARY_ERRORS, join_blocks
from dupfinder.core.extract.html import html_to_text
from dupfinder.core.extract.limits import read_bounded
from dupfinder.core.extract.plain import decode_text

__all__ = ["extract_markdown", "extract_rst", "markdown_to_text", "rst_to_text"]

_LINE_ENDS = frozenset(
    {"paragraph_close", "heading_close", "tr_close", "list_item_close", "blockquote_close"}
)


def _inline(children: Sequence[Token]) -> str:
    """Text of one inline token's children; soft breaks are spaces (one paragraph, one line)."""
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
        # images (alt text is not shown), link targets and other inline tags add no words
    return "".join(parts)


def _as_given(url: str) -> str:
    return url


@functools.cache
def _markdown_parser() -> MarkdownIt:
    """One parser per process (it keeps no state between documents). Link targets stay as
    written: the text never shows them, and ``validateLink`` still refuses the same
    ``javascript:`` and ``file:`` targets (it reads only the scheme, which normalising keeps)."""
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    parser.normalizeLink = _as_given  # type: ignore[method-assign]
    return parser


def markdown_to_text(source: str) -> str:
    """Plain text of a Markdown document."""
    lines: list[str] = []
    current: list[str] = []
    for token in _markdown_parser().parse(source):
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


def _rst_settings() -> dict[str, Any]:
    """Quiet and safe: no messages on stderr, no halting, no file inclusion or raw output."""
    return {
        "report_level": 5,
        "halt_level": 5,
        "warning_stream": io.StringIO(),
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "_disable_config": True,
        "syntax_highlight": "none",
        "input_encoding": "unicode",
        "traceback": True,
    }


def rst_to_text(source: str) -> str:
    """Plain text of a reStructuredText document (its source when docutils gives up)."""
    from docutils import nodes
    from docutils.core import publish_doctree

    try:
        doctree = publish_doctree(source, settings_overrides=_rst_settings())
    except LIBRARY_ERRORS:
        return source
    skipped = (nodes.Invisible, nodes.system_message, nodes.raw, nodes.label)
    lines: list[str] = []

    def walk(node: nodes.Node) -> None:
        for child in node.children:
            if isinstance(child, skipped):
                continue
            if isinstance(child, nodes.TextElement) and not isinstance(child, nodes.Inline):
                text = child.astext()
                if not isinstance(child, nodes.FixedTextElement):
                    text = " ".join(text.split())
                lines.append(text)
            elif isinstance(child, nodes.Element):
                walk(child)

    try:
        walk(doctree)
    except RecursionError:
        return source
    return join_blocks(lines)


def extract_markdown(path: str, max_bytes: int) -> str:
    """Text of a Markdown file of at most ``max_bytes``."""
    return markdown_to_text(decode_text(read_bounded(path, max_bytes)))


def extract_rst(path: str, max_bytes: int) -> str:
    """Text of a reStructuredText file of at most ``max_bytes``."""
    return rst_to_text(decode_text(read_bounded(path, max_bytes)))
