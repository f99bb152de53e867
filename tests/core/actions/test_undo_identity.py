"""Undo puts back only the very file it trashed or moved, into the very folder it came from.

The journal records each file's identity, content digest and folder identity before the
step; undo proves all three again before anything moves. Another file put where the trash
entry was, an inode number reused, a symbolic link in place of the folder, a moved file
edited since: each is refused with its reason, and nothing is overwritten.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from scan_helpers import one_group

from dupfinder.core.actions import Action, make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.fileops import FileStamp
from dupfinder.core.actions.journal import FileState, Intent, Journal, SessionKind
from dupfinder.core.actions.trash import plan_entry, send_to_trash
from dupfinder.core.actions.undo import undo
from dupfinder.core.fingerprints.digest import digest_stream
from dupfinder.core.model import ActionKind

DATA = b"the words of a file that was trashed"


def make(path: Path, data: bytes = DATA) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def digest(path: Path) -> str:
    with path.open("rb") as handle:
        return digest_stream(handle).hex()


def recorded_intent(journal_session_id: str, seq: int, op: ActionKind, path: Path) -> Intent:
    """What apply records before it acts: the stamp, the digest and the folder's identity."""
    folder = path.parent.stat()
    return Intent(
        journal_session_id,
        "",
        seq,
        op,
        str(path),
        FileStamp.read(path),
        digest=digest(path),
        parent_dev=folder.st_dev,
        parent_ino=folder.st_ino,
    )


def trash_by_hand(journal: Journal, path: Path, *, old: bool = False) -> Path:
    """Trash ``path`` and journal it as apply does (``old``: as journals before digests)."""
    with journal.session(SessionKind.APPLY, action="trash", files=1) as log:
        intent = recorded_intent(log.id, 0, ActionKind.TRASH, path)
        if old:
            intent = dataclasses.replace(intent, digest=None, parent_dev=None, parent_ino=None)
        entry = plan_entry(str(path))
        intent = dataclasses.replace(
            intent, trash_files=str(entry.files), trash_info=str(entry.info)
        )
        log.intent(intent)
        placed = send_to_trash(str(path), entry)
        assert placed is not None
        log.outcome(FileState.DONE, 0, ActionKind.TRASH, str(path), trash_entry=str(placed.files))
    return placed.files


def move_by_hand(journal: Journal, path: Path, dest: Path) -> None:
    with journal.session(SessionKind.APPLY, action=f"move:{dest.parent}", files=1) as log:
        intent = dataclasses.replace(
            recorded_intent(log.id, 0, ActionKind.MOVE, path), dest=str(dest)
        )
        log.intent(intent)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.rename(path, dest)
        log.outcome(FileState.DONE, 0, ActionKind.MOVE, str(path), dest=str(dest))


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal.jsonl")


# --- the trash entry must be the file that was trashed ----------------------------------


