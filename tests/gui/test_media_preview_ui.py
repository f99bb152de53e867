"""The comparison panel of music and video groups, on a song in three encodings and a video
with its re-encode made by ffmpeg (skipped without it)."""

from __future__ import annotations

import threading
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from media_groups import music_group, needs_ffmpeg, video_group
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from dupfinder.app.media_preview import Playback, playback_hint
from dupfinder.core.media import tools
from dupfinder.core.model import Group, Progress, ScanOptions, ScanResult
from dupfinder.gui import media_preview as panel_module
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.media_preview import MediaPreview

pytestmark = needs_ffmpeg


@pytest.fixture
def panel(qtbot: QtBot) -> Iterator[MediaPreview]:
    shown = MediaPreview()
    qtbot.addWidget(shown)
    shown.resize(1000, 600)
    shown.show()
    yield shown
    shown.stop()  # no decoding thread or player may outlive the test


def texts(panel: MediaPreview) -> list[str]:
    return [label.text() for label in panel.body.findChildren(QLabel) if label.isVisibleTo(panel)]


def bold(panel: MediaPreview) -> set[str]:
    return {
        label.text()
        for label in panel.body.findChildren(QLabel)
        if label.font().bold() and label.isVisibleTo(panel)
    }


def show(qtbot: QtBot, panel: MediaPreview, group: Group, selected: int = 1) -> None:
    members = group.members
    with qtbot.waitSignal(panel.rendered, timeout=30_000):
        panel.show_group(group, members[0], members[selected], "Kept as the original: lossless")


def test_a_music_group_lines_up_tags_lengths_and_quality(qtbot: QtBot, panel: MediaPreview) -> None:
    show(qtbot, panel, music_group(), selected=2)
    shown = texts(panel)
    assert panel.summary.text() == "Kept as the original: lossless"
    for expected in ("Night Train", "The Lanterns", "Harbour Lights", "0:12", "0:08"):
        assert expected in shown
    assert {"FLAC, lossless", "320 kb/s MP3", "128 kb/s MP3"} <= set(shown)
    assert any("all of it matches 0:04–0:12 of 0:12 of the kept file" in t for t in shown)
    # the trimmed copy's other title stands out; the tags it shares do not
    assert "Night Train (radio edit)" in bold(panel)
    assert "The Lanterns" not in bold(panel)
    roles = [card.card.role_text for card in panel.cards]
    assert roles == ["Kept", "Selected", "Also in the group"]
    says = {playback_hint(Playback.FFPLAY), playback_hint(Playback.SYSTEM_PLAYER)}
    assert panel.hint.text() in says


def test_each_song_gets_its_waveform_once(qtbot: QtBot, panel: MediaPreview) -> None:
    group = music_group()
    show(qtbot, panel, group)
    strips = [card.waveform for card in panel.cards]
    assert all(strip is not None and strip.peaks() is not None for strip in strips)
    peaks = [strip.peaks() for strip in strips if strip is not None]
    assert all(p is not None and 0 < float(p.max()) <= 1 for p in peaks)
    assert len(panel.waves) == 3
    # back to the group: drawn from what was decoded, nothing decoded again
    panel.clear()
    decoded: list[str] = []
    real = panel_module._waveform
    monkey = pytest.MonkeyPatch()

    def recorded(path: str) -> Callable[[threading.Event], object]:
        decoded.append(path)
        return real(path)

    monkey.setattr(panel_module, "_waveform", recorded)
    try:
        show(qtbot, panel, group)
    finally:
        monkey.undo()
    assert decoded == []
    assert all(
        card.waveform is not None and card.waveform.peaks() is not None for card in panel.cards
    )


def test_a_video_group_shows_frames_at_the_same_moments(qtbot: QtBot, panel: MediaPreview) -> None:
    show(qtbot, panel, video_group())
    facts = [t for t in texts(panel) if "×" in t]  # each file's length · size · quality
    assert len(facts) == 2
    assert "0:10 · 320 × 240 · " in facts[0]
    assert "0:10 · 160 × 120 · " in facts[1]
    assert "the whole file matches the kept file" in facts[1]
    rows = [card.frames for card in panel.cards]
    assert all(row is not None for row in rows)
    for row in rows:
        assert row is not None
        assert all(not label.pixmap().isNull() for label in row.pictures)
    # the same moments under every row
    assert panel.cards[0].card.frame_times == panel.cards[1].card.frame_times
    assert panel.cards[0].play is None  # videos are compared by their frames


def test_without_ffmpeg_a_hint_stands_where_the_previews_would(
    qtbot: QtBot, panel: MediaPreview, monkeypatch: pytest.MonkeyPatch
) -> None:
    group = music_group()  # its facts read before ffmpeg "goes missing"
    monkeypatch.setattr(tools, "find_tools", lambda: None)
    with qtbot.waitSignal(panel.rendered, timeout=30_000):
        panel.show_group(group, group.members[0], group.members[1], "")
        qtbot.waitUntil(lambda: panel.hint.text() == tools.MISSING_TOOLS_HINT, timeout=30_000)
        panel.show_group(group, group.members[0], group.members[2], "")
    assert panel.hint.isVisible()
    # what the scan read is still shown (once the new labels are laid out)
    qtbot.waitUntil(lambda: "Night Train" in texts(panel), timeout=5_000)
    for card in panel.cards:
        assert card.waveform is not None
        assert card.play is not None
        assert not card.waveform.isVisible()
        assert not card.play.isVisible()


