"""The journal stays cheap however long its history: apply, undo and the listing read only
the sessions they touch (through a small index beside the journal), old journals without an
index stay readable, and a journal path that is not a regular file is refused at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from scan_helpers import one_group

from dupfinder.core.actions import make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import FileState, Journal
from dupfinder.core.actions.undo import iter_sessions, undo
from dupfinder.core.errors import JournalReadError

SESSIONS = 200
FILES = 100


def old_journal(path: Path, sessions: int = SESSIONS, files: int = FILES) -> None:
    """A journal as versions before the index wrote it: one JSON line per record."""
    lines = []
    for s in range(sessions):
        sid = f"20250101-0000{s:04d}-abcdef"
        time = "2025-01-01T00:00:00+00:00"
        lines.append(
            {
                "type": "session",
                "session": sid,
                "time": time,
                "kind": "apply",
                "action": "trash",
                "files": files,
                "version": 2,
            }
        )
        for seq in range(files):
            path_ = f"/gone/{s}/{seq}.txt"
            lines.append(
                {
                    "type": "intent",
                    "session": sid,
                    "time": time,
                    "seq": seq,
                    "op": "trash",
                    "path": path_,
                    "dev": 1,
                    "ino": 1000 + seq,
                    "size": 10,
                    "mtime_ns": 1,
                }
            )
            lines.append(
                {
                    "type": "done",
                    "session": sid,
                    "time": time,
                    "seq": seq,
                    "op": "trash",
                    "path": path_,
                    "trash_entry": f"/gone/Trash/files/{s}-{seq}.txt",
                }
            )
        lines.append({"type": "end", "session": sid, "time": time})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def pair(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "keep.txt", folder / "copy.txt"]
    for path in paths:
        path.write_text("the same words in both")
    return paths


def test_apply_undo_and_the_listing_cost_what_they_touch(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    old_journal(path)
    history = SESSIONS * (2 * FILES + 2)
    first = Journal(path)
    assert first.find() is not None  # the first reader indexes the old journal, once
    assert first.records_read <= history + 2 * FILES + 10  # and the last session's records

    journal = Journal(path)  # a later run: only what it touches
    files = pair(tmp_path / "docs")
    assert apply(make_plan(one_group(files), {str(files[1])}), journal=journal).ok
    assert journal.records_read < 50
    assert undo(journal=journal).ok
    assert journal.records_read < 100
    assert files[1].exists()

    listing = Journal(path)
    sessions = list(iter_sessions(listing))
    assert len(sessions) == SESSIONS + 2
    assert listing.records_read < 50
    newest_apply = sessions[1]
    assert newest_apply.count(FileState.DONE) == 1
    assert newest_apply.undone
    assert sessions[-1].count(FileState.DONE) == FILES


def test_an_old_journal_without_an_index_reads_as_before(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    old_journal(path, sessions=3, files=2)
    journal = Journal(path)
    summaries = journal.sessions()
    assert [len(s.files) for s in summaries] == [2, 2, 2]
    last = journal.find()
    assert last is not None
    assert last.id == summaries[-1].id
    assert [f.state for f in last.files] == ["done", "done"]
    assert journal.find(summaries[0].id) is not None


@pytest.mark.parametrize("damage", ["removed", "garbage", "another journal's", "behind"])
def test_a_lost_or_stale_index_is_rebuilt_from_the_journal(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    ids = []
    for n in range(3):
        files = pair(tmp_path / f"docs{n}")
        ids.append(apply(make_plan(one_group(files), {str(files[1])}), journal=journal).session)
    index = journal.index_path
    assert index.is_file()
    if damage == "removed":
        index.unlink()
    elif damage == "garbage":
        index.write_bytes(b"\x00not an index at all\n{]\n")
    elif damage == "another journal's":
        other = tmp_path / "other.jsonl"
        old_journal(other, sessions=1, files=1)
        Journal(other).find()
        index.write_bytes(Journal(other).index_path.read_bytes())
    else:  # an older dupfinder appended a session the index does not know
        saved = index.read_bytes()
        files = pair(tmp_path / "docs3")
        ids.append(apply(make_plan(one_group(files), {str(files[1])}), journal=journal).session)
        index.write_bytes(saved)
    again = Journal(path)
    found = again.find()
    assert found is not None
    assert found.id == ids[-1]
    assert [s.id for s in iter_sessions(again)] == list(reversed(ids))
    assert undo(ids[0], journal=again).ok


def test_a_torn_last_line_does_not_swallow_the_next_session(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    files = pair(tmp_path / "a")
    assert apply(make_plan(one_group(files), {str(files[1])}), journal=journal).ok
    with path.open("a") as out:
        out.write('{"type": "intent", "sess')  # a crash in the middle of a line
    files = pair(tmp_path / "b")
    second = apply(make_plan(one_group(files), {str(files[1])}), journal=journal)
    assert second.ok
    found = Journal(path).find()
    assert found is not None
    assert found.id == second.session
    assert [f.state for f in found.files] == ["done"]


# --- what is not a journal ------------------------------------------------------------------


def run_with_journal(journal: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Read and write a journal at ``journal`` in a child process, so a hang cannot hang us."""
    code = textwrap.dedent(
        f"""
        from dupfinder.core.actions.journal import Journal, SessionKind
        from dupfinder.core.errors import JournalReadError, JournalWriteError
        journal = Journal({journal!r})
        try:
            journal.find()
        except JournalReadError as exc:
            print("read:", exc)
        try:
            journal.session(SessionKind.APPLY, action="trash")
        except JournalWriteError as exc:
            print("write:", exc)
        """
    )
    env = {**os.environ, "HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "folder"])
def test_a_journal_path_that_is_not_a_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        target = tmp_path / "journal.jsonl"
        os.mkfifo(target)
    elif kind == "folder":
        target = tmp_path / "journal.jsonl"
        target.mkdir()
    else:
        target = Path(kind)
    done = run_with_journal(str(target), tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stdout
    assert all("not a regular file" in line for line in lines), lines


def test_an_unreadable_journal_is_a_clear_error(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    journal.path.write_text("")

    def refused(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied", str(journal.path))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("dupfinder.core.actions.journal_index.os.open", refused)
        with pytest.raises(JournalReadError, match="permission denied"):
            journal.find()


def test_a_killed_run_is_read_for_the_listing_once(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    files = pair(tmp_path / "a")
    assert apply(make_plan(one_group(files), {str(files[1])}), journal=journal).ok
    killed = [
        {"type": "session", "session": "killed", "time": "", "kind": "apply", "version": 2},
        {
            "type": "intent",
            "session": "killed",
            "seq": 0,
            "op": "trash",
            "path": "/gone/x",
            "dev": 1,
            "ino": 2,
            "size": 3,
            "mtime_ns": 4,
        },
    ]
    with path.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in killed)
    files = pair(tmp_path / "b")
    assert apply(make_plan(one_group(files), {str(files[1])}), journal=journal).ok
    first = Journal(path)
    listed = {s.id: s for s in iter_sessions(first)}
    assert listed["killed"].count(FileState.INTERRUPTED) == 1
    assert first.records_read >= 2
    again = Journal(path)
    assert {s.id: s.count(FileState.INTERRUPTED) for s in iter_sessions(again)}["killed"] == 1
    assert again.records_read == 0
