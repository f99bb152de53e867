"""Music and videos in a scan: one song across encodings, one video across re-encodes, each
kept at its best copy; different ones apart; damaged files and a missing FFmpeg reported."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from media_files import encoded, needs_ffmpeg, song, video

from dupfinder.core.grouping.media_check import media_check
from dupfinder.core.media import audio, tools
from dupfinder.core.model import KeepReason, Kind, ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan

pytestmark = needs_ffmpeg


@pytest.fixture(scope="module")
def music(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A song as FLAC, MP3 and Ogg Vorbis, and another song as FLAC."""
    root = tmp_path_factory.mktemp("music")
    original = song(root / "tune.flac", 1)
    encoded(original, root / "tune.mp3", "-b:a", "192k")
    encoded(original, root / "tune.ogg", "-c:a", "libvorbis", "-q:a", "4")
    song(root / "other tune.flac", 2)
    return root


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A video, its re-encode at a smaller size in another container, another video."""
    root = tmp_path_factory.mktemp("films")
    original = video(root / "holiday.mp4", 1, size="480x360")
    encoded(original, root / "holiday-phone.mkv", "-vf", "scale=320:240", "-crf", "26", "-g", "20")
    video(root / "party.mp4", 2, size="480x360")
    return root


def _scan(root: Path, kind: Kind, **options: object) -> ScanResult:
    return scan.run(
        ScanOptions(roots=(root,), kinds=frozenset({kind}), use_cache=False, jobs=1, **options)  # type: ignore[arg-type]
    )


def _names(result: ScanResult) -> list[list[str]]:
    return [[Path(m.path).name for m in g.members] for g in result.groups]


def test_one_song_in_three_encodings_is_one_group_kept_as_flac(music: Path) -> None:
    result = _scan(music, Kind.AUDIO)
    assert result.errors == ()
    assert result.notices == ()
    (group,) = result.groups  # the other song joins nothing
    assert group.kind is Kind.AUDIO
    assert sorted(_names(result)[0]) == ["tune.flac", "tune.mp3", "tune.ogg"]
    keeper, *others = group.members
    assert Path(keeper.path).name == "tune.flac"
    assert group.reasons[0] is KeepReason.LOSSLESS
    assert keeper.media is not None
    assert keeper.media.lossless
    assert keeper.media.codec == "flac"
    assert keeper.media.duration_s == pytest.approx(20, abs=0.2)
    for member in others:
        assert member.media is not None
        assert not member.media.lossless
        assert member.span is not None  # the whole song matched the whole keeper
        assert member.span.end_s - member.span.start_s > 15
        assert member.span.keeper_end_s - member.span.keeper_start_s > 15
        assert member.similarity >= audio.MIN_SIMILARITY


def test_a_lossless_clip_is_not_kept_over_the_whole_song(music: Path, tmp_path: Path) -> None:
    shutil.copy(music / "tune.mp3", tmp_path / "tune.mp3")
    encoded(music / "tune.flac", tmp_path / "tune clip.flac", "-ss", "4", "-t", "10")
    result = _scan(tmp_path, Kind.AUDIO)
    (group,) = result.groups
    keeper, clip = group.members
    assert Path(keeper.path).name == "tune.mp3"
    assert group.reasons[0] is KeepReason.LONGEST
    assert clip.span is not None
    assert clip.span.keeper_start_s == pytest.approx(4, abs=1.5)


def test_the_scan_similarity_overrides_the_kind_default() -> None:
    assert media_check(Kind.AUDIO, ScanOptions(roots=())).threshold == audio.MIN_SIMILARITY
    chosen = ScanOptions(roots=(), audio_similarity=0.9, video_similarity=0.8)
    assert media_check(Kind.AUDIO, chosen).threshold == 0.9
    assert media_check(Kind.VIDEO, chosen).threshold == 0.8


def test_a_damaged_song_is_reported_and_the_scan_goes_on(music: Path, tmp_path: Path) -> None:
    for name in ("tune.flac", "tune.mp3"):
        shutil.copy(music / name, tmp_path / name)
    (tmp_path / "broken.mp3").write_bytes(b"ID3\x03\x00\x00\x00" + bytes(range(256)) * 40)
    result = _scan(tmp_path, Kind.AUDIO)
    assert [e.path for e in result.errors] == [str(tmp_path / "broken.mp3")]
    assert "Traceback" not in result.errors[0].error
    assert sorted(_names(result)[0]) == ["tune.flac", "tune.mp3"]


def test_without_ffmpeg_media_are_compared_by_bytes_and_the_scan_says_so_once(
    music: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "find_tools", lambda: None)
    shutil.copy(music / "tune.flac", tmp_path / "tune.flac")
    shutil.copy(music / "tune.flac", tmp_path / "tune copy.flac")
    shutil.copy(music / "tune.mp3", tmp_path / "tune.mp3")
    result = scan.run(ScanOptions(roots=(tmp_path,), use_cache=False, jobs=1))
    assert result.notices == (tools.MISSING_TOOLS_HINT,)
    assert result.errors == ()
    (group,) = result.groups
    assert group.identical
    assert group.kind is Kind.OTHER
    assert sorted(_names(result)[0]) == ["tune copy.flac", "tune.flac"]
    assert result.stats.files_bytes_only == 3
    assert result.stats.files_fingerprinted == 0


def test_a_video_and_its_reencode_group_and_the_larger_picture_is_kept(films: Path) -> None:
    result = _scan(films, Kind.VIDEO)
    assert result.errors == ()
    (group,) = result.groups
    assert group.kind is Kind.VIDEO
    assert _names(result) == [["holiday.mp4", "holiday-phone.mkv"]]
    keeper, copy = group.members
    assert (keeper.width, keeper.height) == (480, 360)
    assert (copy.width, copy.height) == (320, 240)
    assert KeepReason.MOST_PIXELS in group.reasons
    assert copy.span is not None
    assert copy.span.end_s - copy.span.start_s > 15


@pytest.fixture
def both(music: Path, films: Path, tmp_path: Path) -> Path:
    for folder in (music, films):
        for path in folder.iterdir():
            shutil.copy(path, tmp_path / path.name)
    return tmp_path


def test_music_never_meets_video_and_all_kinds_find_both(both: Path) -> None:
    result = scan.run(ScanOptions(roots=(both,), use_cache=False, jobs=1))
    assert sorted(g.kind for g in result.groups) == [Kind.AUDIO, Kind.VIDEO]
