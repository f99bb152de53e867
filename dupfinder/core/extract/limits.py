"""Size limits for extraction, and the zip-bomb guard that runs before any zip is unpacked.

Every limit scales with ``max_bytes`` (the caller's budget for one document's text) so a
single knob bounds memory: text formats may not exceed it at all, containers may hold
images and fonts that never reach memory as text, so they get a multiple of it.
"""

from __future__ import annotations

import zipfile

from dupfinder.core.errors import TooLarge
from dupfinder.core.wording import format_limit

__all__ = [
    "CONTAINER_FACTOR",
    "DEFAULT_MAX_BYTES",
    "MAX_PDF_PAGES",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_RATIO",
    "PDF_FACTOR",
    "check_member",
    "check_text_length",
    "check_zip",
    "read_bounded",
]

MiB = 1024 * 1024
#: Largest text document (plain, HTML, Markdown, rst, RTF) read, and most characters returned.
DEFAULT_MAX_BYTES = 64 * MiB
#: A zip container (DOCX, ODT, EPUB) may unpack to this many times ``max_bytes`` in total;
#: its text members (document.xml, content.xml, each chapter) must each fit in ``max_bytes``.
CONTAINER_FACTOR = 4
#: A PDF file may be this many times ``max_bytes``: PDFium reads it lazily, images stay packed.
PDF_FACTOR = 16
#: More pages than a long book: past this, extraction time rather than memory is the risk.
MAX_PDF_PAGES = 3000
#: Deflate tops out near 1032:1; real XML and images stay far below this ratio.
MAX_ZIP_RATIO = 200
#: The ratio check ignores members smaller than this (tiny members compress wildly).
_RATIO_MIN_SIZE = 1 * MiB
#: An EPUB with thousands of images is plausible; hundreds of thousands of parts is not.
MAX_ZIP_MEMBERS = 20_000


def read_bounded(path: str, max_bytes: int) -> bytes:
    """The whole file, or TooLarge; never reads more than ``max_bytes + 1`` bytes.

    Checking the length read (not only ``st_size``) also covers files that grow meanwhile.
    """
    with open(path, "rb") as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise TooLarge(f"larger than the {format_limit(max_bytes)} limit for text documents")
    return data


def check_text_length(text: str, max_chars: int) -> str:
    """Refuse, rather than truncate, text past the cap: a prefix would fingerprint wrongly."""
    if len(text) > max_chars:
        raise TooLarge(f"holds more than {max_chars:,} characters of text")
    return text


def check_zip(archive: zipfile.ZipFile, max_bytes: int) -> None:
    """Raise TooLarge for too many members, a bomb-like ratio, or too much unpacked data."""
    infos = archive.infolist()
    if len(infos) > MAX_ZIP_MEMBERS:
        raise TooLarge(f"zip container holds more than {MAX_ZIP_MEMBERS:,} parts")
    limit = max_bytes * CONTAINER_FACTOR
    total = 0
    for info in infos:
        total += info.file_size
        packed = max(info.compress_size, 1)
        if info.file_size > _RATIO_MIN_SIZE and info.file_size > packed * MAX_ZIP_RATIO:
            raise TooLarge(
                f"expands to more than {MAX_ZIP_RATIO} times its packed size "
                f"({info.filename!r} unpacks to {format_limit(info.file_size)}; a zip bomb?)"
            )
    if total > limit:
        raise TooLarge(f"expands to more than {format_limit(limit)} when unpacked")


def check_member(archive: zipfile.ZipFile, name: str, max_bytes: int) -> None:
    """Refuse a text member (document.xml, content.xml) that declares more than the budget.

    A missing member raises KeyError, which the readers report as a damaged document.
    """
    info = archive.getinfo(name)
    if info.file_size > max_bytes:
        raise TooLarge(
            f"{name!r} expands to {format_limit(info.file_size)}, more than the "
            f"{format_limit(max_bytes)} limit for text"
        )
