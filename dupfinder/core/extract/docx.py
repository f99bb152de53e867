"""Word (.docx) through python-docx: body paragraphs and tables in document order.

python-docx opens the package; the text is then read from its XML in document order,
which also reaches what its object model skips (content controls, tracked insertions,
text boxes, nested tables). Deleted revisions and field codes are not text; the fallback
copy of a text box (``mc:Fallback``) is skipped so text appears once. Headers come first
and footers last, each distinct text once, as a PDF of the document shows them once per
page; footnotes and endnotes follow the body. Page-number fields are dropped.
"""

from __future__ import annotations

import re
import warnings
import zipfile
from collections.abc import Iterable

from lxml import etree

from dupfinder.core.errors import CorruptFile, FileProblem
from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt, join_blocks
from dupfinder.core.extract.limits import check_member, check_zip

__all__ = ["extract_docx"]

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_P = f"{{{_W}}}p"
_T = f"{{{_W}}}t"
_TAB = f"{{{_W}}}tab"
_BREAKS = frozenset({f"{{{_W}}}br", f"{{{_W}}}cr"})
_NO_BREAK_HYPHEN = f"{{{_W}}}noBreakHyphen"
_FALLBACK = f"{{{_MC}}}Fallback"
_NOTE_TYPES = frozenset({"separator", "continuationSeparator", "continuationNotice"})
_RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_NUMBER_ONLY = re.compile(r"^\W*\d+\W*$")


def _paragraph_text(paragraph: etree._Element) -> str:
    """Text of one ``w:p`` without descending into paragraphs nested in it (text boxes)."""
    parts: list[str] = []
    for node in paragraph.iterdescendants(_T, _TAB, _NO_BREAK_HYPHEN, *_BREAKS):
        if _inside_other_paragraph_or_fallback(node, paragraph):
            continue
        if node.tag == _T:
            parts.append(node.text or "")
        elif node.tag == _TAB:
            parts.append("\t")
        elif node.tag == _NO_BREAK_HYPHEN:
            parts.append("-")
        else:
            parts.append("\n")
    return "".join(parts)


def _inside_other_paragraph_or_fallback(node: etree._Element, paragraph: etree._Element) -> bool:
    parent = node.getparent()
    while parent is not None and parent is not paragraph:
        if parent.tag in (_P, _FALLBACK):
            return True
        parent = parent.getparent()
    return False


def _blocks(root: etree._Element) -> list[str]:
    """Paragraph texts under ``root`` in document order (table cells included, row by row)."""
    blocks: list[str] = []
    for paragraph in root.iter(_P):
        if any(ancestor.tag == _FALLBACK for ancestor in paragraph.iterancestors()):
            continue
        blocks.append(_paragraph_text(paragraph))
    return blocks


def _parse(blob: bytes) -> etree._Element:
    """XML of a package part, parsed without entity expansion or network access."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    return etree.fromstring(blob, parser)


def _distinct(texts: Iterable[str]) -> list[str]:
    """Each text once, in first-seen order, page numbers left out."""
    seen: dict[str, None] = {}
    for text in texts:
        if text.strip() and not _NUMBER_ONLY.match(text):
            seen.setdefault(text, None)
    return list(seen)


def extract_docx(path: str, max_bytes: int) -> str:
    """Text of a Word document."""
    import docx  # python-docx

    try:
        with zipfile.ZipFile(path) as archive:
            check_zip(archive, max_bytes)
            check_member(archive, "word/document.xml", max_bytes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            document = docx.Document(path)
            heads: list[str] = []
            feet: list[str] = []
            for section in document.sections:
                for header in (section.header, section.first_page_header, section.even_page_header):
                    if not header.is_linked_to_previous:
                        heads.extend(_blocks(header._element))
                for footer in (section.footer, section.first_page_footer, section.even_page_footer):
                    if not footer.is_linked_to_previous:
                        feet.extend(_blocks(footer._element))
            body = _blocks(document.element.body)
            notes: list[str] = []
            for rel in document.part.rels.values():
                if rel.is_external or rel.reltype not in (_RT + "footnotes", _RT + "endnotes"):
                    continue
                for note in _parse(rel.target_part.blob):
                    if note.get(f"{{{_W}}}type") not in _NOTE_TYPES:
                        notes.extend(_blocks(note))
    except FileProblem:
        raise
    except KeyError as exc:
        raise CorruptFile(f"damaged Word document: a required part is missing ({exc})") from exc
    except LIBRARY_ERRORS as exc:
        raise corrupt("Word document", exc) from exc
    return join_blocks(_distinct(heads) + body + notes + _distinct(feet))
