"""The same song in another encoding, volume, length or rate is found, with the span it shares;
different songs and different sentences of one voice are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from media_samples import (
    CLIP_S,
    CLIP_START_S,
    SONG_EDITS,
    album,
    match,
    meets_in_index,
    needs_ffmpeg,
    songs,
)

from dupfinder.core.errors import CorruptFile, TooLittleContent
from dupfinder.core.media import audio
from dupfinder.core.media.align import quick_agreement

pytestmark = needs_ffmpeg


@pytest.fixture(scope="module")
def prints() -> dict[str, audio.AudioPrint]:
    return {name: audio.audio_print(str(path)) for name, path in songs().items()}


def _meets_in_index(a: audio.AudioPrint, b: audio.AudioPrint) -> bool:
    return meets_in_index(a, b, audio.INDEX_RADIUS)


@pytest.mark.parametrize("edit", sorted(SONG_EDITS))
def test_an_edited_copy_is_the_same_song(prints: dict[str, audio.AudioPrint], edit: str) -> None:
    original, copy = prints["song"], prints[edit]
    assert _meets_in_index(original, copy)
    found = match(audio.compare, original, copy)
    assert found.similarity >= audio.MIN_SIMILARITY
    assert found.overlap_s > 25


def test_a_trimmed_copy_matches_from_where_it_starts(prints: dict[str, audio.AudioPrint]) -> None:
    found = match(audio.compare, prints["song"], prints["trimmed.mp3"])
    assert found.a_start_s == pytest.approx(8.0, abs=0.5)
    assert found.b_start_s == pytest.approx(0.0, abs=0.5)
    coverage = found.coverage(prints["song"].duration_s, prints["trimmed.mp3"].duration_s)
    assert coverage[1] > 0.95
    assert coverage[0] == pytest.approx(32 / 40, abs=0.05)


def test_a_clip_is_found_at_its_place_in_the_song(prints: dict[str, audio.AudioPrint]) -> None:
    song, clip = prints["song"], prints["clip.mp3"]
    assert _meets_in_index(song, clip)
    found = match(audio.compare, clip, song)  # either order
    assert found.similarity >= audio.MIN_SIMILARITY
    assert found.b_start_s == pytest.approx(CLIP_START_S, abs=0.5)
    assert found.b_end_s == pytest.approx(CLIP_START_S + CLIP_S, abs=0.7)
    assert found.a_start_s == pytest.approx(0.0, abs=0.5)


@pytest.mark.parametrize(
    ("one", "two"),
    [("song", "other"), ("song", "another"), ("other", "another"), ("clip.mp3", "other")],
)
def test_different_songs_are_not_the_same(
    prints: dict[str, audio.AudioPrint], one: str, two: str
) -> None:
    found = audio.compare(prints[one].sequence, prints[two].sequence)
    assert found is None or found.similarity < audio.MIN_SIMILARITY / 2


def test_album_mates_are_kept_apart_before_the_full_check_and_their_copies_are_not() -> None:
    """Tracks of one album (same tempo, key and instruments) are not proposed by the index or
    are turned away by the quick look, so the full alignment is not paid for them; each track
    and its MP3 meet in the index, pass the quick look and match."""
    prints = {name: audio.audio_print(str(path)) for name, path in album().items()}

    def quick(one: str, two: str) -> float:
        va, ma, _ = audio.decode(prints[one].sequence)
        vb, mb, _ = audio.decode(prints[two].sequence)
        return quick_agreement(va, ma, vb, mb, bits=audio.QUICK_BITS)

    for one, two in [("track1", "track2"), ("track1", "track2.mp3"), ("track1.mp3", "track2")]:
        proposed = _meets_in_index(prints[one], prints[two])
        assert not proposed or quick(one, two) < audio.QUICK_AGREEMENT
        found = audio.compare(prints[one].sequence, prints[two].sequence)
        assert found is None or found.similarity < audio.MIN_SIMILARITY / 2
    for one, two in [("track1", "track1.mp3"), ("track2", "track2.mp3")]:
        assert _meets_in_index(prints[one], prints[two])
        assert quick(one, two) >= audio.QUICK_AGREEMENT
        assert match(audio.compare, prints[one], prints[two]).similarity >= audio.MIN_SIMILARITY


def test_different_songs_are_turned_away_by_the_quick_look(
    prints: dict[str, audio.AudioPrint],
) -> None:
    for one, two in [("song", "other"), ("song", "another"), ("clip.mp3", "other")]:
        va, ma, _ = audio.decode(prints[one].sequence)
        vb, mb, _ = audio.decode(prints[two].sequence)
        assert quick_agreement(va, ma, vb, mb, bits=audio.QUICK_BITS) < audio.QUICK_AGREEMENT


def test_two_sentences_of_one_voice_are_not_the_same(prints: dict[str, audio.AudioPrint]) -> None:
    if "speech-one" not in prints:
        pytest.skip("espeak-ng is not installed")
    found = audio.compare(prints["speech-one"].sequence, prints["speech-two"].sequence)
    assert found is None or found.similarity < audio.MIN_SIMILARITY / 2
    again = audio.compare(prints["speech-one"].sequence, prints["speech-one"].sequence)
    assert again is not None
    assert again.similarity == pytest.approx(1.0)


def test_a_print_is_stable_and_describes_itself(prints: dict[str, audio.AudioPrint]) -> None:
    again = audio.audio_print(str(songs()["song"]))
    assert again == prints["song"]
    assert prints["song"].duration_s == pytest.approx(40.0, abs=0.1)
    assert audio.compare(b"not a sequence", prints["song"].sequence) is None
    assert audio.compare(prints["song"].sequence[:-3], prints["song"].sequence) is None


def test_silence_and_damage_are_reported(tmp_path: Path) -> None:
    from media_samples import make

    silent = tmp_path / "silence.wav"
    make("-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "20", str(silent))
    with pytest.raises(TooLittleContent):
        audio.audio_print(str(silent))
    broken = tmp_path / "broken.mp3"
    broken.write_bytes(b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\x00" * 5000)
    with pytest.raises((CorruptFile, TooLittleContent)):
        audio.audio_print(str(broken))
