"""HTML read as a tree that libxml2 builds and lxml edits in C.

An XSLT stylesheet writes the page's text with a marker character where the streaming
reader acts on an element's start and end (skipped elements left out); hidden elements are
cut out first, and the text is split at the markers. Python touches a page a handful of
times, not once a tag and run of text. A page over ``FEED_CHARS`` is fed in parts, and what
the parser has finished is written and dropped after each, so the tree held stays near one
part. A page the tree cannot read as the stream does (deeper than libxml2 builds a tree, or
holding a marker character itself) gives None, for the stream to read.
"""

from __future__ import annotations

import re

from lxml import etree

from dupfinder.core.extract.html_roles import (
    BLOCK,
    BREAK,
    CELL,
    CELL_END,
    FEED_CHARS,
    HIDDEN_STYLE,
    KEEP_SPACES,
    LINE,
    PARSER_OPTIONS,
    PRESERVE,
    SKIP,
    SKIPPED,
    is_hidden,
    role_of,
)

__all__ = ["tree_lines"]

# The markers: C1 controls that no Windows code page uses; a page that holds one itself
# (written or as a character reference) is left to the stream.
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
_KEEP_MARKS = re.compile(f"([{_KEEP_OPEN}{_KEEP_CLOSE}])")
_STYLE_ATTRIBUTE = re.compile(rb"style\s*=")
# Two searches: the union of both sorts attribute nodes in quadratic time.
_HIDDEN_ATTRIBUTE = etree.XPath("descendant::*/@hidden")
_STYLES = etree.XPath("descendant::*/@style")


def _marks(role: int) -> tuple[str, str]:
    """What an element of this role writes before its content and before its tail."""
    before = after = ""
    if role & LINE:
        before = after = _LINE_MARK
    if role & BREAK:
        before = _LINE_MARK
    if role & CELL_END:
        after = _CELL_MARK + after
    if role & KEEP_SPACES:
        before += _KEEP_OPEN
        after = _KEEP_CLOSE + after
    return before, after


def _stylesheet() -> etree.XSLT:
    """Text output, marks around the elements that break lines, skipped ones left out."""

    def chars(marks: str) -> str:
        return "".join(f"&#{ord(mark)};" for mark in marks)

    templates = [
        f'<xsl:template match="{" | ".join(sorted(SKIP))}"/>',
        f'<xsl:template match="{_TOP}">{chars(_LINE_MARK)}<xsl:apply-templates/>'
        f"{chars(_LINE_MARK)}</xsl:template>",
    ]
    for name in sorted(BLOCK | CELL | PRESERVE | {"br"}):
        before, after = map(chars, _marks(role_of(name)))
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


class _Lines:
    """Marked text, piece by piece, as lines: spaces collapsed outside ``<pre>``, kept
    inside. Lines are cut as pieces come, so no copy of the whole text is ever made."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._open_line: list[str] = []  # the start of a line that later pieces continue
        self._depth = 0  # <pre>-like elements open
        self._last = _LINE_MARK  # the last character written

    def append(self, piece: str) -> None:
        if _KEEP_OPEN not in piece and _KEEP_CLOSE not in piece:
            self._add_part(piece)
            return
        for part in _KEEP_MARKS.split(piece):
            if part == _KEEP_OPEN:
                self._depth += 1
            elif part == _KEEP_CLOSE:
                self._depth = max(self._depth - 1, 0)
            else:
                self._add_part(part)

    def _add_part(self, part: str) -> None:
        if self._depth:
            part = part.replace("\n", _LINE_MARK)
        else:
            part = _collapse(part)
            if part.startswith(" ") and self._last in _AFTER_SPACE:
                part = part[1:]
        if not part:  # an empty <pre>: the space rule looks past it
            return
        self._last = part[-1]
        cut = part.replace(_CELL_MARK, "\t").split(_LINE_MARK)
        if len(cut) == 1:
            self._open_line.append(cut[0])
            return
        self._open_line.append(cut[0])
        self.lines.append("".join(self._open_line))
        self.lines.extend(cut[1:-1])
        self._open_line = [cut[-1]]

    def close(self) -> list[str]:
        self.lines.append("".join(self._open_line))
        return self.lines


def _shown(element: etree._Element) -> bool:
    return not (role_of(element.tag) & SKIPPED or is_hidden(element.attrib))


class _MarkedText:
    """Marked text of a page read as a tree, taken out of the tree as the parser finishes it.

    An element still open when the text so far is taken has its start written then and is
    kept in ``_opened``; once finished, the rest of its content and its end are written by
    ``_add_rest``. Such an element is always the first child its parent has left, and only
    its own first child can be another.
    """

    def __init__(self, *, prefixed: bool, maybe_hidden: bool) -> None:
        self.pieces = _Lines()
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
                if HIDDEN_STYLE.search(style):
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
            self.pieces.append(_marks(role_of(first.tag))[1])
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
                    self.pieces.append(_marks(role_of(element.tag))[0])
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


def _may_hide(data: bytes) -> bool:
    """Whether a page has a ``hidden`` or ``style`` attribute (their names are written out,
    never character references); most have neither, and need no search of their tree."""
    lowered = data.lower()
    return b"hidden" in lowered or _STYLE_ATTRIBUTE.search(lowered) is not None


def tree_lines(text: str) -> list[str] | None:
    """The page's lines read from a tree, or None where only the stream reads it right."""
    if not text or any(mark in text for mark in _MARKS) or _MARK_REFERENCE.search(text):
        return None
    in_parts = len(text) > FEED_CHARS
    data = b"" if in_parts else text.encode("utf-8", "surrogatepass")
    marked = _MarkedText(
        prefixed=_PREFIXED.search(text) is not None,
        maybe_hidden=in_parts or _may_hide(data),
    )
    done = 0  # top-level elements written
    if not in_parts:
        first = etree.fromstring(data, etree.HTMLParser(**PARSER_OPTIONS))
    else:  # in parts, each written and dropped once the parser has finished it
        parser = etree.HTMLPullParser(events=("start",), tag="html", **PARSER_OPTIONS)
        first = None
        for start in range(0, len(text), FEED_CHARS):
            parser.feed(text[start : start + FEED_CHARS].encode("utf-8", "surrogatepass"))
            if first is None:
                first = next((element for _, element in parser.read_events()), None)
            if first is None or start + FEED_CHARS >= len(text):
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
    return marked.pieces.close()


#: What a collapsed space is dropped after: a line start, a space or a cell's tab.
_AFTER_SPACE = (" ", "\t", _LINE_MARK, _CELL_MARK)


def _collapse(part: str) -> str:
    """Each run of whitespace one space (``str.replace`` and a regex with a literal start,
    many times faster than one regex for all whitespace)."""
    for space in "\t\n\r\f":
        part = part.replace(space, " ")
    return _SPACE_RUNS.sub(" ", part).replace(_CELL_MARK + " ", _CELL_MARK)
