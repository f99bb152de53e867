"""The strip of peaks and the few seconds to play that the app shows beside a song."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest
from media_samples import needs_ffmpeg, songs

from dupfinder.core.errors import CorruptFile
from dupfinder.core.media import waveform

pytestmark = needs_ffmpeg


def test_peaks_cover_the_song_and_a_quieter_copy_draws_lower() -> None:
    loud = waveform.waveform(str(songs()["song"]), points=200)
    quiet = waveform.waveform(str(songs()["quieter.wav"]), points=200)
    assert loud.shape == (200,)
    assert float(loud.min()) >= 0.0
    assert float(loud.max()) <= 1.0
    assert (loud > 0.05).all()  # music all along
    ratio = float(np.median(quiet / loud))
    assert ratio == pytest.approx(10 ** (-6 / 20), abs=0.05)


def test_a_clip_plays_the_seconds_asked() -> None:
    data = waveform.clip_wav(str(songs()["mp3-128k.mp3"]), 5.0, 3.0)
    with wave.open(io.BytesIO(data)) as reader:
        assert reader.getnchannels() == 2
        assert reader.getframerate() == 44100
        assert reader.getnframes() == pytest.approx(3 * 44100, abs=2000)
    with wave.open(io.BytesIO(waveform.clip_wav(str(songs()["song"]), 500.0, 3.0))) as reader:
        assert reader.getnframes() == 0  # past the end: nothing to play, no error


def test_bad_requests_and_files_say_why() -> None:
    with pytest.raises(ValueError, match="points"):
        waveform.waveform(str(songs()["song"]), points=0)
    with pytest.raises(ValueError, match="seconds"):
        waveform.clip_wav(str(songs()["song"]), 0.0, 0.0)
    bad = songs()["song"].parent / "not-a-song.mp3"
    bad.write_bytes(b"\x00" * 4096)
    with pytest.raises(CorruptFile):
        waveform.waveform(str(bad), points=10)
