"""Undo of a trash where the system's trash took the file (Windows' Recycle Bin, macOS's
``~/.Trash``), simulated here: send2trash is played by a stand-in that does what each system
does (``simulated_platform``), and undo finds the file there, proves it is the file that was
trashed, and renames it back without replacing anything."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
import send2trash
from simulated_platform import MacTrash, RecycleBin, recycle_record

from dupfinder.core.actions import Action, make_plan, recycle_bin, trash
from dupfinder.core.actions import apply as apply_module
from dupfinder.core.actions import undo as undo_module
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.plan import compare_link_contents
from dupfinder.core.actions.recycle_bin import BadRecord, parse_record
from dupfinder.core.actions.undo import undo
from dupfinder.core.model import ActionKind, Fingerprint, Group, Kind, Member, ScanResult

DATA = b"the words of a file that was trashed"


def _system_trash(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (trash, apply_module, undo_module):
        monkeypatch.setattr(module, "NATIVE_TRASH", False)


@pytest.fixture
def windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RecycleBin:
    _system_trash(monkeypatch)
    bin_ = RecycleBin(tmp_path / "$Recycle.Bin")
    monkeypatch.setattr(recycle_bin, "IN_USE", True)
    monkeypatch.setattr(recycle_bin, "bin_of", lambda path: bin_.root)
    monkeypatch.setattr(send2trash, "send2trash", bin_.send2trash)
    return bin_


@pytest.fixture
def mac(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MacTrash:
    _system_trash(monkeypatch)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    trash_ = MacTrash(tmp_path / "home")
    monkeypatch.setattr(send2trash, "send2trash", trash_.send2trash)
    return trash_


def _member(path: Path) -> Member:
    st = path.stat()
    return Member(
        str(path),
        st.st_size,
        st.st_mtime_ns,
        0,
        Fingerprint(Kind.TEXT, 0xABC),
        dev=st.st_dev,
        ino=st.st_ino,
    )


def _trash_copies(tmp_path: Path, *names: str, data: bytes = DATA) -> tuple[Journal, list[Path]]:
    """A kept file and copies of it, the copies trashed through apply."""
    keep = tmp_path / "keep.txt"
    keep.write_bytes(data)
    copies = []
    for name in names:
        copy = tmp_path / "copies" / name
        copy.parent.mkdir(exist_ok=True)
        copy.write_bytes(data)
        copies.append(copy)
    result = ScanResult((Group(Kind.TEXT, tuple(_member(p) for p in (keep, *copies))),))
    journal = Journal(tmp_path / "journal.jsonl")
    report = apply(make_plan(result, {str(c) for c in copies}), journal=journal)
    assert report.ok, report.outcomes
    assert not any(c.exists() for c in copies)
    return journal, copies


def _reasons(journal: Journal) -> list[tuple[str, str | None]]:
    return [(o.status, o.reason) for o in undo(journal=journal).outcomes]


# --- Windows: the Recycle Bin -------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
def test_a_recycle_bin_record_of_either_version_is_read(version: int) -> None:
    original = "C:\\Users\\ann\\Documents\\report (final).docx"
    info = parse_record(recycle_record(original, 48_213, 133_000_000_000_000_000, version))
    assert (info.original, info.size) == (original, 48_213)
    assert info.deleted == datetime(2022, 6, 18, 4, 26, 40, tzinfo=UTC)  # 1655526400 s after 1970


@pytest.mark.parametrize(
    "raw",
    [b"", b"\x02" + b"\0" * 10, recycle_record("C:\\a", 1, 0, version=3), b"\2" + b"\0" * 27],
)
def test_a_damaged_record_is_refused(raw: bytes) -> None:
    with pytest.raises(BadRecord):
        parse_record(raw)


def test_a_recycled_file_comes_back_from_the_recycle_bin(
    tmp_path: Path, windows: RecycleBin
) -> None:
    journal, (copy,) = _trash_copies(tmp_path, "a.txt")
    assert len(windows.items()) == 1
    assert _reasons(journal) == [("restored", None)]
    assert copy.read_bytes() == DATA
    assert windows.items() == []
    assert windows.records() == []  # Explorer lists no file that is gone


def test_a_record_with_the_long_path_prefix_names_the_same_file(
    tmp_path: Path, windows: RecycleBin
) -> None:
    windows.prefix = "\\\\?\\"  # a record may spell the path with the long-path prefix
    journal, (copy,) = _trash_copies(tmp_path, "a.txt")
    assert windows.records()[0].read_bytes()[28:36].decode("utf-16-le") == "\\\\?\\"
    assert _reasons(journal) == [("restored", None)]
    assert copy.read_bytes() == DATA


def test_of_two_recycled_files_with_one_name_the_one_trashed_comes_back(
    tmp_path: Path, windows: RecycleBin
) -> None:
    journal, (copy,) = _trash_copies(tmp_path, "a.txt")
    other = b"other words of the same length as the data!"[: len(DATA)]
    copy.write_bytes(other)  # a later file of that name and size, recycled after it
    windows.send2trash(str(copy))
    assert _reasons(journal) == [("restored", None)]
    assert copy.read_bytes() == DATA
    (left,) = windows.items()
    assert left.read_bytes() == other


def test_a_file_changed_in_the_recycle_bin_stays_there(tmp_path: Path, windows: RecycleBin) -> None:
    journal, (copy,) = _trash_copies(tmp_path, "a.txt")
    (item,) = windows.items()
    item.write_bytes(DATA.upper())
    assert _reasons(journal) == [
        ("failed", "in the Recycle Bin, but not with the bytes it was trashed with; left there")
    ]
    assert not copy.exists()
    assert item.read_bytes() == DATA.upper()


def test_an_emptied_recycle_bin_says_so(tmp_path: Path, windows: RecycleBin) -> None:
    journal, _ = _trash_copies(tmp_path, "a.txt")
    for path in windows.items() + windows.records():
        path.unlink()
    assert _reasons(journal) == [("failed", "not found in the Recycle Bin (emptied?)")]


def test_a_new_file_at_the_original_place_is_never_replaced(
    tmp_path: Path, windows: RecycleBin
) -> None:
    journal, (copy,) = _trash_copies(tmp_path, "a.txt")
    copy.write_bytes(b"made since")
    assert _reasons(journal) == [("failed", "a file already exists at the original place")]
    assert copy.read_bytes() == b"made since"
    assert len(windows.items()) == 1


@pytest.mark.parametrize("kind", [ActionKind.HARDLINK, ActionKind.SYMLINK])
def test_a_link_over_different_bytes_gets_its_original_back_from_the_recycle_bin(
    tmp_path: Path, windows: RecycleBin, kind: ActionKind
) -> None:
    keep, near = tmp_path / "keep.txt", tmp_path / "near" / "a.txt"
    keep.write_bytes(DATA)
    near.parent.mkdir()
    near.write_bytes(b"nearly the same words")
    result = ScanResult((Group(Kind.TEXT, (_member(keep), _member(near))),))
    plan = compare_link_contents(make_plan(result, {str(near)}, Action(kind)), allow_different=True)
    journal = Journal(tmp_path / "journal.jsonl")
    assert apply(plan, journal=journal).ok
    assert len(windows.items()) == 1
    assert _reasons(journal) == [("restored", "the original put back from the trash")]
    assert not near.is_symlink()
    assert near.read_bytes() == b"nearly the same words"
    assert near.stat().st_ino != keep.stat().st_ino
    assert windows.items() == []


# --- macOS: ~/.Trash -----------------------------------------------------------------------


def test_a_trashed_file_comes_back_from_the_mac_trash(tmp_path: Path, mac: MacTrash) -> None:
    journal, copies = _trash_copies(tmp_path, "a.txt", "b.txt")
    assert sorted(p.name for p in mac.folder.iterdir()) == ["a.txt", "b.txt"]
    assert _reasons(journal) == [("restored", None), ("restored", None)]
    assert [c.read_bytes() for c in copies] == [DATA, DATA]
    assert list(mac.folder.iterdir()) == []


def test_a_file_renamed_in_the_mac_trash_is_found_by_its_identity(
    tmp_path: Path, mac: MacTrash
) -> None:
    (mac.folder / "a.txt").write_bytes(DATA)  # trashed earlier: same name, size and bytes
    journal, (copy,) = _trash_copies(tmp_path, "a.txt")
    assert (mac.folder / "a 2.txt").exists()
    moved = (mac.folder / "a 2.txt").stat().st_ino
    assert _reasons(journal) == [("restored", None)]
    assert copy.stat().st_ino == moved
    assert (mac.folder / "a.txt").read_bytes() == DATA  # the earlier one stays


def test_a_file_changed_in_the_mac_trash_stays_there(tmp_path: Path, mac: MacTrash) -> None:
    journal, (copy,) = _trash_copies(tmp_path, "a.txt")
    (mac.folder / "a.txt").write_bytes(DATA.upper())
    assert _reasons(journal) == [
        ("failed", "in the trash, but not with the bytes it was trashed with; left there")
    ]
    assert not copy.exists()


def test_an_emptied_mac_trash_says_so(tmp_path: Path, mac: MacTrash) -> None:
    journal, _ = _trash_copies(tmp_path, "a.txt")
    (mac.folder / "a.txt").unlink()
    assert _reasons(journal) == [("failed", "not found in the trash (emptied?)")]
    assert os.listdir(mac.folder) == []
