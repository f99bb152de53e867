"""Checked pairs of nodes and their similarities, as ``grouping.checked.CheckedPairs`` gives
them to the steps after the stars (``split``, ``assign``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

THRESHOLD = 0.85
#: Pairs of up to 14 nodes: 91.
_PAIRS = 91


def random_checks(least_score: float = 0.0) -> Callable[[Callable[..., Any]], Any]:
    """``given`` a node count (2 to 14), a score for each pair of those nodes (from
    ``least_score`` to 1) and whether each pair was checked: random checked graphs."""
    return given(
        st.integers(min_value=2, max_value=14),
        st.lists(st.floats(min_value=least_score, max_value=1.0), min_size=_PAIRS, max_size=_PAIRS),
        st.lists(st.booleans(), min_size=_PAIRS, max_size=_PAIRS),
    )


class Outcomes:
    """Node pairs checked, each with its similarity; a pair passed from ``THRESHOLD``."""

    def __init__(self, similarities: dict[tuple[int, int], float]) -> None:
        self.similarities = {(min(a, b), max(a, b)): s for (a, b), s in similarities.items()}

    def similarity_of(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Whether each pair (a[i], b[i]) was checked, and its similarity (rows of one node
        are one picture: checked, 1.0)."""
        keys = [(min(x, y), max(x, y)) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
        known = np.array([k in self.similarities for k in keys], dtype=bool)
        values = np.array([self.similarities.get(k, 0.0) for k in keys])
        same = np.asarray(a) == np.asarray(b)
        return known | same, np.where(same, 1.0, values)

    def passed(self) -> np.ndarray:
        """The pairs that passed, (P, 2)."""
        return self.passed_with_similarities()[0]

    def passed_with_similarities(self) -> tuple[np.ndarray, np.ndarray]:
        kept = [(k, s) for k, s in self.similarities.items() if s >= THRESHOLD]
        pairs = np.array([k for k, _ in kept], dtype=np.int64).reshape(-1, 2)
        return pairs, np.array([s for _, s in kept], dtype=np.float64)


def random_outcomes(n: int, values: list[float], proposed: list[bool]) -> Outcomes:
    """The checks ``random_checks`` drew: the pairs of ``n`` nodes ``proposed`` says were
    checked, each with its value."""
    every = itertools.combinations(range(n), 2)
    pairs = [p for p, asked in zip(every, proposed, strict=False) if asked]
    return Outcomes({p: v for p, v in zip(pairs, values, strict=False)})


def assert_only_parted(
    groups: list[tuple[int, ...]], parted: list[tuple[int, ...]], outcomes: Outcomes
) -> None:
    """Every group of ``parted`` lies inside one of ``groups``, no row is in two, and every
    member passed against its representative (stars cut, nothing linked anew)."""
    before = {row: i for i, group in enumerate(groups) for row in group}
    seen: set[int] = set()
    for group in parted:
        assert len(group) >= 2
        assert len({before[row] for row in group}) == 1
        assert not seen & set(group)
        seen |= set(group)
        for member in group[1:]:
            known, similarity = outcomes.similarity_of(np.array([group[0]]), np.array([member]))
            assert known[0]
            assert similarity[0] >= THRESHOLD
