"""One picture's copies in two stars: the smaller star joined to the one whose centre they pass.

Greedy stars are made in the order of how well connected a centre is, and a look-alike's
star that is made first takes the copies of another picture it reaches (the grey, sepia and
JPEG copies of a desktop folder, taken by the saved-search folder's star). ``split`` parts
that star again, and the part it cuts off becomes a star of its own round one of those
copies: the folder's original, made a centre later, never reached them, so one picture's
copies end up in two groups (measured on the picture benchmark, a third of the graphics'
copies that were not with their original were in such a second group).

So, after the stars are parted and their copies moved to the picture they are most like, two
groups are looked at when a member of one passed the check against the other's
representative (the closest first), and joined when:

- every member of one, its representative too, passes against the other's representative
  (checked now where the index never proposed the pair, as ``assign.with_orphans`` does);
- its members are, in the median, about as like that representative as like their own
  (within ``MARGIN``): a look-alike's copies are a few hundredths more like their own
  drawing, which is how ``centres`` parted them;
- the two representatives' colours differ by no more than a tone (``ColoursApart``): the
  check passes a grey terminal icon against a purple one, and a theme's muted green one
  against its blue one, as readily as a copy made grey or sepia, and the stars had kept
  them apart;
- and the union is one group as ``split`` and ``centres`` see it (``Whole``).

The union keeps the representative a person would keep (``sort_keys``) when the other's
members pass against it, else the other's.

Measured on the picture benchmark (README *Pictures a person calls the same*): on the held-out
half, graphics' single-edit recall 0.856 -> 0.862 and pairs of edits 0.733 -> 0.739 with
precision unchanged (0.989) and no look-alike grouped; on the tuning half screenshots'
0.899 -> 0.903. Margins of 0.02 and 0.03 gave the same on the tuning half, 0.01 less;
without the margin the mixed folder's symbolic icons (battery levels, two faces) that
``centres`` parts were joined again, and without the colours two pairs of Moka's icons of
``/usr/share`` (a grey and a purple terminal, a green and a blue one) were joined (the
benchmark's recall was higher without them: 0.866 and 0.744, the tuning half's screenshots
0.938: sepia and grey batches of one picture no longer join its other copies). On
``/usr/share`` the 30 joins left put one icon's sizes together (500 more pairs of one name).

Every member of every group still passed against its group's representative, as a star
promises; a group is only ever joined whole, so no pair found is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dupfinder.core.grouping.assign import Compare, SimilarityOf

__all__ = ["MARGIN", "rejoined"]

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
#: Whether a group (rows, representative first) is one group as the parting steps see it.
Whole = Callable[[tuple[int, ...]], bool]
#: Whether two rows' pictures differ in their colours (greyscale, coloured, tinted).
ColoursApart = Callable[[int, int], bool]

#: A group is joined to another only when its members are, in the median, no more like its
#: own representative than like the other's by more than this (``centres.MARGIN``: what
#: parts two look-alikes' copies there keeps them apart here).
MARGIN = 0.02


def rejoined(
    groups: Sequence[tuple[int, ...]],
    inverse: npt.ArrayLike,
    passed: npt.ArrayLike,
    similarities: npt.ArrayLike,
    similarity_of: SimilarityOf,
    compare: Compare,
    threshold: float,
    sort_keys: Sequence[Any],
    whole: Whole,
    colours_apart: ColoursApart,
) -> list[tuple[int, ...]]:
    """``groups`` (rows, representative first, stars) with two joined wherever one picture's
    copies were left in both (see the module); groups largest first."""
    node_of = np.asarray(inverse, dtype=np.int64).reshape(-1)
    pairs = np.asarray(passed, dtype=np.int64).reshape(-1, 2)
    scores = np.asarray(similarities, dtype=np.float64).reshape(-1)
    current: list[tuple[int, ...] | None] = [tuple(group) for group in groups]
    if len(current) < 2 or len(pairs) == 0:
        return [group for group in current if group is not None]
    pictures = _Pictures(node_of, similarity_of, compare, threshold, sort_keys, whole,
                         colours_apart)  # fmt: skip
    nodes = max(int(node_of.max()), int(pairs.max())) + 1
    led = np.full(nodes, -1, dtype=np.int64)  # the group a node represents
    within = np.full(nodes, -1, dtype=np.int64)  # the group a node is in
    for index, group in enumerate(groups):
        within[node_of[np.asarray(group, dtype=np.int64)]] = index
        led[node_of[group[0]]] = index
    # a member of one group that passed against another's representative: the two may be
    # one picture's (the representatives' own pair among them), the closest asked first
    member = np.concatenate((pairs[:, 0], pairs[:, 1]))
    leader = np.concatenate((pairs[:, 1], pairs[:, 0]))
    score = np.concatenate((scores, scores))
    offered = (within[member] >= 0) & (led[leader] >= 0) & (within[member] != led[leader])
    order = np.argsort(-score[offered], kind="stable")
    first_group = led[leader[offered]][order]
    second_group = within[member[offered]][order]
    owner = list(range(len(current)))  # a joined group's index: the group it went into
    asked: set[tuple[tuple[int, ...] | None, ...]] = set()
    for a, b in zip(first_group.tolist(), second_group.tolist(), strict=True):
        a, b = _root(owner, a), _root(owner, b)
        if a == b or (current[a], current[b]) in asked or (current[b], current[a]) in asked:
            continue
        asked.add((current[a], current[b]))
        joined = pictures.joined(current[a], current[b])
        if joined is None:
            continue
        current[a], current[b] = joined, None
        owner[b] = a
    out = [group for group in current if group is not None]
    out.sort(key=lambda g: (-len(g), sort_keys[g[0]]))
    return out


def _root(owner: list[int], index: int) -> int:
    while owner[index] != index:
        index = owner[index]
    return index


@dataclass(frozen=True, slots=True)
class _Pictures:
    """What a scan's pictures answer when two groups are asked about (see ``rejoined``)."""

    node_of: I64
    similarity_of: SimilarityOf
    compare: Compare
    threshold: float
    sort_keys: Sequence[Any]
    whole: Whole
    colours_apart: ColoursApart

    def joined(
        self, one: tuple[int, ...] | None, other: tuple[int, ...] | None
    ) -> tuple[int, ...] | None:
        """The union of two groups round the first representative (the better keeper
        first) that every member of the other passes against and is as like as its own
        (``MARGIN``), when the colours agree and the union is whole; else None. Only a
        group's own representative is asked of (``one`` and ``other`` are current)."""
        if one is None or other is None:
            return None
        ranked = sorted((one, other), key=lambda g: self.sort_keys[g[0]])
        for centre, rest in (ranked, ranked[::-1]):
            members = np.asarray(rest, dtype=np.int64)
            there = self._passing(centre[0], members)
            if there is None:
                continue
            # the other's own copies: as like the centre as their own representative, mostly
            own = self.node_of[members] != self.node_of[rest[0]]
            gap = there[own] - self._similarity(rest[0], members[own])
            if len(gap) and float(np.median(gap)) < -MARGIN:
                return None
            if self.colours_apart(centre[0], rest[0]):
                return None
            union = (centre[0], *sorted((*centre[1:], *rest), key=self.sort_keys.__getitem__))
            return union if self.whole(union) else None
        return None

    def _similarity(self, centre: int, rows: I64) -> F64:
        """The check's similarity of each row's picture with ``centre``'s (compared now
        where the pair never was checked; a row of the centre's own node is 1)."""
        out, unknown = self._known(centre, rows)
        if len(unknown):
            out[unknown] = self._compared(centre, rows[unknown])
        return out

    def _passing(self, centre: int, rows: I64) -> F64 | None:
        """``_similarity``, or None as soon as one falls under the threshold: the checked
        pairs are read first, then the first row (its group's representative) compared
        alone, then the rest."""
        out, unknown = self._known(centre, rows)
        if bool((out < self.threshold).any()):
            return None
        for part in (unknown[:1], unknown[1:]):
            if len(part):
                out[part] = self._compared(centre, rows[part])
                if bool((out[part] < self.threshold).any()):
                    return None
        return out

    def _known(self, centre: int, rows: I64) -> tuple[F64, I64]:
        """Each row's similarity with ``centre`` where it was checked (1 for the centre's
        own node, NaN elsewhere), and the positions of the rows never checked against it."""
        nodes = self.node_of[rows]
        same = nodes == self.node_of[centre]
        known, similarity = self.similarity_of(np.full(len(rows), self.node_of[centre]), nodes)
        out = np.where(same, 1.0, np.where(known, similarity, np.nan)).astype(np.float64)
        return out, np.flatnonzero(~known & ~same)

    def _compared(self, centre: int, rows: I64) -> F64:
        return self.compare(np.full(len(rows), centre, dtype=np.int64), rows)
