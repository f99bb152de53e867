"""HTML: the text a person sees in the browser, one block element per line.

Left out: ``<head>`` (so the ``<title>`` too, which is not part of the page and repeats in
every EPUB chapter), scripts, styles, templates, ``<noscript>``, embedded objects, comments,
elements marked ``hidden`` or ``display:none``, image alt text and link targets.
Block elements and ``<br>`` break lines; table cells are separated by tabs.

libxml2's HTML parser (through lxml) reports tags and text to a handler as it reads, so no
tree is built: memory stays near the size of the page, whatever its nesting depth.
"""

from __future__ import annotations

import codecs
import re

from lxml import etree

from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt, join_blocks
from dupfinder.core.extract.limits import read_bounded
from dupfinder.core.extract.plain import bom_encoding, decode_text

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
_WHITESPACE = " \t\n\r\f"
_SPACES = re.compile(f"[{_WHITESPACE}]+")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
#: Where browsers look for a declared encoding: the first KiB (a bounded, linear search).
_PRESCAN_BYTES = 1024
_DECLARED = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([-\w.:]{1,40})|"""
    rb"""^\s*<\?xml[^>]{0,200}?encoding\s*=\s*["']([-\w.:]{1,40})""",
    re.I,
)
#: Text fed to the parser at a time, so no second full copy of the page is held.
_FEED_CHARS = 1 << 20


# What an element does to the text, as bits (the handler below runs once per tag of the
# page, so it tests plain ints rather than enum members, whose hashing is Python code).
_SKIPPED = 1  # the element and everything in it is left out
_LINE = 2  # a block: starts and ends a line
_BREAK = 4  # <br>: ends the line
_CELL_END = 8  # a table cell: a tab after it
_KEEP_SPACES = 16  # <pre>-like: whitespace and line breaks as written


def _role(tag: str) -> int:
    name = tag.lower().rsplit(":", 1)[-1].rsplit("}", 1)[-1]
    if name in _SKIP:
        return _SKIPPED
    role = _LINE if name in _BLOCK else 0
    if name == "br":
        role |= _BREAK
    if name in _CELL:
        role |= _CELL_END
    if name in _PRESERVE:
        role |= _KEEP_SPACES
    return role


def _hidden(attributes: dict[str, str]) -> bool:
    """Elements the browser does not render although they sit in the body."""
    if "hidden" in attributes:
        return True
    style = attributes.get("style")
    return style is not None and _HIDDEN_STYLE.search(style) is not None


class _VisibleText:
    """Parser target: lines of the text outside skipped subtrees, broken at blocks.

    Inline text is collapsed (runs of whitespace become one space, none at a line start)
    except inside ``<pre>``-like elements. ``_skipping`` counts open elements inside a
    skipped one, ``_preserving`` open ``<pre>``-like ones: the parser closes every element it
    opens (implied ends too), so both return to zero.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._current: list[str] = []
        self._skipping = 0
        self._preserving = 0
        self._roles: dict[str, int] = {}

    def _end_line(self) -> None:
        self.lines.append("".join(self._current).strip(" "))
        self._current = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if self._skipping:
            self._skipping += 1
            return
        role = self._roles.get(tag)
        if role is None:
            role = self._roles[tag] = _role(tag)
        if role & _SKIPPED or (attrib and _hidden(attrib)):
            self._skipping = 1
            return
        if role & _BREAK or (role & _LINE and self._current):
            self._end_line()
        if role & _KEEP_SPACES:
            self._preserving += 1

    def end(self, tag: str) -> None:
        if self._skipping:
            self._skipping -= 1
            return
        role = self._roles.get(tag)
        if role is None:
            role = self._roles[tag] = _role(tag)
        if role & _KEEP_SPACES and self._preserving:
            self._preserving -= 1
        if role & _LINE:
            if self._current:
                self._end_line()
        elif role & _CELL_END and self._current:
            self._current.append("\t")

    def data(self, text: str) -> None:
        if self._skipping:
            return
        current = self._current
        if self._preserving:
            first, *rest = text.split("\n")
            current.append(first)
            for line in rest:
                self._end_line()
                self._current.append(line)
            return
        at_line_start = not current or current[-1].endswith((" ", "\t"))
        if not text.strip(_WHITESPACE):  # between tags: at most one space
            if not at_line_start:
                current.append(" ")
            return
        text = _SPACES.sub(" ", text)
        if at_line_start:
            text = text.lstrip(" ")
        if text:
            current.append(text)

    def close(self) -> list[str]:
        if self._current:
            self._end_line()
        return self.lines


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


def html_to_text(markup: str | bytes) -> str:
    """Visible text of an HTML or XHTML document (bytes: encoding from BOM/meta/detection)."""
    text = decode_html(markup) if isinstance(markup, bytes) else markup
    target = _VisibleText()
    parser = etree.HTMLParser(
        target=target,
        encoding="utf-8",
        remove_comments=True,
        remove_pis=True,
        no_network=True,
        huge_tree=False,
    )
    for start in range(0, len(text), _FEED_CHARS):
        parser.feed(text[start : start + _FEED_CHARS].encode("utf-8", "surrogatepass"))
    lines: list[str] = parser.close()
    return join_blocks(lines)


def extract_html(path: str, max_bytes: int) -> str:
    """Text of an HTML file of at most ``max_bytes``."""
    text = decode_html(read_bounded(path, max_bytes))
    try:
        return html_to_text(text)
    except LIBRARY_ERRORS as exc:
        raise corrupt("HTML page", exc) from exc
