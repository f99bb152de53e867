"""Acting on music: the MP3 of a FLAC goes to the trash once the two still align right before;
a file swapped for another song since the scan is left alone."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from media_files import encoded, needs_ffmpeg, song

from dupfinder.core.actions import make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.outcome import FileStatus
from dupfinder.core.model import Kind, ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan

pytestmark = needs_ffmpeg


def _scanned(root: Path) -> tuple[ScanResult, ScanOptions]:
    options = ScanOptions(roots=(root,), kinds=frozenset({Kind.AUDIO}), use_cache=False, jobs=1)
    return scan.run(options), options


def test_the_copy_of_a_song_goes_to_the_trash_and_the_flac_stays(tmp_path: Path) -> None:
    root = tmp_path / "music"
    root.mkdir()
    original = song(root / "tune.flac", 7)
    copy = encoded(original, root / "tune.mp3", "-b:a", "128k")
    result, options = _scanned(root)
    (group,) = result.groups
    assert group.members[0].path == str(original)
    plan = make_plan(result, {str(copy)})
    report = apply(plan, journal=Journal(tmp_path / "j.jsonl"), options=options)
    assert [o.status for o in report.outcomes] == [FileStatus.DONE]
    assert original.exists()
    assert not copy.exists()


def test_a_song_replaced_since_the_scan_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "music"
    root.mkdir()
    original = song(root / "tune.flac", 8)
    copy = encoded(original, root / "tune.mp3", "-b:a", "128k")
    result, options = _scanned(root)
    other = song(tmp_path / "other.mp3", 9, 20, "-b:a", "128k")
    shutil.copy(other, copy)  # another song under the copy's name
    # the result as if it had been made after the swap: only the alignment can tell
    st = copy.stat()
    (group,) = result.groups
    members = tuple(
        dataclasses.replace(
            m, size=st.st_size, mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns, ino=st.st_ino
        )
        if m.path == str(copy)
        else m
        for m in group.members
    )
    stale = dataclasses.replace(result, groups=(dataclasses.replace(group, members=members),))
    plan = make_plan(stale, {str(copy)})
    report = apply(plan, journal=Journal(tmp_path / "j.jsonl"), options=options)
    (outcome,) = report.outcomes
    assert outcome.status is FileStatus.SKIPPED
    assert "similar now" in (outcome.reason or "")
    assert copy.exists()
    assert original.exists()


def test_a_song_is_not_removed_for_a_clip_of_it(tmp_path: Path) -> None:
    root = tmp_path / "music"
    root.mkdir()
    source = song(tmp_path / "source.flac", 10, 30)
    whole = encoded(source, root / "tune.mp3", "-b:a", "192k")
    clip = encoded(source, root / "tune clip.flac", "-ss", "5", "-t", "15")
    result, options = _scanned(root)
    (group,) = result.groups
    assert group.members[0].path == str(whole)  # the keeper's order keeps the whole song
    # a person keeps the clip instead and asks for the song to go: it is only partly a copy
    plan = make_plan(result, {str(whole)})
    report = apply(plan, journal=Journal(tmp_path / "j.jsonl"), options=options)
    (outcome,) = report.outcomes
    assert outcome.status is FileStatus.SKIPPED
    assert "a part of it, not a copy" in (outcome.reason or "")
    assert whole.exists()
    assert clip.exists()
