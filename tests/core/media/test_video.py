"""The same video re-encoded, resized, cropped, letterboxed, trimmed or clipped is found, with
the span it shares; two different videos with the same intro and black frames are not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from media_samples import (
    FILM_CLIP_S,
    FILM_CLIP_START_S,
    FILM_EDITS,
    films,
    make,
    match,
    meets_in_index,
    needs_ffmpeg,
)
from PIL import Image

from dupfinder.core.errors import CorruptFile, TooLittleContent
from dupfinder.core.media import video

pytestmark = needs_ffmpeg


@pytest.fixture(scope="module")
def prints() -> dict[str, video.VideoPrint]:
    return {name: video.video_print(str(path)) for name, path in films().items()}


def _meets_in_index(a: video.VideoPrint, b: video.VideoPrint) -> bool:
    return meets_in_index(a, b, video.INDEX_RADIUS)


@pytest.mark.parametrize("edit", sorted(FILM_EDITS))
def test_an_edited_copy_is_the_same_video(prints: dict[str, video.VideoPrint], edit: str) -> None:
    original, copy = prints["film"], prints[edit]
    assert _meets_in_index(original, copy)
    assert match(video.compare, original, copy).similarity >= video.MIN_SIMILARITY
    assert match(video.compare, copy, original).similarity >= video.MIN_SIMILARITY


def test_a_trimmed_copy_matches_from_where_it_starts(prints: dict[str, video.VideoPrint]) -> None:
    found = match(video.compare, prints["film"], prints["trimmed.mp4"])
    assert found.a_start_s - found.b_start_s == pytest.approx(8.0, abs=1.0)
    assert found.a_end_s == pytest.approx(prints["film"].duration_s, abs=1.5)


def test_a_clip_is_found_at_its_place(prints: dict[str, video.VideoPrint]) -> None:
    film, clip = prints["film"], prints["clip.mp4"]
    assert _meets_in_index(film, clip)
    found = match(video.compare, clip, film)
    assert found.similarity >= video.MIN_SIMILARITY
    assert found.b_start_s - found.a_start_s == pytest.approx(FILM_CLIP_START_S, abs=1.0)
    assert found.b_start_s >= FILM_CLIP_START_S - 1.0
    assert found.b_end_s <= FILM_CLIP_START_S + FILM_CLIP_S + 1.0
    coverage = found.coverage(clip.duration_s, film.duration_s)
    assert coverage[0] > 0.6
    assert coverage[1] < 0.5


def test_a_shared_intro_and_black_frames_do_not_make_a_duplicate(
    prints: dict[str, video.VideoPrint],
) -> None:
    found = video.compare(prints["film"].sequence, prints["other"].sequence)
    assert found is None or found.similarity < video.MIN_SIMILARITY
    # the index proposes them (their intros agree): the check is what keeps them apart
    assert _meets_in_index(prints["film"], prints["other"])


def test_the_print_describes_the_video(prints: dict[str, video.VideoPrint]) -> None:
    film = prints["film"]
    assert (film.width, film.height) == (192, 144)
    assert film.duration_s == pytest.approx(48.0, abs=0.5)
    assert (prints["smaller.mp4"].width, prints["smaller.mp4"].height) == (128, 96)
    assert video.compare(b"DFVS", film.sequence) is None
    assert video.compare(film.sequence[:-1], film.sequence) is None


def test_frames_at_shows_the_times_asked(tmp_path: Path) -> None:
    pictures = video.frames_at(str(films()["film"]), [0.5, 10.0, 999.0], size=64)
    assert len(pictures) == 3
    for picture in pictures:
        assert isinstance(picture, Image.Image)
        assert max(picture.size) == 64
    assert _brightest(pictures[0]) < 40  # the film opens on black
    assert _brightest(pictures[1]) > 100


def _brightest(picture: Image.Image) -> int:
    return int(np.asarray(picture.convert("L")).max())


def test_blank_and_damaged_videos_are_reported(tmp_path: Path) -> None:
    black = tmp_path / "black.mp4"
    make("-f", "lavfi", "-i", "color=c=black:s=160x120:d=20", "-pix_fmt", "yuv420p", str(black))
    with pytest.raises(TooLittleContent):
        video.video_print(str(black))
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(films()["film"].read_bytes()[:3000])
    with pytest.raises(CorruptFile):
        video.video_print(str(cut))
    song = tmp_path / "song.mp3"
    make("-f", "lavfi", "-i", "sine=d=3", str(song))
    with pytest.raises(TooLittleContent):
        video.video_print(str(song))
