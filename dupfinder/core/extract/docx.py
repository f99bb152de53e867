"""Word (.docx): body paragraphs and tables in document order, read from the package's XML.

Every paragraph is read, also those the document model of Word libraries skips (content
controls, tracked insertions, text boxes, nested tables). Deleted revisions and field
codes are not text; the fallback copy of a text box (``mc:Fallback``) is skipped so text
appears once. Headers come first and footers last, each distinct text once, as a PDF of
the document shows them once per page; footnotes and endnotes follow the body. Page-number
fields are dropped.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Iterable

from dupfinder.core.errors import CorruptFile, FileProblem
from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt, join_blocks
from dupfinder.core.extract.limits import check_member
from dupfinder.core.extract.zipparts import Container

__all__ = ["extract_docx"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_P = f"{_W}p"
_T = f"{_W}t"
_INLINE = {f"{_W}tab": "\t", f"{_W}noBreakHyphen": "-", f"{_W}br": "\n", f"{_W}cr": "\n"}
_SECTION = f"{_W}sectPr"
_NOTES = frozenset({f"{_W}footnote", f"{_W}endnote"})
_NOTE_TYPES = frozenset({"separator", "continuationSeparator", "continuationNotice"})
_REFERENCES = {f"{_W}headerReference": "header", f"{_W}footerReference": "footer"}
_REFERENCE_ORDER = {"default": 0, "first": 1, "even": 2}
_RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_NOTE_RELATIONS = (_RT + "footnotes", _RT + "endnotes")
_DOCUMENT = "word/document.xml"
_NUMBER_ONLY = re.compile(r"^\W*\d+\W*$")


class _Paragraphs:
    """Parser target: each ``w:p``'s text, in the order paragraphs start.

    A paragraph nested in another (a text box) is its own block, after the outer one, and
    its text is not part of the outer paragraph. ``w:sectPr`` header and footer references
    are collected on the way. In notes parts only real notes (not separators) are read.
    """

    def __init__(self, *, notes: bool = False) -> None:
        self.blocks: list[list[str]] = []
        #: (section, order of the page type, header or footer, relationship id)
        self.references: list[tuple[int, int, str, str]] = []
        self._section = 0
        self._open: list[list[str]] = []
        self._fallback = 0
        self._in_text = False
        self._notes = notes
        self._skipped_note = 0

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if self._fallback or self._skipped_note:
            self._fallback += tag == _FALLBACK
            self._skipped_note += bool(self._skipped_note)
            return
        if tag == _P:
            self._open.append([])
            self.blocks.append(self._open[-1])
        elif tag == _T:
            self._in_text = True
        elif tag in _INLINE:
            if self._open:
                self._open[-1].append(_INLINE[tag])
        elif tag == _FALLBACK:
            self._fallback = 1
        elif tag == _SECTION:
            self._section += 1
        elif tag in _REFERENCES:
            order = _REFERENCE_ORDER.get(attrib.get(f"{_W}type", "default"), 3)
            rel_id = attrib.get(f"{_R}id", "")
            self.references.append((self._section, order, _REFERENCES[tag], rel_id))
        elif self._notes and tag in _NOTES and attrib.get(f"{_W}type") in _NOTE_TYPES:
            self._skipped_note = 1

    def end(self, tag: str) -> None:
        if self._skipped_note:
            self._skipped_note -= 1
            return
        if self._fallback:
            self._fallback -= tag == _FALLBACK
            return
        if tag == _P:
            self._open.pop()
        elif tag == _T:
            self._in_text = False

    def data(self, text: str) -> None:
        if self._in_text and self._open and not self._fallback and not self._skipped_note:
            self._open[-1].append(text)

    def close(self) -> list[str]:
        return ["".join(parts) for parts in self.blocks]


class _Relations:
    """Parser target: relationship id → (type, target) of a ``.rels`` part."""

    def __init__(self) -> None:
        self.targets: dict[str, tuple[str, str]] = {}

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if tag == _REL and attrib.get("TargetMode") != "External":
            self.targets[attrib.get("Id", "")] = (attrib.get("Type", ""), attrib.get("Target", ""))

    def end(self, tag: str) -> None:
        pass

    def data(self, text: str) -> None:
        pass

    def close(self) -> dict[str, tuple[str, str]]:
        return self.targets


def _distinct(texts: Iterable[str]) -> list[str]:
    """Each text once, in first-seen order, page numbers left out."""
    seen: dict[str, None] = {}
    for text in texts:
        if text.strip() and not _NUMBER_ONLY.match(text):
            seen.setdefault(text, None)
    return list(seen)


def _part_name(target: str) -> str:
    """A relationship target (relative to ``word/`` or absolute in the package) as a member."""
    if target.startswith("/"):
        return target.lstrip("/")
    return posixpath.normpath(posixpath.join("word", target))


def _read(container: Container) -> list[str]:
    body_handler = _Paragraphs()
    body = container.parse(_DOCUMENT, body_handler)
    relations: dict[str, tuple[str, str]] = {}
    if container.has("word/_rels/document.xml.rels"):
        relations = container.parse("word/_rels/document.xml.rels", _Relations())
    furniture: dict[str, list[str]] = {"header": [], "footer": []}
    seen: set[str] = set()
    # Section by section, default pages before first and even ones, each part once.
    for _, _, kind, rel_id in sorted(body_handler.references):
        relation = relations.get(rel_id)
        name = _part_name(relation[1]) if relation is not None else ""
        if name and name not in seen and container.has(name):
            seen.add(name)
            furniture[kind].extend(container.parse(name, _Paragraphs()))
    notes: list[str] = []
    for rel_type, target in relations.values():
        name = _part_name(target)
        if rel_type in _NOTE_RELATIONS and container.has(name):
            notes.extend(container.parse(name, _Paragraphs(notes=True)))
    return _distinct(furniture["header"]) + body + notes + _distinct(furniture["footer"])


def extract_docx(path: str, max_bytes: int) -> str:
    """Text of a Word document."""
    try:
        with zipfile.ZipFile(path) as archive:
            check_member(archive, _DOCUMENT, max_bytes)
            lines = _read(Container(archive, max_bytes))
    except FileProblem:
        raise
    except KeyError as exc:
        raise CorruptFile(f"damaged Word document: a required part is missing ({exc})") from exc
    except LIBRARY_ERRORS as exc:
        raise corrupt("Word document", exc) from exc
    return join_blocks(lines)
