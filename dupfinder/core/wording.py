"""Words and figures shown to people, one wording each: counted nouns ("1 file", never
"1 groups"), sizes, similarity percentages that never say 100 % of files whose bytes differ,
and the reasons behind operating-system errors.

The walk, the readers, actions and undo all report failed file operations; they use
:func:`os_error_reason` so the same cause reads the same everywhere (and tests can match it).
Text that came from the disk (file names, above all) goes to a terminal through
:func:`escaped`, so a name cannot move the cursor, recolour the screen or reverse the text.
"""

from __future__ import annotations

import errno
import math
import re
import unicodedata

__all__ = [
    "count",
    "describe_os_error",
    "escaped",
    "format_bitrate",
    "format_duration",
    "format_limit",
    "format_size",
    "format_span",
    "os_error_reason",
    "similarity_percent",
]


def count(number: int, singular: str, plural: str | None = None) -> str:
    """``count(1, "file")`` → "1 file"; ``count(1200, "file")`` → "1,200 files"."""
    word = singular if number == 1 else (plural or singular + "s")
    return f"{number:,} {word}"


def similarity_percent(similarity: float, same_bytes: bool) -> str:
    """Whole percent, rounded down; "100%" only for the same bytes.

    A resized picture or a text with one word changed can be estimated at 1.0; shown as
    "100%" it would read as a copy, and a person may delete it without looking. Rounding
    down keeps a figure at or above a stated threshold honest ("≥ 70%" never hides 69.6 %).
    """
    if same_bytes:
        return "100%"
    return f"{min(math.floor(similarity * 100 + 1e-9), 99)}%"


def format_size(size: float) -> str:
    """A file or a total size in decimal units, as file managers show it: '1.5 MB'."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")


def format_limit(size: int) -> str:
    """A configured limit in binary units, as it was set: '64 MiB', '1.5 GiB', '800 bytes'."""
    if size < 1024:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            return f"{value:.3g} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


_REASONS = {
    errno.ENOENT: "vanished",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "is a folder",
    errno.EROFS: "read-only filesystem",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.ENAMETOOLONG: "file name too long",
    errno.EIO: "input/output error",
}


def os_error_reason(exc: OSError) -> str:
    """A short, lower-case reason for people, stable enough to group problems by."""
    if isinstance(exc, FileNotFoundError):
        return _REASONS[errno.ENOENT]
    if isinstance(exc, PermissionError):
        return _REASONS[errno.EACCES]
    reason = _REASONS.get(exc.errno or 0) or exc.strerror or exc.__class__.__name__
    return reason[0].lower() + reason[1:]


def describe_os_error(exc: OSError) -> str:
    """A short reason for a file the scan could not read: a missing file is one that vanished
    while the scan ran."""
    reason = os_error_reason(exc)
    return "the file vanished during the scan" if reason == "vanished" else reason


#: Characters shown escaped besides controls: the bidirectional marks and isolates that
#: reorder what follows them (U+202E shows "txt.exe" as "exe.txt"), line separators.
_INVISIBLE = frozenset(
    [0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
#: Any of ``_INVISIBLE``: one scan in C instead of a look-up per character.
_HAS_INVISIBLE = re.compile("[" + "".join(chr(code) for code in sorted(_INVISIBLE)) + "]")


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def escaped(text: str, *, lines: bool = False) -> str:
    """``text`` safe to print on a terminal: control characters (escape sequences among
    them), bidirectional marks and line separators, and bytes that are not UTF-8 are shown
    as ``\\x1b``, ``\\u202e``, ``\\n``... Everything else, other scripts and emoji
    included, is left as it is. ``lines``: a message of several lines keeps its line breaks
    (those inside a file name do not survive into it anyway). For people only: JSON and CSV
    keep names exactly."""
    if lines:
        return "\n".join(escaped(line) for line in text.split("\n"))
    if text.isprintable() and _HAS_INVISIBLE.search(text) is None:
        return text
    return "".join(
        _escape(c)
        if ord(c) in _INVISIBLE or unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp")
        else c
        for c in text
    )


def format_duration(seconds: float) -> str:
    """A length of music or video as people read it: "0:07", "3:41", "1:02:03" (whole
    seconds, rounded down, so a span never reads longer than it is)."""
    total = max(0, math.floor(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def format_bitrate(bits_per_second: int) -> str:
    """ "320 kb/s", "1.4 Mb/s": bits per second in the units players show."""
    if bits_per_second >= 10_000_000:
        return f"{bits_per_second / 1e6:.0f} Mb/s"
    if bits_per_second >= 1_000_000:
        return f"{bits_per_second / 1e6:.1f} Mb/s"
    return f"{round(bits_per_second / 1000)} kb/s"


def format_span(start_s: float, end_s: float, duration_s: float | None) -> str:
    """The part of a file that matched: "0:12–3:05 of 3:41" (without "of" when the length
    is not known)."""
    span = f"{format_duration(start_s)}\u2013{format_duration(end_s)}"
    return f"{span} of {format_duration(duration_s)}" if duration_s else span
