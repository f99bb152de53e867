"""HTML elements by what they do to a page's text: the rules both readers of a page follow.

Left out: ``<head>`` (so the ``<title>`` too, which is not part of the page and repeats in
every EPUB chapter), scripts, styles, templates, ``<noscript>``, embedded objects, and
elements marked ``hidden`` or ``display:none``. Block elements and ``<br>`` break lines;
table cells end with a tab; ``<pre>``-like elements keep their spaces and line breaks.
"""

from __future__ import annotations

import re

__all__ = [
    "BLOCK",
    "BREAK",
    "CELL",
    "CELL_END",
    "FEED_CHARS",
    "HIDDEN_STYLE",
    "KEEP_SPACES",
    "LINE",
    "PARSER_OPTIONS",
    "PRESERVE",
    "SKIP",
    "SKIPPED",
    "WHITESPACE",
    "is_hidden",
    "role_of",
]

SKIP = frozenset(
    [
        "head",
        "title",
        "script",
        "style",
        "template",
        "noscript",
        "iframe",
        "object",
        "embed",
        "svg",
        "canvas",
        "audio",
        "video",
        "map",
        "datalist",
    ]
)
BLOCK = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "caption",
        "center",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "legend",
        "li",
        "main",
        "menu",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "tfoot",
        "thead",
        "tr",
        "ul",
        "option",
    ]
)
CELL = frozenset({"td", "th"})
PRESERVE = frozenset({"pre", "textarea", "listing", "plaintext", "xmp"})
WHITESPACE = " \t\n\r\f"
HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
#: Text fed to the parser at a time, so no second full copy of the page is held.
FEED_CHARS = 1 << 20
#: How both readers set up libxml2's HTML parser.
PARSER_OPTIONS: dict[str, object] = {
    "encoding": "utf-8",
    "remove_comments": True,
    "remove_pis": True,
    "no_network": True,
    "huge_tree": False,
}

# What an element does to the text, as bits (the streaming handler runs once per tag of
# the page, so it tests plain ints rather than enum members, whose hashing is Python code).
SKIPPED = 1  # the element and everything in it is left out
LINE = 2  # a block: starts and ends a line
BREAK = 4  # <br>: ends the line
CELL_END = 8  # a table cell: a tab after it
KEEP_SPACES = 16  # <pre>-like: whitespace and line breaks as written


def role_of(tag: str) -> int:
    """The bits above for a tag, by its local name (``o:p`` is a paragraph)."""
    name = tag.lower().rsplit(":", 1)[-1].rsplit("}", 1)[-1]
    if name in SKIP:
        return SKIPPED
    role = LINE if name in BLOCK else 0
    if name == "br":
        role |= BREAK
    if name in CELL:
        role |= CELL_END
    if name in PRESERVE:
        role |= KEEP_SPACES
    return role


def is_hidden(attributes: dict[str, str]) -> bool:
    """Elements the browser does not render although they sit in the body."""
    if "hidden" in attributes:
        return True
    style = attributes.get("style")
    return style is not None and HIDDEN_STYLE.search(style) is not None
