"""What the check of two media files found: how alike they are over the part they share, and
where that part lies in each file (so a trimmed copy or a clip reads as one)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MediaMatch"]


@dataclass(frozen=True, slots=True)
class MediaMatch:
    """``similarity``: the share (0..1) of the aligned content that matches, over the overlap;
    ``a_start_s``..``a_end_s`` and ``b_start_s``..``b_end_s``: the matched span on each side."""

    similarity: float
    a_start_s: float
    a_end_s: float
    b_start_s: float
    b_end_s: float

    @property
    def overlap_s(self) -> float:
        """Length of the matched span (the shorter side's, should the two differ by rounding)."""
        return max(0.0, min(self.a_end_s - self.a_start_s, self.b_end_s - self.b_start_s))

    def coverage(self, a_duration: float, b_duration: float) -> tuple[float, float]:
        """The share of each file that the matched span covers (1.0 for a file all matched)."""
        return (
            _share(self.a_end_s - self.a_start_s, a_duration),
            _share(self.b_end_s - self.b_start_s, b_duration),
        )


def _share(span: float, duration: float) -> float:
    if duration <= 0:
        return 0.0
    return max(0.0, min(1.0, span / duration))
