"""HTML: the text a person sees in the browser, one block element per line.

Left out: ``<head>`` (so the ``<title>`` too, which is not part of the page and repeats in
every EPUB chapter), scripts, styles, templates, ``<noscript>``, embedded objects, comments,
elements marked ``hidden`` or ``display:none``, image alt text and link targets.
Block elements and ``<br>`` break lines; table cells are separated by tabs.

A page of up to ``_TREE_CHARS`` characters is read as a tree that libxml2 builds and
edits in C (through lxml): skipped and hidden elements are cut out, the elements that break
lines get a marker character in their text and tail, and the serialised text is split at
the markers; Python touches only those elements, not every tag and run of text. A larger
or deeper page (libxml2 stops building a tree 256 elements deep) streams through the
parser instead, its tags and text reported to a handler as they are read, so memory stays
near the size of the page whatever its length or depth. Both give the same text.
"""

from __future__ import annotations

import codecs
import re

from lxml import etree

from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt
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


# The tree reading: an XSLT stylesheet writes the text with a marker character where the
# streaming handler above acts on an element's start and end. The markers are C1 controls
# that no Windows code page uses; a page that holds one itself (written or as a character
# reference) is streamed instead.
_LINE_MARK = "\x81"
_CELL_MARK = "\x8d"
_KEEP_OPEN = "\x8f"
_KEEP_CLOSE = "\x90"
_MARKS = (_LINE_MARK, _CELL_MARK, _KEEP_OPEN, _KEEP_CLOSE)
_MARK_REFERENCE = re.compile("&#(?:[xX]0*(?:81|8[dDfF]|90)|0*(?:129|141|143|144))(?![0-9a-fA-F])")
#: libxml2 builds a tree at most this deep without ``huge_tree``, and silently stops there.
_TREE_DEPTH = 255
#: Tags the HTML parser never produces (it lowers every name): hidden elements get the
#: first, the content of each top-level element the second when there are several.
_CUT = "HIDDEN"
_TOP = "TOP"
_PREFIXED = re.compile(r"<[A-Za-z][^\s/>:]*:")
_SPACE_RUNS = re.compile("  +")
_STYLE_ATTRIBUTE = re.compile(rb"style\s*=")
# Two searches: the union of both sorts attribute nodes in quadratic time.
_HIDDEN_ATTRIBUTE = etree.XPath("descendant::*/@hidden")
_STYLES = etree.XPath("descendant::*/@style")


def _marks(role: int) -> tuple[str, str]:
    """What an element of this role writes before its content and before its tail."""
    before = after = ""
    if role & _LINE:
        before = after = _LINE_MARK
    if role & _BREAK:
        before = _LINE_MARK
    if role & _CELL_END:
        after = _CELL_MARK + after
    if role & _KEEP_SPACES:
        before += _KEEP_OPEN
        after = _KEEP_CLOSE + after
    return before, after


def _stylesheet() -> etree.XSLT:
    """Text output, marks around the elements that break lines, skipped ones left out."""

    def chars(marks: str) -> str:
        return "".join(f"&#{ord(mark)};" for mark in marks)

    templates = [
        f'<xsl:template match="{" | ".join(sorted(_SKIP))}"/>',
        f'<xsl:template match="{_TOP}">{chars(_LINE_MARK)}<xsl:apply-templates/>'
        f"{chars(_LINE_MARK)}</xsl:template>",
    ]
    for name in sorted(_BLOCK | _CELL | _PRESERVE | {"br"}):
        before, after = map(chars, _marks(_role(name)))
        templates.append(
            f'<xsl:template match="{name}">{before}<xsl:apply-templates/>{after}</xsl:template>'
        )
    return etree.XSLT(
        etree.XML(
            '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">'
            '<xsl:output method="text" encoding="UTF-8"/>'
            + "".join(templates)
            + "</xsl:stylesheet>"
        )
    )


_WRITE_TEXT = _stylesheet()


def _shown(element: etree._Element) -> bool:
    return not (_role(element.tag) & _SKIPPED or _hidden(element.attrib))


