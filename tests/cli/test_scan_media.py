"""``dupfinder scan`` on music and videos: --kind audio|video, the table, the JSON contract."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from media_files import encoded, needs_ffmpeg, song, video
from scan_helpers import essay, write

from dupfinder.cli import EXIT_OK, main
from dupfinder.core.media import tools
from dupfinder.core.results.report import result_from_dict

pytestmark = needs_ffmpeg


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A song as FLAC and MP3, a video and its copy, and two copies of a document."""
    root = tmp_path_factory.mktemp("library")
    original = song(root / "tune.flac", 4)
    encoded(original, root / "tune.mp3", "-b:a", "160k", "-metadata", "title=Tune")
    film = video(root / "walk.mp4", 1, size="480x360")
    encoded(film, root / "walk.mkv", "-vf", "scale=320:240", "-crf", "26", "-g", "20")
    write(root / "notes.txt", essay(1))
    write(root / "notes copy.txt", essay(1))
    return root


def test_kind_audio_compares_music_only_and_the_table_shows_its_facts(
    library: Path, tmp_path: Path
) -> None:
    code, out, err = _run("scan", str(library), "--kind", "audio", "--cache-dir", str(tmp_path))
    assert code == EXIT_OK, err
    assert out.count("Group ") == 1
    assert "· audio · 2 files ·" in out
    assert "kept (*) as the original: lossless" in out
    assert "flac (lossless)" in out
    assert "160 kb/s · mp3 · matches 0:00\u20130:" in out
    assert "Tune" in out  # the MP3's title tag
    assert "walk" not in out
    assert "notes" not in out


def test_kind_video_and_json_round_trip(library: Path, tmp_path: Path) -> None:
    code, out, err = _run("scan", str(library), "--kind", "video", "--format", "json", "--no-cache")
    assert code == EXIT_OK, err
    data = json.loads(out)
    assert data["version"] == 2
    assert data["notices"] == []
    (group,) = data["groups"]
    assert group["kind"] == "video"
    keeper, copy = group["members"]
    assert keeper["path"].endswith("walk.mp4")
    assert copy["media"]["codec"] == "h264"
    assert (copy["width"], copy["height"]) == (320, 240)
    assert copy["match"]["end"] > copy["match"]["start"]
    assert result_from_dict(data).groups[0].members[1].span is not None


def test_kind_all_finds_every_kind(library: Path) -> None:
    code, out, err = _run("scan", str(library), "--format", "json", "--no-cache")
    assert code == EXIT_OK, err
    kinds = sorted(group["kind"] for group in json.loads(out)["groups"])
    assert kinds == ["audio", "text", "video"]


def test_without_ffmpeg_the_scan_says_so_once_on_stderr(
    library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools, "find_tools", lambda: None)
    code, out, err = _run("scan", str(library), "--format", "json", "--no-cache", "-j", "1")
    assert code == EXIT_OK, err
    data = json.loads(out)
    assert data["notices"] == [tools.MISSING_TOOLS_HINT]
    assert err.count(tools.MISSING_TOOLS_HINT) == 1
    assert data["errors"] == []
    assert sorted(group["kind"] for group in data["groups"]) == ["text"]
