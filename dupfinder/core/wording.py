"""Counted nouns for messages ("1 file", "3 files"), so the UI never says "1 groups"."""

from __future__ import annotations

__all__ = ["count"]


def count(number: int, singular: str, plural: str | None = None) -> str:
    """``count(1, "file")`` → "1 file"; ``count(1200, "file")`` → "1,200 files"."""
    word = singular if number == 1 else (plural or singular + "s")
    return f"{number:,} {word}"
