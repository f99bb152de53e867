"""Plan and apply on real files in a temporary folder; the trash is the sandboxed XDG one."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from dupfinder.core.actions import Action, ActionKind, make_plan
from dupfinder.core.actions import apply as apply_module
from dupfinder.core.actions import trash as trash_module
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.trash import TrashEntry, TrashUnavailable
from dupfinder.core.errors import ActionError
from dupfinder.core.model import Fingerprint, Group, Kind, Member, Progress, ScanResult

TRASH_FILES = Path(os.environ["XDG_DATA_HOME"]) / "Trash" / "files"


def make(path: Path, data: bytes, mtime: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def as_member(path: Path, fingerprint: int = 0xABC) -> Member:
    st = path.stat()
    return Member(str(path), st.st_size, st.st_mtime_ns, 0, Fingerprint(Kind.TEXT, fingerprint))


def result_of(*groups: list[Path]) -> ScanResult:
    return ScanResult(tuple(Group(Kind.TEXT, tuple(as_member(p) for p in g)) for g in groups))


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal.jsonl")


@pytest.fixture
def trio(tmp_path: Path) -> list[Path]:
    root = tmp_path / "files"
    return [
        make(root / "keep.txt", b"same words", 1_000_000),
        make(root / "a" / "copy1.txt", b"same words", 2_000_000),
        make(root / "b" / "copy2.txt", b"same words", 3_000_000),
    ]


def test_plan_counts_and_keeps_without_touching_files(trio: list[Path]) -> None:
    result = result_of(trio)
    plan = make_plan(result, {str(trio[1]), str(trio[2]), "/not/in/result"})
    assert [f.path for f in plan.files] == [str(trio[1]), str(trio[2])]
    assert [m.path for m in plan.kept] == [str(trio[0])]
    assert plan.bytes_reclaimed == 2 * len(b"same words")
    assert "trash" in plan.confirmation_text()
    assert all(p.exists() for p in trio)


def test_plan_refuses_every_member_unless_forced(trio: list[Path], journal: Journal) -> None:
    result = result_of(trio)
    everything = {str(p) for p in trio}
    with pytest.raises(ActionError, match="every member of group"):
        make_plan(result, everything)
    with pytest.raises(ActionError, match="link needs a kept file"):
        make_plan(result, everything, Action(ActionKind.HARDLINK), force_all=True)
    plan = make_plan(result, everything, force_all=True)
    assert "forced" in plan.confirmation_text()
    report = apply(plan, journal=journal)
    assert report.ok
    assert not any(p.exists() for p in trio)


def test_trash_moves_files_to_the_trash_and_journals_them(
    trio: list[Path], journal: Journal
) -> None:
    plan = make_plan(result_of(trio), {str(trio[1]), str(trio[2])})
    seen: list[Progress] = []
    report = apply(plan, journal=journal, progress=seen.append)
    assert report.ok
    assert [o.status for o in report.outcomes] == ["done", "done"]
    assert report.bytes_done == 2 * len(b"same words")
    assert trio[0].exists()
    assert not trio[1].exists()
    assert not trio[2].exists()
    summary = journal.find(report.session)
    assert summary is not None
    assert [f.state for f in summary.files] == ["done", "done"]
    for item in summary.files:
        assert item.outcome is not None
        entry = Path(str(item.outcome.trash_entry))
        assert entry.parent == TRASH_FILES
        assert entry.read_bytes() == b"same words"
    assert seen
    assert seen[-1].done == seen[-1].total == 2


def test_file_changed_after_the_scan_is_skipped(trio: list[Path], journal: Journal) -> None:
    result = result_of(trio)
    trio[1].write_bytes(b"same words, and more")  # size changed
    os.utime(trio[2], ns=(5, 5))  # only the mtime changed
    report = apply(make_plan(result, {str(trio[1]), str(trio[2])}), journal=journal)
    assert not report.ok
    assert [(o.status, o.reason) for o in report.outcomes] == [
        ("skipped", "changed since the scan"),
        ("skipped", "changed since the scan"),
    ]
    assert trio[1].read_bytes() == b"same words, and more"
    assert trio[2].exists()


def test_vanished_file_is_reported_and_others_carry_on(trio: list[Path], journal: Journal) -> None:
    result = result_of(trio)
    trio[1].unlink()
    report = apply(make_plan(result, {str(trio[1]), str(trio[2])}), journal=journal)
    assert [(o.status, o.reason) for o in report.outcomes] == [
        ("skipped", "vanished"),
        ("done", None),
    ]
    assert not trio[2].exists()


def test_group_whose_kept_file_vanished_is_left_alone(trio: list[Path], journal: Journal) -> None:
    result = result_of(trio)
    trio[0].unlink()
    report = apply(make_plan(result, {str(trio[1]), str(trio[2])}), journal=journal)
    assert {o.status for o in report.outcomes} == {"skipped"}
    assert "no kept file" in str(report.outcomes[0].reason)
    assert trio[1].exists()
    assert trio[2].exists()


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (TrashUnavailable(errno.EACCES, "no trash", "/vol"), "no trash on that volume"),
        (OSError(errno.EROFS, "Read-only file system"), "read-only filesystem"),
        (PermissionError(errno.EACCES, "Permission denied"), "permission denied"),
    ],
)
def test_trash_problems_are_collected_per_file(
    trio: list[Path], journal: Journal, monkeypatch: pytest.MonkeyPatch, error: OSError, reason: str
) -> None:
    real = trash_module.send_to_trash

    def refuse_first(
        path: str, entry: TrashEntry | None = None, **kwargs: Any
    ) -> TrashEntry | None:
        if kwargs.get("original", path) == str(trio[1]):
            raise error
        return real(path, entry, **kwargs)

    monkeypatch.setattr(apply_module, "send_to_trash", refuse_first)
    report = apply(make_plan(result_of(trio), {str(trio[1]), str(trio[2])}), journal=journal)
    assert [(o.status, o.reason) for o in report.outcomes] == [("failed", reason), ("done", None)]
    assert trio[1].read_bytes() == b"same words"
    assert not trio[2].exists()


def test_trash_that_leaves_the_file_is_not_success(
    trio: list[Path], journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(apply_module, "send_to_trash", lambda path, entry=None, **_: None)
    report = apply(make_plan(result_of(trio), {str(trio[1])}), journal=journal)
    assert report.outcomes[0].status == "failed"
    assert "still in place" in str(report.outcomes[0].reason)


def test_move_keeps_relative_paths_and_never_overwrites(
    tmp_path: Path, trio: list[Path], journal: Journal
) -> None:
    dest = tmp_path / "moved"
    taken = make(dest / "a" / "copy1.txt", b"someone else's file")
    plan = make_plan(result_of(trio), {str(trio[1]), str(trio[2])}, Action.parse(f"move:{dest}"))
    assert plan.root == str(tmp_path / "files")
    report = apply(plan, journal=journal)
    assert report.ok
    assert taken.read_bytes() == b"someone else's file"
    assert (dest / "a" / "copy1 (1).txt").read_bytes() == b"same words"
    assert (dest / "b" / "copy2.txt").read_bytes() == b"same words"
    assert [o.dest for o in report.outcomes] == [
        str(dest / "a" / "copy1 (1).txt"),
        str(dest / "b" / "copy2.txt"),
    ]
    assert not trio[1].exists()
    assert not trio[2].exists()


def test_move_relative_to_given_scan_roots(tmp_path: Path, trio: list[Path]) -> None:
    plan = make_plan(
        result_of(trio), {str(trio[1])}, Action.parse(f"move:{tmp_path}/m"), roots=[tmp_path]
    )
    assert plan.files[0].dest == str(tmp_path / "m" / "files" / "a" / "copy1.txt")


@pytest.mark.parametrize("kind", [ActionKind.HARDLINK, ActionKind.SYMLINK])
def test_links_replace_the_copies(trio: list[Path], journal: Journal, kind: ActionKind) -> None:
    report = apply(
        make_plan(result_of(trio), {str(trio[1]), str(trio[2])}, Action(kind)), journal=journal
    )
    assert report.ok
    for copy in trio[1:]:
        assert copy.read_bytes() == b"same words"
        if kind is ActionKind.HARDLINK:
            assert copy.stat().st_ino == trio[0].stat().st_ino
        else:
            assert copy.is_symlink()
            assert os.readlink(copy) == str(trio[0])
    assert not [p for p in trio[0].parent.rglob(".*.tmp")]
    again = apply(
        make_plan(result_of(trio[:2]), {str(trio[1])}, Action(ActionKind.HARDLINK)),
        journal=journal,
    )
    if kind is ActionKind.HARDLINK:
        reason = str(again.outcomes[0].reason)
        assert again.outcomes[0].status == "skipped"
        assert reason.endswith("is this same file under another path)")


def test_link_failing_half_way_leaves_the_original_intact(
    trio: list[Path], journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests run as root, which ignores permission bits: making the link is made to fail by
    monkeypatching os.link, after the original was taken away under a private name."""
    before = trio[1].stat()
    real_link = os.link

    def denied(src: str, dst: str, **kwargs: object) -> None:
        if str(src).startswith("/proc/self/fd/") or src == str(trio[0]):
            assert not trio[1].exists()  # the original is claimed: its name is free
            raise PermissionError(errno.EACCES, "Permission denied", dst)
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", denied)
    report = apply(
        make_plan(result_of(trio), {str(trio[1])}, Action(ActionKind.HARDLINK)), journal=journal
    )
    assert [(o.status, o.reason) for o in report.outcomes] == [("failed", "permission denied")]
    after = trio[1].stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    assert trio[1].read_bytes() == b"same words"
    assert sorted(p.name for p in trio[1].parent.iterdir()) == ["copy1.txt"]