def test_another_file_put_at_the_trash_entry_is_never_restored(
    tmp_path: Path, journal: Journal
) -> None:
    victim = make(tmp_path / "docs" / "a.txt")
    entry = trash_by_hand(journal, victim)
    st = entry.stat()
    other = b"the words of a file that WAS trashed"  # same size, other bytes
    planted = make(tmp_path / "planted.txt", other)
    os.utime(planted, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same date
    planted.rename(entry)  # made while the trashed file still held its inode: another one
    report = undo(journal=journal)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert "another file" in str(report.outcomes[0].reason)
    assert not victim.exists()
    assert entry.read_bytes() == other


def test_a_file_rewritten_in_the_trash_under_the_same_inode_is_never_restored(
    tmp_path: Path, journal: Journal
) -> None:
    """What inode reuse looks like: the same (device, inode), size and date, other bytes."""
    victim = make(tmp_path / "docs" / "a.txt")
    entry = trash_by_hand(journal, victim)
    st = entry.stat()
    with entry.open("r+b") as handle:
        handle.write(b"THE")
    os.utime(entry, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (entry.stat().st_ino, entry.stat().st_size) == (st.st_ino, st.st_size)
    report = undo(journal=journal)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert "other bytes" in str(report.outcomes[0].reason)
    assert not victim.exists()
    assert entry.exists()


def test_undo_never_restores_through_a_link_that_replaced_the_folder(
    tmp_path: Path, journal: Journal
) -> None:
    victim = make(tmp_path / "docs" / "a.txt")
    entry = trash_by_hand(journal, victim)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "docs").rename(tmp_path / "docs-old")
    (tmp_path / "docs").symlink_to(elsewhere)
    report = undo(journal=journal)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert "symbolic link" in str(report.outcomes[0].reason)
    assert list(elsewhere.iterdir()) == []
    assert entry.read_bytes() == DATA


def test_undo_never_restores_into_another_folder_put_in_its_place(
    tmp_path: Path, journal: Journal
) -> None:
    victim = make(tmp_path / "docs" / "a.txt")
    entry = trash_by_hand(journal, victim)
    (tmp_path / "docs").rename(tmp_path / "docs-old")
    (tmp_path / "docs").mkdir()
    report = undo(journal=journal)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert "not the one it was in" in str(report.outcomes[0].reason)
    assert not victim.exists()
    assert entry.exists()


def test_a_folder_removed_since_is_made_again(tmp_path: Path, journal: Journal) -> None:
    victim = make(tmp_path / "docs" / "a.txt")
    trash_by_hand(journal, victim)
    (tmp_path / "docs").rmdir()
    assert undo(journal=journal).ok
    assert victim.read_bytes() == DATA


def test_an_old_journal_without_digests_still_undoes(tmp_path: Path, journal: Journal) -> None:
    victim = make(tmp_path / "docs" / "a.txt")
    trash_by_hand(journal, victim, old=True)
    report = undo(journal=journal)
    assert report.ok, report.outcomes
    assert victim.read_bytes() == DATA


def test_the_trashed_file_comes_back_through_apply_and_undo(tmp_path: Path) -> None:
    """End to end: apply records what undo proves."""
    journal = Journal(tmp_path / "journal.jsonl")
    keep, copy = make(tmp_path / "keep.txt"), make(tmp_path / "copies" / "a.txt")
    result = one_group((keep, copy))
    assert apply(make_plan(result, {str(copy)}), journal=journal).ok
    intent = journal.sessions()[-1].files[0].intent
    assert intent is not None
    assert intent.digest == digest(keep)
    assert (intent.parent_dev, intent.parent_ino) == (
        copy.parent.stat().st_dev,
        copy.parent.stat().st_ino,
    )
    assert undo(journal=journal).ok
    assert copy.read_bytes() == DATA


# --- a moved file -------------------------------------------------------------------------


def test_a_moved_file_edited_since_is_left_where_it_is_and_said_so(
    tmp_path: Path, journal: Journal
) -> None:
    victim = make(tmp_path / "docs" / "a.txt")
    dest = tmp_path / "moved" / "a.txt"
    move_by_hand(journal, victim, dest)
    with dest.open("ab") as handle:
        handle.write(b" and an edit made after the move")
    report = undo(journal=journal)
    assert [o.status for o in report.outcomes] == ["skipped"]
    assert "edited" in str(report.outcomes[0].reason)
    assert not report.ok
    assert not victim.exists()
    assert dest.exists()


def test_a_moved_file_edited_since_goes_back_when_the_user_says_so(
    tmp_path: Path, journal: Journal
) -> None:
    victim = make(tmp_path / "docs" / "a.txt")
    dest = tmp_path / "moved" / "a.txt"
    move_by_hand(journal, victim, dest)
    with dest.open("ab") as handle:
        handle.write(b" and an edit")
    report = undo(journal=journal, restore_edited=True)
    assert report.ok, report.outcomes
    assert victim.read_bytes() == DATA + b" and an edit"
    assert not dest.exists()


def test_another_file_at_the_destination_is_never_moved_back(
    tmp_path: Path, journal: Journal
) -> None:
    victim = make(tmp_path / "docs" / "a.txt")
    dest = tmp_path / "moved" / "a.txt"
    move_by_hand(journal, victim, dest)
    make(tmp_path / "same.txt").rename(dest)  # the same bytes, another file
    for restore_edited in (False, True):
        report = undo(journal=journal, restore_edited=restore_edited)
        assert [o.status for o in report.outcomes] == ["failed"]
        assert "another file" in str(report.outcomes[0].reason)
        assert not victim.exists()


def test_undo_of_a_move_removes_the_empty_folders_the_move_made(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    keep = make(tmp_path / "src" / "keep.txt")
    copies = [make(tmp_path / "src" / "a" / "b" / "one.txt"), make(tmp_path / "src" / "two.txt")]
    existing = tmp_path / "dupes"
    existing.mkdir()
    (existing / "old.txt").write_text("was there before")
    result = one_group((keep, *copies))
    plan = make_plan(
        result,
        {str(p) for p in copies},
        Action.parse(f"move:{existing}/new"),
        roots=(str(tmp_path / "src"),),
    )
    report = apply(plan, journal=journal)
    assert report.ok, report.outcomes
    made = {Path(str(o.dest)).parent for o in report.outcomes}
    assert all(folder.is_dir() for folder in made)
    assert undo(journal=journal).ok
    assert all(p.read_bytes() == DATA for p in copies)
    assert sorted(p.name for p in existing.iterdir()) == ["old.txt"]  # dupes/new is gone


def test_undo_keeps_a_made_folder_that_holds_something_else(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    keep = make(tmp_path / "src" / "keep.txt")
    copy = make(tmp_path / "src" / "one.txt")
    result = one_group((keep, copy))
    target = tmp_path / "dupes" / "new"
    plan = make_plan(result, {str(copy)}, Action.parse(f"move:{target}"))
    report = apply(plan, journal=journal)
    assert report.ok, report.outcomes
    mine = Path(str(report.outcomes[0].dest)).parent / "mine.txt"
    mine.write_text("the user's own file, saved there since")
    assert undo(journal=journal).ok
    assert copy.read_bytes() == DATA
    assert mine.read_text() == "the user's own file, saved there since"


def test_a_folder_reached_through_a_link_all_along_is_that_folder(
    tmp_path: Path, journal: Journal
) -> None:
    """A scan through a linked folder (~/Documents -> /data/docs): trash and undo work there."""
    real = tmp_path / "data" / "docs"
    make(real / "a.txt")
    (tmp_path / "Documents").symlink_to(real)
    victim = tmp_path / "Documents" / "a.txt"
    trash_by_hand(journal, victim)
    assert not (real / "a.txt").exists()
    assert undo(journal=journal).ok
    assert (real / "a.txt").read_bytes() == DATA


def test_a_move_into_a_linked_folder_is_undone(tmp_path: Path, journal: Journal) -> None:
    victim = make(tmp_path / "docs" / "a.txt")
    big = tmp_path / "big-disk" / "dupes"
    big.mkdir(parents=True)
    (tmp_path / "dupes").symlink_to(big)
    move_by_hand(journal, victim, tmp_path / "dupes" / "a.txt")
    assert (big / "a.txt").exists()
    assert undo(journal=journal).ok
    assert victim.read_bytes() == DATA
