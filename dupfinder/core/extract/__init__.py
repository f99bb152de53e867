"""Text out of every document format dupfinder compares, safely.

``extract_text`` sniffs the content (then the suffix) to pick a reader, bounds what it
reads, and raises the ``FileProblem`` subclasses of ``dupfinder.core.errors`` with messages
meant for the user. ``OSError`` (permissions, vanished files) propagates unchanged.

Limits: text formats (plain, HTML, Markdown, rst, RTF) larger than ``max_bytes`` are
refused with TooLarge rather than read in part, because a prefix would fingerprint as a
different document; zip containers may unpack to ``CONTAINER_FACTOR`` times ``max_bytes``
and PDFs may be ``PDF_FACTOR`` times as large (images are never decoded); no reader returns
more than ``max_bytes`` characters. Output: one paragraph (PDF: one line) per line, so a
document and its conversions to other formats yield the same words in the same order.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable

from dupfinder.core.errors import CorruptFile, TooLarge, TooLittleContent, UnsupportedFile
from dupfinder.core.extract.common import tidy
from dupfinder.core.extract.limits import (
    CONTAINER_FACTOR,
    DEFAULT_MAX_BYTES,
    PDF_FACTOR,
    check_text_length,
)
from dupfinder.core.extract.sniff import SNIFF_BYTES, Format, sniff
from dupfinder.core.wording import format_limit

__all__ = ["DEFAULT_MAX_BYTES", "EXTRACTOR_VERSION", "Format", "detect_format", "extract_text"]

#: Modules of this package that other packages may import (none: this module is the face).
FACE: tuple[str, ...] = ()
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root",)

#: Part of the fingerprint cache key: bump whenever any reader's output changes.
EXTRACTOR_VERSION = "2"

Reader = Callable[[str, int], str]

_SIZE_FACTOR = {
    Format.PDF: PDF_FACTOR,
    Format.DOCX: CONTAINER_FACTOR,
    Format.ODT: CONTAINER_FACTOR,
    Format.EPUB: CONTAINER_FACTOR,
}


def _reader(fmt: Format) -> Reader:
    """The reader for ``fmt``, imported on first use.

    Each reader pulls in its own library (PDFium, lxml, docutils...); a scan of
    Markdown notes should not pay for all of them. Plain import statements (rather than
    importlib) keep the modules visible to PyInstaller's analysis.
    """
    match fmt:
        case Format.PLAIN:
            from dupfinder.core.extract.plain import extract_plain

            return extract_plain
        case Format.MARKDOWN:
            from dupfinder.core.extract.markup import extract_markdown

            return extract_markdown
        case Format.RST:
            from dupfinder.core.extract.markup import extract_rst

            return extract_rst
        case Format.HTML:
            from dupfinder.core.extract.html import extract_html

            return extract_html
        case Format.PDF:
            from dupfinder.core.extract.pdf import extract_pdf

            return extract_pdf
        case Format.DOCX:
            from dupfinder.core.extract.docx import extract_docx

            return extract_docx
        case Format.ODT:
            from dupfinder.core.extract.odt import extract_odt

            return extract_odt
        case Format.EPUB:
            from dupfinder.core.extract.epub import extract_epub

            return extract_epub
        case Format.RTF:
            from dupfinder.core.extract.rtf import extract_rtf

            return extract_rtf
    raise ValueError(f"no reader for {fmt!r}")


def _regular_file(path: str) -> os.stat_result:
    """Stat without following into devices or FIFOs (opening a FIFO would block)."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise UnsupportedFile("not a regular file")
    if info.st_size == 0:
        raise TooLittleContent("empty file")
    return info


def _sniff_file(name: str) -> Format:
    with open(name, "rb") as stream:
        head = stream.read(SNIFF_BYTES)
    if not head:  # emptied since the stat
        raise TooLittleContent("empty file")
    return sniff(name, head)


def detect_format(path: str | os.PathLike[str]) -> Format:
    """The reader ``extract_text`` would use; raises like it does for unreadable content."""
    name = os.fspath(path)
    _regular_file(name)
    return _sniff_file(name)


def extract_text(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The text a person reads in the document at ``path``, one paragraph per line."""
    if not isinstance(max_bytes, int) or max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive int, got {max_bytes!r}")
    name = os.fspath(path)
    info = _regular_file(name)
    fmt: Format | None = None
    try:
        fmt = _sniff_file(name)
        limit = max_bytes * _SIZE_FACTOR.get(fmt, 1)
        if info.st_size > limit:
            kind = "text documents" if limit == max_bytes else f"{fmt.value} files"
            raise TooLarge(f"larger than the {format_limit(limit)} limit for {kind}")
        text = tidy(_reader(fmt)(name, max_bytes))
    except OSError as exc:
        # zipfile seeks to offsets read from the file; a damaged one is a negative seek
        # (EINVAL), which says nothing about the disk: it is a damaged file, not a transient
        # failure to retry on every scan.
        if exc.errno != errno.EINVAL:
            raise
        what = fmt.value if fmt is not None else "zip container"
        raise CorruptFile(f"truncated or damaged {what}: a part lies outside the file") from exc
    if not text.strip():
        raise TooLittleContent("only whitespace" if fmt is Format.PLAIN else "no text")
    return check_text_length(text, max_bytes)
