"""Music and videos as the workers see them: their kind, their time limit, their outcome,
and the cache that gives it back (sequence bytes and window hashes) on the next scan."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np
import pytest
from media_files import encoded, needs_ffmpeg, song

from dupfinder.core.fingerprints import worker
from dupfinder.core.fingerprints.columns import OutcomeColumns
from dupfinder.core.fingerprints.formats import content_kinds, kind_for_path
from dupfinder.core.fingerprints.worker import (
    FILE_TIME_LIMIT_SECONDS,
    MEDIA_TIME_LIMIT_SECONDS,
    FingerprintOutcome,
    Task,
    algorithm_id,
    fingerprint_file,
)
from dupfinder.core.media import audio, tools
from dupfinder.core.model import FINGERPRINTED_KINDS, MEDIA_KINDS, Kind, ScanOptions
from dupfinder.core.scan import pipeline as scan


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Song.MP3", Kind.AUDIO),
        ("a.flac", Kind.AUDIO),
        ("a.opus", Kind.AUDIO),
        ("film.mkv", Kind.VIDEO),
        ("clip.MP4", Kind.VIDEO),
        ("types.ts", Kind.TEXT),  # TypeScript before an MPEG transport stream
        ("tune.mid", None),  # notes, not sound: compared by its bytes
    ],
)
def test_music_and_videos_are_named_by_suffix(name: str, kind: Kind | None) -> None:
    assert kind_for_path(name) is kind


def test_without_ffmpeg_music_and_videos_are_not_compared_by_content(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tools, "find_tools", lambda: None)
    assert content_kinds() == FINGERPRINTED_KINDS - MEDIA_KINDS


def test_each_media_kind_has_its_own_algorithm_id() -> None:
    ids = {kind: algorithm_id(kind) for kind in FINGERPRINTED_KINDS}
    assert len(set(ids.values())) == len(ids)
    assert audio.ALGORITHM_VERSION in ids[Kind.AUDIO]


def test_media_get_their_own_time_limit_and_the_worker_waits_longer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[float] = []
    alarms: list[float] = []

    def fake_print(path: str, *, time_limit_s: float) -> audio.AudioPrint:
        asked.append(time_limit_s)
        return audio.AudioPrint(7, (8, 9), b"sequence", 12.0)

    real_limit = worker._time_limit

    def spy(seconds: float) -> AbstractContextManager[None]:
        alarms.append(seconds)
        return real_limit(seconds)

    monkeypatch.setattr(audio, "audio_print", fake_print)
    monkeypatch.setattr(worker, "_time_limit", spy)
    outcome = fingerprint_file(Task(3, "/m/a.mp3", Kind.AUDIO))
    assert outcome == FingerprintOutcome(3, value=7, variants=(8, 9), sketch=b"sequence")
    assert asked == [MEDIA_TIME_LIMIT_SECONDS]
    assert MEDIA_TIME_LIMIT_SECONDS > FILE_TIME_LIMIT_SECONDS
    assert alarms[0] > MEDIA_TIME_LIMIT_SECONDS  # the decoder's own limit fires first


def test_sequences_of_any_length_are_kept_per_row() -> None:
    columns = OutcomeColumns(1000, sequence_rows=[5, 6])
    columns.put(5, FingerprintOutcome(5, value=1, variants=(2, 3), sketch=b"a" * 3001))
    columns.put(6, FingerprintOutcome(6, value=4, sketch=b"b" * 17))
    columns.put(7, FingerprintOutcome(7, value=5, sketch=bytes(128)))  # a document's sketch
    assert columns.sketch(5) == b"a" * 3001
    assert columns.sketch(6) == b"b" * 17
    assert columns.variants[5] == (2, 3)
    assert columns.sketch(7) == bytes(128)
    assert set(columns._sketches) == {128}  # no table as tall as the scan per sequence length
    assert np.count_nonzero(columns.has_value) == 3


@needs_ffmpeg
def test_the_cache_gives_media_outcomes_back(tmp_path: Path) -> None:
    root = tmp_path / "music"
    root.mkdir()
    original = song(root / "tune.flac", 1)
    encoded(original, root / "tune.mp3", "-b:a", "192k")
    options = ScanOptions(roots=(root,), cache_dir=tmp_path / "cache", jobs=1)
    first = scan.run(options)
    again = scan.run(options)
    assert again.stats.files_from_cache == 2
    assert again.stats.files_fingerprinted == 2
    assert again.groups == first.groups
    (group,) = again.groups
    assert group.kind is Kind.AUDIO
    assert group.members[1].span is not None
