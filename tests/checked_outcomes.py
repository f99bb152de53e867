"""Checked pairs of nodes and their similarities, as ``grouping.checked.CheckedPairs`` gives
them to the steps after the stars (``split``, ``assign``)."""

from __future__ import annotations

import numpy as np

THRESHOLD = 0.85


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
