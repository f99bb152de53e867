"""EPUB: the spine's documents in reading order, each through the HTML reader.

``META-INF/container.xml`` names the package document; its manifest maps ids to parts and
its spine gives the reading order. The navigation document (table of contents) is
skipped, its titles would repeat the chapters'. Without a usable spine, every document of
the manifest is read in manifest order.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field
from urllib.parse import unquote

from dupfinder.core.errors import CorruptFile, FileProblem, TooLarge
from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt, join_blocks
from dupfinder.core.extract.html import html_to_text
from dupfinder.core.extract.zipparts import Container
from dupfinder.core.wording import format_limit

__all__ = ["extract_epub"]

_CONTAINER = "META-INF/container.xml"
_ROOTFILE = "{urn:oasis:names:tc:opendocument:xmlns:container}rootfile"
_OPF = "{http://www.idpf.org/2007/opf}"
_DOCUMENT_TYPES = frozenset({"application/xhtml+xml", "text/html"})


@dataclass
class _Package:
    """Parser target for ``container.xml`` (the package's path) and the package document."""

    rootfiles: list[str] = field(default_factory=list)
    #: id → (href, media type, properties), in manifest order
    manifest: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    spine: list[str] = field(default_factory=list)

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if tag == _ROOTFILE and "full-path" in attrib:
            self.rootfiles.append(attrib["full-path"])
        elif tag == f"{_OPF}item" and "id" in attrib:
            entry = (
                attrib.get("href", ""),
                attrib.get("media-type", ""),
                attrib.get("properties", ""),
            )
            self.manifest[attrib["id"]] = entry
        elif tag == f"{_OPF}itemref" and "idref" in attrib:
            self.spine.append(attrib["idref"])

    def end(self, tag: str) -> None:
        pass

    def data(self, text: str) -> None:
        pass

    def close(self) -> _Package:
        return self


def _chapters(package: _Package, base: str) -> list[str]:
    """Part names of the documents to read, in reading order."""
    ids = [idref for idref in package.spine if idref in package.manifest]
    if not ids:  # no usable spine
        ids = list(package.manifest)
    names: list[str] = []
    for item_id in ids:
        href, media_type, properties = package.manifest[item_id]
        if media_type not in _DOCUMENT_TYPES or "nav" in properties.split():
            continue
        href = unquote(href.split("#", 1)[0])
        names.append(posixpath.normpath(posixpath.join(base, href)).lstrip("/"))
    return names


def _read(container: Container, max_bytes: int) -> list[str]:
    rootfiles = container.parse(_CONTAINER, _Package()).rootfiles
    if not rootfiles:
        raise CorruptFile("damaged EPUB book: no package document")
    package = container.parse(rootfiles[0], _Package())
    chapters: list[str] = []
    total = 0
    for name in _chapters(package, posixpath.dirname(rootfiles[0])):
        if not container.has(name):
            continue
        content = container.read(name)
        total += len(content)
        if total > max_bytes:
            raise TooLarge(f"chapters hold more than {format_limit(max_bytes)} of text")
        chapters.append(html_to_text(content))
    return chapters


def extract_epub(path: str, max_bytes: int) -> str:
    """Text of an EPUB book."""
    try:
        with zipfile.ZipFile(path) as archive:
            chapters = _read(Container(archive, max_bytes), max_bytes)
    except FileProblem:
        raise
    except KeyError as exc:
        raise CorruptFile(f"damaged EPUB book: a required part is missing ({exc})") from exc
    except LIBRARY_ERRORS as exc:
        raise corrupt("EPUB book", exc) from exc
    return join_blocks(chapters)
