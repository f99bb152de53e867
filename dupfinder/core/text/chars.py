"""From a str to the code points that are compared: NFKC, casefold, character classes.

The rule (see ``dupfinder.core.text.simhash``): Unicode NFKC, then ``str.casefold``, then each code
point gets a class by its Unicode category; format characters and variation selectors are
dropped. ``code_points`` computes exactly that, but mostly by table instead of through
CPython's ``unicodedata.normalize`` and ``str.casefold``, which run at 20-40 MB/s on text
that is not ASCII and were a third of a document's fingerprinting time.

Why a per-character table is exact: normalisation never crosses a character that has a
*boundary before* it (UAX #15, section 9): the first code point of its compatibility
decomposition is a starter (combining class 0) that does not compose with what precedes it.
When every character of a text has that property, NFKC of the text is the concatenation of
the NFKC of each character; ``str.casefold`` maps each character on its own. So
``casefold(NFKC(c))`` without the dropped characters, kept per code point, rebuilds the whole
result (one, several or no code points per character). A text holding a character without a
boundary (a combining accent, a Hangul vowel jamo) takes the exact path through
``unicodedata``. The table is filled lazily, with the characters a process actually meets,
so a scan of ASCII files never builds it.
"""

from __future__ import annotations

import functools
import threading
import unicodedata

import numpy as np
import numpy.typing as npt

__all__ = [
    "CJK",
    "DROP",
    "NOT_SINGLE",
    "SEP",
    "WORD",
    "class_table",
    "code_points",
    "code_points_exact",
    "fold_table",
    "utf32",
]

# Character classes.
SEP = 0
DROP = 1
WORD = 2
CJK = 3
_TABLE_SIZE = 0x40000  # code points above U+3FFFF (tags, private use planes) are separators

# Scripts written without spaces between words: every letter is its own token.
_CJK_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3031, 0x3035),  # kana repeat marks
    (0x3038, 0x303C),
    (0x3040, 0x30FF),  # Hiragana, Katakana (incl. ー)
    (0x3130, 0x318F),  # Hangul compatibility Jamo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xAC00, 0xD7FF),  # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # halfwidth Katakana
    (0x1B000, 0x1B16F),  # Kana supplement / extended
    (0x20000, 0x3FFFF),  # CJK extensions B..H
)
_VARIATION_SELECTORS = ((0xFE00, 0xFE0F), (0x180B, 0x180F))

U32 = npt.NDArray[np.uint32]
U8 = npt.NDArray[np.uint8]


@functools.cache
def class_table() -> U8:
    """Class of every code point below U+40000; built once per process (~60 ms)."""
    table = np.zeros(_TABLE_SIZE + 1, dtype=np.uint8)
    for cp in range(_TABLE_SIZE):
        cat = unicodedata.category(chr(cp))
        first = cat[0]
        if first in "LMN":
            table[cp] = WORD
        elif cat == "Cf":
            table[cp] = DROP
    word = table == WORD
    for lo, hi in _CJK_RANGES:
        seg = slice(lo, hi + 1)
        table[seg] = np.where(word[seg], CJK, table[seg])
    for lo, hi in _VARIATION_SELECTORS:
        table[lo : hi + 1] = DROP
    table[_TABLE_SIZE] = SEP
    return table


def _classes(cps: U32) -> U8:
    return np.take(class_table(), cps, mode="clip")  # above the table: its last entry, SEP


def _nfkc(text: str) -> str:
    """NFKC, normalising only the lines that need it (CPython's full pass is ~20 MB/s).

    Equal to ``unicodedata.normalize("NFKC", text)``: a line feed is a starter that nothing
    composes with or reorders across, so normalisation never crosses it.
    """
    if text.isascii() or unicodedata.is_normalized("NFKC", text):  # ASCII is always NFKC
        return text
    return "\n".join(
        line if unicodedata.is_normalized("NFKC", line) else unicodedata.normalize("NFKC", line)
        for line in text.split("\n")
    )


def utf32(text: str) -> U32:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def code_points_exact(text: str) -> tuple[U32, U8]:
    """The rule itself, through ``unicodedata`` and ``str.casefold`` (reference and fallback)."""
    folded = _nfkc(text).casefold()
    cps = utf32(folded)
    cls = _classes(cps)
    keep = cls != DROP
    if not keep.all():
        cps, cls = cps[keep], cls[keep]
    return cps, cls


#: Starters (combining class 0) that can compose with the character before them (Hangul vowel
#: and final jamo, a few Indic length marks), as computed by ``_backward_starters`` for a
#: Unicode version, so a process does not scan every code point (~50 ms) on its first text.
_BACKWARD_STARTERS = {
    "14.0.0": (
        (0x09BE, 0x09BE), (0x09D7, 0x09D7), (0x0B3E, 0x0B3E), (0x0B56, 0x0B57), (0x0BBE, 0x0BBE),
        (0x0BD7, 0x0BD7), (0x0CC2, 0x0CC2), (0x0CD5, 0x0CD6), (0x0D3E, 0x0D3E), (0x0D57, 0x0D57),
        (0x0DCF, 0x0DCF), (0x0DDF, 0x0DDF), (0x0FB5, 0x0FB5), (0x0FB7, 0x0FB7), (0x102E, 0x102E),
        (0x1161, 0x1175), (0x11A8, 0x11C2), (0x1B35, 0x1B35), (0x11127, 0x11127),
        (0x1133E, 0x1133E), (0x11357, 0x11357), (0x114B0, 0x114B0), (0x114BA, 0x114BA),
        (0x114BD, 0x114BD), (0x115AF, 0x115AF), (0x11930, 0x11930),
    ),
}  # fmt: skip