class _MarkedText:
    """Marked text of a page read as a tree, taken out of the tree as the parser finishes it.

    An element still open when the text so far is taken has its start written then and is
    kept in ``_opened``; once finished, the rest of its content and its end are written by
    ``_add_rest``. Such an element is always the first child its parent has left, and only
    its own first child can be another.
    """

    def __init__(self, *, prefixed: bool, maybe_hidden: bool) -> None:
        self.pieces: list[str] = []
        self._prefixed = prefixed
        self._maybe_hidden = maybe_hidden
        self._opened: set[etree._Element] = set()

    def add(self, root: etree._Element) -> None:
        """The text of a finished element's content (not the element's own start or tail)."""
        if self._prefixed:
            for element in root.xpath("descendant::*[contains(name(), ':')]"):
                element.tag = element.tag.rsplit(":", 1)[-1]
        if self._maybe_hidden:
            found = False
            for attribute in _HIDDEN_ATTRIBUTE(root):
                attribute.getparent().tag = _CUT
                found = True
            for style in _STYLES(root):
                if _HIDDEN_STYLE.search(style):
                    style.getparent().tag = _CUT
                    found = True
            if found:
                etree.strip_elements(root, _CUT, with_tail=False)
        self.pieces.append(str(_WRITE_TEXT(root)))

    def add_tops(self, tops: list[etree._Element]) -> None:
        """Finished top-level elements (each ``</html>`` followed by more text makes one)."""
        if tops and tops[0] in self._opened:
            self._add_rest(tops[0])
            self.pieces.append(_LINE_MARK)
            tops = tops[1:]
        if len(tops) == 1 and tops[0].getnext() is None and tops[0].getprevious() is None:
            if _shown(tops[0]):
                self.add(tops[0])
            self.pieces.append(_LINE_MARK)
        elif tops:
            # One stylesheet run for all (XSLT would read the other top-level elements too
            # if given one, and a run costs more than what most of them hold).
            batch = etree.Element(_CUT)
            for top in tops:
                if _shown(top):
                    content = etree.SubElement(batch, _TOP)
                    content.text = top.text
                    content.extend(list(top))
            self.add(batch)
            self.pieces.append(_LINE_MARK)

    def _add_children(self, children: list[etree._Element]) -> None:
        """Finished children of a shown element, with their tails."""
        if children and children[0] in self._opened:
            first = children.pop(0)
            self._add_rest(first)
            self.pieces.append(_marks(_role(first.tag))[1])
            if first.tail:
                self.pieces.append(first.tail)
            self._opened.discard(first)
            parent = first.getparent()
            if parent is not None:
                parent.remove(first)
        if children:
            batch = etree.Element(_CUT)
            batch.extend(children)
            self.add(batch)

    def _add_rest(self, element: etree._Element) -> None:
        """What is left of an opened element, now finished: its text and children not yet
        written (not its end)."""
        if element.text:
            self.pieces.append(element.text)
        self._add_children(list(element))

    def take_finished(self, top: etree._Element) -> bool:
        """Write and drop what the parser has finished: all but the last child of each open
        element, down from ``top``. False when the tree is as deep as libxml2 builds."""
        element, shown, depth = top, _shown(top), 0
        if shown:
            self._opened.add(top)  # its start: the start of the text
        while True:
            if shown and element not in self._opened:
                shown = _shown(element)
                if shown:
                    self.pieces.append(_marks(_role(element.tag))[0])
                    self._opened.add(element)
            children = list(element)
            if not children:
                return True
            if shown:
                if element.text:
                    self.pieces.append(element.text)
                self._add_children(children[:-1])
            else:
                for child in children[:-1]:
                    element.remove(child)
            element.text = None
            element = children[-1]
            depth += 1
            if depth >= _TREE_DEPTH:
                return False


def _too_deep(top: etree._Element) -> bool:
    """Whether libxml2 stopped at its depth limit (the last element read is then that deep)."""
    depth, element = 0, top
    while len(element):
        element = element[-1]
        depth += 1
    return depth >= _TREE_DEPTH


def _tree_parser_options() -> dict[str, object]:
    return {
        "encoding": "utf-8",
        "remove_comments": True,
        "remove_pis": True,
        "no_network": True,
        "huge_tree": False,
    }


