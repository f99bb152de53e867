"""The journal and undo: byte-identical restores, no overwriting, tolerance of a torn line."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from dupfinder.core.actions import Action, ActionKind, compare_link_contents, make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal, default_journal_path
from dupfinder.core.actions.undo import undo
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult

TRASH = Path(os.environ["XDG_DATA_HOME"]) / "Trash"


def make(path: Path, data: bytes, mtime: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))
    return path


def result_of(paths: list[Path]) -> ScanResult:
    members = []
    for path in paths:
        st = path.stat()
        members.append(Member(str(path), st.st_size, st.st_mtime_ns, 0, Fingerprint(Kind.TEXT, 1)))
    return ScanResult((Group(Kind.TEXT, tuple(members)),))


def snapshot(paths: list[Path]) -> dict[str, tuple[bytes, int]]:
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in paths}


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal.jsonl")


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    data = bytes(range(256)) * 40
    return [
        make(tmp_path / "d" / "keep.bin", data, 1_000),
        make(tmp_path / "d" / "x" / "copy.bin", data, 2_000),
        make(tmp_path / "d" / "y" / "copy.bin", data, 3_000),
    ]


def test_default_journal_is_in_the_user_data_dir() -> None:
    assert str(default_journal_path()).startswith(os.environ["XDG_DATA_HOME"])


def test_undo_trash_restores_byte_identical_files(files: list[Path], journal: Journal) -> None:
    before = snapshot(files)
    report = apply(make_plan(result_of(files), {str(files[1]), str(files[2])}), journal=journal)
    assert report.ok
    entries = [Path(str(f.outcome.trash_entry)) for f in journal.sessions()[-1].files]  # type: ignore[union-attr]
    files[1].parent.rmdir()  # the folder is gone too: undo recreates it
    restored = undo(journal=journal)
    assert restored.ok
    assert len(restored.restored) == 2
    assert snapshot(files) == before
    for entry in entries:
        assert not entry.exists()
        assert not (TRASH / "info" / f"{entry.name}.trashinfo").exists()
    assert "Nothing to undo" in str(undo(journal=journal).nothing)


def test_undo_move_restores_and_never_overwrites(
    tmp_path: Path, files: list[Path], journal: Journal
) -> None:
    before = snapshot(files)
    plan = make_plan(
        result_of(files), {str(files[1]), str(files[2])}, Action.parse(f"move:{tmp_path}/m")
    )
    assert apply(plan, journal=journal).ok
    files[2].write_bytes(b"a new file took its place")
    report = undo(journal=journal)
    assert [o.status for o in report.outcomes] == ["restored", "failed"]
    assert "already exists" in str(report.outcomes[1].reason)
    assert files[2].read_bytes() == b"a new file took its place"
    assert snapshot(files[:2]) == {k: before[k] for k in map(str, files[:2])}
    # after clearing the way, undo again finishes the job
    files[2].unlink()
    assert undo(journal=journal).ok
    assert snapshot(files) == before


def test_undo_hardlink_copies_the_kept_file_back_when_bytes_match(
    tmp_path: Path, files: list[Path], journal: Journal
) -> None:
    different = make(tmp_path / "d" / "near.bin", b"similar but not equal", 4_000)
    group = [*files[:2], different]
    before = snapshot(group)
    plan = make_plan(result_of(group), {str(files[1]), str(different)}, Action(ActionKind.HARDLINK))
    plan = compare_link_contents(plan)
    assert plan.different == (str(different),)
    assert str(different) in plan.confirmation_text()
    report = apply(plan, journal=journal)
    assert [o.status for o in report.outcomes] == ["done", "skipped"]
    assert "bytes differ" in str(report.outcomes[1].reason)
    assert different.read_bytes() == b"similar but not equal"
    undone = undo(journal=journal)
    assert [o.status for o in undone.outcomes] == ["restored"]
    assert snapshot(group) == before
    assert files[1].stat().st_ino != files[0].stat().st_ino


def test_a_link_over_different_bytes_when_allowed_keeps_the_original_for_undo(
    tmp_path: Path, files: list[Path], journal: Journal
) -> None:
    different = make(tmp_path / "d" / "near.bin", b"similar but not equal", 4_000)
    os.chmod(different, 0o600)
    group = [files[0], different]
    before = snapshot(group)
    plan = make_plan(result_of(group), {str(different)}, Action(ActionKind.HARDLINK))
    plan = compare_link_contents(plan, allow_different=True)
    assert "allowed" in plan.confirmation_text()
    assert apply(plan, journal=journal).ok
    assert different.stat().st_ino == files[0].stat().st_ino
    assert [o.status for o in undo(journal=journal).outcomes] == ["restored"]
    assert snapshot(group) == before
    assert different.stat().st_mode & 0o777 == 0o600


def test_permanent_delete_cannot_be_undone(files: list[Path], journal: Journal) -> None:
    assert apply(
        make_plan(result_of(files), {str(files[1])}, Action.parse("delete")), journal=journal
    ).ok
    report = undo(journal=journal)
    assert report.outcomes == ()
    assert "cannot be restored" in str(report.nothing)


def test_undo_a_given_session(files: list[Path], journal: Journal) -> None:
    first = apply(make_plan(result_of(files), {str(files[1])}), journal=journal)
    apply(make_plan(result_of([files[0], files[2]]), {str(files[2])}), journal=journal)
    report = undo(first.session, journal=journal)
    assert report.session == first.session
    assert files[1].exists()
    assert not files[2].exists()


def test_a_torn_last_line_is_ignored(files: list[Path], journal: Journal) -> None:
    apply(make_plan(result_of(files), {str(files[1])}), journal=journal)
    with journal.path.open("a", encoding="utf-8") as out:
        out.write('{"type": "intent", "sess')
    sessions = journal.sessions()
    assert [f.state for f in sessions[-1].files] == ["done"]
    assert all(json.loads(line) for line in journal.path.read_text().splitlines()[:-1])
    assert undo(journal=journal).ok


def test_undo_says_when_the_trash_was_emptied(files: list[Path], journal: Journal) -> None:
    assert apply(make_plan(result_of(files), {str(files[1])}), journal=journal).ok
    entry = Path(str(journal.sessions()[-1].files[0].outcome.trash_entry))  # type: ignore[union-attr]
    entry.unlink()
    report = undo(journal=journal)
    assert [(o.status, o.reason) for o in report.outcomes] == [
        ("failed", "not found in the trash (emptied?)")
    ]


def test_undo_never_replaces_a_file_put_where_a_link_was(
    files: list[Path], journal: Journal
) -> None:
    plan = make_plan(result_of(files), {str(files[1])}, Action(ActionKind.SYMLINK))
    assert apply(plan, journal=journal).ok
    files[1].unlink()
    files[1].write_bytes(b"the user's new file")
    report = undo(journal=journal)
    assert report.outcomes[0].status == "failed"
    assert files[1].read_bytes() == b"the user's new file"


def test_move_across_devices_copies_verifies_then_removes(
    tmp_path: Path, files: list[Path], journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second device is simulated: linking the original anywhere fails with EXDEV."""
    real_link = os.link

    def cross_device(src: str, dst: str, **kwargs: object) -> None:
        if src == str(files[1]):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    before = snapshot(files)
    monkeypatch.setattr(os, "link", cross_device)
    plan = make_plan(result_of(files), {str(files[1])}, Action.parse(f"move:{tmp_path}/m"))
    report = apply(plan, journal=journal)
    assert report.ok
    moved = Path(str(report.outcomes[0].dest))
    assert (moved.read_bytes(), moved.stat().st_mtime_ns) == before[str(files[1])]
    assert not files[1].exists()
    assert sorted(p.name for p in moved.parent.iterdir()) == ["copy.bin"]
    monkeypatch.undo()
    assert undo(journal=journal).ok
    assert snapshot(files) == before
