"""Two runs of dupfinder (of any user) never act on one file at once: the proof locks the
file, and a file another run holds is skipped with that reason, left as it is."""

from __future__ import annotations

import os
from pathlib import Path

from test_safety_proof import document, group_of, member

from dupfinder.core.actions import make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.folders import lock_file
from dupfinder.core.actions.journal import Journal


def test_a_file_another_run_holds_is_left_alone(tmp_path: Path) -> None:
    keep, copy = tmp_path / "keep.txt", tmp_path / "copy.txt"
    keep.write_text(document(3))
    copy.write_text(document(3))
    plan = make_plan(group_of(member(keep, copy=True), member(copy, copy=True)), {str(copy)})
    held = os.open(copy, os.O_RDONLY)  # the other run's own handle on the file
    try:
        assert lock_file(held) is True
        report = apply(plan, journal=Journal(tmp_path / "journal.jsonl"))
    finally:
        os.close(held)
    assert [o.status for o in report.outcomes] == ["skipped"]
    assert "another dupfinder run is acting on it" in str(report.outcomes[0].reason)
    assert copy.read_text() == document(3)
    # once the other run is done, the same plan goes ahead
    report = apply(plan, journal=Journal(tmp_path / "journal.jsonl"))
    assert [o.status for o in report.outcomes] == ["done"]
    assert not copy.exists()
