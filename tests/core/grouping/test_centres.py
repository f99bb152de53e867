"""Two look-alike families round one centre, each given its own (``grouping.centres``)."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import cast

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
from PIL import Image, ImageDraw

from dupfinder.core.fingerprints.columns import OutcomeColumns
from dupfinder.core.grouping import centres, groups
from dupfinder.core.grouping.centres import MARGIN, better_centres
from dupfinder.core.grouping.cluster import cluster_nodes
from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.model import EditCode, Grouping


def _look_alikes(size: int, across: float = 0.93) -> Outcomes:
    """Nodes 0..size-1 and size..2*size-1: copies of two look-alike drawings. Each family's
    pairs pass at 0.97 and every pair across them passes too, a few hundredths lower: the
    check alone cannot tell the two drawings apart, only by how alike the copies are."""
    similarities: dict[tuple[int, int], float] = {}
    for a, b in itertools.combinations(range(2 * size), 2):
        similarities[(a, b)] = 0.97 if (a < size) == (b < size) else across
    return Outcomes(similarities)


def _star(outcomes: Outcomes, n: int) -> tuple[list[tuple[int, ...]], list[int]]:
    keys = list(range(n))
    return cluster_nodes(np.arange(n), outcomes.passed(), keys, Grouping.STAR), keys


def _named(*codes: EditCode) -> centres.Differences:
    return lambda a, b: frozenset(codes)


def _families(groups: list[tuple[int, ...]], size: int) -> list[set[bool]]:
    return [{row < size for row in group} for group in groups]


@pytest.mark.parametrize("codes", [(), (EditCode.MARKED,), (EditCode.CROPPED, EditCode.UNCROPPED)])
def test_two_drawings_that_differ_in_a_detail_get_a_centre_each(codes: tuple[EditCode]) -> None:
    outcomes = _look_alikes(6)
    groups, keys = _star(outcomes, 12)
    assert groups == [tuple(range(12))]  # one star: the first drawing's centre took all
    parted = better_centres(
        groups, np.arange(12), outcomes.similarity_of, THRESHOLD, keys, _named(*codes)
    )
    assert sorted(parted) == [tuple(range(6)), tuple(range(6, 12))]


@pytest.mark.parametrize(
    "code",
    [EditCode.GREYSCALE, EditCode.SMALLER, EditCode.BRIGHTER, EditCode.TRANSPARENCY_REMOVED,
     EditCode.REENCODED, EditCode.PADDED],
)  # fmt: skip
def test_copies_made_in_one_go_stay_with_their_original(code: EditCode) -> None:
    """Six JPEG (or grey, or smaller...) copies of a picture are more like each other than
    like the original; the kept ones of the two parts then differ by that edit."""
    outcomes = _look_alikes(6)
    groups, keys = _star(outcomes, 12)
    asked: list[tuple[int, int]] = []

    def named(a: int, b: int) -> frozenset[EditCode]:
        asked.append((a, b))
        return frozenset({code, EditCode.MARKED})

    parted = better_centres(groups, np.arange(12), outcomes.similarity_of, THRESHOLD, keys, named)
    assert parted == groups
    assert sorted(asked) == [(6, 0)]  # each part's first by key: the file a person keeps


def test_copies_about_as_like_both_stay() -> None:
    outcomes = _look_alikes(6, across=0.97 - MARGIN + 0.005)
    groups, keys = _star(outcomes, 12)
    parted = better_centres(
        groups, np.arange(12), outcomes.similarity_of, THRESHOLD, keys, _named()
    )
    assert parted == groups


def test_a_lone_closer_copy_is_no_family() -> None:
    """A brightened copy and its cropped copy are alike; two are no second drawing among
    twelve copies (``SHARE``)."""
    similarities = {(a, b): 0.95 for a, b in itertools.combinations(range(12), 2)}
    similarities[(10, 11)] = 0.99
    outcomes = Outcomes(similarities)
    groups, keys = _star(outcomes, 12)
    assert centres.SHARE * 12 > 2
    parted = better_centres(
        groups, np.arange(12), outcomes.similarity_of, THRESHOLD, keys, _named()
    )
    assert parted == groups


def test_three_drawings_are_parted_in_turn() -> None:
    size = 5
    similarities = {
        (a, b): 0.97 if a // size == b // size else 0.92
        for a, b in itertools.combinations(range(3 * size), 2)
    }
    outcomes = Outcomes(similarities)
    groups, keys = _star(outcomes, 3 * size)
    parted = better_centres(
        groups, np.arange(3 * size), outcomes.similarity_of, THRESHOLD, keys, _named()
    )
    assert sorted(parted) == [tuple(range(i, i + size)) for i in range(0, 3 * size, size)]


def test_copies_of_one_node_go_with_it() -> None:
    outcomes = _look_alikes(4)
    inverse = np.array([*range(8), 0, 5])  # row 8 is node 0's copy, row 9 node 5's
    keys = list(range(10))
    groups = cluster_nodes(inverse, outcomes.passed(), keys, Grouping.STAR)
    parted = better_centres(groups, inverse, outcomes.similarity_of, THRESHOLD, keys, _named())
    assert sorted(sorted(g) for g in parted) == [[0, 1, 2, 3, 8], [4, 5, 6, 7, 9]]


@settings(max_examples=80, deadline=None)
@random_checks(least_score=0.8)
def test_parting_only_removes_links_and_keeps_stars(
    n: int, values: list[float], proposed: list[bool]
) -> None:
    """Whatever the checks said: every group after lies inside one group before, no row is
    in two groups, and every member passed against its representative."""
    outcomes = random_outcomes(n, values, proposed)
    groups, keys = _star(outcomes, n)
    parted = better_centres(groups, np.arange(n), outcomes.similarity_of, THRESHOLD, keys, _named())
    assert_only_parted(groups, parted, outcomes)


def _drive(tmp_path: Path, name: str, lamp: bool, mode: str = "RGB") -> Path:
    """A grey drawing of a drive, with or without a small green lamp."""
    im = Image.new("RGB", (128, 128), (255, 255, 255))
    draw = ImageDraw.Draw(im)
    draw.rounded_rectangle((12, 30, 116, 100), 8, fill=(150, 150, 150), outline=(90, 90, 90))
    for x in range(24, 84, 6):
        draw.rectangle((x, 86, x + 3, 92), fill=(200, 170, 60) if lamp else (120, 120, 120))
    if lamp:
        draw.ellipse((96, 84, 106, 94), fill=(40, 220, 40))
    path = tmp_path / name
    im.convert(mode).save(path)
    return path


def test_a_coloured_detail_of_two_colour_files_names_no_batch(tmp_path: Path) -> None:
    """Two drawings in colour files, one with a green lamp where the other has none: that
    is a detail, not copies made grey; a file that holds no colour at all is."""
    paths = [
        _drive(tmp_path, "lamp.png", lamp=True),
        _drive(tmp_path, "plain.png", lamp=False),
        _drive(tmp_path, "grey.png", lamp=True, mode="L"),
    ]
    found = [imagesim.image_fingerprint(path) for path in paths]
    rows = np.stack([imagecheck.padded(np.frombuffer(f.descriptor, np.uint8))[0] for f in found])
    sizes = SimpleNamespace(
        widths=np.array([f.width for f in found]), heights=np.array([f.height for f in found])
    )
    outcomes = cast(OutcomeColumns, sizes)  # the two columns _differences reads
    differences = functools.partial(
        groups._differences, lambda local: rows[local], outcomes, np.arange(3)
    )
    named = imagecheck.edits(rows[0], rows[1], (128, 128), (128, 128))
    assert EditCode.GREYSCALE in {edit.code for edit in named}  # what the panel shows
    assert not differences(0, 1) & {EditCode.GREYSCALE, EditCode.COLOURED}
    assert EditCode.GREYSCALE in differences(0, 2)
