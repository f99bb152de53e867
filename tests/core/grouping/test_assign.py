"""Each member with the representative it is clearly most like (``grouping.assign``)."""

from __future__ import annotations

import itertools

import numpy as np
from checked_outcomes import THRESHOLD, Outcomes, random_checks
from hypothesis import settings

from dupfinder.core.grouping.assign import MARGIN, nearest_representatives, with_orphans
from dupfinder.core.grouping.cluster import cluster_nodes
from dupfinder.core.model import Grouping


def _moved(
    groups: list[tuple[int, ...]],
    outcomes: Outcomes,
    inverse: list[int] | None = None,
    n: int | None = None,
) -> list[tuple[int, ...]]:
    n = n if n is not None else 1 + max(max(g) for g in groups)
    pairs, similarities = outcomes.passed_with_similarities()
    return nearest_representatives(
        groups,
        np.arange(n) if inverse is None else np.asarray(inverse),
        pairs,
        similarities,
        outcomes.similarity_of,
        list(range(n)),
    )


def test_a_copy_taken_by_a_look_alike_goes_to_its_own_picture() -> None:
    # 0 and 3 are two look-alike icons; 2 is a grey copy of 3, which 0's star took first
    outcomes = Outcomes({(0, 1): 0.97, (0, 2): 0.88, (3, 2): 0.98, (3, 4): 0.97, (0, 3): 0.6})
    assert _moved([(0, 1, 2), (3, 4)], outcomes) == [(3, 2, 4), (0, 1)]


def test_a_copy_about_as_like_both_stays() -> None:
    close = 0.9 + MARGIN / 2
    outcomes = Outcomes({(0, 1): 0.97, (0, 2): 0.9, (3, 2): close, (3, 4): 0.97})
    assert _moved([(0, 1, 2), (3, 4)], outcomes) == [(0, 1, 2), (3, 4)]


def test_a_copy_moves_only_to_a_representative_it_passed_against() -> None:
    # 2 is more like 4 than like 0, but 4 is a member, not a representative
    outcomes = Outcomes({(0, 1): 0.97, (0, 2): 0.88, (3, 4): 0.97, (4, 2): 0.99})
    assert _moved([(0, 1, 2), (3, 4)], outcomes) == [(0, 1, 2), (3, 4)]


def test_a_representative_left_alone_is_no_group() -> None:
    outcomes = Outcomes({(0, 1): 0.86, (3, 1): 0.99, (3, 4): 0.97})
    assert _moved([(0, 1), (3, 4)], outcomes) == [(3, 1, 4)]


def test_the_rows_of_one_node_move_together() -> None:
    # rows 2 and 5 are byte copies (one node: 2); the representative's own copy (row 6,
    # node 0) never leaves it
    outcomes = Outcomes({(0, 1): 0.97, (0, 2): 0.88, (3, 2): 0.98, (3, 4): 0.97})
    inverse = [0, 1, 2, 3, 4, 2, 0]
    assert _moved([(0, 1, 2, 5, 6), (3, 4)], outcomes, inverse) == [(3, 2, 4, 5), (0, 1, 6)]


@settings(max_examples=200, deadline=None)
@random_checks(least_score=0.5)
def test_every_member_still_passed_against_its_representative(
    n: int, scores: list[float], checked: list[bool]
) -> None:
    """Against stars made from random checked pairs: no row is lost but for a group left
    with its representative alone, no row is in two groups, every member's node passed
    against its representative's, and the representatives are the stars' own."""
    outcomes = Outcomes(
        {
            pair: score
            for pair, score, known in zip(
                itertools.combinations(range(n), 2), scores, checked, strict=False
            )
            if known
        }
    )
    pairs = outcomes.passed()
    stars = cluster_nodes(np.arange(n), pairs, list(range(n)), Grouping.STAR)
    moved = _moved(stars, outcomes, n=n) if stars else []
    rows = [row for group in moved for row in group]
    assert len(rows) == len(set(rows))
    assert {g[0] for g in moved} <= {g[0] for g in stars}
    lost = {row for group in stars for row in group} - set(rows)
    assert lost <= {g[0] for g in stars}
    for group in moved:
        assert len(group) >= 2
        known, similarity = outcomes.similarity_of(
            np.full(len(group) - 1, group[0]), np.asarray(group[1:])
        )
        assert known.all()
        assert (similarity >= THRESHOLD).all()


def _adopted(
    groups: list[tuple[int, ...]], outcomes: Outcomes, checks: dict[tuple[int, int], float], n: int
) -> list[tuple[int, ...]]:
    """``with_orphans`` where the pairs the index never proposed are checked from
    ``checks`` (0.0 for any other)."""
    asked: list[tuple[int, int]] = []

    def compare(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        pairs = list(zip(a.tolist(), b.tolist(), strict=True))
        asked.extend(pairs)
        return np.array([checks.get((min(p), max(p)), 0.0) for p in pairs])

    found = with_orphans(
        groups,
        np.arange(n),
        np.arange(n),
        outcomes.passed(),
        outcomes.similarity_of,
        compare,
        THRESHOLD,
        list(range(n)),
    )
    assert all((min(p), max(p)) not in outcomes.similarities for p in asked)
    return found


def test_a_picture_whose_neighbours_were_all_taken_joins_the_star_it_passes() -> None:
    # 4 passed only against 2, a member of 0's star; the index never proposed 4 against 0
    outcomes = Outcomes({(0, 1): 0.97, (0, 2): 0.95, (3, 5): 0.95, (2, 4): 0.9})
    assert _adopted([(0, 1, 2), (3, 5)], outcomes, {(0, 4): 0.88}, 6) == [(0, 1, 2, 4), (3, 5)]


def test_a_picture_that_fails_against_the_representative_stays_out() -> None:
    outcomes = Outcomes({(0, 1): 0.97, (0, 2): 0.95, (2, 4): 0.9})
    assert _adopted([(0, 1, 2)], outcomes, {(0, 4): 0.7}, 5) == [(0, 1, 2)]


def test_of_two_stars_it_passes_the_one_it_is_most_like() -> None:
    outcomes = Outcomes({(0, 1): 0.97, (3, 5): 0.97, (1, 4): 0.9, (5, 4): 0.9})
    checks = {(0, 4): 0.86, (3, 4): 0.93}
    assert _adopted([(0, 1), (3, 5)], outcomes, checks, 6) == [(3, 4, 5), (0, 1)]


@settings(max_examples=100, deadline=None)
@random_checks(least_score=0.5)
def test_an_adopted_picture_passed_against_its_representative(
    n: int, scores: list[float], proposed: list[bool]
) -> None:
    """Every row in at most one group, every group the stars' plus pictures in none, and
    every adopted picture passed the check against its representative."""
    every = dict(zip(itertools.combinations(range(n), 2), scores, strict=False))
    chosen = zip(every, proposed, strict=False)
    outcomes = Outcomes({pair: every[pair] for pair, p in chosen if p})
    stars = cluster_nodes(np.arange(n), outcomes.passed(), list(range(n)), Grouping.STAR)
    found = _adopted(stars, outcomes, every, n) if stars else []
    rows = [row for group in found for row in group]
    assert len(rows) == len(set(rows))
    assert [g[0] for g in found] == [
        g[0] for g in sorted(stars, key=lambda g: (-len(g), g[0]))
    ] or {g[0] for g in found} == {g[0] for g in stars}
    before = {row for group in stars for row in group}
    for group in found:
        for row in group[1:]:
            if row not in before:
                assert every[(min(row, group[0]), max(row, group[0]))] >= THRESHOLD