def test_a_new_selection_drops_the_decodes_still_queued(
    qtbot: QtBot, panel: MediaPreview, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    release = threading.Event()

    def frames(path: str, times: tuple[float, ...]) -> Callable[[threading.Event], object]:
        def decode(cancel: threading.Event) -> list[Any] | None:
            started.append(path)
            release.wait(10)
            return None if cancel.is_set() else []

        return decode

    monkeypatch.setattr(panel_module, "_frames", frames)
    films = video_group()
    panel.show_group(films, films.members[0], films.members[1], "")
    qtbot.waitUntil(lambda: len(started) == 1, timeout=10_000)
    songs = music_group()
    monkeypatch.setattr(panel_module, "_waveform", lambda path: frames(path, ()))
    with qtbot.waitSignal(panel.rendered, timeout=30_000):
        panel.show_group(songs, songs.members[0], songs.members[1], "")
        release.set()
    # the first film's decode was under way and stopped; its re-encode was never started
    assert started[0] == films.members[0].path
    assert films.members[1].path not in started
    assert started[1:] == [m.path for m in songs.members]


def test_play_plays_a_few_seconds_with_ffplay_and_stops(
    qtbot: QtBot, panel: MediaPreview, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = tools.find_tools()
    if found is None or panel_module.ffplay_beside(found.ffmpeg) is None:
        pytest.skip("ffplay is not installed beside ffmpeg")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")  # plays into nothing, as long as a clip
    monkeypatch.setattr(panel_module, "_waveform", _no_peaks)
    show(qtbot, panel, music_group())
    first, second = panel.cards[0], panel.cards[1]
    assert first.play is not None
    assert second.play is not None
    first.play.click()
    assert panel.playing()
    assert first.play.text() == "Stop"
    second.play.click()  # one at a time: the first stops
    assert first.play.text() == "Play"
    assert second.play.text() == "Stop"
    second.play.click()
    assert not panel.playing()
    assert second.play.text() == "Play"


def _no_peaks(path: str) -> Callable[[threading.Event], object]:
    return lambda _cancel: None


def test_without_ffplay_a_clip_goes_to_the_systems_player(
    qtbot: QtBot, panel: MediaPreview, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr(panel_module, "ffplay_beside", lambda ffmpeg: None)
    monkeypatch.setattr(panel_module.QDesktopServices, "openUrl", opened.append)
    monkeypatch.setattr(panel_module, "_waveform", _no_peaks)
    show(qtbot, panel, music_group())
    assert "system's player" in panel.hint.text()
    kept = panel.cards[0]
    assert kept.play is not None
    kept.play.click()
    qtbot.waitUntil(lambda: len(opened) == 1, timeout=30_000)
    clip = Path(opened[0].toLocalFile())
    assert clip.name.startswith("song")
    assert clip.suffix == ".wav"
    with wave.open(str(clip)) as played:
        seconds = played.getnframes() / played.getframerate()
    assert seconds == pytest.approx(5, abs=0.2)


def test_the_window_shows_music_and_video_groups_in_the_media_panel(
    qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    groups = (music_group(), video_group())

    def scanned(
        _options: ScanOptions, _progress: Callable[[Progress], None], _cancel: threading.Event
    ) -> ScanResult:
        return ScanResult(groups)

    window = make_window(scan_function=scanned)
    window.panel.add_folders([str(tmp_path)])
    window.start_scan()
    qtbot.waitUntil(lambda: not window.busy(), timeout=20_000)
    for group in groups:
        index = window.model.index_of_path(group.members[1].path)
        assert index.isValid()
        with qtbot.waitSignal(window.media_preview.rendered, timeout=30_000):
            window.view.setCurrentIndex(index)
        assert window.preview.currentWidget() is window.media_preview
        names = [card.card.name for card in window.media_preview.cards]
        assert names[:2] == [Path(m.path).name for m in group.members[:2]]


def test_decoding_never_runs_on_the_window_thread(
    qtbot: QtBot, panel: MediaPreview, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    real = panel_module._waveform

    def recorded(path: str) -> Callable[[threading.Event], object]:
        decode = real(path)

        def on_thread(cancel: threading.Event) -> object:
            threads.append(threading.current_thread())
            return decode(cancel)

        return on_thread

    monkeypatch.setattr(panel_module, "_waveform", recorded)
    panel.waves = type(panel.waves)(8)  # nothing decoded before
    show(qtbot, panel, music_group())
    assert len(threads) == 3
    assert threading.main_thread() not in threads


def test_a_clip_ffplay_cannot_play_says_why(
    qtbot: QtBot, panel: MediaPreview, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = tools.find_tools()
    if found is None or panel_module.ffplay_beside(found.ffmpeg) is None:
        pytest.skip("ffplay is not installed beside ffmpeg")
    monkeypatch.setenv("SDL_AUDIODRIVER", "no-such-sound-driver")  # as with no sound device
    monkeypatch.setattr(panel_module, "_waveform", _no_peaks)
    show(qtbot, panel, music_group())
    play = panel.cards[0].play
    assert play is not None
    play.click()
    qtbot.waitUntil(lambda: not panel.playing(), timeout=15_000)
    assert panel.hint.text().startswith("ffplay could not play the file: ")
    assert "ALSA" not in panel.hint.text()
    assert play.text() == "Play"
