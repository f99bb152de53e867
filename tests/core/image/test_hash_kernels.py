"""The compiled picture hashes give the numpy reference's bits exactly: on random working images
(flat parts, ties, extremes, symmetric ones), on real icons and photos, in every form; the
engine variable and a build without the extension behave as for the other kernels."""

from __future__ import annotations

import importlib
import logging
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from dupfinder.core.errors import FileProblem
from dupfinder.core.image import hashes, resample
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.jit import engine as jit_engine
from dupfinder.core.jit.engine import Engine, Kernel

SIDE = imagesim.WORKING_SIZE
ICONS = Path("/usr/share/icons")
#: The project's own sample photos (JPEG and WebP; one damaged), there on every checkout.
PHOTOS = Path(__file__).parents[3] / "resources" / "sample" / "photos"

compiled = pytest.mark.skipif(
    jit_engine.load(Kernel.PICTURE_HASH) is None, reason="the extension was not built"
)


def _forms(pixels: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The working image and its seven mirrored and turned forms, as a fingerprint takes them."""
    moved = [imagesim._ARRAY_TRANSFORMS[op](pixels) for op in imagesim.VARIANT_TRANSFORMS]
    return np.stack([pixels, *moved])


def _reference(forms: npt.NDArray[Any], pixels: npt.NDArray[Any]) -> list[int]:
    return hashes.numpy_pdhashes(forms, pixels)


def _module() -> ModuleType:
    module = jit_engine.load(Kernel.PICTURE_HASH)
    assert module is not None
    return module


def _builds() -> list[ModuleType]:
    """Every build of the kernel this machine runs: the baseline one and, where the CPU has
    AVX2, the AVX2 one (which contracts the DCT's products and sums into FMA)."""
    found = [importlib.import_module(Kernel.PICTURE_HASH.module)]
    if found[0].avx2():
        found.append(importlib.import_module(f"{Kernel.PICTURE_HASH.module}_avx2"))
    return found


def _kernel(forms: npt.NDArray[Any], pixels: npt.NDArray[Any]) -> list[int] | None:
    """The compiled answer itself (None when it left the picture to numpy); every build
    gives the same."""
    answers = [hashes._hasher(build).hashes(forms, pixels) for build in _builds()]
    assert all(answer == answers[0] for answer in answers)
    found: list[int] | None = answers[0]
    return found


@st.composite
def working_images(draw: st.DrawFn) -> npt.NDArray[np.uint8]:
    """Working images of every kind that makes ties: noise, two levels, flat blocks, a few
    levels, gradients, mirror-symmetric pictures, all-black or all-white parts."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["noise", "two", "blocks", "levels", "ramp", "mirror", "flat"]))
    if kind == "noise":
        pixels = rng.integers(0, 256, (SIDE, SIDE))
    elif kind == "two":
        pixels = rng.integers(0, 2, (SIDE, SIDE)) * 255
    elif kind == "blocks":
        cells = draw(st.sampled_from([2, 4, 8, 16]))
        small = rng.integers(0, 256, (cells, cells))
        pixels = np.kron(small, np.ones((SIDE // cells, SIDE // cells), dtype=np.int64))
    elif kind == "levels":
        pixels = rng.choice(np.array([0, 1, 127, 128, 254, 255]), (SIDE, SIDE))
    elif kind == "ramp":
        y, x = np.mgrid[0:SIDE, 0:SIDE]
        pixels = (x * draw(st.integers(0, 4)) + y * draw(st.integers(0, 4))) % 256
    elif kind == "mirror":
        half = rng.integers(0, 256, (SIDE, SIDE // 2))
        pixels = np.concatenate([half, half[:, ::-1]], axis=1)
        if draw(st.booleans()):
            pixels = np.minimum(pixels, pixels[::-1])  # symmetric both ways
    else:
        pixels = np.full((SIDE, SIDE), draw(st.sampled_from([0, 1, 128, 254, 255])))
        if draw(st.booleans()):  # one small mark on a flat picture
            y, x = rng.integers(0, SIDE - 4, 2)
            pixels[y : y + 4, x : x + 4] = 255 - pixels[0, 0]
    return np.asarray(pixels, dtype=np.uint8)


@compiled
@settings(max_examples=400, deadline=None)
@given(working_images(), st.booleans())
def test_random_working_images_hash_alike_on_either_engine(
    pixels: npt.NDArray[np.uint8], as_float: bool
) -> None:
    forms = _forms(pixels)
    if as_float:
        forms, pixels = forms.astype(np.float64), pixels.astype(np.float64)
    reference = _reference(forms, pixels)
    assert _kernel(forms, pixels) == reference
    assert hashes.pdhashes(forms, pixels, Engine.COMPILED) == reference
    assert hashes.pdhashes(forms, pixels, Engine.NUMPY) == reference


@compiled
@settings(max_examples=60, deadline=None)
@given(working_images(), st.integers(0, 8))
def test_any_number_of_forms_in_any_memory_layout(pixels: npt.NDArray[np.uint8], n: int) -> None:
    forms = _forms(pixels)[:n]
    strided = forms.transpose(0, 2, 1).copy().transpose(0, 2, 1)  # same pixels, other strides
    reference = _reference(forms, pixels)
    assert len(reference) == n + len(imagesim.CROP_BOXES)
    assert _kernel(strided, pixels.T.copy().T) == reference


@compiled
@settings(max_examples=60, deadline=None)
@given(st.lists(working_images(), min_size=1, max_size=6), st.lists(st.integers(1, 3), max_size=6))
def test_unrelated_and_flipped_forms_hash_alike(
    pictures: list[npt.NDArray[np.uint8]], flips: list[int]
) -> None:
    """Forms of different pictures, and flips (upside down, mirrored, both) of earlier forms,
    which the kernel takes from the earlier form's grids instead of resizing again."""
    forms = list(pictures)
    for i, flip in enumerate(flips):
        form = forms[i % len(forms)]
        forms.append(form[::-1] if flip == 1 else form[:, ::-1] if flip == 2 else form[::-1, ::-1])
    stacked = np.stack(forms)
    assert _kernel(stacked, pictures[0]) == _reference(stacked, pictures[0])


def _pictures(folder: Path, pattern: str, count: int) -> list[Path]:
    if not folder.is_dir():
        pytest.skip(f"{folder} is not on this machine")
    found = sorted(folder.rglob(pattern))[:count]
    if not found:
        pytest.skip(f"no {pattern} under {folder}")
    return found


def _real_pictures_match(paths: list[Path]) -> int:
    """Compare both engines on each picture's working image; the number compared."""
    compared = 0
    for path in paths:
        try:
            working = imagesim.load_working_image(path)
        except FileProblem:
            continue  # flat icons and the like have no hash at all
        pixels = np.asarray(working.image, dtype=np.uint8)
        forms = _forms(pixels)
        assert _kernel(forms, pixels) == _reference(forms, pixels), path
        compared += 1
    return compared


@compiled
def test_real_icons_hash_alike_on_either_engine() -> None:
    icons = _pictures(ICONS, "*.png", 300)
    assert _real_pictures_match(icons) > len(icons) // 2


@compiled
def test_real_photos_hash_alike_on_either_engine() -> None:
    photos = _pictures(PHOTOS, "*.*", 12)
    assert _real_pictures_match(photos) > len(photos) // 2


@compiled
def test_crop_hashes_alone() -> None:
    rng = np.random.default_rng(5)
    pixels = rng.integers(0, 256, (SIDE, SIDE)).astype(np.uint8)
    found = hashes.pdhashes(pixels[None][:0], pixels, Engine.COMPILED)
    assert tuple(found) == imagesim.crop_hashes(Image.fromarray(pixels, "L"))


@compiled
def test_a_picture_the_kernel_cannot_be_sure_of_is_hashed_by_numpy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A margin wider than any coefficient's distance to its threshold: every picture is left
    to numpy, and the answer is still the reference's."""
    doubtful = _module().Hasher(
        hashes._WHOLE_32,
        hashes._WHOLE_9X8,
        hashes._CROPS_32,
        hashes._CROPS_9X8,
        hashes._DCT8,
        hashes.TIE,
        margin=1.0,
    )
    pixels = np.random.default_rng(9).integers(0, 256, (SIDE, SIDE)).astype(np.uint8)
    forms = _forms(pixels)
    assert doubtful.hashes(forms, pixels) is None
    monkeypatch.setattr(hashes, "_hasher", lambda _module: doubtful)
    assert hashes.pdhashes(forms, pixels, Engine.COMPILED) == _reference(forms, pixels)


@compiled
def test_pillow_resizing_height_first_hashes_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tall pictures, which Pillow resizes height first: the kernel follows each plan's order."""
    shape = (200, 40)
    whole: resample.PixelBox = (0.0, 0.0, float(shape[1]), float(shape[0]))
    part: resample.PixelBox = (3.0, 11.5, 37.0, 190.0)
    plans = {
        "_WHOLE_32": resample.resize_plan(shape, (32, 32), [(whole, resample.LANCZOS)]),
        "_WHOLE_9X8": resample.resize_plan(shape, (9, 8), [(whole, resample.LANCZOS)]),
        "_CROPS_32": resample.resize_plan(shape, (32, 32), [(part, resample.BILINEAR)] * 2),
        "_CROPS_9X8": resample.resize_plan(shape, (9, 8), [(part, resample.BILINEAR)] * 2),
    }
    assert not any(plan.horizontal_first for plan in plans.values())
    for name, plan in plans.items():
        monkeypatch.setattr(hashes, name, plan)
    tall = _module().Hasher(*plans.values(), hashes._DCT8, hashes.TIE)
    rng = np.random.default_rng(3)
    for _ in range(20):
        pixels = rng.integers(0, 256, shape).astype(np.uint8)
        forms = np.stack([pixels, pixels[::-1]])
        assert tall.hashes(forms, pixels) == _reference(forms, pixels)


@compiled
def test_pixels_must_be_grey_levels() -> None:
    for wrong in (100.5, -1.0, 256.0, float("nan")):
        pixels = np.full((SIDE, SIDE), 100.0)
        pixels[3, 4] = wrong
        with pytest.raises(ValueError, match="whole grey levels"):
            hashes.pdhashes(pixels[None], pixels, Engine.COMPILED)
    with pytest.raises(ValueError, match="shape"):
        hashes.pdhashes(pixels[None, :32], pixels, Engine.COMPILED)


@compiled
def test_the_variable_forces_either_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    pixels = np.random.default_rng(2).integers(0, 256, (SIDE, SIDE)).astype(np.uint8)
    calls: list[int] = []

    class Counting:
        def hashes(self, forms: npt.NDArray[Any], pixels: npt.NDArray[Any]) -> None:
            calls.append(len(forms))  # and leaves the answer to numpy

    monkeypatch.setattr(hashes, "_hasher", lambda _module: Counting())
    monkeypatch.setenv(hashes.ENGINE_VARIABLE, "numpy")
    expected = _reference(pixels[None], pixels)
    assert hashes.pdhashes(pixels[None], pixels) == expected
    assert calls == []
    monkeypatch.setenv(hashes.ENGINE_VARIABLE, "compiled")
    assert hashes.pdhashes(pixels[None], pixels) == expected
    assert calls == [1]
    monkeypatch.delenv(hashes.ENGINE_VARIABLE)
    assert hashes.pdhashes(pixels[None], pixels) == expected  # AUTO: the compiled kernel
    assert calls == [1, 1]
    assert hashes.pdhashes(pixels[None], pixels, Engine.NUMPY) == expected  # explicit wins
    assert calls == [1, 1]


def test_without_the_extension_pictures_fall_back_to_numpy_and_say_so_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, Kernel.PICTURE_HASH.module, None)  # import fails
    jit_engine.load.cache_clear()
    pixels = np.random.default_rng(4).integers(0, 256, (SIDE, SIDE)).astype(np.uint8)
    forms = _forms(pixels)
    try:
        with caplog.at_level(logging.WARNING, logger=jit_engine.__name__):
            for _ in range(3):
                assert hashes.pdhashes(forms, pixels) == _reference(forms, pixels)
            with pytest.raises(RuntimeError, match="not built"):
                hashes.pdhashes(forms, pixels, Engine.COMPILED)
        warnings = [r for r in caplog.records if "picture hashes" in r.getMessage()]
        assert len(warnings) == 1
    finally:
        monkeypatch.undo()
        jit_engine.load.cache_clear()
