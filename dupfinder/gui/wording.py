"""Counted nouns for the window's messages: the core's ``count``, one rule for CLI and GUI."""

from __future__ import annotations

from dupfinder.core.wording import count

__all__ = ["count"]
