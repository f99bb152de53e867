"""One picture's copies left in two stars, joined again (``grouping.rejoin``)."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import numpy as np
from checked_outcomes import THRESHOLD, Outcomes, random_checks
from hypothesis import settings
from PIL import Image, ImageDraw

from dupfinder.core.fingerprints.columns import OutcomeColumns
from dupfinder.core.grouping import groups
from dupfinder.core.grouping.parting import Parting
from dupfinder.core.grouping.rejoin import MARGIN, rejoined
from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.model import EditCode


class _Pictures(Outcomes):
    """Checked pairs (what the index proposed) and what the check says of any other pair
    when it is asked now (``compare``, over rows of one node each)."""

    def __init__(
        self, checked: dict[tuple[int, int], float], unchecked: dict[tuple[int, int], float]
    ) -> None:
        super().__init__(checked)
        self.hidden = {(min(a, b), max(a, b)): s for (a, b), s in unchecked.items()}
        self.asked: list[tuple[int, int]] = []

    def compare(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = []
        for x, y in zip(a.tolist(), b.tolist(), strict=True):
            key = (min(x, y), max(x, y))
            assert key not in self.similarities  # a checked pair is never checked again
            self.asked.append(key)
            out.append(self.hidden.get(key, 0.0))
        return np.array(out, dtype=np.float64)


def _whole(group: tuple[int, ...]) -> bool:
    return True


def _colours_alike(a: int, b: int) -> bool:
    return False


def _rejoined(
    pictures: _Pictures,
    groups: list[tuple[int, ...]],
    n: int,
    whole: object = _whole,
    colours_apart: object = _colours_alike,
) -> list[tuple[int, ...]]:
    passed, similarities = pictures.passed_with_similarities()
    return rejoined(
        groups,
        np.arange(n),
        passed,
        similarities,
        pictures.similarity_of,
        pictures.compare,
        THRESHOLD,
        list(range(n)),
        whole,  # type: ignore[arg-type]
        colours_apart,  # type: ignore[arg-type]
    )


def _split_family(own: float = 0.95, other: float = 0.95) -> _Pictures:
    """Rows 0-5: the star of the original (row 0) and five copies; rows 6-9: four more copies
    in a second star round row 6, each ``own`` like row 6 and ``other`` like row 0. Only
    the copies' pairs with row 6 and the two representatives' pair were checked."""
    checked = {(a, b): 0.97 for a, b in itertools.combinations(range(6), 2)}
    checked[(0, 6)] = 0.96
    checked.update({(6, b): own for b in range(7, 10)})
    unchecked = {(0, b): other for b in range(7, 10)}
    return _Pictures(checked, unchecked)


def test_one_pictures_copies_in_two_stars_are_joined_round_the_kept_one() -> None:
    pictures = _split_family()
    joined = _rejoined(pictures, [tuple(range(6)), (6, 7, 8, 9)], 10)
    assert joined == [tuple(range(10))]
    assert sorted(pictures.asked) == [(0, 7), (0, 8), (0, 9)]  # checked now, once each


def test_a_copy_that_fails_against_the_kept_one_keeps_the_stars_apart() -> None:
    pictures = _split_family()
    pictures.hidden[(0, 8)] = THRESHOLD - 0.01
    groups = [tuple(range(6)), (6, 7, 8, 9)]
    assert _rejoined(pictures, groups, 10) == groups


def test_a_look_alikes_copies_stay_round_it() -> None:
    """Copies more like their own representative than like the other (by more than
    ``MARGIN``) are a look-alike's: they pass against both drawings, and stay apart."""
    pictures = _split_family(own=0.97, other=0.97 - MARGIN - 0.01)
    groups = [tuple(range(6)), (6, 7, 8, 9)]
    assert _rejoined(pictures, groups, 10) == groups


def test_a_union_the_parting_steps_would_cut_is_not_made() -> None:
    pictures = _split_family()
    groups = [tuple(range(6)), (6, 7, 8, 9)]
    asked: list[tuple[int, ...]] = []

    def whole(group: tuple[int, ...]) -> bool:
        asked.append(group)
        return False

    assert _rejoined(pictures, groups, 10, whole) == groups
    assert asked == [tuple(range(10))]


def test_two_colourings_stay_apart() -> None:
    """A grey terminal icon and a purple one, a green and a blue one in one theme's muted
    colours: the check passes them as it passes a copy made grey or tinted, so groups whose
    representatives differ in their colours are not joined."""
    pictures = _split_family()
    groups = [tuple(range(6)), (6, 7, 8, 9)]
    asked: list[tuple[int, int]] = []

    def colours_apart(a: int, b: int) -> bool:
        asked.append((a, b))
        return True

    assert _rejoined(pictures, groups, 10, colours_apart=colours_apart) == groups
    assert asked == [(0, 6)]


