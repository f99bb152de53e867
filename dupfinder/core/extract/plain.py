"""Plain text and source code: bytes to str with encoding detection.

Order of evidence, strongest first: a byte-order mark; the NUL pattern of UTF-16/32
without a BOM; strict UTF-8; UTF-8 with a few damaged bytes (valid multi-byte sequences
far outnumber the invalid ones); then charset-normalizer for legacy code pages (GB18030,
Big5, Shift_JIS, EUC-JP, cp1252, latin-1...). Text that decodes to mostly control
characters is binary data, whatever its suffix.
"""

from __future__ import annotations

import codecs
import re
import warnings

import charset_normalizer

from dupfinder.core.errors import UnsupportedFile
from dupfinder.core.extract.limits import read_bounded

__all__ = ["decode_text", "extract_plain", "looks_binary", "utf16_without_bom"]

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# C0 controls other than tab, newline, vertical tab, form feed, carriage return and escape.
_CONTROL_BYTES = bytes(set(range(32)) - {9, 10, 11, 12, 13, 27}) + b"\x7f"
_CONTROL_CHARS = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f\ufffd]")
_BINARY_MESSAGE = "binary data, not text"


def utf16_without_bom(sample: bytes) -> str | None:
    """'utf-16-le'/'-be' when NULs sit on one side of each byte pair, as in mostly-Latin UTF-16."""
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    even = sample[0 : pairs * 2 : 2].count(0)
    odd = sample[1 : pairs * 2 : 2].count(0)
    if odd > pairs * 0.3 and even < pairs * 0.02:
        return "utf-16-le"
    if even > pairs * 0.3 and odd < pairs * 0.02:
        return "utf-16-be"
    return None


def bom_encoding(data: bytes) -> tuple[str, int] | None:
    """The encoding a byte-order mark announces, and the mark's length."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding, len(bom)
    return None


def looks_binary(sample: bytes) -> bool:
    """NUL bytes (outside UTF-16/32) or many control bytes: executable, image, archive..."""
    if bom_encoding(sample) is not None or utf16_without_bom(sample) is not None:
        return False
    if b"\x00" in sample:
        return True
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    return controls > max(8, len(sample) // 20)


def _mostly_utf8(data: bytes) -> str | None:
    """UTF-8 with a few damaged bytes: keep it, replacing only the damage."""
    text = data.decode("utf-8", errors="replace")
    replaced = text.count("\ufffd")
    multibyte = len(text) - len(text.encode("ascii", "ignore")) - replaced
    damaged = replaced - data.count(b"\xef\xbf\xbd")  # genuine U+FFFD in the file is no damage
    if multibyte >= 4 * damaged:
        return text
    return None


def _detected(data: bytes) -> str | None:
    """charset-normalizer's best guess, or None when it finds no plausible encoding."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best = charset_normalizer.from_bytes(data).best()
    if best is None or best.encoding is None:
        return None
    return data.decode(best.encoding, errors="replace")


def decode_text(data: bytes) -> str:
    """Decode a text file's bytes; UnsupportedFile when they are not text in any encoding."""
    found = bom_encoding(data)
    if found is not None:
        encoding, skip = found
        text = data[skip:].decode(encoding, errors="replace")
    elif (encoding_guess := utf16_without_bom(data[:8192])) is not None:
        text = data.decode(encoding_guess, errors="replace")
    else:
        if looks_binary(data[:8192]):
            raise UnsupportedFile(_BINARY_MESSAGE)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            guess = _mostly_utf8(data) or _detected(data)
            if guess is None:
                raise UnsupportedFile(_BINARY_MESSAGE) from None
            text = guess
    sample = text[:65536]
    if sample and len(_CONTROL_CHARS.findall(sample)) > max(8, len(sample) // 20):
        raise UnsupportedFile(_BINARY_MESSAGE)
    return text


def extract_plain(path: str, max_bytes: int) -> str:
    """Text of a plain file of at most ``max_bytes`` (larger ones raise TooLarge)."""
    return decode_text(read_bounded(path, max_bytes))
