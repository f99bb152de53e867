"""The compiled picture check gives what the numpy reference gives, on real pictures and their
edits and on random thumbnails; AUTO uses it whenever it was built."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageEnhance
from test_perceptual import icon, photo

from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.jit import engine as jit_engine

pytestmark = pytest.mark.skipif(
    jit_engine.load(jit_engine.Kernel.PICTURE_CHECK) is None, reason="the extension was not built"
)


def _descriptors(tmp_path: Path) -> np.ndarray:
    pictures: list[Image.Image] = [icon(), icon(48), icon(20), photo(2), photo(3, (200, 130))]
    pictures.append(icon().resize((100, 100)))
    pictures.append(icon().rotate(3))
    pictures.append(photo(2).crop((20, 10, 470, 300)))
    pictures.append(ImageEnhance.Brightness(photo(2)).enhance(1.3))
    pictures.append(photo(2).convert("L"))
    pictures.append(icon().crop((8, 0, 64, 60)))
    pictures += [_toned(icon(), 0.7), _toned(icon(), 1.3), _toned(icon().convert("LA"), 0.8)]
    pictures.append(icon().convert("LA"))
    rows = []
    for i, picture in enumerate(pictures):
        path = tmp_path / f"p{i}.png"
        picture.save(path)
        rows.append(np.frombuffer(imagesim.image_fingerprint(path).descriptor, np.uint8))
    return np.array(rows)


def _toned(picture: Image.Image, factor: float) -> Image.Image:
    """``picture``'s colours brightened or darkened by ``factor``, its opacity kept (the tone
    fit by colour under opacity)."""
    bands = picture.split()
    colours = Image.merge("RGB", bands[:3]) if len(bands) == 4 else bands[0]
    out = ImageEnhance.Brightness(colours).enhance(factor).convert(picture.mode[:-1] + "A")
    out.putalpha(bands[-1])
    return out


def _both_engines(
    a: np.ndarray, b: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> tuple[np.ndarray, np.ndarray]:
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "numpy")
    reference = imagecheck.pair_similarity(a, b)
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "compiled")
    return reference, imagecheck.pair_similarity(a, b)


def test_pair_similarity_is_the_same_on_either_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _descriptors(tmp_path)
    a = np.repeat(rows, len(rows), axis=0)
    b = np.tile(rows, (len(rows), 1))
    reference, compiled = _both_engines(a, b, monkeypatch)
    assert np.allclose(compiled, reference, atol=1e-6)
    assert len(np.unique(np.round(reference, 3))) > 5  # alike, different and unrelated pairs


def test_random_thumbnails_give_the_same_on_either_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(11)
    n = 60
    a = rng.integers(0, 256, (n, imagecheck.DESCRIPTOR_BYTES), dtype=np.uint8)
    b = np.clip(a.astype(int) + rng.integers(-20, 20, a.shape), 0, 255).astype(np.uint8)
    for rows in (a, b):  # headers: every flag, sides from 1 to 255
        rows[:, 0] = rng.integers(0, 8, n)
        rows[:, 3] = rng.integers(1, 256, n)
    b[:5] = 0  # missing descriptors
    reference, compiled = _both_engines(a, b, monkeypatch)
    assert np.allclose(compiled, reference, atol=1e-6)
    assert np.all(compiled[:5] == 0.0)


def test_auto_uses_the_compiled_check_whenever_it_was_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(imagecheck.ENGINE_VARIABLE, raising=False)
    assert imagecheck._kernel() is jit_engine.load(jit_engine.Kernel.PICTURE_CHECK)
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "numpy")
    assert imagecheck._kernel() is None


def test_every_field_of_a_comparison_is_the_same_on_either_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _descriptors(tmp_path)
    _every_field_alike(np.repeat(rows, len(rows), axis=0), np.tile(rows, (len(rows), 1)),
                       monkeypatch)  # fmt: skip


def _every_field_alike(
    a: np.ndarray, b: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> imagecheck.Comparison:
    """Both engines' comparisons of the pairs of rows ``a`` and ``b``, held equal field by
    field; the reference's returned."""
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "numpy")
    reference = imagecheck.compare(a, b)
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "compiled")
    compiled = imagecheck.compare(a, b)
    for name in imagecheck.Comparison.__slots__:
        assert np.allclose(getattr(compiled, name), getattr(reference, name), atol=1e-6), name
    return reference


