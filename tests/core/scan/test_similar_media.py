"""Files like a song: its other encodings and a clip of it, aligned, with the part that matched."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from media_files import encoded, needs_ffmpeg, song

from dupfinder.cli import EXIT_OK, main
from dupfinder.core.media import tools
from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan.similar import measure, similar

pytestmark = needs_ffmpeg


@pytest.fixture(scope="module")
def music(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("music")
    original = song(root / "tune.flac", 5, 30)
    encoded(original, root / "tune.mp3", "-b:a", "128k")
    encoded(original, root / "tune-clip.mp3", "-ss", "10", "-t", "15", "-b:a", "192k")
    song(root / "other.flac", 6, 30)
    return root


def _options() -> ScanOptions:
    return ScanOptions(roots=(), use_cache=False, jobs=1)


def test_files_like_a_song_are_its_encodings_and_its_clip(music: Path) -> None:
    found = similar(music / "tune.flac", [music], _options())
    assert found.kind is Kind.AUDIO
    assert sorted(Path(m.path).name for m in found.matches) == ["tune-clip.mp3", "tune.mp3"]
    assert found.group is not None
    members = {Path(m.path).name: m for m in found.group.members}
    clip = members["tune-clip.mp3"]
    assert clip.span is not None
    assert clip.span.keeper_start_s == pytest.approx(10, abs=1.5)  # where in the song it lies
    assert clip.span.end_s - clip.span.start_s == pytest.approx(15, abs=2)
    assert members["tune.flac"].media is not None
    assert members["tune.flac"].media.lossless


def test_a_new_keeper_measures_the_others_by_alignment(music: Path) -> None:
    measured = {
        Path(m.path).name: m
        for m in measure(
            str(music / "tune.mp3"),
            [str(music / "tune.flac"), str(music / "other.flac")],
            _options(),
        )
    }
    assert measured["tune.flac"].similarity >= 0.6
    assert measured["other.flac"].similarity < 0.6


def test_dupfinder_similar_names_the_part_that_matched(music: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    args = ["similar", str(music / "tune.flac"), str(music), "--no-cache"]
    assert main(args, out, err) == EXIT_OK, err.getvalue()
    text = out.getvalue()
    assert "(audio):" in text
    assert "tune-clip.mp3  (0:00\u20130:1" in text
    out = io.StringIO()
    assert main([*args, "--format", "json"], out, err) == EXIT_OK
    matches = {Path(m["path"]).name: m for m in json.loads(out.getvalue())["matches"]}
    assert matches["tune-clip.mp3"]["match"]["keeper_start"] == pytest.approx(10, abs=1.5)


def test_without_ffmpeg_files_like_a_song_say_what_to_install(
    music: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "find_tools", lambda: None)
    found = similar(music / "tune.flac", [music], _options())
    assert found.kind is None
    assert found.problem == tools.MISSING_TOOLS_HINT
