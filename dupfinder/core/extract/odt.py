"""OpenDocument text (.odt): paragraphs and headings in document order, from the XML parts.

Tables, lists, sections and frames are walked in order, so cells come row by row.
Tracked deletions and note citations are not text; a note's body, like a paragraph in a
frame, follows the paragraph it is anchored in. Master-page headers come first and footers
last, once each, as in the DOCX reader.
"""

from __future__ import annotations

import re
import zipfile

from dupfinder.core.errors import CorruptFile, FileProblem
from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt, join_blocks
from dupfinder.core.extract.limits import check_member
from dupfinder.core.extract.zipparts import Container

__all__ = ["extract_odt"]

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_PARAGRAPHS = frozenset({f"{_TEXT}p", f"{_TEXT}h"})
_NOT_TEXT = frozenset(
    {f"{_TEXT}tracked-changes", f"{_TEXT}note-citation", f"{_TEXT}sequence-decls"}
)
_SPACE = f"{_TEXT}s"
_INLINE = {f"{_TEXT}tab": "\t", f"{_TEXT}line-break": "\n"}
_HEADS = frozenset(f"{_STYLE}{name}" for name in ("header", "header-left", "header-first"))
_FEET = frozenset(f"{_STYLE}{name}" for name in ("footer", "footer-left", "footer-first"))
_BODY = f"{_OFFICE}text"
_NUMBER_ONLY = re.compile(r"^\W*\d+\W*$")
_MAX_SPACES = 64


def _space_count(value: str | None) -> int:
    """``text:s c="N"``, bounded: a hostile N must not allocate gigabytes of spaces."""
    try:
        return min(max(int(value or 1), 1), _MAX_SPACES)
    except ValueError:
        return 1


class _Paragraphs:
    """Parser target: the lines of paragraphs inside ``region`` elements, in start order.

    In ``content.xml`` the region is the body (``office:text``); in ``styles.xml`` it is
    each header or footer of a master page, whose lines are kept apart in ``regions``.
    A paragraph inside another (in a note or a frame) is a line of its own after it.
    """

    def __init__(self, regions: frozenset[str]) -> None:
        self.regions: list[tuple[str, list[list[str]]]] = []
        self._wanted = regions
        self._depth = 0  # elements open inside the current region
        self._open: list[list[str]] = []
        self._skipping = 0

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if not self._depth:
            if tag in self._wanted:
                self.regions.append((tag, []))
                self._depth = 1
            return
        self._depth += 1
        if self._skipping or tag in _NOT_TEXT:
            self._skipping += 1
            return
        if tag in _PARAGRAPHS:
            self._open.append([])
            self.regions[-1][1].append(self._open[-1])
        elif not self._open:
            return
        elif tag == _SPACE:
            self._open[-1].append(" " * _space_count(attrib.get(f"{_TEXT}c")))
        elif tag in _INLINE:
            self._open[-1].append(_INLINE[tag])

    def end(self, tag: str) -> None:
        if not self._depth:
            return
        self._depth -= 1
        if self._skipping:
            self._skipping -= 1
        elif tag in _PARAGRAPHS:
            self._open.pop()

    def data(self, text: str) -> None:
        if self._open and not self._skipping:
            self._open[-1].append(text)

    def close(self) -> list[tuple[str, list[str]]]:
        return [(tag, ["".join(parts) for parts in lines]) for tag, lines in self.regions]


def _furniture(regions: list[tuple[str, list[str]]], kinds: frozenset[str]) -> list[str]:
    """Distinct header (or footer) lines of all master pages, page numbers left out."""
    lines: dict[str, None] = {}
    for tag, texts in regions:
        if tag in kinds:
            for line in texts:
                if line.strip() and not _NUMBER_ONLY.match(line):
                    lines.setdefault(line, None)
    return list(lines)


def extract_odt(path: str, max_bytes: int) -> str:
    """Text of an OpenDocument text file."""
    try:
        with zipfile.ZipFile(path) as archive:
            check_member(archive, "content.xml", max_bytes)
            container = Container(archive, max_bytes)
            body = container.parse("content.xml", _Paragraphs(frozenset({_BODY})))
            if not body:
                raise CorruptFile("damaged OpenDocument text: no text body")
            pages: list[tuple[str, list[str]]] = []
            if container.has("styles.xml"):
                pages = container.parse("styles.xml", _Paragraphs(_HEADS | _FEET))
    except FileProblem:
        raise
    except KeyError as exc:
        raise CorruptFile(f"damaged OpenDocument text: a required part is missing ({exc})") from exc
    except LIBRARY_ERRORS as exc:
        raise corrupt("OpenDocument text", exc) from exc
    lines = [line for _, texts in body for line in texts]
    return join_blocks(_furniture(pages, _HEADS) + lines + _furniture(pages, _FEET))
