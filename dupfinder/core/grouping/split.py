"""Split a group that is two groups: two families of copies joined by a few look-alike links.

A star links every member to its centre, and nothing else; two look-alike pictures (an
``undo`` and a ``redo`` arrow of one theme, two colourways of one wallpaper) with twenty
copies each can meet in one star when the centre's own copy passes against the other
family's copies. The pairs that were checked *among the members* tell the two apart: inside
each family nearly every checked pair passes, across them most fail. So a group is split
where its checked pairs say so:

1. the members' nodes get a signed matrix: +1 for a checked pair that passed, -1 for one
   that failed, 0 where no pair was checked (the index never proposed it);
2. the eigenvector of that matrix's largest eigenvalue parts the nodes by its sign (about
   its mean), the spectral cut of a signed graph;
3. the cut is kept only when it is clear: across it at most ``CROSS_PASSES`` of the checked
   pairs passed, and inside each part at least ``DENSER`` more of them did; each part is then
   looked at again (down to ``DEPTH`` cuts: three families in one star take two);
4. each part becomes stars again from its own passed pairs (``cluster.cluster_nodes``), so
   every member is still linked directly to its representative, and a member that reaches
   no one in its part is left alone.

Splitting only ever removes links: no two files end up together that were not before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from dupfinder.core.grouping.cluster import part_stars
from dupfinder.core.index.distinct import sorted_unique

__all__ = ["CROSS_PASSES", "DENSER", "DEPTH", "LONE_PASSES", "split_mixed"]

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
#: For node pairs (a, b): whether each was checked, and its similarity.
SimilarityOf = Callable[[I64, I64], tuple[npt.NDArray[np.bool_], F64]]
#: For nodes: which of them hold colours the check compares.
ColouredOf = Callable[[I64], npt.NDArray[np.bool_]]

#: A cut is kept when at most this share of the checked pairs across it passed...
CROSS_PASSES = 0.5
#: ...and the share inside each part (with any checked) is higher by at least this.
DENSER = 0.2
#: A part of one picture (copies of one file) is cut off only when at most this share of its
#: checked pairs with the rest passed. It passed against the star's centre, or it would not
#: be in the star; a copy made by one strong edit (a JPEG of an icon, a cut) fails against
#: the copies made by other edits as often as it passes, where a look-alike that met the
#: centre fails against nearly all of its copies.
LONE_PASSES = 1 / 3
#: Cuts made in one group at most, one inside another.
DEPTH = 3
#: Eigenvector components this small against the largest are zero (LAPACK's rounding).
_ROUNDING = 1e-9
#: Groups of more distinct nodes than this are left whole (the eigenvectors cost nodes cubed:
#: some 50 ms at 600).
MAX_NODES = 600


def split_mixed(
    groups: Sequence[tuple[int, ...]],
    inverse: npt.ArrayLike,
    similarity_of: SimilarityOf,
    threshold: float,
    sort_keys: Sequence[Any],
    coloured: ColouredOf | None = None,
) -> list[tuple[int, ...]]:
    """``groups`` (rows, representative first, from ``cluster_nodes`` in stars) with each one
    that is two families split apart and made into stars again; groups largest first.
    ``coloured``: which of some nodes are pictures whose colours the check compares, asked
    only of a group no cut of all its members parts (``_colour_parts``)."""
    node_of = np.asarray(inverse, dtype=np.int64).reshape(-1)
    out: list[tuple[int, ...]] = []
    for group in groups:
        rows = np.asarray(group, dtype=np.int64)
        nodes = sorted_unique(node_of[rows])
        if len(nodes) < 4 or len(nodes) > MAX_NODES:
            out.append(tuple(group))
            continue
        passed, checked = _matrices(nodes, similarity_of, threshold)
        parts = _parts(np.arange(len(nodes)), passed, checked, DEPTH)
        if len(parts) == 1 and coloured is not None:
            parts = _colour_parts(coloured(nodes), passed, checked)
        if len(parts) == 1:
            out.append(tuple(group))
            continue
        for part in parts:
            out.extend(
                part_stars(rows, node_of, nodes[part], passed[np.ix_(part, part)], sort_keys)
            )
    out.sort(key=lambda g: (-len(g), sort_keys[g[0]]))
    return out


def _matrices(
    nodes: I64, similarity_of: SimilarityOf, threshold: float
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """(n, n) whether each pair of ``nodes`` passed, and whether it was checked."""
    n = len(nodes)
    a, b = np.triu_indices(n, 1)
    known, similarity = similarity_of(nodes[a], nodes[b])
    passed = np.zeros((n, n), dtype=np.bool_)
    checked = np.zeros((n, n), dtype=np.bool_)
    passed[a, b] = passed[b, a] = known & (similarity >= threshold)
    checked[a, b] = checked[b, a] = known
    return passed, checked


def _parts(
    members: I64, passed: npt.NDArray[np.bool_], checked: npt.NDArray[np.bool_], depth: int
) -> list[I64]:
    """``members`` (indices into the matrices) cut while the checked pairs say so."""
    if depth == 0 or len(members) < 4:
        return [members]
    sub = np.ix_(members, members)
    if not bool((checked[sub] & ~passed[sub]).any()):  # nothing failed: one family
        return [members]
    signs = np.where(checked[sub], np.where(passed[sub], 1.0, -1.0), 0.0)
    leading = _leading(signs)
    # a family the vector leaves at zero (its largest eigenvalue shared: three colourways
    # alike) stays on one side, whatever sign rounding gives each of its members
    side = leading >= -_ROUNDING * float(np.abs(leading).max(initial=0.0))
    first, second = members[side], members[~side]
    if len(first) == 0 or len(second) == 0:
        return [members]
    across = _share(passed[np.ix_(first, second)], checked[np.ix_(first, second)])
    if across is None or across > CROSS_PASSES:
        return [members]
    if min(len(first), len(second)) == 1 and across > LONE_PASSES:
        return [members]
    for part in (first, second):
        inside = _share(passed[np.ix_(part, part)], checked[np.ix_(part, part)])
        if inside is not None and inside < across + DENSER:
            return [members]
    return [
        *_parts(first, passed, checked, depth - 1),
        *_parts(second, passed, checked, depth - 1),
    ]


def _colour_parts(
    coloured: npt.NDArray[np.bool_], passed: npt.NDArray[np.bool_], checked: npt.NDArray[np.bool_]
) -> list[I64]:
    """The cut made among the members whose colours are compared (``coloured``) alone, each
    other member (a grey or tinted copy, which passes against every colourway of a picture)
    then joining the part it passes with most (the first of equals): the colourways of one
    wallpaper, met in one star through their grey copies, apart again."""
    everyone = np.arange(len(coloured))
    colours = np.flatnonzero(coloured)
    if len(colours) < 4 or len(colours) == len(coloured):
        return [everyone]
    parts = _parts(colours, passed, checked, DEPTH)
    if len(parts) == 1:
        return [everyone]
    joined = [list(part.tolist()) for part in parts]
    for other in np.flatnonzero(~coloured).tolist():
        passes = [int(passed[other, part].sum()) for part in parts]
        joined[passes.index(max(passes))].append(other)
    return [np.array(sorted(part), dtype=np.int64) for part in joined]


def _leading(signs: F64) -> F64:
    """The eigenvector of the largest eigenvalue of a symmetric matrix, about its mean (a
    graph whose pairs all passed has one of a single sign: the cut that gives is refused)."""
    _, vectors = np.linalg.eigh(signs)
    vector = vectors[:, -1]
    out: F64 = vector - vector.mean()
    return out


def _share(passed: npt.NDArray[np.bool_], checked: npt.NDArray[np.bool_]) -> float | None:
    """The share of checked pairs that passed (off the diagonal of a square block alike);
    None when none was checked."""
    total = int(checked.sum())
    return int(passed.sum()) / total if total else None
