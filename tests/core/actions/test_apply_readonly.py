"""A really read-only folder, made with ``chattr +i`` (root ignores permission bits, not the
immutable flag); skipped where chattr is missing or the filesystem does not support it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from dupfinder.core.actions import Action, make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult


def chattr(flag: str, path: Path) -> bool:
    if shutil.which("chattr") is None:
        return False
    done = subprocess.run(["chattr", flag, str(path)], capture_output=True, check=False)
    return done.returncode == 0


@pytest.fixture
def frozen(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    kept = tmp_path / "kept.txt"
    kept.write_bytes(b"one text")
    folder = tmp_path / "frozen"
    folder.mkdir()
    copy = folder / "copy.txt"
    copy.write_bytes(b"one text")
    if not chattr("+i", folder):
        pytest.skip("chattr +i is not available here")
    try:
        yield kept, copy
    finally:
        chattr("-i", folder)


def result_of(*paths: Path) -> ScanResult:
    members = tuple(
        Member(str(p), p.stat().st_size, p.stat().st_mtime_ns, 0, Fingerprint(Kind.TEXT, 3))
        for p in paths
    )
    return ScanResult((Group(Kind.TEXT, members),))


@pytest.mark.parametrize("action", ["hardlink", "symlink", "trash", "delete"])
def test_read_only_folder_fails_per_file_and_keeps_the_original(
    tmp_path: Path, frozen: tuple[Path, Path], action: str
) -> None:
    kept, copy = frozen
    before = copy.stat()
    plan = make_plan(result_of(kept, copy), {str(copy)}, Action.parse(action))
    report = apply(plan, journal=Journal(tmp_path / "journal.jsonl"))
    assert [(o.status, o.reason) for o in report.outcomes] == [("failed", "permission denied")]
    after = copy.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    assert copy.read_bytes() == b"one text"
    assert os.listdir(copy.parent) == ["copy.txt"]
    if plan.action.kind.links:
        assert not copy.is_symlink()
