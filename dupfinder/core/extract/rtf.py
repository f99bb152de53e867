"""RTF through striprtf: ``\\uN`` escapes and code-page bytes decoded, control words dropped.

Headers, footers, footnotes and embedded objects are RTF destinations that striprtf skips;
picture and object groups are cut out beforehand because they are large and hold no text.
Unicode escapes above the BMP arrive as surrogate pairs and are recombined here.
"""

from __future__ import annotations

import codecs
import re
import warnings

from striprtf.striprtf import rtf_to_text

from dupfinder.core.extract.common import LIBRARY_ERRORS, corrupt
from dupfinder.core.extract.limits import read_bounded

__all__ = ["extract_rtf"]

_CODEPAGE = re.compile(rb"\\ansicpg(\d{3,5})")
# Groups that hold pictures, OLE objects and themes as hex or binary data: no text, and
# megabytes that striprtf would otherwise walk one character at a time.
_BLOB_GROUP = re.compile(
    r"\{\s*(?:\\\*\s*)?\\(?:pict|objdata|themedata|datastore|colorschememapping)(?![a-z])"
)
_GROUP_TOKEN = re.compile(r"\\bin(\d+) ?|\\[\\{}]|[{}]")


def _codepage(data: bytes) -> str:
    """The document's ANSI code page (for raw 8-bit bytes), cp1252 when absent or unknown."""
    found = _CODEPAGE.search(data[:4096])
    if found:
        name = f"cp{int(found.group(1))}"
        try:
            codecs.lookup(name)
        except LookupError:
            return "cp1252"
        return name
    return "cp1252"


def drop_blob_groups(source: str) -> str:
    """The RTF source without picture/object/theme groups (``\\binN`` payloads skipped whole)."""
    parts: list[str] = []
    position = 0
    while (group := _BLOB_GROUP.search(source, position)) is not None:
        parts.append(source[position : group.start()])
        index, depth = group.start(), 0
        while (token := _GROUP_TOKEN.search(source, index)) is not None:
            index = token.end()
            if token.group(1) is not None:
                index += int(token.group(1))
            elif token.group() == "{":
                depth += 1
            elif token.group() == "}":
                depth -= 1
                if depth == 0:
                    break
        else:
            index = len(source)
        position = index
    parts.append(source[position:])
    return "".join(parts)


def _join_surrogates(text: str) -> str:
    """Surrogate pairs from ``\\u-10179\\u-8704`` become one character; strays U+FFFD."""
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def extract_rtf(path: str, max_bytes: int) -> str:
    """Text of an RTF file of at most ``max_bytes``."""
    data = read_bounded(path, max_bytes)
    encoding = _codepage(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            source = drop_blob_groups(data.decode(encoding, "replace"))
            text = rtf_to_text(source, encoding=encoding, errors="replace")
    except LIBRARY_ERRORS as exc:
        raise corrupt("RTF document", exc) from exc
    return _join_surrogates(text).replace("|\n", "\n")
