"""The fingerprint's resizes done as matrix products give Pillow's pixels and hashes exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from dupfinder.core.image import resample
from dupfinder.core.image.perceptual import (
    CROP_BOXES,
    VARIANT_TRANSFORMS,
    WORKING_SIZE,
    crop_hashes,
    hash_bits_to_int,
    hash_working,
    image_fingerprint,
    load_working_image,
)

_FILTERS = {
    Image.Resampling.BILINEAR: resample.BILINEAR,
    Image.Resampling.LANCZOS: resample.LANCZOS,
}


@st.composite
def resizes(
    draw: st.DrawFn,
) -> tuple[npt.NDArray[np.uint8], tuple[int, int], tuple, Image.Resampling]:
    """Grey pixels (often two-level, where rounding shows), an output size, a box, a filter."""
    height, width = draw(st.integers(1, 80)), draw(st.integers(1, 80))
    size = (draw(st.integers(1, 70)), draw(st.integers(1, 70)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if draw(st.booleans()):
        pixels = rng.integers(0, 256, (height, width), dtype=np.uint8)
    else:
        pixels = (rng.integers(0, 2, (height, width)) * 255).astype(np.uint8)
    box: tuple[float, float, float, float] = (0.0, 0.0, float(width), float(height))
    if draw(st.booleans()):
        left, right = sorted(draw(st.floats(0, width)) for _ in range(2))
        top, bottom = sorted(draw(st.floats(0, height)) for _ in range(2))
        if right - left >= 0.5 and bottom - top >= 0.5:
            box = (left, top, right, bottom)
    kind = draw(st.sampled_from(list(_FILTERS)))
    return pixels, size, box, kind


@settings(max_examples=400, deadline=None)
@given(resizes())
def test_matrix_resize_is_pillows(case: tuple) -> None:
    pixels, size, box, kind = case
    expected = np.asarray(Image.fromarray(pixels, "L").resize(size, kind, box=box))
    plan = resample.resize_plan(pixels.shape, size, [(box, _FILTERS[kind])])
    got = plan(pixels.astype(np.float64))
    assert got.shape == (1, size[1], size[0])
    np.testing.assert_array_equal(got[0], expected)


def test_a_stack_of_resizes_is_each_resize() -> None:
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, (WORKING_SIZE, WORKING_SIZE), dtype=np.uint8)
    boxes = [(0.0, 0.0, 57.6, 57.6), (3.2, 6.4, 60.8, 64.0), (0.0, 0.0, 64.0, 64.0)]
    plan = resample.resize_plan(pixels.shape, (9, 8), [(b, resample.BILINEAR) for b in boxes])
    got = plan(pixels.astype(np.float64))
    for index, box in enumerate(boxes):
        single = Image.fromarray(pixels, "L").resize((9, 8), Image.Resampling.BILINEAR, box=box)
        np.testing.assert_array_equal(got[index], np.asarray(single))


def _crop_hashes_by_pillow(working: Image.Image) -> tuple[int, ...]:
    """Each ``CROP_BOXES`` part resized by Pillow (bilinear) and hashed as the default hash
    reads it: the definition the fingerprint's batched crops must give bit for bit."""
    dct = 2.0 * np.cos(np.pi * np.arange(32)[:, None] * (2 * np.arange(32)[None] + 1) / 64)
    side = WORKING_SIZE
    out = []
    for left, top, right, bottom in CROP_BOXES:
        box = (left * side, top * side, right * side, bottom * side)
        part = working.resize((32, 32), Image.Resampling.BILINEAR, box=box)
        low = (dct @ np.asarray(part, dtype=np.float64) @ dct.T)[:8, :8]
        noise = 1e-9 * np.abs(low).max()
        p = (low > np.median(low) + noise)[:4]
        steps = working.resize((9, 8), Image.Resampling.BILINEAR, box=box)
        grid = np.asarray(steps, dtype=np.int16)
        d = (grid[:, 1:] > grid[:, :-1])[::2]
        out.append(hash_bits_to_int(np.concatenate([p, d])))
    return tuple(out)


def _picture(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (6, 9, 3), dtype=np.uint8)
    im = Image.fromarray(small, "RGB").resize((360, 240), Image.Resampling.BICUBIC)
    draw = ImageDraw.Draw(im)
    for _ in range(5):
        x, y = int(rng.integers(0, 300)), int(rng.integers(0, 180))
        draw.rectangle((x, y, x + 50, y + 40), fill=tuple(int(c) for c in rng.integers(0, 256, 3)))
    return im


@pytest.mark.parametrize("seed", range(6))
def test_fingerprint_hashes_are_those_of_pillows_resizes(tmp_path: Path, seed: int) -> None:
    path = tmp_path / f"picture{seed}.png"
    _picture(seed).save(path)
    found = image_fingerprint(path, invariant=True)
    working = load_working_image(path).image
    assert found.value == hash_working(working)
    assert found.variants == tuple(hash_working(working.transpose(op)) for op in VARIANT_TRANSFORMS)
    assert found.crops == _crop_hashes_by_pillow(working)
    assert crop_hashes(working) == found.crops
    assert image_fingerprint(path).crops == found.crops


def test_crop_hashes_want_a_working_image() -> None:
    with pytest.raises(ValueError, match="working image"):
        crop_hashes(Image.new("L", (WORKING_SIZE, WORKING_SIZE + 1), 128))
