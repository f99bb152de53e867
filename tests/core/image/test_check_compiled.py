"""The compiled block comparisons of the picture check give what the numpy reference gives,
for every thumbnail size, on random and real pictures; AUTO uses them whenever they were built."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from PIL import Image
from test_perceptual import icon, photo

from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.jit import engine as jit_engine

pytestmark = pytest.mark.skipif(
    jit_engine.load(jit_engine.Kernel.PICTURE_CHECK) is None, reason="the extension was not built"
)


def _jit() -> ModuleType:
    jit = jit_engine.load(jit_engine.Kernel.PICTURE_CHECK)
    assert jit is not None
    return jit


@pytest.mark.parametrize("side", [1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 24, 31, 32])
def test_worst_blocks_match_numpy_at_every_side(side: int) -> None:
    rng = np.random.default_rng(side)
    x = (rng.random((40, 3, side, side)) * 255).astype(np.float32)
    y = np.clip(x + rng.normal(0, 12, x.shape), 0, 255).astype(np.float32)
    y[:5] = (rng.random((5, 3, side, side)) * 255).astype(np.float32)  # unrelated pairs too
    y[5:8] = x[5:8]  # and identical ones
    block = side // max(side // imagecheck._DETAIL_BLOCK, 1)
    expected = np.maximum(imagecheck._worst_block(x, y), imagecheck._worst_block(y, x))
    got = _jit().worst_blocks(x, y, block)
    assert np.allclose(got, expected, rtol=1e-5, atol=1e-4)
    assert np.all(got[5:8] == 0.0)


def test_mean_blocks_match_the_numpy_layout_check() -> None:
    rng = np.random.default_rng(3)
    grey = rng.integers(0, 256, (60, imagecheck.GREY_SIDE**2), dtype=np.uint8)
    moved = np.clip(grey.astype(int) + rng.integers(-30, 30, grey.shape), 0, 255)
    gx = imagecheck._standardised(grey)
    gy = imagecheck._standardised(moved.astype(np.uint8))
    gy[:4] = np.roll(gx[:4], 1, axis=2)  # shifted by a cell: the check forgives it
    expected = np.maximum(
        imagecheck._block_difference(gx, gy), imagecheck._block_difference(gy, gx)
    )
    shape = (len(gx), 1, imagecheck.GREY_SIDE, imagecheck.GREY_SIDE)
    got = _jit().mean_blocks(gx.reshape(shape).copy(), gy.reshape(shape).copy(), imagecheck._BLOCK)
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-12)


def _descriptors(tmp_path: Path) -> np.ndarray:
    pictures: list[Image.Image] = [icon(), icon(48), icon(20), photo(2), photo(3, (200, 130))]
    pictures.append(icon().resize((100, 100)))
    pictures.append(icon().rotate(3))
    rows = []
    for i, picture in enumerate(pictures):
        path = tmp_path / f"p{i}.png"
        picture.save(path)
        rows.append(
            imagecheck.padded(np.frombuffer(imagesim.image_fingerprint(path).descriptor, np.uint8))[
                0
            ]
        )
    return np.array(rows)


def test_pair_similarity_is_the_same_on_either_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _descriptors(tmp_path)
    a = np.repeat(rows, len(rows), axis=0)
    b = np.tile(rows, (len(rows), 1))
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "numpy")
    reference = imagecheck.pair_similarity(a, b)
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "compiled")
    compiled = imagecheck.pair_similarity(a, b)
    assert np.allclose(compiled, reference, atol=1e-6)
    assert len(np.unique(np.round(reference, 3))) > 5  # alike, different and unrelated pairs


def test_auto_uses_the_compiled_check_whenever_it_was_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(imagecheck.ENGINE_VARIABLE, raising=False)
    assert imagecheck._detail_kernel() is jit_engine.load(jit_engine.Kernel.PICTURE_CHECK)
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "numpy")
    assert imagecheck._detail_kernel() is None
