"""Helpers every reader shares: the uniform shape of extracted text, and library failures.

Readers return one paragraph (or one PDF line) per line; ``tidy`` removes the invisible
differences between formats so that a document and its conversions yield the same lines.
"""

from __future__ import annotations

import re
import struct
import xml.sax
import zipfile
import zlib

from lxml import etree

from dupfinder.core.errors import CorruptFile

__all__ = ["LIBRARY_ERRORS", "corrupt", "join_blocks", "tidy"]

#: What parsers raise on malformed input. Deliberately not ``Exception``: a time limit or
#: cancellation delivered as an exception must pass through, not be reported as corruption.
LIBRARY_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,  # includes UnicodeError and zipfile's size mismatches
    LookupError,  # KeyError, IndexError, unknown codecs
    TypeError,
    AttributeError,
    AssertionError,
    NotImplementedError,  # zipfile: unknown zip version or compression method
    RuntimeError,  # zipfile: a part flagged as encrypted
    OverflowError,
    RecursionError,
    EOFError,
    struct.error,
    zlib.error,
    zipfile.BadZipFile,
    etree.Error,
    xml.sax.SAXException,
)

# Characters nobody sees: soft hyphen, zero-width space/joiners, word joiner, stray BOMs.
# A character class scans about ten times faster than str.translate with a mapping.
_INVISIBLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff\x00]")
_BLANK_RUNS = re.compile(r"\n{3,}")


def tidy(text: str) -> str:
    """Unix newlines, no invisible characters, no trailing spaces, at most one blank line."""
    text = _INVISIBLE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip("\n")


def join_blocks(blocks: list[str]) -> str:
    """One block per line, skipping empty ones, so every structured format looks alike
    (each block stripped once, in C: a page has thousands)."""
    return "\n".join(filter(None, map(str.strip, blocks)))


def corrupt(kind: str, exc: BaseException) -> CorruptFile:
    """A user-facing CorruptFile that names the format and the library's short reason."""
    detail = " ".join(str(exc).split()) or exc.__class__.__name__
    if len(detail) > 160:
        detail = detail[:157] + "..."
    return CorruptFile(f"truncated or damaged {kind}: {detail}")
