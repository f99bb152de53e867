"""HTML: the text a person sees in the browser, one block element per line.

Left out: ``<head>`` (so the ``<title>`` too, which is not part of the page and repeats in
every EPUB chapter), scripts, styles, templates, ``<noscript>``, embedded objects, comments,
elements marked ``hidden`` or ``display:none``, image alt text and link targets.
Block elements and ``<br>`` break lines; table cells are separated by tabs.
"""

from __future__ import annotations

import re
import warnings

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import PreformattedString

from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt, join_blocks
from dupfinder.core.extract.limits import read_bounded
from dupfinder.core.extract.plain import decode_text

__all__ = ["extract_html", "html_to_text"]

_SKIP = frozenset(
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
_BLOCK = frozenset(
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
_CELL = frozenset({"td", "th"})
_PRESERVE = frozenset({"pre", "textarea", "listing", "plaintext", "xmp"})
_SPACES = re.compile(r"[ \t\n\r\f]+")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def _hidden(tag: Tag) -> bool:
    """Elements the browser does not render although they sit in the body."""
    if tag.has_attr("hidden"):
        return True
    style = tag.get("style")
    return isinstance(style, str) and _HIDDEN_STYLE.search(style) is not None


class _Lines:
    """Accumulates inline text into lines, collapsing whitespace outside ``<pre>``."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.current: list[str] = []

    def text(self, text: str, preserve: bool) -> None:
        if preserve:
            first, *rest = text.split("\n")
            self.current.append(first)
            for line in rest:
                self.newline()
                self.current.append(line)
            return
        text = _SPACES.sub(" ", text)
        if not self.current or self.current[-1].endswith((" ", "\t")):
            text = text.lstrip(" ")
        if text:
            self.current.append(text)

    def cell(self) -> None:
        if self.current:
            self.current.append("\t")

    def newline(self) -> None:
        self.lines.append("".join(self.current).strip(" "))
        self.current = []

    def block(self) -> None:
        if self.current:
            self.newline()


def _walk(root: Tag, out: _Lines) -> None:
    """Depth-first over the parse tree with an explicit stack: nesting depth is unbounded."""
    # Stack entries: (node, inside <pre>) to visit, or (closing tag name, None) to leave.
    stack: list[tuple[object, bool | None]] = [(child, False) for child in reversed(root.contents)]
    while stack:
        node, preserve = stack.pop()
        if preserve is None:
            if node in _BLOCK:
                out.block()
            elif node in _CELL:
                out.cell()
            continue
        if isinstance(node, NavigableString):
            if not isinstance(node, PreformattedString):  # comments, doctype, CDATA, PIs
                out.text(str(node), preserve)
            continue
        if not isinstance(node, Tag):
            continue
        name = node.name.lower().rsplit(":", 1)[-1]
        if name in _SKIP or _hidden(node):
            continue
        if name == "br":
            out.newline()
            continue
        if name in _BLOCK:
            out.block()
        stack.append((name, None))
        inner = preserve or name in _PRESERVE
        stack.extend((child, inner) for child in reversed(node.contents))


def html_to_text(markup: str | bytes) -> str:
    """Visible text of an HTML or XHTML document (bytes: encoding from BOM/meta/detection)."""
    with warnings.catch_warnings():
        # bs4 warns about XHTML parsed as HTML and about input that looks like a file name.
        warnings.simplefilter("ignore")
        try:
            soup = BeautifulSoup(markup, "lxml")
        except LIBRARY_ERRORS:
            if not isinstance(markup, bytes):
                raise
            # A damaged <meta charset> can name an "encoding" lxml refuses outright (control
            # characters): decode as plain text instead and parse the string.
            soup = BeautifulSoup(decode_text(markup), "lxml")
    out = _Lines()
    _walk(soup, out)
    out.block()
    return join_blocks(out.lines)


def extract_html(path: str, max_bytes: int) -> str:
    """Text of an HTML file of at most ``max_bytes``."""
    data = read_bounded(path, max_bytes)
    try:
        return html_to_text(data)
    except LIBRARY_ERRORS as exc:
        raise corrupt("HTML page", exc) from exc
