"""A re-encode whose keyframes are sparse (x264's default interval, ``-preset ultrafast``:
one keyframe in the whole file, none at the cuts) is still the same video, and still not
another one."""

from __future__ import annotations

import pytest
from media_samples import (
    SHORT_START_S,
    SPARSE_EDITS,
    films,
    keyframes,
    match,
    meets_in_index,
    needs_ffmpeg,
    sparse_films,
)

from dupfinder.core.media import video

pytestmark = needs_ffmpeg


@pytest.fixture(scope="module")
def prints() -> dict[str, video.VideoPrint]:
    paths = {**sparse_films(), "film": films()["film"]}
    return {name: video.video_print(str(path)) for name, path in paths.items()}


def test_a_file_of_one_keyframe_is_printed(prints: dict[str, video.VideoPrint]) -> None:
    files = sparse_films()
    assert keyframes(files["short"]) >= 4
    assert keyframes(files["ultrafast.mp4"]) == 1
    assert prints["ultrafast.mp4"].duration_s == pytest.approx(22.0, abs=0.5)


@pytest.mark.parametrize("edit", sorted(SPARSE_EDITS))
def test_a_sparse_keyframe_re_encode_is_the_same_video(
    prints: dict[str, video.VideoPrint], edit: str
) -> None:
    original, copy = prints["short"], prints[edit]
    assert copy.duration_s == pytest.approx(original.duration_s, abs=0.5)
    assert meets_in_index(original, copy, video.INDEX_RADIUS)
    assert match(video.compare, original, copy).similarity >= video.MIN_SIMILARITY
    assert match(video.compare, copy, original).similarity >= video.MIN_SIMILARITY


def test_a_sparse_re_encode_matches_its_film_where_it_was_cut(
    prints: dict[str, video.VideoPrint],
) -> None:
    found = match(video.compare, prints["ultrafast.mp4"], prints["film"])
    assert found.b_start_s - found.a_start_s == pytest.approx(SHORT_START_S, abs=1.0)


def test_a_sparse_re_encode_of_another_film_stays_apart(
    prints: dict[str, video.VideoPrint],
) -> None:
    for name in ("film", "short", "ultrafast.mp4"):
        found = video.compare(prints["other-ultrafast.mp4"].sequence, prints[name].sequence)
        assert found is None or found.similarity < video.MIN_SIMILARITY
