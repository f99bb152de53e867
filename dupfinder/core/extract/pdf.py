"""PDF through PDFium (pypdfium2): the text layer, page by page, without page furniture.

Page numbers alone on a page's first or last line are dropped; a header or footer line
repeated on most pages is kept once (headers at the start, footers at the end, as a Word
document's header and footer are) so a PDF and its source document match. Words broken
by a hyphen at a line end are joined. Encrypted files open only with the empty password.
"""

from __future__ import annotations

import errno
import os
import re
import threading
from collections import Counter

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_raw

from dupfinder.core.errors import EncryptedFile, FileProblem, TooLarge, TooLittleContent
from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt
from dupfinder.core.extract.limits import MAX_PDF_PAGES, PDF_FACTOR
from dupfinder.core.wording import format_limit

__all__ = ["extract_pdf", "remove_page_furniture"]

#: PDFium is not thread-safe: one document at a time per process (the desktop app may read a
#: preview while an in-process scan reads another PDF).
_PDFIUM = threading.Lock()
_LINE_END_HYPHEN = "\x02"
_ERR_FILE = pdfium_raw.FPDF_ERR_FILE
_ERR_PASSWORD = pdfium_raw.FPDF_ERR_PASSWORD
_ERR_SECURITY = pdfium_raw.FPDF_ERR_SECURITY
_PAGE_NUMBER = re.compile(
    r"^[\s\-–—(\[]*(?:page|p\.|seite|pagina|página)?\s*"
    r"(?:\d{1,5}|[ivxlcdm]{1,8})(?:\s*(?:/|of|von|de|sur)\s*\d{1,5})?[\s\-–—)\]]*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_PDF_ERRORS: tuple[type[BaseException], ...] = (pdfium.PdfiumError, *LIBRARY_ERRORS)
_BROKEN_WORD = re.compile(r"(\w)-\n[ \t]*(?=[^\W\d_])")


def _is_page_number(line: str) -> bool:
    return bool(line.strip()) and _PAGE_NUMBER.match(line.strip()) is not None


def _repeated(pages: list[list[str]], index: int) -> str | None:
    """A line found at ``index`` (0 first, -1 last) on most pages, digits ignored."""
    if len(pages) < 2:
        return None
    keys = Counter(_DIGITS.sub("#", page[index].strip()) for page in pages if page)
    key, count = keys.most_common(1)[0] if keys else ("", 0)
    return key if key and count >= max(2, (len(pages) * 3 + 4) // 5) else None


def remove_page_furniture(pages: list[list[str]]) -> list[str]:
    """Lines of all pages with page numbers dropped and running heads kept only once."""
    pages = [[line for line in page if line.strip()] for page in pages]
    for page in pages:
        while page and _is_page_number(page[0]):
            del page[0]
        while page and _is_page_number(page[-1]):
            del page[-1]
    heads: list[str] = []
    feet: list[str] = []
    for _ in range(2):  # a running head may be two lines deep
        for index, kept in ((0, heads), (-1, feet)):
            key = _repeated(pages, index)
            if key is None:
                continue
            first: str | None = None
            for page in pages:
                if page and _DIGITS.sub("#", page[index].strip()) == key:
                    line = page.pop(index)
                    first = first or line
            if first is not None and not _is_page_number(first):
                kept.append(first)
    lines = heads + [line for page in pages for line in page] + feet[::-1]
    return lines


def _join_broken_words(text: str) -> str:
    """'exam-\\nple' → 'example' when the next line starts in lower case (a hyphenation)."""

    def join(match: re.Match[str]) -> str:
        following = text[match.end() : match.end() + 1]
        return match.group(1) if following.islower() else match.group(0)

    return _BROKEN_WORD.sub(join, text)


def _open(path: str) -> pdfium.PdfDocument:
    """Open with the empty password (many PDFs restrict only printing or editing)."""
    try:
        return pdfium.PdfDocument(path, password="")
    except pdfium.PdfiumError as exc:
        if exc.err_code == _ERR_PASSWORD:
            raise EncryptedFile("password-protected PDF") from exc
        if exc.err_code == _ERR_SECURITY:
            raise EncryptedFile("encrypted PDF with an unsupported security scheme") from exc
        if exc.err_code == _ERR_FILE:
            raise OSError(errno.EIO, "PDF could not be read") from exc
        raise


def _page_text(document: pdfium.PdfDocument, index: int) -> str:
    """A page's text, one line per line, hyphens at line ends back where the page has them.

    PDFium marks a hyphen that ends a line with U+0002 and drops that line break; the page
    clean-up decides itself which hyphenations to join.
    """
    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            return str(textpage.get_text_bounded()).replace(_LINE_END_HYPHEN, "-\n")
        finally:
            textpage.close()
    finally:
        page.close()


def extract_pdf(path: str, max_bytes: int) -> str:
    """Text layer of a PDF; TooLittleContent when its pages carry no text (a scan)."""
    size_limit = max_bytes * PDF_FACTOR
    if os.stat(path).st_size > size_limit:
        raise TooLarge(f"larger than the {format_limit(size_limit)} limit for PDF files")
    pages: list[list[str]] = []
    with _PDFIUM:
        try:
            document = _open(path)
            try:
                count = len(document)
                if count > MAX_PDF_PAGES:
                    raise TooLarge(f"more than {MAX_PDF_PAGES:,} pages ({count:,})")
                chars = 0
                for index in range(count):
                    text = _page_text(document, index)
                    chars += len(text)
                    if chars > max_bytes:
                        raise TooLarge(f"holds more than {max_bytes:,} characters of text")
                    pages.append(text.splitlines())
            finally:
                document.close()
        except FileProblem:
            raise
        except _PDF_ERRORS as exc:
            raise corrupt("PDF", exc) from exc
    if count == 0:
        raise TooLittleContent("PDF without pages")
    text = "\n".join(remove_page_furniture(pages))
    if not text.strip():
        raise TooLittleContent("no text layer (scanned PDF?)")
    return _join_broken_words(text)
