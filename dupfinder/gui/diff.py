"""Side-by-side text diff with word-level highlights, as pure Python (no Qt).

The preview widget is a thin shell over these functions so the diff logic is tested headless.

Strategy: lines are aligned first (``difflib`` over line keys that honour the ignore-whitespace
and ignore-case toggles); each block of changed lines is then diffed *as a whole* at word level.
Diffing the block rather than pairing lines one by one keeps highlights meaningful when the
two texts wrap differently, which is the normal case for text extracted from a PDF against the
same document saved as DOCX. Chinese, Japanese and Korean have no spaces between words, so each
of their characters is a token of its own.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = [
    "MAX_DIFF_CHARS",
    "DiffColors",
    "DiffOptions",
    "Row",
    "Segment",
    "TextDiff",
    "diff_texts",
    "side_html",
    "tokenize",
]

#: Longer texts are cut before diffing so that a preview never takes more than a moment.
MAX_DIFF_CHARS = 200_000

# Han ideographs (with extensions), kana, Hangul syllables and CJK punctuation: one token each.
_CJK = (
    r"[\u3000-\u303f\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    r"\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0002ffff]"
)
_TOKEN_RE = re.compile(rf"{_CJK}|[^\W_]+(?:['’][^\W_]+)*|\s+|.", re.UNICODE)


@dataclass(frozen=True, slots=True)
class DiffOptions:
    """What counts as a difference; both toggles are shown in the preview."""

    ignore_whitespace: bool = False
    ignore_case: bool = False


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of text on one side; ``changed`` marks words absent from the other side."""

    text: str
    changed: bool = False


@dataclass(frozen=True, slots=True)
class Row:
    """One aligned line pair; a side is None where the other side has a line with no partner."""

    tag: str  # "equal", "replace", "delete" or "insert"
    left: tuple[Segment, ...] | None
    right: tuple[Segment, ...] | None
    #: Whether the row shows as changed: it has a highlighted word, or (when whitespace
    #: counts) its spacing or wrapping differs. Re-wrapped text is not a change otherwise.
    changed: bool = True


@dataclass(frozen=True, slots=True)
class TextDiff:
    """A whole side-by-side diff, plus counts for the preview's summary line."""

    rows: tuple[Row, ...]
    removed_words: int
    added_words: int
    total_words: int
    truncated: bool

    @property
    def identical(self) -> bool:
        """True when nothing is highlighted (under the chosen ignore options)."""
        return not any(
            segment.changed for row in self.rows for segment in (row.left or ()) + (row.right or ())
        )

    @property
    def changed_rows(self) -> int:
        return sum(1 for row in self.rows if row.tag != "equal" and row.changed)


def tokenize(text: str) -> list[str]:
    """Words (letters and digits, with inner apostrophes), single CJK characters, whitespace
    runs and single punctuation marks; joining the tokens gives the text back."""
    return _TOKEN_RE.findall(text)


def _line_key(line: str, options: DiffOptions) -> str:
    if options.ignore_whitespace:
        line = "".join(line.split())
    if options.ignore_case:
        line = line.casefold()
    return line


def _word_units(text: str, options: DiffOptions) -> tuple[list[str], list[str | None]]:
    """Tokens and their comparison keys; a None key is never compared (ignored whitespace)."""
    tokens = tokenize(text)
    keys: list[str | None] = []
    for token in tokens:
        if token.isspace():
            # Any run of whitespace matches any other, so re-wrapped lines do not light up;
            # a changed amount of whitespace still marks the line (its line key differs).
            keys.append(None if options.ignore_whitespace else " ")
        else:
            keys.append(token.casefold() if options.ignore_case else token)
    return tokens, keys