def test_the_other_representative_keeps_the_union_when_only_it_is_passed() -> None:
    """Row 0 is the better keeper, but row 6's members fail against it while row 0's pass
    against row 6: the union is made round row 6."""
    pictures = _split_family(other=0.5)
    pictures.hidden.update({(b, 6): 0.96 for b in range(1, 6)})
    joined = _rejoined(pictures, [tuple(range(6)), (6, 7, 8, 9)], 10)
    assert joined == [(6, 0, 1, 2, 3, 4, 5, 7, 8, 9)]


def test_the_parting_steps_refuse_two_families_that_fail_across() -> None:
    """Each copy passes against both representatives, but every checked pair across the
    two families failed: ``split`` would part the union again."""
    similarities = {
        (a, b): 0.95 if (a < 6) == (b < 6) else 0.3 for a, b in itertools.combinations(range(12), 2)
    }
    similarities.update({(0, b): 0.95 for b in range(6, 12)})
    similarities.update({(6, b): 0.95 for b in range(6)})
    pictures = _Pictures(similarities, {})
    parting = Parting(
        np.arange(12),
        pictures.similarity_of,
        THRESHOLD,
        list(range(12)),
        lambda nodes: np.ones(len(nodes), dtype=bool),
        lambda a, b: frozenset({EditCode.MARKED}),
    )
    assert not parting.whole(tuple(range(12)))
    groups = [tuple(range(6)), tuple(range(6, 12))]
    assert _rejoined(pictures, groups, 12, parting.whole) == groups


@settings(max_examples=80, deadline=None)
@random_checks(least_score=0.8)
def test_joining_keeps_groups_whole_and_stars(
    n: int, values: list[float], proposed: list[bool]
) -> None:
    """Whatever the checks say: every group before lies whole inside one group after, no row
    is in two, and every member that joined passed against its new representative (checked
    before or now)."""
    every = list(itertools.combinations(range(n), 2))
    checked = {p: v for p, v, asked in zip(every, values, proposed, strict=False) if asked}
    unchecked = {p: v for p, v, asked in zip(every, values, proposed, strict=False) if not asked}
    pictures = _Pictures(checked, unchecked)
    cut = max(1, n // 2)
    groups = [g for g in (tuple(range(cut)), tuple(range(cut, n))) if len(g) >= 2]
    joined = _rejoined(pictures, groups, n)
    after = {row: i for i, group in enumerate(joined) for row in group}
    assert sum(len(g) for g in joined) == len(after)
    for group in groups:
        assert len({after[row] for row in group}) == 1
    before = {row: group for group in groups for row in group}
    for group in joined:
        for member in group[1:]:
            if member in before[group[0]]:
                continue  # the centre's own star, as it was
            key = (min(group[0], member), max(group[0], member))
            assert {**checked, **unchecked}[key] >= THRESHOLD


def _terminal(tmp_path: Path, name: str, colour: tuple[int, int, int], mode: str = "RGBA") -> Path:
    """A rounded square of one colour with a prompt on it, as a theme draws a terminal."""
    im = Image.new("RGBA", (96, 96), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.rounded_rectangle((6, 6, 90, 90), 14, fill=(*colour, 255))
    draw.text((18, 20), "$_", fill=(255, 255, 255, 255), font_size=40)
    path = tmp_path / name
    im.convert(mode).save(path)
    return path


def test_a_grey_or_other_coloured_drawing_is_colours_apart(tmp_path: Path) -> None:
    paths = [
        _terminal(tmp_path, "purple.png", (120, 50, 140)),
        _terminal(tmp_path, "grey.png", (120, 50, 140), mode="LA"),
        _terminal(tmp_path, "brighter.png", (150, 62, 175)),
    ]
    found = [imagesim.image_fingerprint(path) for path in paths]
    rows = np.stack([imagecheck.padded(np.frombuffer(f.descriptor, np.uint8))[0] for f in found])
    sizes = SimpleNamespace(
        widths=np.array([f.width for f in found]), heights=np.array([f.height for f in found])
    )
    outcomes = cast(OutcomeColumns, sizes)  # the two columns _differences reads
    parting = Parting(
        np.arange(3),
        Outcomes({}).similarity_of,
        THRESHOLD,
        list(range(3)),
        lambda nodes: np.ones(len(nodes), dtype=bool),
        functools.partial(groups._differences, lambda local: rows[local], outcomes, np.arange(3)),
    )
    assert parting.colours_apart(0, 1)
    assert not parting.colours_apart(0, 2)
