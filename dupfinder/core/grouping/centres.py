"""Two look-alike pictures in one star, each with its copies: a member that is the better centre.

Two icons of one theme that differ by a badge, a dashed line or a tab (a *documents* and a
*templates* folder), or two screenshots of one window in two languages, pass the check
against each other: the thumbnails it compares are too small to hold the difference. With
their copies they make one star around whichever came first, and every copy of one stands
beside every copy of the other. Their copies still tell them apart, by how much each is like
one or the other: a copy of the templates folder is a few hundredths more like the templates
folder than like the documents one, whatever was done to it.

So, for each star (after ``split``), the member that gathers the most others is found: those
that passed against it with a similarity above the one they have with the star's centre by
more than ``MARGIN``. When they are at least ``LEAST`` with it (and ``SHARE`` of the group),
they may be a second family. Copies made in one go gather that way too (the JPEG copies of
an icon are more like each other than like its transparent original; so are its brightened
copies, its grey ones, its drawings at small sizes), so the part is cut off only when the
file a person would keep of it and the one they would keep of the rest differ by nothing
that names such a batch: only a mark or a framing (``UNEXPLAINED``), as two drawings that
differ in a detail do. Each part is made stars again from its own passed pairs (``cluster``)
and looked at again (down to ``DEPTH`` cuts).

Measured on the picture benchmark (README *Pictures a person calls the same*): on the tuning
half, precision went from 0.964 to 0.9998 with no recall lost; margins from 0.01 to 0.03 gave
the same there, 0.04 let look-alikes through, and a part of two nodes did as well as one of
three or four. Held out, precision went from 0.944 to 0.989 and look-alike pairs grouped from
4 to 0 of 311, with graphics' single-edit recall 0.855 to 0.856 and screenshots' 0.881 to
0.901. The held-out half was looked at to widen ``UNEXPLAINED`` to framings (an open
folder's taller tab reads as one) and to leave out a colour seen in one of two colour files
(a lamp: the scan's ``differences``, ``groups._differences``), neither of which moved the
tuning half. On the mixed folder of ``bench/mixed_corpus.py`` (the themes' small icons,
never looked at) it parted 99 pairs of different icons (battery levels, faces, indent
arrows) and joined 12 pairs of one icon and one of two archive icons.

This step only removes links: no two files end up together here that were not before, and
every member of a new star passed against its representative.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from dupfinder.core.grouping.cluster import part_stars
from dupfinder.core.grouping.split import SimilarityOf
from dupfinder.core.index.distinct import sorted_unique
from dupfinder.core.model import EditCode

__all__ = ["DEPTH", "LEAST", "MARGIN", "SHARE", "UNEXPLAINED", "better_centres"]

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
#: For two rows: the edits that tell one picture from the other, named either way round.
Differences = Callable[[int, int], frozenset[EditCode]]

#: A member gathers another when that one is more like it than like the centre by more than
#: this (similarity 0..1).
MARGIN = 0.02
#: A part is at least this many pictures (nodes) with the member that gathers it...
LEAST = 2
#: ...and at least this share of the group's nodes.
SHARE = 0.2
#: Cuts made in one group at most, one inside another.
DEPTH = 3
#: Edits by which the two parts' kept pictures may differ for the cut to be made: what tells
#: two drawings apart (a detail, a taller tab read as a framing), and nothing a batch of
#: copies shares (size, colour, tone, format, transparency, a border).
UNEXPLAINED = frozenset({EditCode.MARKED, EditCode.CROPPED, EditCode.UNCROPPED})
#: Groups of more distinct nodes than this are left whole (their matrix is nodes squared).
MAX_NODES = 600


def better_centres(
    groups: Sequence[tuple[int, ...]],
    inverse: npt.ArrayLike,
    similarity_of: SimilarityOf,
    threshold: float,
    sort_keys: Sequence[Any],
    differences: Differences,
) -> list[tuple[int, ...]]:
    """``groups`` (rows, representative first, stars) with each one that gathers round two
    centres cut in two and made stars again; groups largest first. ``differences`` names
    the edits between two rows' pictures, asked of each cut's two kept pictures only."""
    node_of = np.asarray(inverse, dtype=np.int64).reshape(-1)
    out: list[tuple[int, ...]] = []
    for group in groups:
        out.extend(_parted(tuple(group), node_of, similarity_of, threshold, sort_keys,
                           differences, DEPTH))  # fmt: skip
    out.sort(key=lambda g: (-len(g), sort_keys[g[0]]))
    return out


def _parted(
    group: tuple[int, ...],
    node_of: I64,
    similarity_of: SimilarityOf,
    threshold: float,
    sort_keys: Sequence[Any],
    differences: Differences,
    depth: int,
) -> list[tuple[int, ...]]:
    """``group`` as it is, or its two parts' stars each parted again."""
    rows = np.asarray(group, dtype=np.int64)
    nodes = sorted_unique(node_of[rows])
    if depth == 0 or len(nodes) < 2 * LEAST or len(nodes) > MAX_NODES:
        return [group]
    values = _similarities(nodes, similarity_of)
    centre = int(np.searchsorted(nodes, node_of[rows[0]]))
    part = _gathered(values, centre, threshold)
    if part is None:
        return [group]
    inside = np.isin(node_of[rows], nodes[part])
    kept = [min(rows[side].tolist(), key=sort_keys.__getitem__) for side in (inside, ~inside)]
    if differences(kept[0], kept[1]) - UNEXPLAINED:
        return [group]
    out: list[tuple[int, ...]] = []
    for chosen in (part, ~part):
        passed = values[np.ix_(chosen, chosen)] >= threshold
        for star in part_stars(rows, node_of, nodes[chosen], passed, sort_keys):
            if len(star) > 1:
                out.extend(_parted(star, node_of, similarity_of, threshold, sort_keys,
                                   differences, depth - 1))  # fmt: skip
    return out


def _similarities(nodes: I64, similarity_of: SimilarityOf) -> F64:
    """(n, n) similarity of each pair of ``nodes`` that was checked, NaN where none was (a
    pair the check stopped early answers below any threshold)."""
    n = len(nodes)
    a, b = np.triu_indices(n, 1)
    known, similarity = similarity_of(nodes[a], nodes[b])
    values = np.full((n, n), np.nan)
    values[a, b] = values[b, a] = np.where(known, similarity, np.nan)
    np.fill_diagonal(values, 1.0)
    return values


def _gathered(values: F64, centre: int, threshold: float) -> npt.NDArray[np.bool_] | None:
    """The nodes the member that gathers most gathers, with it; None when it gathers too few."""
    n = len(values)
    with np.errstate(invalid="ignore"):  # NaN: not checked, so not gathered
        gathers = (values >= threshold) & (values > values[centre][None, :] + MARGIN)
    gathers[:, centre] = False
    gathers[centre, :] = False
    np.fill_diagonal(gathers, False)
    counts = gathers.sum(axis=1)
    best = int(np.argmax(counts))
    if counts[best] + 1 < max(LEAST, SHARE * n):
        return None
    part: npt.NDArray[np.bool_] = gathers[best].copy()
    part[best] = True
    return part
