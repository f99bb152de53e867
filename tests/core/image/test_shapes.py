"""Two pictures of other shapes are never one picture (``image.check.shapes_apart``)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim


def _header(left: float = 0.0, top: float = 0.0, right: float = 0.0, bottom: float = 0.0) -> bytes:
    """A descriptor's header with those plain borders (shares of the width and height)."""
    return bytes([1, 0, 1, 64]) + bytes(round(m * 250) for m in (left, top, right, bottom))


def test_a_shape_is_the_part_inside_the_plain_border() -> None:
    heads = np.frombuffer(_header() + _header(0.1, 0.0, 0.1, 0.0), np.uint8).reshape(2, -1)
    shapes = imagecheck.content_shapes(heads, [200, 250], [100, 100])
    assert shapes == pytest.approx([math.log(2.0), math.log(2.0)])


def test_a_picture_without_a_size_or_a_descriptor_rules_nothing_out() -> None:
    heads = np.zeros((2, imagecheck.HEADER_BYTES), np.uint8)
    heads[0] = np.frombuffer(_header(), np.uint8)
    shapes = imagecheck.content_shapes(heads, [0, 10], [10, 10])
    assert np.isnan(shapes).all()
    assert not imagecheck.shapes_apart(shapes[0], math.log(4.0))


@pytest.mark.parametrize(
    ("factor", "apart"),
    [(1.0, False), (1.32, False), (1.45, False), (1.55, True), (3.0, True)],
)
def test_shapes_further_apart_than_a_crop_are_apart(factor: float, apart: bool) -> None:
    assert bool(imagecheck.shapes_apart(0.0, math.log(factor))) is apart
    assert bool(imagecheck.shapes_apart(math.log(factor), 0.0)) is apart


def test_a_quarter_turn_swaps_the_sides_where_turns_are_looked_for() -> None:
    wide, tall = math.log(2.0), math.log(0.5)
    assert imagecheck.shapes_apart(wide, tall)
    assert not imagecheck.shapes_apart(wide, tall, turned=True)


def _outline(path: Path, width: int, height: int) -> Path:
    """A rounded outline on transparency, as a theme draws a checkbox, a tablet or a screen."""
    im = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    ImageDraw.Draw(im).rounded_rectangle(
        (2, 2, width - 3, height - 3), 8, outline=(40, 40, 40, 255), width=5
    )
    im.save(path)
    return path


def _shape_and_row(path: Path) -> tuple[float, np.ndarray]:
    found = imagesim.image_fingerprint(path)
    row = imagecheck.padded(np.frombuffer(found.descriptor, np.uint8))
    shape = imagecheck.content_shapes(
        row[:, : imagecheck.HEADER_BYTES], [found.width], [found.height]
    )
    return float(shape[0]), row


def test_a_square_and_a_wide_outline_pass_the_thumbnails_but_not_the_shapes(
    tmp_path: Path,
) -> None:
    """The thumbnails are square: a square outline and one 1.6 times as wide look alike
    there (the check passes them), and only their shapes tell them apart."""
    square, square_row = _shape_and_row(_outline(tmp_path / "square.png", 64, 64))
    wide, wide_row = _shape_and_row(_outline(tmp_path / "wide.png", 104, 64))
    cut, _ = _shape_and_row(_outline(tmp_path / "cut.png", 64, 52))
    assert imagecheck.pair_similarity(square_row, wide_row)[0] >= 0.85
    assert imagecheck.shapes_apart(square, wide)
    assert not imagecheck.shapes_apart(square, cut)  # a fifth cut off one side: a copy
