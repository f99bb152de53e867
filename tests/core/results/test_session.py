"""Saved results with marks: round trip, and files gone or changed since are flagged."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult
from dupfinder.core.results.session import load_session, save_session, without


def build(tmp_path: Path) -> tuple[ScanResult, list[Path]]:
    paths = []
    members = []
    for number, value in enumerate((0xF0, 0xF1, 0xF3)):
        path = tmp_path / f"photo{number}.jpg"
        path.write_bytes(b"x" * (100 + number))
        st = path.stat()
        paths.append(path)
        members.append(
            Member(
                str(path), st.st_size, st.st_mtime_ns, number, Fingerprint(Kind.IMAGE, value), 4, 3
            )
        )
    return ScanResult((Group(Kind.IMAGE, tuple(members)),)), paths


def test_round_trip_with_marks(tmp_path: Path) -> None:
    result, paths = build(tmp_path)
    saved = tmp_path / "result.json"
    save_session(saved, result, {str(paths[1]), str(paths[2]), "/not/a/member"})
    loaded = load_session(saved)
    assert loaded.result == result
    assert loaded.marks == {str(paths[1]), str(paths[2])}
    assert loaded.intact
    assert json.loads(saved.read_text())["marks"] == sorted([str(paths[1]), str(paths[2])])


def test_missing_and_changed_files_are_flagged(tmp_path: Path) -> None:
    result, paths = build(tmp_path)
    saved = tmp_path / "result.json"
    save_session(saved, result, {str(paths[1])})
    paths[1].unlink()
    os.utime(paths[2], ns=(7, 7))
    loaded = load_session(saved)
    assert loaded.missing == {str(paths[1])}
    assert loaded.changed == {str(paths[2])}
    assert loaded.marks == {str(paths[1])}  # kept as saved; actions skip what is gone
    assert not loaded.intact
    pruned = without(loaded.result, loaded.missing)
    assert [m.path for m in pruned.groups[0].members] == [str(paths[0]), str(paths[2])]
    assert without(loaded.result, loaded.missing | loaded.changed).groups == ()


def test_result_without_marks_and_bad_marks(tmp_path: Path) -> None:
    result, _ = build(tmp_path)
    saved = tmp_path / "result.json"
    save_session(saved, result)
    assert load_session(saved).marks == frozenset()
    data = json.loads(saved.read_text())
    data["marks"] = "everything"
    saved.write_text(json.dumps(data))
    with pytest.raises(ResultFormatError, match="marks"):
        load_session(saved)
