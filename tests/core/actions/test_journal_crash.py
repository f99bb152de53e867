"""A process killed mid-apply leaves a journal that says what was done, and undo works."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.undo import undo
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult
from dupfinder.core.results.report import save_result

# Runs apply in a child process whose second trash call kills the process with SIGKILL, either
# right after the file went to the trash (before its "done" record) or just before.
CHILD = textwrap.dedent(
    """
    import json, os, signal, sys
    from dupfinder.core import actions
    from dupfinder.core.actions import apply as apply_module
    from dupfinder.core.actions.journal import Journal
    from dupfinder.core.results.report import load_result

    result, _ = load_result(sys.argv[1])
    real = apply_module.send_to_trash
    calls = []

    def trash_then_die(path, entry=None, **kwargs):
        calls.append(path)
        if len(calls) == 2 and sys.argv[4] == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        real(path, entry, **kwargs)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGKILL)

    apply_module.send_to_trash = trash_then_die
    plan = actions.make_plan(result, json.loads(sys.argv[2]))
    apply_module.apply(plan, journal=Journal(sys.argv[3]))
    """
)


@pytest.mark.parametrize("when", ["after", "before"])
def test_journal_survives_a_kill_mid_apply(tmp_path: Path, when: str) -> None:
    paths = []
    for number in range(4):
        path = tmp_path / "docs" / f"copy{number}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"the same report, word for word, in every copy of it\n" * 50)
        os.utime(path, (1_000 + number, 1_000 + number))
        paths.append(path)
    before = {p: p.read_bytes() for p in paths}
    members = []
    for path in paths:
        st = path.stat()
        members.append(Member(str(path), st.st_size, st.st_mtime_ns, 0, Fingerprint(Kind.TEXT, 9)))
    saved = tmp_path / "result.json"
    save_result(ScanResult((Group(Kind.TEXT, tuple(members)),)), saved)
    journal_path = tmp_path / "journal.jsonl"
    selection = [str(p) for p in paths[1:]]

    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(saved), json.dumps(selection), str(journal_path), when],
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr

    journal = Journal(journal_path)
    (session,) = journal.sessions()
    assert not session.ended
    assert [(f.path, f.state) for f in session.files] == [
        (str(paths[1]), "done"),
        (str(paths[2]), "interrupted"),
    ]
    assert not paths[1].exists()
    assert paths[2].exists() == (when == "before")  # the journal alone cannot say: undo looks
    assert paths[3].exists()  # never reached

    report = undo(journal=journal)
    assert report.ok, report.outcomes
    if when == "after":
        assert [o.path for o in report.restored] == [str(paths[1]), str(paths[2])]
    else:
        assert [(o.path, o.status) for o in report.outcomes] == [
            (str(paths[1]), "restored"),
            (str(paths[2]), "skipped"),
        ]
    assert {p: p.read_bytes() for p in paths} == before
    last = journal.find()
    assert last is not None
    assert last.restorable == ()  # everything accounted for
    assert "already undone" in str(undo(journal=journal).nothing)
    # no trash entry is left half made (a .trashinfo without its file)
    for item in session.files:
        assert item.intent is not None
        info, data = Path(str(item.intent.trash_info)), Path(str(item.intent.trash_files))
        assert info.exists() == data.exists()