def _backward_starters() -> frozenset[int]:
    """Starters that are the second half of a two-character canonical decomposition (a
    superset of those with NFC_QC = Maybe: more only sends more texts down the exact path)."""
    found = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # Hangul V and T jamo
    for cp in range(0x30000):
        decomposition = unicodedata.decomposition(chr(cp))
        if decomposition and decomposition[0] != "<":
            parts = decomposition.split()
            if len(parts) == 2:
                found.add(int(parts[1], 16))
    return frozenset(c for c in found if not unicodedata.combining(chr(c)))


@functools.cache
def _composes_backward() -> frozenset[int]:
    known = _BACKWARD_STARTERS.get(unicodedata.unidata_version)
    if known is None:
        return _backward_starters()
    return frozenset(c for lo, hi in known for c in range(lo, hi + 1))


_UNKNOWN = 255  # not looked up yet
_CONTEXT = 254  # no boundary before: the text takes the exact path
#: In ``fold_table()``: the character does not fold to exactly one code point.
NOT_SINGLE = np.uint32(0xFFFFFFFF)


class _FoldTable:
    """``casefold(NFKC(c))`` without dropped characters, per code point, filled on demand.

    ``fill`` writes the output characters first and each code point's length last, under a
    lock, so a thread reading the table meanwhile sees either nothing new or a whole entry.
    """

    def __init__(self) -> None:
        self.lengths = np.full(_TABLE_SIZE + 1, _UNKNOWN, dtype=np.uint8)
        # the output when it is one code point, else NOT_SINGLE
        self.single = np.full(_TABLE_SIZE + 1, NOT_SINGLE, dtype=np.uint32)
        self.offsets = np.zeros(_TABLE_SIZE + 1, dtype=np.int64)  # into flat, any length
        self.flat = np.zeros(0, dtype=np.uint32)
        self._lock = threading.Lock()
        # every code point above the table is unchanged by NFKC and casefold and a separator:
        # one space stands for all of them (only classes and token characters are used)
        self._store({_TABLE_SIZE: [0x20]})

    def _store(self, entries: dict[int, list[int]]) -> None:
        size = len(self.flat)
        self.flat = np.concatenate(
            [self.flat, np.array([c for out in entries.values() for c in out], dtype=np.uint32)]
        )
        for cp, out in entries.items():
            self.offsets[cp] = size
            self.single[cp] = out[0] if len(out) == 1 else NOT_SINGLE
            size += len(out)
        for cp, out in entries.items():
            self.lengths[cp] = len(out)

    def fill(self, cps: U32) -> None:
        """Look up the code points of ``cps`` that are not in the table yet."""
        table = class_table()
        backward = _composes_backward()
        with self._lock:
            unknown = cps[self.lengths[np.minimum(cps, _TABLE_SIZE)] == _UNKNOWN]
            entries: dict[int, list[int]] = {}
            for cp in sorted(set(unknown.tolist())):  # (np.unique imports numpy.ma: 20 ms)
                char = chr(cp)
                first = unicodedata.normalize("NFKD", char)[0]
                if unicodedata.combining(first) or ord(first) in backward:
                    self.lengths[cp] = _CONTEXT
                    continue
                folded = [ord(c) for c in unicodedata.normalize("NFKC", char).casefold()]
                entries[cp] = [c for c in folded if c >= _TABLE_SIZE or table[c] != DROP]
            self._store(entries)

    def apply(self, cps: U32) -> U32 | None:
        """The folded code points, or None when the text needs the exact path."""
        single = np.take(self.single, cps, mode="clip")
        if not (single == NOT_SINGLE).any():  # the usual case: one take, one comparison
            return single
        index = np.minimum(cps, _TABLE_SIZE)
        lengths = self.lengths[index]
        if lengths.max() == _UNKNOWN:
            self.fill(cps)
            lengths = self.lengths[index]
        if lengths.max() == _CONTEXT:
            return None
        counts = lengths.astype(np.int64)
        ends = np.cumsum(counts)
        # output position p comes from input character i = repeat(...)[p], element p - start(i)
        shift = np.repeat(self.offsets[index] - (ends - counts), counts)
        return self.flat[shift + np.arange(int(ends[-1]))]


@functools.cache
def _fold() -> _FoldTable:
    return _FoldTable()


def fold_table() -> U32:
    """Per code point below U+40000 (and one entry for all above): its casefolded NFKC form
    when that is one kept code point, else NOT_SINGLE (not looked up yet, an expansion, a
    dropped character, or one that needs its neighbours). ``code_points`` fills it."""
    return _fold().single


def code_points(text: str) -> tuple[U32, U8]:
    """NFKC + casefold, as UTF-32 code points with their classes, dropped characters removed.

    Equal to ``code_points_exact`` except that a separator may come out as another separator.
    """
    if text.isascii():  # NFKC is the identity, casefold is lower(), nothing is dropped
        cps = np.frombuffer(text.lower().encode("ascii"), dtype=np.uint8).astype(np.uint32)
        return cps, _classes(cps)
    folded = _fold().apply(utf32(text))
    if folded is None:
        return code_points_exact(text)
    return folded, _classes(folded)
