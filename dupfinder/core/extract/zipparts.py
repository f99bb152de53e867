"""Parts of a zip container (DOCX, ODT, EPUB), read under limits on what they really unpack.

The sizes an archive declares can lie, and ``zipfile`` trims a part to its declared size
only after decompressing a whole read: one ``read()`` of a 2 MB part that declares 40 kB
can unpack gigabytes first. So parts are read in small chunks, and every chunk counts
against two limits whatever the archive declares: the part's own (a text part may not
exceed ``max_bytes``) and the container's (``CONTAINER_FACTOR`` times ``max_bytes``). XML parts go
straight from the chunks into a streaming parser with a handler, so no tree is built.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from typing import Protocol, TypeVar

from lxml import etree

from dupfinder.core.errors import CorruptFile, TooLarge
from dupfinder.core.extract.limits import CONTAINER_FACTOR, check_zip
from dupfinder.core.wording import format_limit

__all__ = ["Container", "XmlHandler"]

#: Bytes asked of the decompressor at a time: the most one read can unpack.
_CHUNK = 64 * 1024
#: Documents use only these; bzip2 and LZMA would unpack a whole read without a bound.
_METHODS = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED})

Result = TypeVar("Result", covariant=True)


class XmlHandler(Protocol[Result]):
    """An lxml parser target: called for each tag and text run, returns its result at close."""

    def start(self, tag: str, attrib: dict[str, str]) -> None: ...

    def end(self, tag: str) -> None: ...

    def data(self, text: str) -> None: ...

    def close(self) -> Result: ...


class Container:
    """An open zip document whose parts are read against one unpacking budget."""

    def __init__(self, archive: zipfile.ZipFile, max_bytes: int) -> None:
        check_zip(archive, max_bytes)  # quick refusal from the declared sizes
        self._archive = archive
        self._part_limit = max_bytes
        self._left = max_bytes * CONTAINER_FACTOR

    def has(self, name: str) -> bool:
        try:
            self._archive.getinfo(name)
        except KeyError:
            return False
        return True

    def chunks(self, name: str) -> Iterator[bytes]:
        """The part's bytes as they unpack; TooLarge past a limit, KeyError when missing."""
        info = self._archive.getinfo(name)
        if info.compress_type not in _METHODS:
            raise CorruptFile(f"damaged zip container: {name!r} uses an unusual compression method")
        unpacked = 0
        with self._archive.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                unpacked += len(chunk)
                self._left -= len(chunk)
                if unpacked > self._part_limit:
                    raise TooLarge(
                        f"{name!r} expands to more than the {format_limit(self._part_limit)} "
                        "limit for text"
                    )
                if self._left < 0:
                    total = self._part_limit * CONTAINER_FACTOR
                    raise TooLarge(f"expands to more than {format_limit(total)} when unpacked")
                yield chunk

    def read(self, name: str) -> bytes:
        return b"".join(self.chunks(name))

    def parse(self, name: str, handler: XmlHandler[Result]) -> Result:
        """Stream the XML part through ``handler``: no entities, no network, no tree."""
        parser = etree.XMLParser(
            target=handler,
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            huge_tree=False,
        )
        for chunk in self.chunks(name):
            parser.feed(chunk)
        result: Result = parser.close()
        return result
