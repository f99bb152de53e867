"""What the comparison panel says of music and video groups: lengths, quality, matched spans,
the same moments in every member, and how Play plays (no Qt)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from media_groups import FILM_S, SONG_S, TRIM_S, music_group, needs_ffmpeg, video_group

from dupfinder.app.keeping import keeper_text
from dupfinder.app.media_preview import (
    CLIP_S,
    Playback,
    Role,
    ffplay_arguments,
    ffplay_beside,
    file_key,
    length_text,
    match_text,
    media_view,
    playback_hint,
    quality_text,
    resolution_text,
)
from dupfinder.core.model import (
    Fingerprint,
    Group,
    KeepReason,
    Kind,
    MatchedSpan,
    MediaFacts,
    Member,
)


def member(
    name: str,
    facts: MediaFacts | None = None,
    span: MatchedSpan | None = None,
    similarity: float = 1.0,
    kind: Kind = Kind.AUDIO,
    content_hash: str | None = None,
) -> Member:
    return Member(
        path=f"/music/{name}",
        size=1000,
        mtime_ns=1,
        distance=0,
        fingerprint=Fingerprint(kind, 1),
        similarity=similarity,
        media=facts,
        span=span,
        content_hash=content_hash,
    )


def test_quality_reads_as_players_show_it() -> None:
    assert quality_text(MediaFacts(221.0, 320_000, "mp3")) == "320 kb/s MP3"
    assert quality_text(MediaFacts(221.0, 900_000, "flac", lossless=True)) == "FLAC, lossless"
    assert quality_text(MediaFacts(60.0, 1_234_000, "h264")) == "1.2 Mb/s H.264"
    assert quality_text(MediaFacts(60.0, None, "pcm_s16le", lossless=True)) == "PCM, lossless"
    assert quality_text(MediaFacts(60.0, 96_000, None)) == "96 kb/s"
    assert quality_text(MediaFacts(60.0, None, "vorbis")) == "Vorbis"
    assert quality_text(None) == "—"


def test_lengths_and_sizes() -> None:
    assert length_text(MediaFacts(221.9)) == "3:41"
    assert length_text(MediaFacts(3723.0)) == "1:02:03"
    assert length_text(MediaFacts()) == "—"
    film = Member("/v/a.mp4", 1, 1, 0, Fingerprint(Kind.VIDEO, 1), width=1920, height=1080)
    assert resolution_text(film) == "1920 × 1080"
    assert resolution_text(member("a.mp3")) == "—"


def test_the_matched_span_says_which_part_of_which_file_matched() -> None:
    kept = member("song.flac", MediaFacts(40.0))
    whole = member("song.mp3", MediaFacts(40.2), MatchedSpan(0, 40, 0, 40), 0.97)
    trimmed = member("song-trimmed.mp3", MediaFacts(32.0), MatchedSpan(0, 32, 8, 40), 0.95)
    longer = member("song-long.mp3", MediaFacts(60.0), MatchedSpan(12, 52, 0, 40), 0.9)
    clip = member("clip.mp3", MediaFacts(30.0), MatchedSpan(5, 20, 13, 28), 0.9)
    assert match_text(whole, kept, True) == "97% alike: the whole file matches the kept file"
    assert match_text(trimmed, kept, True) == (
        "95% alike: all of it matches 0:08–0:40 of 0:40 of the kept file"
    )
    assert match_text(longer, kept, True) == (
        "90% alike: 0:12–0:52 of 1:00 matches all of the kept file"
    )
    assert match_text(clip, kept, True) == (
        "90% alike: 0:05–0:20 of 0:30 matches 0:13–0:28 of 0:40 of the kept file"
    )
    black_start = member("film.avi", MediaFacts(48.0), MatchedSpan(2, 48, 2, 48), 0.99)
    film = member("film.mp4", MediaFacts(48.0))
    assert match_text(black_start, film, True) == (
        "99% alike: 0:02–0:48 of 0:48 matches the same part of the kept file"
    )
    # the spans refer to the group's first file: when another is kept, it is named
    assert match_text(whole, kept, False).endswith("matches “song.flac”")
    same = member("copy.flac", MediaFacts(40.0), content_hash="ab" * 16)
    first = member("song.flac", MediaFacts(40.0), content_hash="ab" * 16)
    assert match_text(same, first, True) == "the same bytes as the kept file"


def test_every_card_shows_the_same_moments_of_the_song() -> None:
    kept = member(
        "song.flac", MediaFacts(40.0, 900_000, "flac", True, "Night", "Lanterns", "Lights")
    )
    mp3 = member(
        "song.mp3",
        MediaFacts(40.0, 320_000, "mp3", False, "Night", "Lanterns", "Lights"),
        MatchedSpan(0, 40, 0, 40),
    )
    trimmed = member(
        "song-edit.mp3",
        MediaFacts(32.0, 128_000, "mp3", False, "Night (edit)", "lanterns", "Lights"),
        MatchedSpan(0, 32, 8, 40),
    )
    group = Group(Kind.AUDIO, (kept, mp3, trimmed), (KeepReason.LOSSLESS,))
    view = media_view(group, kept, trimmed, "Kept as the original: lossless")
    assert [c.role for c in view.cards] == [Role.KEPT, Role.SELECTED, Role.OTHER]
    assert [c.name for c in view.cards] == ["song.flac", "song-edit.mp3", "song.mp3"]
    assert [c.quality for c in view.cards] == ["FLAC, lossless", "128 kb/s MP3", "320 kb/s MP3"]
    # a title that differs from the kept file's is stressed; case alone is no difference
    assert view.cards[1].differs == {"title"}
    assert view.cards[2].differs == frozenset()
    # the selected copy lacks the first 8 s: the frames of the kept file are taken in its
    # matched part (8..40 s), the copy's 8 s earlier
    kept_times, edit_times, mp3_times = (c.frame_times for c in view.cards)
    assert kept_times[0] == pytest.approx(8 + 0.1 * 32)
    assert [k - e for k, e in zip(kept_times, edit_times, strict=True)] == pytest.approx([8] * 5)
    assert mp3_times == pytest.approx(kept_times)
    assert view.cards[0].play_from_s - view.cards[1].play_from_s == pytest.approx(8)
    assert view.cards[0].matched == (8, 40)
    assert view.cards[1].matched == (0, 32)
    # on the shared timeline the cut copy starts 8 s in, under the moment it matches
    assert [c.offset_s for c in view.cards] == [0, 8, 0]
    assert view.timeline == (0, 40)
    assert view.keeper_reason == "Kept as the original: lossless"


def test_play_never_runs_past_the_end_and_a_text_group_is_refused() -> None:
    kept = member("short.flac", MediaFacts(6.0))
    copy = member("short.mp3", MediaFacts(6.0), MatchedSpan(0, 6, 0, 6))
    view = media_view(Group(Kind.AUDIO, (kept, copy)), kept, copy, "")
    assert all(0 <= c.play_from_s <= 6.0 - CLIP_S for c in view.cards)
    text = Group(Kind.TEXT, (member("a.txt", kind=Kind.TEXT), member("b.txt", kind=Kind.TEXT)))
    with pytest.raises(ValueError, match="not a music or video group"):
        media_view(text, text.members[0], text.members[1], "")


def test_the_music_keep_reasons_have_words() -> None:
    kept = member("song.mp3", MediaFacts(200.0, 320_000, "mp3"))
    copy = member("song-128.mp3", MediaFacts(190.0, 128_000, "mp3"), MatchedSpan(0, 190, 0, 190))
    group = Group(Kind.AUDIO, (kept, copy), (KeepReason.HIGHEST_BITRATE, KeepReason.LONGEST))
    assert keeper_text(group, kept, None) == "Kept as the original: highest bitrate, longest"


def _program(folder: Path, name: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_ffplay_is_used_only_beside_ffmpeg(tmp_path: Path) -> None:
    ffmpeg = _program(tmp_path, "ffmpeg")
    assert ffplay_beside(ffmpeg) is None
    ffplay = _program(tmp_path, "ffplay")
    assert ffplay_beside(ffmpeg) == ffplay
    assert ffplay_beside(None) is None
    arguments = ffplay_arguments("/music/-odd:name.mp3", 61.5)
    assert arguments[:2] == ["-nodisp", "-autoexit"]
    assert arguments[arguments.index("-ss") + 1] == "61.50"
    assert arguments[arguments.index("-t") + 1] == f"{CLIP_S:g}"
    assert arguments[-1] == "file:/music/-odd:name.mp3"  # never read as an option or a URL
    assert "ffplay" in playback_hint(Playback.FFPLAY)
    assert "system's player" in playback_hint(Playback.SYSTEM_PLAYER)
    assert playback_hint(Playback.NONE) == ""


def test_a_file_key_changes_when_the_file_does() -> None:
    a = member("a.mp3")
    changed = Member(a.path, a.size + 1, a.mtime_ns, 0, a.fingerprint)
    assert file_key(a, "waveform") == file_key(member("a.mp3"), "waveform")
    assert file_key(a, "waveform") != file_key(changed, "waveform")
    assert file_key(a, "waveform") != file_key(a, "frames")


@needs_ffmpeg
def test_real_encodings_read_as_a_person_compares_them() -> None:
    songs = music_group()
    view = media_view(songs, songs.members[0], songs.members[2], "Kept: lossless")
    kept, selected, other = view.cards
    assert (kept.quality, selected.quality, other.quality) == (
        "FLAC, lossless",
        "128 kb/s MP3",
        "320 kb/s MP3",
    )
    assert kept.length == "0:12"
    assert selected.length == "0:08"
    assert (kept.title, kept.artist, kept.album) == (
        "Night Train",
        "The Lanterns",
        "Harbour Lights",
    )
    assert selected.differs == {"title"}
    assert selected.match.endswith(
        f"all of it matches 0:0{TRIM_S:g}–0:{SONG_S:g} of 0:12 of the kept file"
    )
    films = video_group()
    film, small = media_view(films, films.members[0], films.members[1], "").cards
    assert (film.resolution, small.resolution) == ("320 × 240", "160 × 120")
    assert film.quality.endswith("H.264")
    assert small.quality.endswith("MPEG-4")
    assert film.length == small.length == f"0:{FILM_S:02.0f}"
    assert small.frame_times == pytest.approx(film.frame_times)
    assert os.path.basename(small.member.path) == small.name == "film-small.avi"


def test_a_longer_version_puts_the_first_file_later_on_the_timeline() -> None:
    kept = member("song.flac", MediaFacts(40.0))
    longer = member("song-live.mp3", MediaFacts(60.0), MatchedSpan(12, 52, 0, 40), 0.999)
    view = media_view(Group(Kind.AUDIO, (kept, longer)), kept, longer, "")
    assert [c.offset_s for c in view.cards] == [0, -12]
    assert view.timeline == (-12, 48)
    # an estimate of 0.999 never reads as the same file
    assert view.cards[1].match.startswith("99% alike")
