"""Words and figures shown to people."""

from __future__ import annotations

import pytest

from dupfinder.core.wording import count, similarity_percent


def test_counted_nouns() -> None:
    assert count(1, "file") == "1 file"
    assert count(1200, "file") == "1,200 files"
    assert count(2, "match", "matches") == "2 matches"


@pytest.mark.parametrize(
    ("similarity", "same_bytes", "shown"),
    [
        (1.0, True, "100%"),
        (1.0, False, "99%"),  # an estimate of 1.0 for different bytes is not a copy
        (0.999, False, "99%"),
        (0.7, False, "70%"),  # exactly at the default threshold stays at it
        (0.57, False, "57%"),  # 0.57 * 100 is 56.999… in floating point
        (0.6999, False, "69%"),  # rounded down, never up past a threshold
        (0.0, False, "0%"),
    ],
)
def test_similarity_percent(similarity: float, same_bytes: bool, shown: str) -> None:
    assert similarity_percent(similarity, same_bytes) == shown
