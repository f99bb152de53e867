"""HTML: the text a person sees in the browser, one block element per line.

What shows and what breaks lines is in ``html_roles``; comments, image alt text and link
targets are left out too. A page is read as a tree built in C (``html_tree``), or, where
the tree cannot read it as the stream does (deeper than libxml2 builds a tree, or holding
one of its marker characters), as it streams through the parser (``html_stream``). Both
give the same text; the tree takes about two thirds of the stream's CPU on real pages.
"""

from __future__ import annotations

import codecs
import re

from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt, join_blocks
from dupfinder.core.extract.html_stream import stream_lines
from dupfinder.core.extract.html_tree import tree_lines
from dupfinder.core.extract.limits import read_bounded
from dupfinder.core.extract.plain import bom_encoding, decode_text

__all__ = ["extract_html", "html_to_text"]

#: Where browsers look for a declared encoding: the first KiB (a bounded, linear search).
_PRESCAN_BYTES = 1024
_DECLARED = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([-\w.:]{1,40})|"""
    rb"""^\s*<\?xml[^>]{0,200}?encoding\s*=\s*["']([-\w.:]{1,40})""",
    re.I,
)


def _declared_encoding(head: bytes) -> str | None:
    """The encoding a ``<meta>`` or XML declaration names, if Python knows it."""
    match = _DECLARED.search(head[:_PRESCAN_BYTES])
    if match is None:
        return None
    name = (match.group(1) or match.group(2)).decode("ascii")
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        return None
    # A page served as UTF-16 cannot declare it in ASCII bytes; browsers read it as UTF-8.
    return "utf-8" if codec.startswith(("utf-16", "utf-32")) else codec


def decode_html(data: bytes) -> str:
    """A page's bytes as text: byte-order mark, then declared encoding, then detection."""
    if bom_encoding(data) is None:
        declared = _declared_encoding(data)
        if declared is not None:
            return data.decode(declared, errors="replace")
    return decode_text(data)


def html_to_text(markup: str | bytes, *, streamed: bool = False) -> str:
    """Visible text of an HTML or XHTML document (bytes: encoding from BOM/meta/detection).

    ``streamed``: read as the parser goes, however the page is built (the way of pages too
    deep for a tree; the same text, slower).
    """
    text = decode_html(markup) if isinstance(markup, bytes) else markup
    lines = None if streamed else tree_lines(text)
    if lines is None:
        lines = stream_lines(text)
    return join_blocks(lines)


def extract_html(path: str, max_bytes: int) -> str:
    """Text of an HTML file of at most ``max_bytes``."""
    text = decode_html(read_bounded(path, max_bytes))
    try:
        return html_to_text(text)
    except LIBRARY_ERRORS as exc:
        raise corrupt("HTML page", exc) from exc
