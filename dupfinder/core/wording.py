"""Words and figures shown to people: counted nouns ("1 file", never "1 groups") and
similarity percentages that never say 100 % of files whose bytes differ."""

from __future__ import annotations

import math

__all__ = ["count", "similarity_percent"]


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
