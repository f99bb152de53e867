"""Splitting a star that holds two families of copies joined by look-alike links."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from checked_outcomes import (
    THRESHOLD,
    Outcomes,
    assert_only_parted,
    random_checks,
    random_outcomes,
)
from hypothesis import settings

from dupfinder.core.grouping import split
from dupfinder.core.grouping.cluster import cluster_nodes
from dupfinder.core.grouping.split import split_mixed
from dupfinder.core.model import Grouping


def _two_families(size: int) -> Outcomes:
    """Nodes 0..size-1 and size..2*size-1: copies of two look-alike pictures. Each family's
    pairs pass; across them node 0 (the first family's centre) passes against half of the
    other family and a few others pass, as one look-alike's copy passes against the other's
    original."""
    similarities: dict[tuple[int, int], float] = {}
    first, second = range(size), range(size, 2 * size)
    for family in (first, second):
        for a, b in itertools.combinations(family, 2):
            similarities[(a, b)] = 0.97
    for a in first:
        for b in second:
            similarities[(a, b)] = 0.9 if (a == 0 and b % 2 == 0) or (a + b) % 5 == 0 else 0.6
    return Outcomes(similarities)


def _groups(outcomes: Outcomes, n: int) -> tuple[list[tuple[int, ...]], list[int]]:
    keys = list(range(n))
    return cluster_nodes(np.arange(n), outcomes.passed(), keys, Grouping.STAR), keys


def _family(row: int, size: int) -> int:
    return 0 if row < size else 1


def test_two_families_in_one_star_are_parted() -> None:
    outcomes = _two_families(8)
    groups, keys = _groups(outcomes, 16)
    assert {_family(r, 8) for r in groups[0]} == {0, 1}  # the first centre took both
    parted = split_mixed(groups, np.arange(16), outcomes.similarity_of, THRESHOLD, keys)
    assert all(len({_family(r, 8) for r in group}) == 1 for group in parted)
    assert sorted(parted[0]) == list(range(8))  # the first family whole, around its centre
    assert sorted(r for g in parted for r in g) == list(range(16))  # nobody left out


def test_a_family_whose_pairs_pass_stays_whole() -> None:
    similarities = {(a, b): 0.95 for a, b in itertools.combinations(range(10), 2)}
    similarities[(3, 7)] = 0.5  # one odd pair is no second family
    outcomes = Outcomes(similarities)
    groups, keys = _groups(outcomes, 10)
    assert split_mixed(groups, np.arange(10), outcomes.similarity_of, THRESHOLD, keys) == groups


def test_copies_of_one_node_stay_together() -> None:
    """Rows of one node (byte-identical pictures) are one member of the cut."""
    outcomes = _two_families(5)
    inverse = np.array([*range(10), 0, 0, 7])  # rows 10, 11 copy node 0; row 12 node 7
    keys = list(range(13))
    groups = cluster_nodes(inverse, outcomes.passed(), keys, Grouping.STAR)
    parted = split_mixed(groups, inverse, outcomes.similarity_of, THRESHOLD, keys)
    assert sorted(parted[0]) == [0, 1, 2, 3, 4, 10, 11]
    assert all(len({_family(int(inverse[r]), 5) for r in group}) == 1 for group in parted)
    assert any({7, 12} <= set(group) for group in parted)


def _colourways(size: int, greys: int) -> Outcomes:
    """Three colourways of one picture (``size`` copies in colour each: nodes 0.., size..,
    2 * size..), then ``greys`` grey copies of each (from 3 * size on): every pair of one
    colourway passes, colours across colourways fail, and a grey copy passes against every
    picture (nothing to tell its colours by)."""
    similarities: dict[tuple[int, int], float] = {}
    colour = 3 * size
    for a, b in itertools.combinations(range(colour), 2):
        similarities[(a, b)] = 0.97 if a // size == b // size else 0.5
    for g in range(colour, colour + 3 * greys):
        for other in range(g):
            similarities[(other, g)] = 0.99
    return Outcomes(similarities)


def test_colourways_met_through_their_grey_copies_are_parted() -> None:
    size, greys = 6, 3
    n = 3 * size + 3 * greys
    outcomes = _colourways(size, greys)
    groups, keys = _groups(outcomes, n)
    assert len(groups) == 1  # a grey copy is the centre, and every picture passes against it
    coloured = np.arange(n) < 3 * size
    whole = split_mixed(groups, np.arange(n), outcomes.similarity_of, THRESHOLD, keys)
    assert whole == groups  # the grey copies hide the cut from the whole group's pairs
    parted = split_mixed(
        groups, np.arange(n), outcomes.similarity_of, THRESHOLD, keys, coloured.__getitem__
    )
    colourways = [{r // size for r in group if r < 3 * size} for group in parted]
    assert sorted(min(c) for c in colourways) == [0, 1, 2]
    assert all(len(c) == 1 for c in colourways)  # one colourway a group
    assert sorted(r for g in parted for r in g) == list(range(n))  # the grey copies kept


def test_a_family_the_leading_vector_leaves_at_zero_stays_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three families alike share the largest eigenvalue; LAPACK may then return a vector that
    is zero on one family but for rounding, which must not scatter its members."""
    size = 5
    family = np.repeat(np.arange(3), size)
    passed = family[:, None] == family[None, :]
    checked = np.ones_like(passed)
    noise = np.tile([1e-17, -1e-17], 8)[: 3 * size]
    vector = np.where(family == 0, noise, np.where(family == 1, 1.0, -1.0))
    monkeypatch.setattr(split, "_leading", lambda signs: vector)
    parts = split._parts(np.arange(3 * size), passed, checked, 1)  # one cut
    held = [{int(f) for f in family[part]} for part in parts]
    assert len(parts) == 2
    assert not held[0] & held[1]  # no family on both sides


def test_a_picture_with_its_grey_copies_is_not_parted_by_colour() -> None:
    size, greys = 8, 4
    similarities = {(a, b): 0.97 for a, b in itertools.combinations(range(size + greys), 2)}
    outcomes = Outcomes(similarities)
    groups, keys = _groups(outcomes, size + greys)
    coloured = np.arange(size + greys) < size
    parted = split_mixed(
        groups,
        np.arange(size + greys),
        outcomes.similarity_of,
        THRESHOLD,
        keys,
        coloured.__getitem__,
    )
    assert parted == groups


@settings(max_examples=60, deadline=None)
@random_checks()
def test_splitting_only_removes_links_and_keeps_stars(
    n: int, values: list[float], proposed: list[bool]
) -> None:
    """Whatever the checks said: every group after the split lies inside one group before
    it, no row is in two groups, and every member passed against its representative."""
    outcomes = random_outcomes(n, values, proposed)
    groups, keys = _groups(outcomes, n)
    parted = split_mixed(groups, np.arange(n), outcomes.similarity_of, THRESHOLD, keys)
    assert_only_parted(groups, parted, outcomes)


def test_a_copy_that_passes_against_half_its_group_is_not_cut_off() -> None:
    """A copy made by one strong edit (a JPEG of an icon) passes against the original and
    some copies and fails against the copies made by other edits: it is no second family."""
    similarities = {(a, b): 0.95 for a, b in itertools.combinations(range(4), 2)}
    similarities |= {(0, 4): 0.9, (1, 4): 0.88, (2, 4): 0.8, (3, 4): 0.7}
    outcomes = Outcomes(similarities)
    groups, keys = _groups(outcomes, 5)
    assert groups == [(0, 1, 2, 3, 4)]
    assert split_mixed(groups, np.arange(5), outcomes.similarity_of, THRESHOLD, keys) == groups


def test_a_look_alike_that_met_only_the_centre_is_cut_off() -> None:
    """A look-alike that passes against a family's centre and fails against its copies."""
    similarities = {(a, b): 0.95 for a, b in itertools.combinations(range(6), 2)}
    similarities |= {(0, 6): 0.9} | {(b, 6): 0.6 for b in range(1, 6)}
    outcomes = Outcomes(similarities)
    groups, keys = _groups(outcomes, 7)
    parted = split_mixed(groups, np.arange(7), outcomes.similarity_of, THRESHOLD, keys)
    assert parted == [(0, 1, 2, 3, 4, 5)]
