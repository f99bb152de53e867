"""A rescan of an unchanged folder is given the groups the last scan formed; anything that
forms them changed, and they are formed again."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from dupfinder.core.fingerprints import worker
from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns, digest_state
from dupfinder.core.fingerprints.worker import FingerprintOutcome
from dupfinder.core.model import FileEntry, Kind, ScanOptions, ScanResult
from dupfinder.core.scan import last_result, pipeline

SAMPLE = Path(__file__).resolve().parents[3] / "resources" / "sample"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    shutil.copytree(SAMPLE, root)
    return root


class _Calls:
    """Counts how often the scan calls one of its steps: ``_formed`` forms its groups
    (rather than being given them), ``_read_all`` reads its files (cache look-ups,
    fingerprints, digests)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, step: str = "_formed") -> None:
        self.count = 0
        real = getattr(pipeline, step)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(pipeline, step, counted)


def _options(root: Path, tmp_path: Path, **changes: Any) -> ScanOptions:
    return ScanOptions(roots=(root,), cache_dir=tmp_path / "cache", **({"jobs": 1} | changes))


def _shown(result: ScanResult) -> tuple[object, ...]:
    return (result.groups, result.errors, result.stats.pairs, result.notices)


def test_an_unchanged_folder_is_given_its_last_groups(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forming = _Calls(monkeypatch)
    first = pipeline.run(_options(folder, tmp_path))
    again = pipeline.run(_options(folder, tmp_path, jobs=2))  # workers change nothing found
    assert forming.count == 1
    assert first.groups  # the sample has copies of every kind
    assert _shown(again) == _shown(first)
    assert again.stats.files_from_cache == again.stats.files_seen


def test_a_touched_file_forms_the_groups_again(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forming = _Calls(monkeypatch)
    first = pipeline.run(_options(folder, tmp_path))
    member = Path(first.groups[0].members[-1].path)
    info = member.stat()
    os.utime(member, ns=(info.st_atime_ns, info.st_mtime_ns))  # the same mtime, a new ctime
    again = pipeline.run(_options(folder, tmp_path))
    assert forming.count == 2
    shown = {m.path: m for g in again.groups for m in g.members}
    assert shown[str(member)].ctime_ns != first.groups[0].members[-1].ctime_ns


def test_a_changed_file_is_never_shown_as_it_was(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = pipeline.run(_options(folder, tmp_path))
    group = next(g for g in first.groups if g.kind is Kind.TEXT)
    copy = Path(group.members[-1].path)
    copy.write_text("Something else altogether, of no other file's words.\n" * 40)
    again = pipeline.run(_options(folder, tmp_path))
    for found in again.groups:
        for m in found.members:
            if m.path == str(copy):
                assert m.size == copy.stat().st_size


@pytest.mark.parametrize(
    "changes",
    [
        {"image_similarity": 0.95},
        {"text_threshold": 3},
        {"kinds": frozenset({Kind.TEXT})},
        {"near_duplicates": False},
    ],
)
def test_other_settings_form_the_groups_again(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changes: dict[str, Any]
) -> None:
    forming = _Calls(monkeypatch)
    pipeline.run(_options(folder, tmp_path))
    pipeline.run(_options(folder, tmp_path, **changes))
    assert forming.count == 2


def test_other_code_forms_the_groups_again(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forming = _Calls(monkeypatch)
    pipeline.run(_options(folder, tmp_path))
    monkeypatch.setattr(last_result, "_code_stamp", lambda: ("another version",))
    pipeline.run(_options(folder, tmp_path))
    assert forming.count == 2


def test_each_set_of_folders_keeps_its_own_last_groups(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    shutil.copytree(folder / "notes", other)
    forming = _Calls(monkeypatch)
    pipeline.run(_options(folder, tmp_path))
    pipeline.run(_options(other, tmp_path))
    pipeline.run(_options(folder, tmp_path))
    assert forming.count == 2


@pytest.mark.parametrize(
    ("written", "parameters"),
    [
        ("?", (b'{"version": 2, "groups": [{"kind": "nonsense"}]}',)),  # not packed
        ("substr(sketch, 1, length(sketch) - 3)", ()),  # cut short
        ("?", (zlib.compress(b'{"version":2}\n{"kind":"nonsense"}\n'),)),
    ],
)
def test_a_damaged_entry_reads_as_none(
    folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    written: str,
    parameters: tuple[bytes, ...],
) -> None:
    first = pipeline.run(_options(folder, tmp_path))
    database = next((tmp_path / "cache").glob("*.sqlite3"))
    with sqlite3.connect(database) as db:
        changed = db.execute(
            f"UPDATE fingerprints SET sketch = {written} WHERE algorithm LIKE 'scan-result/%'",
            parameters,
        ).rowcount
    assert changed == 1
    forming = _Calls(monkeypatch)
    again = pipeline.run(_options(folder, tmp_path))
    assert forming.count == 1
    assert _shown(again) == _shown(first)


def test_the_groups_come_back_read_in_parts(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(last_result, "_GROUPS_AT_ONCE", 2)
    monkeypatch.setattr(last_result, "_UNPACK_BYTES", 7)  # lines cut across reads
    forming = _Calls(monkeypatch)
    first = pipeline.run(_options(folder, tmp_path))
    again = pipeline.run(_options(folder, tmp_path))
    assert forming.count == 1
    assert len(first.groups) > 2
    assert _shown(again) == _shown(first)


def test_without_the_cache_nothing_is_kept(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forming = _Calls(monkeypatch)
    pipeline.run(_options(folder, tmp_path, use_cache=False))
    pipeline.run(_options(folder, tmp_path, use_cache=False))
    assert forming.count == 2
    assert not (tmp_path / "cache").exists()


def _digest(value: object) -> bytes:
    digest = hashlib.blake2b()
    digest_state(digest, value)
    return digest.digest()


def _outcomes() -> OutcomeColumns:
    outcomes = OutcomeColumns(3)
    outcomes.put(0, FingerprintOutcome(0, 7, 10, 10, (1, 2, 3), bytes(range(16))))
    outcomes.put(2, FingerprintOutcome(2, 9, 10, 10, (4,), bytes(16)))
    outcomes.put(1, FingerprintOutcome(1, None, error="damaged", code="corrupt"))
    return outcomes


def test_the_digest_sees_every_part_of_the_state() -> None:
    base = _digest(_outcomes())
    assert _digest(_outcomes()) == base
    for change in (
        lambda o: o.put(2, FingerprintOutcome(2, 9, 10, 10, (5,), bytes(16))),
        lambda o: o.put(2, FingerprintOutcome(2, 9, 10, 10, (4,), bytes(15) + b"\1")),
        lambda o: o.put(2, FingerprintOutcome(2, 8, 10, 10, (4,), bytes(16))),
        lambda o: o.put(1, FingerprintOutcome(1, None, error="damaged", code="unreadable")),
        lambda o: o.put(0, FingerprintOutcome(0, 7, 11, 10, (1, 2, 3), bytes(range(16)))),
    ):
        changed = _outcomes()
        change(changed)
        assert _digest(changed) != base


def test_the_digest_sees_every_file() -> None:
    def listed(mtime_of_b: int = 2) -> FileColumns:
        files = FileColumns()
        files.append(FileEntry("/f/a", 10, 1, Kind.TEXT, dev=1, ino=5, ctime_ns=3))
        files.append(FileEntry("/f/b", 10, mtime_of_b, Kind.TEXT, dev=1, ino=6, ctime_ns=3))
        return files

    assert _digest(listed()) == _digest(listed())
    assert _digest(listed(mtime_of_b=3)) != _digest(listed())


def test_the_order_of_a_set_of_kinds_does_not_matter() -> None:
    one = dataclasses.replace(ScanOptions(roots=(Path("/x"),)), kinds=frozenset(Kind))
    other = dataclasses.replace(one, kinds=frozenset(reversed(list(Kind))), jobs=7)
    assert _digest(last_result._settings(one)) == _digest(last_result._settings(other))


def _every_part(result: ScanResult) -> tuple[object, ...]:
    return (*_shown(result), dataclasses.replace(result.stats, seconds=0.0))


def test_a_settled_folder_is_answered_without_reading_a_file(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "short.txt").write_text("Too short.\n")  # an outcome that does not pass
    (folder / "twin.bin").write_bytes(b"\x00\x01" * 500)
    (folder / "twin copy.bin").write_bytes(b"\x00\x01" * 500)
    first = pipeline.run(_options(folder, tmp_path))
    assert "short.txt" in {os.path.basename(e.path) for e in first.errors}
    warm = pipeline.run(_options(folder, tmp_path))  # the rescan the full way, from the cache
    reading = _Calls(monkeypatch, "_read_all")
    again = pipeline.run(_options(folder, tmp_path))
    assert reading.count == 0
    assert _every_part(again) == _every_part(warm)
    assert any(group.identical and group.kind is Kind.OTHER for group in again.groups)
    assert again.stats.files_from_cache == again.stats.files_seen - again.stats.files_bytes_only


def test_a_file_left_unread_for_a_passing_reason_is_read_again(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    twin = folder / "notes" / "again.txt"
    original = next(p for p in sorted((folder / "notes").iterdir()) if p.suffix == ".txt")
    shutil.copyfile(original, twin)
    real = worker.fingerprint_batch

    def unreadable_twin(tasks: list[Any], image_invariance: bool = False) -> Any:
        return [
            FingerprintOutcome(o.row, error="could not be read", code="unreadable")
            if o.value is not None and os.path.basename(t.path) == twin.name
            else o
            for t, o in zip(tasks, real(tasks, image_invariance), strict=True)
        ]

    with monkeypatch.context() as patched:
        patched.setattr(pipeline, "fingerprint_batch", unreadable_twin)
        first = pipeline.run(_options(folder, tmp_path))
    assert str(twin) in {e.path for e in first.errors}
    reading = _Calls(monkeypatch, "_read_all")
    again = pipeline.run(_options(folder, tmp_path))
    assert reading.count == 1
    assert {e.path for e in again.errors} == {e.path for e in first.errors} - {str(twin)}
    assert any(m.path == str(twin) for g in again.groups for m in g.members)


@pytest.mark.parametrize(
    "change",
    [
        lambda root: (root / "new.txt").write_text("A file that was not there before.\n" * 30),
        lambda root: next(root.rglob("*.txt")).unlink(),
        lambda root: next(root.rglob("*.txt")).rename(root / "moved.txt"),
    ],
)
def test_a_changed_folder_is_read_again(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    pipeline.run(_options(folder, tmp_path))
    change(folder)
    reading = _Calls(monkeypatch, "_read_all")
    again = pipeline.run(_options(folder, tmp_path))
    assert reading.count == 1
    fresh = pipeline.run(_options(folder, tmp_path, use_cache=False))
    assert _shown(again) == _shown(fresh)


def test_a_damaged_settled_entry_reads_as_none(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = pipeline.run(_options(folder, tmp_path))
    database = next((tmp_path / "cache").glob("*.sqlite3"))
    with sqlite3.connect(database) as db:
        changed = db.execute(
            "UPDATE fingerprints SET sketch = ? WHERE algorithm LIKE 'scan-settled/%'",
            (zlib.compress(b'{"inputs": "00", "errors": 3}'),),
        ).rowcount
    assert changed == 1
    reading = _Calls(monkeypatch, "_read_all")
    again = pipeline.run(_options(folder, tmp_path))
    assert reading.count == 1
    assert _shown(again) == _shown(first)


_RESCAN = """
import sys
from pathlib import Path

from dupfinder.core.model import ScanOptions
from dupfinder.core.scan import pipeline

options = ScanOptions(roots=(Path(sys.argv[1]),), cache_dir=Path(sys.argv[2]), jobs=1)
print(len(pipeline.run(options).groups), "numpy" in sys.modules)
"""


def test_a_settled_rescan_imports_no_numpy(folder: Path, tmp_path: Path) -> None:
    """The walk and the kept result need no array: numpy's import was a tenth of the rescan."""
    scans = [
        subprocess.run(
            [sys.executable, "-c", _RESCAN, str(folder), str(tmp_path / "cache")],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for _ in range(2)
    ]
    assert scans[0][1] == "True"  # the first scan fingerprints
    assert scans[1] == [scans[0][0], "False"]