def test_the_tone_of_each_side_and_the_edits_named_are_the_same_on_either_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The naming's tones (over the drawing of a transparent pair, the spreads of a crop)
    compiled and on numpy, from one comparison: the same figures and the same edits."""
    rows = _descriptors(tmp_path)
    a = np.repeat(rows, len(rows), axis=0)
    b = np.tile(rows, (len(rows), 1))
    found = imagecheck.compare(a, b)
    transparent = ((a[:, 0] | b[:, 0]) & 2) > 0
    moved = ~transparent & ((found.scale_x < 1.0) | (found.scale_y < 1.0))
    assert transparent.sum() > 20  # both kinds of pair are told
    assert moved.sum() > 5
    compiled = np.array(imagecheck._tones(found, a, b))
    reference = np.array(imagecheck._numpy_tones(found, a, b))
    assert np.allclose(compiled, reference, rtol=1e-9, atol=1e-9)
    sizes = [(64, 64)] * len(a)
    named = imagecheck.edits_of(found, a, b, sizes, sizes)
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "numpy")
    assert imagecheck.edits_of(found, a, b, sizes, sizes) == named
    assert sum(1 for edits in named if edits) > 20


OXYGEN = Path("/usr/share/icons/oxygen/base")


def test_icons_drawn_at_two_sizes_give_every_field_alike_on_either_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pairs whose soft edges are left out (a theme's drawings of one icon at two sizes, and of
    look-alikes), the layout with them counted too."""
    names = ["places/folder-green.png", "emotes/face-smile.png", "emotes/face-wink.png",
             "apps/ark.png", "devices/drive-harddisk.png"]  # fmt: skip
    sizes = ["22x22", "32x32", "48x48", "64x64", "128x128", "256x256"]
    paths = [OXYGEN / size / name for size in sizes for name in names]
    paths = [path for path in paths if path.is_file()]
    if len(paths) < 10:
        pytest.skip(f"{OXYGEN} is not installed")
    rows = np.array(
        [np.frombuffer(imagesim.image_fingerprint(p).descriptor, np.uint8) for p in paths]
    )
    a = np.repeat(rows, len(rows), axis=0)
    b = np.tile(rows, (len(rows), 1))
    reference = _every_field_alike(a, b, monkeypatch)
    assert (reference.layout > reference.whole_layout + 1e-6).sum() > 20  # edges left out
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "numpy")
    numpy_similarity = imagecheck.pair_similarity(a, b, below=0.85)
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "compiled")
    assert np.allclose(imagecheck.pair_similarity(a, b, below=0.85), numpy_similarity, atol=1e-6)


@pytest.mark.parametrize("below", [0.5, 0.85, 0.95])
def test_a_pair_that_cannot_pass_stops_early_alike_on_either_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, below: float
) -> None:
    """Stopped pairs answer an upper bound of their similarity under the threshold; every
    other pair its exact similarity; both engines stop the same pairs."""
    rows = _descriptors(tmp_path)
    a = np.repeat(rows, len(rows), axis=0)
    b = np.tile(rows, (len(rows), 1))
    exact = imagecheck.pair_similarity(a, b)
    answers = {}
    for engine in ("numpy", "compiled"):
        monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, engine)
        answers[engine] = imagecheck.pair_similarity(a, b, below)
    reference, compiled = answers["numpy"], answers["compiled"]
    stopped = imagecheck.stopped_early(compiled)
    assert np.array_equal(stopped, imagecheck.stopped_early(reference))
    assert np.allclose(compiled, reference, atol=1e-6)
    assert 0 < stopped.sum() < len(stopped)
    bound = compiled[stopped] - imagecheck.STOPPED
    assert np.all(bound >= exact[stopped] - 1e-9)
    assert np.all(bound < below)
    assert np.array_equal(compiled[~stopped], exact[~stopped])
    passed = np.where(stopped, 0.0, compiled) >= below
    assert np.array_equal(passed, exact >= below)