def test_cross_device_hard_link_is_a_per_file_problem(
    trio: list[Path], journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cross(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", cross)
    report = apply(
        make_plan(result_of(trio), {str(trio[1]), str(trio[2])}, Action(ActionKind.HARDLINK)),
        journal=journal,
    )
    assert [o.reason for o in report.outcomes] == ["the kept file is on another device"] * 2
    assert trio[1].read_bytes() == trio[2].read_bytes() == b"same words"


def test_kept_file_changed_blocks_its_links(trio: list[Path], journal: Journal) -> None:
    result = result_of(trio)
    trio[0].write_bytes(b"edited since")
    trio[2].write_bytes(b"edited too")
    report = apply(
        make_plan(result, {str(trio[1])}, Action(ActionKind.SYMLINK), force_all=True),
        journal=journal,
    )
    assert report.outcomes[0].status == "skipped"
    assert not trio[1].is_symlink()


def test_permanent_delete_says_so_and_deletes(trio: list[Path], journal: Journal) -> None:
    plan = make_plan(result_of(trio), {str(trio[2])}, Action.parse("delete"))
    assert "cannot be undone" in plan.confirmation_text()
    assert apply(plan, journal=journal).ok
    assert not trio[2].exists()


def test_cancel_skips_the_rest(trio: list[Path], journal: Journal) -> None:
    cancel = threading.Event()
    cancel.set()
    report = apply(make_plan(result_of(trio), {str(trio[1])}), journal=journal, cancel=cancel)
    assert report.cancelled
    assert not report.ok
    assert report.outcomes[0].reason == "cancelled"
    assert trio[1].exists()


def test_action_parsing() -> None:
    assert Action.parse("trash") == Action()
    assert Action.parse("move:/x/y") == Action(ActionKind.MOVE, "/x/y")
    for bad in ("shred", "move:", "trash:/x"):
        with pytest.raises(ValueError):  # noqa: PT011 - each has its own message
            Action.parse(bad)
