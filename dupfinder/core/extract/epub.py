"""EPUB through EbookLib: the spine's documents in reading order, each through the HTML reader.

The navigation document (table of contents) is skipped, its titles would repeat the
chapters'. The zip guard runs first because EbookLib loads every item into memory.
"""

from __future__ import annotations

import warnings
import zipfile

from dupfinder.core.errors import FileProblem, TooLarge
from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt, join_blocks
from dupfinder.core.extract.html import html_to_text
from dupfinder.core.extract.limits import check_zip, format_size

__all__ = ["extract_epub"]

_DOCUMENT_TYPES = frozenset({"application/xhtml+xml", "text/html"})


def extract_epub(path: str, max_bytes: int) -> str:
    """Text of an EPUB book."""
    import ebooklib
    from ebooklib import epub

    try:
        with zipfile.ZipFile(path) as archive:
            check_zip(archive, max_bytes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # EbookLib warns about options and old NCX files
            book = epub.read_epub(path, options={"ignore_ncx": True})
        items = []
        for entry in book.spine:
            idref = entry[0] if isinstance(entry, tuple) else entry
            item = book.get_item_with_id(idref)
            if item is not None:
                items.append(item)
        if not items:  # no usable spine: fall back to every document in manifest order
            items = list(book.get_items_of_type(ebooklib.ITEM_DOCUMENT))
        chapters: list[str] = []
        total = 0
        for item in items:
            if isinstance(item, epub.EpubNav) or item.media_type not in _DOCUMENT_TYPES:
                continue
            content = item.get_content()
            total += len(content)
            if total > max_bytes:
                raise TooLarge(f"chapters hold more than {format_size(max_bytes)} of text")
            chapters.append(html_to_text(content))
    except FileProblem:
        raise
    except (epub.EpubException, *LIBRARY_ERRORS) as exc:
        raise corrupt("EPUB book", exc) from exc
    return join_blocks(chapters)
