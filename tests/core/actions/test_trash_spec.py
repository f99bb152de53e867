"""The trash as the freedesktop.org specification says: shared volumes, long names, bind mounts.

A trash folder on a shared volume is used only when it is safe: ``$topdir/.Trash`` sticky and
not a link, ``$uid`` in it and ``.Trash-$uid`` folders of this user, not links, that no one
else may write. A name near the 255-byte limit still goes to the trash, and a file reached
through a bind mount goes to the trash of that mount, by a rename, never a copy.
"""

from __future__ import annotations

import os
import stat
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from scan_helpers import one_group
from volumes import bind_mount, needs_mount, tmpfs_volume

from dupfinder.core.actions import Action, ActionKind, make_plan
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.trash import (
    TrashEntry,
    TrashUnavailable,
    plan_entry,
    restore,
    send_to_trash,
)

UID = os.getuid()
OTHER = 4242  # an account that is not this process's
HOME_TRASH = Path(os.environ["XDG_DATA_HOME"]) / "Trash"
LONG = "n" * 250 + ".txt"  # 254 bytes


def make(path: Path, data: bytes = b"some words to keep") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def info_path_line(entry: TrashEntry) -> str:
    for line in entry.info.read_text().splitlines():
        if line.startswith("Path="):
            return os.fsdecode(urllib.parse.unquote_to_bytes(line[5:]))
    raise AssertionError("no Path= line")