def _tree_parser() -> etree.HTMLParser:
    return etree.HTMLParser(**_tree_parser_options())


def _may_hide(data: bytes) -> bool:
    """Whether a page has a ``hidden`` or ``style`` attribute (their names are written out,
    never character references); most have neither, and need no search of their tree."""
    lowered = data.lower()
    return b"hidden" in lowered or _STYLE_ATTRIBUTE.search(lowered) is not None


def _tree_lines(text: str) -> list[str] | None:
    """The page's lines read from a tree, or None where only the stream reads it right."""
    if not text or any(mark in text for mark in _MARKS) or _MARK_REFERENCE.search(text):
        return None
    in_parts = len(text) > _FEED_CHARS
    data = b"" if in_parts else text.encode("utf-8", "surrogatepass")
    marked = _MarkedText(
        prefixed=_PREFIXED.search(text) is not None,
        maybe_hidden=in_parts or _may_hide(data),
    )
    done = 0  # top-level elements written
    if not in_parts:
        first = etree.fromstring(data, _tree_parser())
    else:  # in parts, each written and dropped once the parser has finished it
        parser = etree.HTMLPullParser(events=("start",), tag="html", **_tree_parser_options())
        first = None
        for start in range(0, len(text), _FEED_CHARS):
            parser.feed(text[start : start + _FEED_CHARS].encode("utf-8", "surrogatepass"))
            if first is None:
                first = next((element for _, element in parser.read_events()), None)
            if first is None or start + _FEED_CHARS >= len(text):
                continue
            tops = [first, *first.itersiblings()]
            if len(tops) - 1 > done:
                marked.add_tops(tops[done:-1])
            done = len(tops) - 1
            if not marked.take_finished(tops[-1]):
                return None
        first = parser.close()
    if first is None:
        return []
    tops = [first, *first.itersiblings()]
    if _too_deep(tops[-1]):
        return None
    marked.add_tops(tops[done:])
    return _split_lines("".join(marked.pieces))


def _split_lines(marked: str) -> list[str]:
    """Marked text as lines: spaces collapsed outside ``<pre>``, kept inside."""
    if _KEEP_OPEN not in marked:
        return _collapse(marked).replace(_CELL_MARK, "\t").split(_LINE_MARK)
    pieces: list[str] = []
    depth = 0
    for part in re.split(f"([{_KEEP_OPEN}{_KEEP_CLOSE}])", marked):
        if part == _KEEP_OPEN:
            depth += 1
        elif part == _KEEP_CLOSE:
            depth = max(depth - 1, 0)
        elif not part:  # an empty <pre>: the space rule looks past it
            continue
        elif depth:
            pieces.append(part.replace("\n", _LINE_MARK))
        else:
            part = _collapse(part)
            if part.startswith(" ") and (not pieces or pieces[-1].endswith(_AFTER_SPACE)):
                part = part[1:]
            if part:
                pieces.append(part)
    return "".join(pieces).replace(_CELL_MARK, "\t").split(_LINE_MARK)


#: What a collapsed space is dropped after: a line start, a space or a cell's tab.
_AFTER_SPACE = (" ", "\t", _LINE_MARK, _CELL_MARK)


def _collapse(part: str) -> str:
    """Each run of whitespace one space (``str.replace`` and a regex with a literal start,
    many times faster than one regex for all whitespace)."""
    for space in "\t\n\r\f":
        part = part.replace(space, " ")
    return _SPACE_RUNS.sub(" ", part).replace(_CELL_MARK + " ", _CELL_MARK)


def _stream_lines(text: str) -> list[str]:
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
    return lines


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
    lines = None if streamed else _tree_lines(text)
    if lines is None:
        lines = _stream_lines(text)
    # join_blocks, with less Python around each line: a page has thousands.
    return "\n".join(filter(None, map(str.strip, lines)))


def extract_html(path: str, max_bytes: int) -> str:
    """Text of an HTML file of at most ``max_bytes``."""
    text = decode_html(read_bounded(path, max_bytes))
    try:
        return html_to_text(text)
    except LIBRARY_ERRORS as exc:
        raise corrupt("HTML page", exc) from exc
