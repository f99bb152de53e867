"""OpenDocument text (.odt) through odfpy: paragraphs and headings in document order.

Tables, lists, sections and frames are walked in order, so cells come row by row.
Tracked deletions and note citations are not text; a note's body follows the paragraph
that cites it. Master-page headers come first and footers last, once each, as in the DOCX
reader. odfpy parses with defusedxml, so entity tricks in the XML are refused.
"""

from __future__ import annotations

import re
import warnings
import zipfile
from collections.abc import Iterator
from typing import Any

from dupfinder.core.errors import CorruptFile, FileProblem
from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt, join_blocks
from dupfinder.core.extract.limits import check_member, check_zip

__all__ = ["extract_odt"]

_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
_PARAGRAPHS = frozenset({(_TEXT, "p"), (_TEXT, "h")})
_NOT_TEXT = frozenset(
    {(_TEXT, "tracked-changes"), (_TEXT, "note-citation"), (_TEXT, "sequence-decls")}
)
_NOTE = (_TEXT, "note")
_HEADS = frozenset({"header", "header-left", "header-first"})
_FEET = frozenset({"footer", "footer-left", "footer-first"})
_NUMBER_ONLY = re.compile(r"^\W*\d+\W*$")
_TEXT_NODE = 3
_MAX_SPACES = 64


def _children(node: Any) -> Iterator[Any]:
    yield from getattr(node, "childNodes", ())


def _space_count(value: str | None) -> int:
    """``text:s c="N"``, bounded: a hostile N must not allocate gigabytes of spaces."""
    try:
        return min(max(int(value or 1), 1), _MAX_SPACES)
    except ValueError:
        return 1


def _inline(node: Any, parts: list[str], later: list[str]) -> None:
    """Add inline text to ``parts``; paragraphs nested in notes and frames to ``later``."""
    for child in _children(node):
        if child.nodeType == _TEXT_NODE:
            parts.append(child.data)
            continue
        qname = child.qname
        if qname in _NOT_TEXT:
            continue
        if qname == (_TEXT, "s"):
            parts.append(" " * _space_count(child.getAttrNS(_TEXT, "c")))
        elif qname == (_TEXT, "tab"):
            parts.append("\t")
        elif qname == (_TEXT, "line-break"):
            parts.append("\n")
        elif qname == _NOTE or qname in _PARAGRAPHS:
            later.extend(_blocks(child) if qname == _NOTE else _paragraph(child))
        else:
            _inline(child, parts, later)


def _paragraph(node: Any) -> list[str]:
    """The paragraph's own line, then any paragraphs anchored inside it."""
    parts: list[str] = []
    later: list[str] = []
    _inline(node, parts, later)
    return ["".join(parts), *later]


def _blocks(node: Any) -> list[str]:
    """Paragraph lines under ``node`` in document order."""
    blocks: list[str] = []
    for child in _children(node):
        if child.nodeType != _TEXT_NODE and child.qname not in _NOT_TEXT:
            if child.qname in _PARAGRAPHS:
                blocks.extend(_paragraph(child))
            else:
                blocks.extend(_blocks(child))
    return blocks


def _page_furniture(masterstyles: Any) -> tuple[list[str], list[str]]:
    """Distinct header and footer lines of all master pages, page numbers left out."""
    heads: dict[str, None] = {}
    feet: dict[str, None] = {}
    for page in _children(masterstyles):
        for part in _children(page):
            if part.nodeType == _TEXT_NODE or part.qname[0] != _STYLE:
                continue
            target = heads if part.qname[1] in _HEADS else feet if part.qname[1] in _FEET else None
            if target is None:
                continue
            for line in _blocks(part):
                if line.strip() and not _NUMBER_ONLY.match(line):
                    target.setdefault(line, None)
    return list(heads), list(feet)


def extract_odt(path: str, max_bytes: int) -> str:
    """Text of an OpenDocument text file."""
    from odf.opendocument import load

    try:
        with zipfile.ZipFile(path) as archive:
            check_zip(archive, max_bytes)
            check_member(archive, "content.xml", max_bytes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            document = load(path)
        body = document.text
        if body is None:
            raise CorruptFile("damaged OpenDocument text: no text body")
        heads, feet = _page_furniture(document.masterstyles)
        lines = heads + _blocks(body) + feet
    except FileProblem:
        raise
    except KeyError as exc:
        raise CorruptFile(f"damaged OpenDocument text: a required part is missing ({exc})") from exc
    except LIBRARY_ERRORS as exc:
        raise corrupt("OpenDocument text", exc) from exc
    return join_blocks(lines)