def everything_under(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*")) if folder.is_dir() else []


@pytest.fixture
def volume(tmp_path: Path) -> Iterator[Path]:
    """Another file system than the home trash's: files there go to its own trash."""
    with tmpfs_volume(tmp_path / "vol") as where:
        yield where


# --- $topdir/.Trash-$uid ------------------------------------------------------------------


@needs_mount
def test_a_trash_folder_another_account_planted_is_never_used(volume: Path) -> None:
    planted = volume / f".Trash-{UID}"
    planted.mkdir(mode=0o700)
    os.chown(planted, OTHER, OTHER)
    victim = make(volume / "docs" / "a.txt")
    with pytest.raises(TrashUnavailable, match="no trash on that volume"):
        send_to_trash(str(victim))
    assert victim.read_bytes() == b"some words to keep"
    assert everything_under(planted) == []


@needs_mount
def test_a_trash_folder_that_is_a_link_is_never_used(volume: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (volume / f".Trash-{UID}").symlink_to(elsewhere)
    victim = make(volume / "a.txt")
    with pytest.raises(TrashUnavailable):
        send_to_trash(str(victim))
    assert victim.exists()
    assert everything_under(elsewhere) == []


@needs_mount
def test_a_trash_folder_whose_files_folder_is_a_link_is_never_used(
    volume: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    own = volume / f".Trash-{UID}"
    own.mkdir(mode=0o700)
    (own / "files").symlink_to(elsewhere)
    victim = make(volume / "a.txt")
    with pytest.raises(TrashUnavailable):
        send_to_trash(str(victim))
    assert victim.exists()
    assert everything_under(elsewhere) == []


@needs_mount
def test_a_trash_folder_of_this_user_is_private_before_it_is_used(volume: Path) -> None:
    own = volume / f".Trash-{UID}"
    own.mkdir()
    os.chmod(own, 0o777)  # open to everyone, as an old tool may have left it
    victim = make(volume / "a.txt")
    entry = send_to_trash(str(victim))
    assert entry is not None
    assert entry.files.parent.parent == own
    assert stat.S_IMODE(own.lstat().st_mode) == 0o700
    assert info_path_line(entry) == "a.txt"  # relative to the volume's top folder


@needs_mount
def test_a_new_volume_trash_is_made_private(volume: Path) -> None:
    victim = make(volume / "sub" / "a.txt")
    entry = send_to_trash(str(victim))
    assert entry is not None
    own = volume / f".Trash-{UID}"
    assert entry.files == own / "files" / "a.txt"
    st = own.lstat()
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (UID, 0o700)
    assert info_path_line(entry) == "sub/a.txt"


# --- $topdir/.Trash/$uid ------------------------------------------------------------------


def shared_trash(volume: Path, *, sticky: bool = True) -> Path:
    shared = volume / ".Trash"
    shared.mkdir()
    os.chmod(shared, 0o1777 if sticky else 0o777)
    return shared


@needs_mount
def test_the_administrators_sticky_trash_is_used(volume: Path) -> None:
    shared = shared_trash(volume)
    entry = send_to_trash(str(make(volume / "a.txt")))
    assert entry is not None
    mine = shared / str(UID)
    assert entry.files == mine / "files" / "a.txt"
    assert stat.S_IMODE(mine.lstat().st_mode) == 0o700


@needs_mount
def test_a_shared_trash_without_the_sticky_bit_is_not_used(volume: Path) -> None:
    shared = shared_trash(volume, sticky=False)
    entry = send_to_trash(str(make(volume / "a.txt")))
    assert entry is not None
    assert entry.files.parent.parent == volume / f".Trash-{UID}"
    assert everything_under(shared) == []


@needs_mount
def test_a_shared_trash_that_is_a_link_is_not_used(volume: Path) -> None:
    real = volume / "real-trash"
    real.mkdir()
    os.chmod(real, 0o1777)
    (volume / ".Trash").symlink_to(real)
    entry = send_to_trash(str(make(volume / "a.txt")))
    assert entry is not None
    assert entry.files.parent.parent == volume / f".Trash-{UID}"
    assert everything_under(real) == []


@needs_mount
def test_a_user_folder_planted_in_the_shared_trash_is_not_used(volume: Path) -> None:
    shared = shared_trash(volume)
    planted = shared / str(UID)
    planted.mkdir(mode=0o700)
    os.chown(planted, OTHER, OTHER)
    entry = send_to_trash(str(make(volume / "a.txt")))
    assert entry is not None
    assert entry.files.parent.parent == volume / f".Trash-{UID}"
    assert everything_under(planted) == []


# --- names at the limit -------------------------------------------------------------------


def test_a_254_byte_name_goes_to_the_trash_and_comes_back(tmp_path: Path) -> None:
    victim = make(tmp_path / LONG)
    entry = plan_entry(str(victim))
    assert len(os.fsencode(entry.info.name)) <= 255
    assert entry.files.name.endswith(".txt")
    placed = send_to_trash(str(victim), entry)
    assert placed == entry
    assert not victim.exists()
    assert info_path_line(entry) == str(victim)  # the whole original path, not the short name
    restore(entry, str(victim))
    assert victim.read_bytes() == b"some words to keep"
    assert not entry.info.exists()


def test_long_names_that_are_taken_get_other_short_names(tmp_path: Path) -> None:
    first = send_to_trash(str(make(tmp_path / "a" / LONG)))
    second = send_to_trash(str(make(tmp_path / "b" / LONG)))
    assert first is not None
    assert second is not None
    assert first.files != second.files
    for entry in (first, second):
        assert len(os.fsencode(entry.info.name)) <= 255
        assert entry.files.exists()


def test_apply_trashes_a_file_with_a_254_byte_name(tmp_path: Path) -> None:
    keep = make(tmp_path / "keep.txt")
    copy = make(tmp_path / "copies" / LONG)
    result = one_group((keep, copy))
    plan = make_plan(result, {str(copy)}, Action(ActionKind.TRASH))
    report = apply(plan, journal=Journal(tmp_path / "journal.jsonl"))
    assert report.ok, report.outcomes
    assert not copy.exists()
    assert keep.exists()


# --- the original path ------------------------------------------------------------------


def test_the_info_file_records_the_original_path_given(tmp_path: Path) -> None:
    original = tmp_path / "photos" / "holiday.jpg"
    claimed = make(tmp_path / "photos" / ".dupfinder-0123456789abcdef.tmp")
    entry = plan_entry(str(original))
    placed = send_to_trash(str(claimed), entry, original=str(original))
    assert placed == entry
    assert entry.files.name == "holiday.jpg"
    assert info_path_line(entry) == str(original)
    assert not claimed.exists()


# --- bind mounts ------------------------------------------------------------------------


@needs_mount
def test_a_file_reached_through_a_bind_mount_is_trashed_on_that_mount(tmp_path: Path) -> None:
    real = tmp_path / "real"
    victim_real = make(real / "docs" / "a.txt")
    inode = victim_real.stat().st_ino
    with bind_mount(real, tmp_path / "bound") as bound:
        victim = bound / "docs" / "a.txt"
        assert victim.stat().st_dev == HOME_TRASH.parent.stat().st_dev  # the home's device
        entry = send_to_trash(str(victim))
        assert entry is not None
        assert entry.files.parent.parent == bound / f".Trash-{UID}"
        assert entry.files.stat().st_ino == inode  # renamed, never copied
        assert not victim.exists()
        assert info_path_line(entry) == "docs/a.txt"
        restore(entry, str(victim))
        assert victim.stat().st_ino == inode
    assert victim_real.read_bytes() == b"some words to keep"