def _badge(colour: tuple[int, int, int]) -> Image.Image:
    """A drawing in one strong hue: a disc with a white bar, on a transparent ground."""
    picture = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    draw = ImageDraw.Draw(picture)
    draw.ellipse((4, 4, 59, 59), fill=(*colour, 255))
    draw.rectangle((26, 14, 37, 49), fill=(255, 255, 255, 255))
    return picture


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_two_drawings_of_other_hues_stop_before_they_are_aligned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    """A red badge and its green twin agree in layout; their hues alone fail them, and the
    check answers that figure (a bound) without aligning them. The red badge's darker copy
    is not stopped."""
    rows = []
    for name, colour in (("red", (200, 30, 30)), ("green", (30, 170, 40))):
        _badge(colour).save(tmp_path / f"{name}.png")
        rows.append(imagesim.image_fingerprint(tmp_path / f"{name}.png").descriptor)
    _toned(_badge((200, 30, 30)), 0.8).save(tmp_path / "darker.png")
    rows.append(imagesim.image_fingerprint(tmp_path / "darker.png").descriptor)
    a = np.array([np.frombuffer(rows[0], np.uint8)] * 2)
    b = np.array([np.frombuffer(rows[1], np.uint8), np.frombuffer(rows[2], np.uint8)])
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, engine)
    found = imagecheck.compare(a, b)
    assert found.layout[0] >= 0.85 > found.colour[0]
    answers = imagecheck.pair_similarity(a, b, below=0.85)
    assert imagecheck.stopped_early(answers).tolist() == [True, False]
    assert answers[0] - imagecheck.STOPPED == pytest.approx(max(found.colour[0], 0.0))
    assert answers[1] == pytest.approx(found.similarity[1])
    assert answers[1] >= 0.85


@pytest.mark.parametrize("below", [None, 0.85])
def test_pairs_of_a_table_are_measured_as_the_same_pairs_laid_side_by_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, below: float | None
) -> None:
    """Each picture's own share worked out once for all its pairs gives the very numbers of
    the pairs checked one by one, on either engine."""
    rows = _descriptors(tmp_path)
    rng = np.random.default_rng(7)
    first = rng.integers(0, len(rows), 300)
    second = rng.integers(0, len(rows), 300)
    for engine in ("compiled", "numpy"):
        monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, engine)
        one_by_one = imagecheck.pair_similarity(rows[first], rows[second], below)
        of_table = imagecheck.pair_similarity_of(rows, first, second, below)
        assert np.array_equal(of_table, one_by_one)
    assert imagecheck.stopped_early(of_table).any() == (below is not None)
    monkeypatch.setenv(imagecheck.ENGINE_VARIABLE, "compiled")
    with pytest.raises(ValueError, match="row the table does not hold"):
        imagecheck.pair_similarity_of(rows, [0], [len(rows)])


def test_the_turned_forms_stop_early_without_changing_what_passes(tmp_path: Path) -> None:
    rows = _descriptors(tmp_path)
    a = np.repeat(rows, len(rows), axis=0)
    b = np.tile(rows, (len(rows), 1))
    exact = imagecheck.invariant_pair_similarity(a, b)
    answers = imagecheck.invariant_pair_similarity(a, b, 0.85)
    stopped = imagecheck.stopped_early(answers)
    assert 0 < stopped.sum() < len(stopped)
    assert np.all(answers[stopped] - imagecheck.STOPPED >= exact[stopped] - 1e-9)
    assert np.array_equal(answers[~stopped], exact[~stopped])
    assert np.array_equal(np.where(stopped, 0.0, answers) >= 0.85, exact >= 0.85)


def test_the_kernel_refuses_more_alignments_than_it_holds() -> None:
    """The kernel keeps one pass's alignments on its stack: more than it holds is refused,
    never read past."""
    kernel = jit_engine.load(jit_engine.Kernel.PICTURE_CHECK)
    assert kernel is not None
    scales, offsets, edges, weights, constants = imagecheck._kernel_arguments()
    rows = np.zeros((1, imagecheck.DESCRIPTOR_BYTES), np.uint8)
    many = np.ones(129)
    with pytest.raises(ValueError, match="alignments"):
        kernel.similarities(rows, rows, many, many * 0, edges, weights, constants)
    with pytest.raises(ValueError, match="alignments"):
        kernel.similarities(rows, rows, scales, offsets, many, weights, constants)
    assert kernel.similarities(rows, rows, scales, offsets, edges, weights, constants).shape == (1,)