def _changed_flags(old: str, new: str, options: DiffOptions) -> tuple[list[tuple[str, bool]], ...]:
    """Word-level diff of two blocks: each token with a flag saying whether it changed."""
    old_tokens, old_keys = _word_units(old, options)
    new_tokens, new_keys = _word_units(new, options)
    old_index = [i for i, key in enumerate(old_keys) if key is not None]
    new_index = [i for i, key in enumerate(new_keys) if key is not None]
    old_changed = [False] * len(old_tokens)
    new_changed = [False] * len(new_tokens)
    matcher = SequenceMatcher(
        None, [old_keys[i] for i in old_index], [new_keys[i] for i in new_index], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for k in range(i1, i2):
            old_changed[old_index[k]] = True
        for k in range(j1, j2):
            new_changed[new_index[k]] = True
    return (
        list(zip(old_tokens, old_changed, strict=True)),
        list(zip(new_tokens, new_changed, strict=True)),
    )


def _split_lines(flagged: Sequence[tuple[str, bool]]) -> list[tuple[Segment, ...]]:
    """Cut a flagged token stream back into lines, merging neighbours with the same flag."""
    lines: list[tuple[Segment, ...]] = []
    current: list[Segment] = []

    def add(text: str, changed: bool) -> None:
        if not text:
            return
        if current and current[-1].changed == changed:
            current[-1] = Segment(current[-1].text + text, changed)
        else:
            current.append(Segment(text, changed))

    for token, changed in flagged:
        parts = token.split("\n")
        for number, part in enumerate(parts):
            if number:
                lines.append(tuple(current))
                current = []
            add(part, changed)
    lines.append(tuple(current))
    return lines


def _block_rows(
    old_lines: Sequence[str], new_lines: Sequence[str], options: DiffOptions
) -> Iterator[Row]:
    old_flagged, new_flagged = _changed_flags("\n".join(old_lines), "\n".join(new_lines), options)
    left = _split_lines(old_flagged)
    right = _split_lines(new_flagged)
    for k in range(max(len(left), len(right))):
        a = left[k] if k < len(left) else None
        b = right[k] if k < len(right) else None
        words = any(s.changed for s in (a or ()) + (b or ()))
        text_a = "".join(s.text for s in a or ())
        text_b = "".join(s.text for s in b or ())
        spacing = not options.ignore_whitespace and (text_a != text_b)
        yield Row("replace", a, b, words or spacing)


def _count_changed(rows: Sequence[Row]) -> tuple[int, int]:
    removed = added = 0
    for row in rows:
        if row.tag == "equal":
            continue
        for segments, is_left in ((row.left, True), (row.right, False)):
            for segment in segments or ():
                if segment.changed:
                    words = sum(1 for t in tokenize(segment.text) if not t.isspace())
                    if is_left:
                        removed += words
                    else:
                        added += words
    return removed, added


def _counts(line: str, options: DiffOptions) -> bool:
    """A line on one side only is a change, unless it is blank and whitespace is ignored."""
    return bool(line.strip()) or not options.ignore_whitespace


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def diff_texts(
    old: str, new: str, options: DiffOptions = DiffOptions(), limit: int = MAX_DIFF_CHARS
) -> TextDiff:
    """Align ``old`` (the representative) with ``new`` (the member) for a side-by-side view."""
    truncated = len(old) > limit or len(new) > limit
    old_lines = _normalise_newlines(old[:limit]).splitlines()
    new_lines = _normalise_newlines(new[:limit]).splitlines()
    matcher = SequenceMatcher(
        None,
        [_line_key(line, options) for line in old_lines],
        [_line_key(line, options) for line in new_lines],
        autojunk=False,
    )
    rows: list[Row] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows.extend(
                Row("equal", (Segment(a),), (Segment(b),))
                for a, b in zip(old_lines[i1:i2], new_lines[j1:j2], strict=True)
            )
        elif tag == "delete":
            rows.extend(
                Row("delete", (Segment(a, bool(a.strip())),), None, _counts(a, options))
                for a in old_lines[i1:i2]
            )
        elif tag == "insert":
            rows.extend(
                Row("insert", None, (Segment(b, bool(b.strip())),), _counts(b, options))
                for b in new_lines[j1:j2]
            )
        else:
            rows.extend(_block_rows(old_lines[i1:i2], new_lines[j1:j2], options))
    removed, added = _count_changed(rows)
    total = sum(1 for t in tokenize(old[:limit]) if not t.isspace())
    return TextDiff(tuple(rows), removed, added, total, truncated)


@dataclass(frozen=True, slots=True)
class DiffColors:
    """CSS colours for one theme; the view picks light or dark ones from the palette."""

    changed_line: str
    removed: str
    added: str
    filler: str

    @classmethod
    def for_theme(cls, dark: bool) -> DiffColors:
        if dark:
            return cls(changed_line="#3a3320", removed="#7a2e2e", added="#2c6a35", filler="#2a2a2a")
        return cls(changed_line="#fff8dc", removed="#ffb3b3", added="#a8e6b0", filler="#f3f3f3")


def _segments_html(segments: Sequence[Segment], highlight: str) -> str:
    parts = []
    for segment in segments:
        text = html.escape(segment.text, quote=False)
        if segment.changed:
            parts.append(f'<span style="background-color:{highlight};">{text}</span>')
        else:
            parts.append(text)
    return "".join(parts)


def side_html(diff: TextDiff, side: str, colors: DiffColors) -> str:
    """HTML for one pane: exactly one paragraph per row, so both panes have the same number of
    blocks and scrolling can be synchronised block by block."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    highlight = colors.removed if side == "left" else colors.added
    paragraphs = []
    for row in diff.rows:
        segments = row.left if side == "left" else row.right
        if segments is None:
            style = f"background-color:{colors.filler};"
            body = "&nbsp;"
        else:
            changed = row.tag != "equal" and row.changed
            style = f"background-color:{colors.changed_line};" if changed else ""
            body = _segments_html(segments, highlight) or "&nbsp;"
        paragraphs.append(f'<p style="margin:0; white-space:pre-wrap; {style}">{body}</p>')
    return "<html><body>" + "".join(paragraphs) + "</body></html>"
