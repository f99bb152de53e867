"""HTML read as it streams through libxml2's parser: tags and text reported to a handler
as they are read, so no tree is built and memory stays near the size of the page whatever
its length or nesting depth."""

from __future__ import annotations

import re

from lxml import etree

from dupfinder.core.extract.html_roles import (
    BREAK,
    CELL_END,
    FEED_CHARS,
    KEEP_SPACES,
    LINE,
    PARSER_OPTIONS,
    SKIPPED,
    WHITESPACE,
    is_hidden,
    role_of,
)

__all__ = ["stream_lines"]

_SPACES = re.compile(f"[{WHITESPACE}]+")


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
            role = self._roles[tag] = role_of(tag)
        if role & SKIPPED or (attrib and is_hidden(attrib)):
            self._skipping = 1
            return
        if role & BREAK or (role & LINE and self._current):
            self._end_line()
        if role & KEEP_SPACES:
            self._preserving += 1

    def end(self, tag: str) -> None:
        if self._skipping:
            self._skipping -= 1
            return
        role = self._roles.get(tag)
        if role is None:
            role = self._roles[tag] = role_of(tag)
        if role & KEEP_SPACES and self._preserving:
            self._preserving -= 1
        if role & LINE:
            if self._current:
                self._end_line()
        elif role & CELL_END and self._current:
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
        if not text.strip(WHITESPACE):  # between tags: at most one space
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


def stream_lines(text: str) -> list[str]:
    """The page's lines, before empty ones are dropped and each is stripped."""
    target = _VisibleText()
    parser = etree.HTMLParser(target=target, **PARSER_OPTIONS)
    for start in range(0, len(text), FEED_CHARS):
        parser.feed(text[start : start + FEED_CHARS].encode("utf-8", "surrogatepass"))
    lines: list[str] = parser.close()
    return lines
