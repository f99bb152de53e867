"""Two small drawings of one size that no edit explains are two drawings
(``image.check.drawn_apart``)."""

from __future__ import annotations

import pytest

from dupfinder.core.image import check as imagecheck
from dupfinder.core.model import Edit, EditCode

ICON = (24, 24)
FRAMED = (Edit(EditCode.CROPPED, 4), Edit(EditCode.PADDED, 3))


@pytest.mark.parametrize(
    ("found", "apart"),
    [
        ((), True),  # nothing names the difference
        (FRAMED, True),  # at one size a crop or a border is part of the drawing moved
        ((Edit(EditCode.GREYSCALE),), False),
        ((Edit(EditCode.BRIGHTER, 12),), False),
        ((Edit(EditCode.MARKED),), False),
        ((Edit(EditCode.REENCODED, format="JPEG", quality=60),), False),
        ((*FRAMED, Edit(EditCode.TINTED)), False),
    ],
)
def test_only_an_edit_of_tone_colour_marks_or_file_explains_a_difference(
    found: tuple[Edit, ...], apart: bool
) -> None:
    assert imagecheck.drawn_apart(0.9, found, ICON, ICON) is apart


@pytest.mark.parametrize(
    ("similarity", "size_a", "size_b"),
    [
        (imagecheck.EXPLAINED, ICON, ICON),  # as alike as a re-render
        (0.9, ICON, (22, 22)),  # another size: a redraw or a resize
        (0.9, (96, 96), (96, 96)),  # larger than a small drawing: a crop may be resized back
        (0.9, (0, 0), (0, 0)),  # sizes not known
    ],
)
def test_the_rule_holds_only_for_small_pictures_of_one_size_less_alike_than_a_re_render(
    similarity: float, size_a: tuple[int, int], size_b: tuple[int, int]
) -> None:
    assert not imagecheck.drawn_apart(similarity, (), size_a, size_b)


def test_the_largest_small_drawing_is_ruled_on() -> None:
    side = (imagecheck.DRAWN_SIDE, imagecheck.DRAWN_SIDE - 10)
    assert imagecheck.drawn_apart(0.9, (), side, side)
