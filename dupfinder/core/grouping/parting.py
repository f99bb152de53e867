"""The two steps that part a star of pictures, as one: ``split`` and then ``centres``.

The stars are parted once after they are made (``parted``), and ``rejoin`` asks the same
steps whether a union of two groups would stay whole (``whole``), so nothing is joined that
they would part again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy.typing as npt

from dupfinder.core.grouping.centres import Differences, better_centres
from dupfinder.core.grouping.split import ColouredOf, SimilarityOf, split_mixed
from dupfinder.core.model import EditCode

__all__ = ["Parting"]


@dataclass(frozen=True, slots=True)
class Parting:
    """What the parting steps ask of a scan's pictures (see ``split`` and ``centres``)."""

    inverse: npt.ArrayLike
    similarity_of: SimilarityOf
    threshold: float
    sort_keys: Sequence[Any]
    coloured: ColouredOf
    differences: Differences

    def parted(self, groups: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """``groups`` with two families met in one star split apart, then each star that
        gathers round two look-alikes given a centre each; groups largest first."""
        # two families of look-alike pictures met in one star: part them
        split = split_mixed(groups, self.inverse, self.similarity_of, self.threshold,
                            self.sort_keys, self.coloured)  # fmt: skip
        # two look-alikes and their copies round one centre: each round its own
        return better_centres(split, self.inverse, self.similarity_of, self.threshold,
                              self.sort_keys, self.differences)  # fmt: skip

    def whole(self, group: tuple[int, ...]) -> bool:
        """Whether neither step would part ``group`` (rows, representative first)."""
        parts = self.parted([group])
        return len(parts) == 1 and len(parts[0]) == len(group)

    def colours_apart(self, a: int, b: int) -> bool:
        """Whether rows ``a`` and ``b`` hold pictures whose colours differ by more than a tone:
        one is named a greyscale, coloured or tinted copy of the other, which the check lets
        pass for any two colourings of one drawing (a grey terminal and a purple one, a green
        and a blue one in one theme's muted colours) as readily as for a copy made grey."""
        return bool(self.differences(a, b) & _COLOUR_EDITS)


_COLOUR_EDITS = frozenset({EditCode.GREYSCALE, EditCode.COLOURED, EditCode.TINTED})
