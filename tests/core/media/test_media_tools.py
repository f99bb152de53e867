"""Running ffmpeg and ffprobe: found where the user put them, killed when they stall, and
damaged files reported with a reason."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, cast

import pytest
from media_samples import make, needs_ffmpeg

from dupfinder.core.errors import CorruptFile, TimedOut, TooLarge, UnsupportedFile
from dupfinder.core.media import info, tools


def _fake_tools(folder: Path, body: str) -> None:
    """An ffmpeg and an ffprobe that run ``body`` (a shell script) instead of decoding."""
    for name in ("ffmpeg", "ffprobe"):
        path = folder / name
        path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def stalling_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A decoder that answers ``-version`` and then stalls on every file (with a child of its
    own that would keep the pipes open)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    _fake_tools(
        folder,
        'case "$2" in -version) echo "ffmpeg version fake"; exit 0;; esac\n'
        f'sleep 60 & echo $! > "{folder}/child.pid"; sleep 60',
    )
    monkeypatch.setenv(tools.TOOLS_ENV, str(folder))
    return folder


@pytest.mark.skipif(os.name != "posix", reason="the fake decoder is a shell script")
def test_a_stalling_decoder_is_killed_with_a_clear_error(
    stalling_tools: Path, tmp_path: Path
) -> None:
    found = tools.find_tools()
    assert found is not None
    assert found.ffmpeg == str(stalling_tools / "ffmpeg")
    song = tmp_path / "song.mp3"
    song.write_bytes(b"\xff\xfb" * 100)
    started = time.monotonic()
    with pytest.raises(TimedOut, match="longer than 1 s"):
        info.probe(str(song), time_limit_s=1.0)
    assert time.monotonic() - started < 30  # not the decoder's own 60 s
    child = int((stalling_tools / "child.pid").read_text(encoding="utf-8"))
    assert _gone(child)


def _gone(pid: int) -> bool:
    """The process has ended (a zombie waiting for its reaper counts as ended)."""
    for _ in range(50):
        try:
            state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1]
        except OSError:
            return True
        if state.split()[0] in ("Z", "X"):
            return True
        time.sleep(0.1)
    return False


def test_no_tools_means_a_hint_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(tools.TOOLS_ENV, str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert tools.find_tools() is None
    with pytest.raises(UnsupportedFile, match="Install FFmpeg"):
        info.probe(str(tmp_path / "song.mp3"))


def test_suffixes_are_lower_case_with_a_dot() -> None:
    for suffix in tools.AUDIO_SUFFIXES | tools.VIDEO_SUFFIXES:
        assert suffix.startswith(".")
        assert suffix == suffix.lower()
    assert not tools.AUDIO_SUFFIXES & tools.VIDEO_SUFFIXES
    assert {".mp3", ".flac", ".opus"} <= tools.AUDIO_SUFFIXES
    assert {".mp4", ".mkv", ".webm"} <= tools.VIDEO_SUFFIXES


@needs_ffmpeg
def test_an_endless_stream_stops_at_the_output_cap() -> None:
    ffmpeg = tools.require_tools().ffmpeg
    endless = [ffmpeg, "-v", "error", "-f", "lavfi", "-i", "anoisesrc", "-f", "s16le", "-"]
    with pytest.raises(TooLarge):
        tools.run_tool(endless, time_limit_s=30.0, output_limit=1 << 20)
    with pytest.raises(TimedOut):
        tools.run_tool([*endless[:-3], "-f", "null", "-"], time_limit_s=0.5)


@needs_ffmpeg
def test_damaged_and_foreign_files_get_a_reason(tmp_path: Path) -> None:
    video = tmp_path / "clip.mp4"
    make("-f", "lavfi", "-i", "testsrc2=d=2", "-pix_fmt", "yuv420p", str(video))
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(video.read_bytes()[:4000])
    with pytest.raises(CorruptFile, match="cannot be decoded: ") as caught:
        info.probe(str(cut))
    assert str(tmp_path) not in str(caught.value)
    text = tmp_path / "notes.mp3"
    text.write_text("not a song\n" * 50, encoding="utf-8")
    with pytest.raises(CorruptFile):
        info.probe(str(text))


@needs_ffmpeg
def test_probe_reads_streams_and_tags(tmp_path: Path) -> None:
    song = tmp_path / "a song.flac"
    make(
        "-f",
        "lavfi",
        "-i",
        "sine=d=2",
        "-metadata",
        "TITLE=Tune",
        "-metadata",
        "artist=Band",
        str(song),
    )
    found = info.probe(str(song))
    assert found.audio_codec == "flac"
    assert found.video_codec is None
    assert found.lossless
    assert found.duration_s is not None
    assert abs(found.duration_s - 2.0) < 0.1
    assert found.tags["title"] == "Tune"
    assert found.tags["artist"] == "Band"


class _Interrupted(Exception):
    pass


@needs_ffmpeg
@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no SIGALRM here")
def test_a_wait_interrupted_by_the_workers_time_limit_kills_the_decoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[subprocess.Popen[bytes]] = []
    real = subprocess.Popen

    def spy(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        process = real(*args, **kwargs)
        started.append(process)
        return process

    monkeypatch.setattr(subprocess, "Popen", spy)

    def expire(signum: int, frame: object) -> None:
        raise _Interrupted

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(_Interrupted):
            tools.run_tool(
                [
                    tools.require_tools().ffmpeg,
                    "-v",
                    "error",
                    "-f",
                    "lavfi",
                    "-i",
                    "anoisesrc",
                    "-f",
                    "null",
                    "-",
                ],
                time_limit_s=60.0,
            )
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert len(started) == 1
    assert started[0].returncode is not None  # killed and reaped, not left running


@needs_ffmpeg
@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_a_decoder_over_its_memory_limit_fails_with_a_reason() -> None:
    ffmpeg = tools.require_tools().ffmpeg
    small = [ffmpeg, "-v", "error", "-f", "lavfi", "-i", "anoisesrc=d=1", "-f", "null", "-"]
    assert tools.run_tool(small, time_limit_s=30.0) == b""
    with pytest.raises(CorruptFile):
        tools.run_tool(small, time_limit_s=30.0, memory_limit=30 * 1024 * 1024)


@pytest.mark.skipif(os.name != "posix", reason="the time limit's signal is POSIX only")
def test_a_killed_child_is_reaped_though_a_signal_left_the_wait_lock_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Popen.wait`` takes a lock while it waits; a time limit's signal raised between its
    taking and its release leaves it taken, and a second ``wait()`` blocked forever (seen
    in a run of the test above on a loaded machine). The killed child is reaped anyway."""
    monkeypatch.setattr(tools, "_REAP_S", 0.2)
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    lock = cast(Any, process)._waitpid_lock  # CPython's: what the interrupted wait left taken
    assert lock.acquire(False)
    try:
        tools._kill(process)
        started = time.monotonic()
        tools._reap(process)
        assert time.monotonic() - started < 30
        assert process.returncode == -signal.SIGKILL
    finally:
        lock.release()
