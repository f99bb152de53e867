"""Which reader a file needs, from its first bytes first and its suffix second.

Content wins whenever it is recognisable: a Word document saved as ``.pdf`` is read as
Word, a zip archive renamed ``.docx`` is refused with a message saying what it really is.
The suffix only chooses between text dialects (plain, Markdown, reStructuredText, HTML)
that the bytes cannot tell apart reliably.
"""

from __future__ import annotations

import enum
import re
import zipfile
from pathlib import PurePath

from dupfinder.core.errors import UnsupportedFile
from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt
from dupfinder.core.extract.plain import bom_encoding, looks_binary

__all__ = ["SNIFF_BYTES", "Format", "sniff"]

#: Bytes read from the start of a file to decide its format.
SNIFF_BYTES = 8192


class Format(enum.StrEnum):
    """A reader; the value doubles as the format's name in messages."""

    PLAIN = "text"
    MARKDOWN = "Markdown"
    RST = "reStructuredText"
    HTML = "HTML"
    PDF = "PDF"
    DOCX = "Word document"
    ODT = "OpenDocument text"
    EPUB = "EPUB book"
    RTF = "RTF document"


_BY_SUFFIX = {
    ".md": Format.MARKDOWN,
    ".markdown": Format.MARKDOWN,
    ".rst": Format.RST,
    ".html": Format.HTML,
    ".htm": Format.HTML,
    ".xhtml": Format.HTML,
    ".pdf": Format.PDF,
    ".docx": Format.DOCX,
    ".odt": Format.ODT,
    ".epub": Format.EPUB,
    ".rtf": Format.RTF,
}
#: Suffixes whose text may really be an HTML page (saved pages, mail bodies).
_MAYBE_HTML = frozenset({"", ".txt", ".text"})
_CLAIM = {
    Format.PDF: "a PDF",
    Format.DOCX: "a Word document",
    Format.ODT: "an OpenDocument text",
    Format.EPUB: "an EPUB book",
    Format.RTF: "an RTF document",
}
_ODF_TEXT = frozenset(
    {"application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.text-template"}
)
_EPUB = "application/epub+zip"
# Magic numbers of common binary files, to name them in the message instead of "binary data".
_MAGIC = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Office (OLE2) file"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "a program (ELF executable)"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
_HTML_OPENING = re.compile(rb"<!doctype\s+html|<html[\s>]", re.I)
_WHITESPACE = frozenset(b" \t\n\r\x0b\x0c")
_COMMENT_OPEN = b"<!--"
_COMMENT_CLOSE = b"-->"


def _starts_like_html(head: bytes) -> bool:
    """A doctype or ``<html>`` after leading whitespace and comments.

    One forward pass: each comment is skipped by searching for its end, so the time stays
    linear however many comments come first (a backtracking pattern was exponential).
    """
    position = 0
    while True:
        while position < len(head) and head[position] in _WHITESPACE:
            position += 1
        if not head.startswith(_COMMENT_OPEN, position):
            return _HTML_OPENING.match(head, position) is not None
        end = head.find(_COMMENT_CLOSE, position + len(_COMMENT_OPEN))
        if end < 0:
            return False
        position = end + len(_COMMENT_CLOSE)


def _claimed(suffix: str) -> str:
    """What the suffix promises, for 'X, not Y' messages."""
    fmt = _BY_SUFFIX.get(suffix)
    return _CLAIM.get(fmt, "text") if fmt is not None else "text"


def _sniff_zip(path: str, suffix: str) -> Format:
    """DOCX, ODT or EPUB by their marker members; any other zip is refused by name."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            mimetype = ""
            if "mimetype" in names and archive.getinfo("mimetype").file_size <= 256:
                mimetype = archive.read("mimetype").decode("ascii", "replace").strip()
    except LIBRARY_ERRORS as exc:  # also an unknown zip version, an encrypted part
        claim = _claimed(suffix)
        raise corrupt("zip container" if claim == "text" else f"zip ({claim})", exc) from exc
    if "word/document.xml" in names:
        return Format.DOCX
    if mimetype in _ODF_TEXT:
        return Format.ODT
    if mimetype == _EPUB:
        return Format.EPUB
    if mimetype.startswith("application/vnd.oasis.opendocument."):
        what = f"an OpenDocument {mimetype.rsplit('.', 1)[-1]}"
    elif "xl/workbook.xml" in names:
        what = "an Excel workbook"
    elif "ppt/presentation.xml" in names:
        what = "a PowerPoint presentation"
    else:
        what = "a zip archive"
    raise UnsupportedFile(f"{what}, not {_claimed(suffix)}")


def sniff(path: str, head: bytes) -> Format:
    """The format of the file at ``path`` whose first bytes are ``head``.

    Raises UnsupportedFile for binary data and for containers that hold no document.
    """
    suffix = PurePath(path).suffix.lower()
    # Readers accept junk before the header, but only a .pdf may have it: source code that
    # mentions the magic number must stay source code.
    if head.startswith(b"%PDF-") or (suffix == ".pdf" and b"%PDF-" in head[:1024]):
        return Format.PDF
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _sniff_zip(path, suffix)
    bom = bom_encoding(head)
    text_start = head[bom[1] :] if bom is not None else head
    if text_start.lstrip().startswith(b"{\\rtf"):
        return Format.RTF
    if looks_binary(head):
        what = next((name for magic, name in _MAGIC if head.startswith(magic)), "binary data")
        raise UnsupportedFile(f"{what}, not {_claimed(suffix)}")
    fmt = _BY_SUFFIX.get(suffix)
    if fmt in (Format.MARKDOWN, Format.RST, Format.HTML):
        return fmt
    # UTF-16 HTML: dropping the NULs leaves the ASCII tags comparable.
    ascii_head = text_start.replace(b"\x00", b"")
    if (suffix in _MAYBE_HTML or fmt is not None) and _starts_like_html(ascii_head):
        return Format.HTML
    return Format.PLAIN
