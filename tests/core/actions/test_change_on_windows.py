"""Whether a file changed since the scan where ``st_ctime_ns`` is its creation time (Windows):
size, mtime and the file index decide, the creation time never; a rewrite that keeps all
three is still refused, by the proof's reading of the bytes. Simulated here by switching
``core.filesystem``'s platform flag."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from simulated_platform import with_stat

from dupfinder.core import filesystem
from dupfinder.core.actions import make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.fileops import FileStamp
from dupfinder.core.actions.journal import Journal
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult
from dupfinder.core.scan.walk import entry_from_stat

CREATED = 1_234_567_890_000_000_000  # a creation time that never moves


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(filesystem, "CTIME_IS_CHANGE_TIME", False)


def _scanned(path: Path) -> Member:
    """The member as a scan on the simulated system records it (through the walk's record)."""
    entry = entry_from_stat(str(path), os.stat(path), Kind.TEXT)
    return Member(
        entry.path,
        entry.size,
        entry.mtime_ns,
        0,
        Fingerprint(Kind.TEXT, 0xABC),
        dev=entry.dev,
        ino=entry.ino,
        ctime_ns=entry.ctime_ns,
    )


def _trio(folder: Path) -> list[Path]:
    folder.mkdir()
    files = [folder / "keep.txt", folder / "copy1.txt", folder / "copy2.txt"]
    for i, path in enumerate(files):
        path.write_bytes(b"same words")
        os.utime(path, ns=(10**18 + i, 10**18 + i))
    return files


def test_the_creation_time_is_no_change_stamp(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("words")
    created = with_stat(os.stat(path), st_ctime_ns=CREATED)
    assert entry_from_stat(str(path), created, Kind.TEXT).ctime_ns == CREATED
    assert FileStamp.of(created).ctime_ns == CREATED
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(filesystem, "CTIME_IS_CHANGE_TIME", False)
        assert entry_from_stat(str(path), created, Kind.TEXT).ctime_ns == 0  # not known
        assert FileStamp.of(created).ctime_ns == 0


@pytest.mark.usefixtures("windows")
def test_size_mtime_and_file_index_decide_what_changed(tmp_path: Path) -> None:
    keep, rewritten, replaced = _trio(tmp_path / "files")
    result = ScanResult(
        (Group(Kind.TEXT, tuple(_scanned(p) for p in (keep, rewritten, replaced))),)
    )
    rewritten.write_bytes(b"SAME WORDS")  # in place: same size, a new mtime
    old = replaced.stat()
    other = tmp_path / "other.txt"  # another file in its place, same bytes and dates
    other.write_bytes(b"same words")
    os.utime(other, ns=(old.st_atime_ns, old.st_mtime_ns))
    other.replace(replaced)
    report = apply(
        make_plan(result, {str(rewritten), str(replaced)}), journal=Journal(tmp_path / "j.jsonl")
    )
    assert [(o.path, o.status, o.reason) for o in report.outcomes] == [
        (str(rewritten), "skipped", "changed since the scan"),
        (str(replaced), "skipped", "changed since the scan (replaced by another file)"),
    ]
    assert rewritten.read_bytes() == b"SAME WORDS"
    assert replaced.exists()


@pytest.mark.usefixtures("windows")
def test_a_rewrite_with_its_old_mtime_put_back_is_refused_by_its_bytes(tmp_path: Path) -> None:
    keep, copy, _ = _trio(tmp_path / "files")
    result = ScanResult((Group(Kind.TEXT, (_scanned(keep), _scanned(copy))),))
    old = copy.stat()
    with copy.open("r+b") as handle:  # same file, same size, old mtime: no stat can tell
        handle.write(b"SAME")
    os.utime(copy, ns=(old.st_atime_ns, old.st_mtime_ns))
    report = apply(make_plan(result, {str(copy)}), journal=Journal(tmp_path / "j.jsonl"))
    (outcome,) = report.outcomes
    assert outcome.status == "skipped", outcome
    assert copy.read_bytes() == b"SAME words"


@pytest.mark.usefixtures("windows")
def test_an_unchanged_file_is_acted_on_whatever_its_creation_time(tmp_path: Path) -> None:
    keep, copy, _ = _trio(tmp_path / "files")
    result = ScanResult((Group(Kind.TEXT, (_scanned(keep), _scanned(copy))),))
    os.chmod(copy, 0o644)  # moves a POSIX ctime; on Windows nothing a stat shows
    report = apply(make_plan(result, {str(copy)}), journal=Journal(tmp_path / "j.jsonl"))
    assert [o.status for o in report.outcomes] == ["done"]
    assert not copy.exists()
    assert keep.exists()
