"""The actions where folders cannot be opened as descriptors (Windows), simulated here.

Without ``dir_fd`` a folder is held open as a handle and each step finds the folder's path
again from it, checks it still leads to that very folder, and opens files only after their
name's identity is compared before and after the open. Here Linux plays that part: the
folder is an ``O_DIRECTORY`` descriptor whose path is read from ``/proc/self/fd``, and every
relative call goes through a path. The undo suite and the proof suite's
in-process tests then run again in that mode.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# run again here without descriptors for folders (pytest collects what a module holds)
from test_safety_proof import (  # noqa: F401
    test_a_content_change_planted_between_plan_and_act_is_always_caught,
    test_a_dotdot_through_a_link_acts_on_the_file_the_system_names,
    test_a_file_claimed_by_a_killed_run_gets_its_name_back,
    test_a_hard_link_never_replaces_the_copy_with_a_rewritten_kept_file,
    test_a_kept_file_rewritten_during_the_act_gets_the_copy_put_back,
    test_a_name_swapped_between_the_proof_and_the_delete_is_given_back,
    test_a_name_swapped_between_the_proof_and_the_trash_is_put_back,
    test_a_near_duplicate_proven_now_is_removed,
    test_a_results_file_calling_two_different_documents_near_duplicates_removes_nothing,
)
from test_undo_identity import (  # noqa: F401
    journal,
    test_a_file_rewritten_in_the_trash_under_the_same_inode_is_never_restored,
    test_a_folder_reached_through_a_link_all_along_is_that_folder,
    test_a_folder_removed_since_is_made_again,
    test_a_move_into_a_linked_folder_is_undone,
    test_a_moved_file_edited_since_goes_back_when_the_user_says_so,
    test_a_moved_file_edited_since_is_left_where_it_is_and_said_so,
    test_an_old_journal_without_digests_still_undoes,
    test_another_file_at_the_destination_is_never_moved_back,
    test_another_file_put_at_the_trash_entry_is_never_restored,
    test_the_trashed_file_comes_back_through_apply_and_undo,
    test_undo_keeps_a_made_folder_that_holds_something_else,
    test_undo_never_restores_into_another_folder_put_in_its_place,
    test_undo_never_restores_through_a_link_that_replaced_the_folder,
    test_undo_of_a_move_removes_the_empty_folders_the_move_made,
)

from dupfinder.core.actions import folders, trash
from dupfinder.core.actions.putback import Expected, put_back

ROOT = Path(__file__).resolve().parents[3]


def _pinned(path: str, nofollow: bool) -> int:
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | (os.O_NOFOLLOW if nofollow else 0))


@pytest.fixture(autouse=True)
def without_folder_fds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folders, "FOLDER_FDS", False)
    monkeypatch.setattr(folders, "_open_pinned", _pinned)
    monkeypatch.setattr(folders, "_path_of", lambda fd: os.readlink(f"/proc/self/fd/{fd}"))


def test_a_symbolic_link_is_never_opened_as_the_file(tmp_path: Path) -> None:
    (tmp_path / "real").write_bytes(b"words")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    folder = folders.open_dir(str(tmp_path))
    try:
        with pytest.raises(OSError, match="a symbolic link") as raised:
            folders.open_file_at(folder, "link", os.O_RDONLY)
        assert raised.value.errno == errno.ELOOP
        fd = folders.open_file_at(folder, "real", os.O_RDONLY)
        assert os.read(fd, 10) == b"words"
        os.close(fd)
    finally:
        os.close(folder)


def test_a_name_swapped_while_it_is_opened_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_bytes(b"proven")
    (tmp_path / "other").write_bytes(b"planted")
    folder = folders.open_dir(str(tmp_path))
    real_open = os.open

    def swap_then_open(path: str, flags: int, mode: int = 0o777) -> int:
        os.replace(tmp_path / "other", tmp_path / "file")  # between the look and the open
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", swap_then_open)
    try:
        with pytest.raises(OSError, match="replaced while it was opened"):
            folders.open_file_at(folder, "file", os.O_RDONLY)
    finally:
        os.close(folder)


def test_a_rename_never_replaces_a_file(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"a")
    (tmp_path / "b").write_bytes(b"b")
    folder = folders.open_dir(str(tmp_path))
    try:
        with pytest.raises(FileExistsError):
            folders.rename_noreplace(folder, "a", folder, "b")
        folders.rename_noreplace(folder, "a", folder, "c")
    finally:
        os.close(folder)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b", "c"]
    assert (tmp_path / "b").read_bytes() == b"b"


def test_a_folder_moved_while_held_is_still_the_folder_acted_in(tmp_path: Path) -> None:
    """What Windows gives by refusing the move: the held folder, wherever it is."""
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "file").write_bytes(b"x")
    folder = folders.open_dir(str(tmp_path / "here"))
    try:
        os.rename(tmp_path / "here", tmp_path / "moved")
        (tmp_path / "here").mkdir()  # another folder where it was
        (tmp_path / "here" / "file").write_bytes(b"another")
        folders.unlink_at(folder, "file")
    finally:
        os.close(folder)
    assert not (tmp_path / "moved" / "file").exists()
    assert (tmp_path / "here" / "file").read_bytes() == b"another"


def test_put_back_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "trash").mkdir()
    (tmp_path / "trash" / "doc").write_bytes(b"trashed")
    (tmp_path / "doc").write_bytes(b"a new file of that name")
    with pytest.raises(FileExistsError):
        put_back(str(tmp_path / "trash" / "doc"), str(tmp_path / "doc"), Expected())
    assert (tmp_path / "doc").read_bytes() == b"a new file of that name"
    assert (tmp_path / "trash" / "doc").read_bytes() == b"trashed"


def test_the_system_trash_takes_only_the_file_that_was_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """macOS and Windows: send2trash takes a path; it must still name the proven file."""
    import send2trash

    sent: list[str] = []
    monkeypatch.setattr(trash, "NATIVE_TRASH", False)
    monkeypatch.setattr(send2trash, "send2trash", sent.append)
    (tmp_path / "doc").write_bytes(b"proven")
    folder = folders.open_dir(str(tmp_path))
    try:
        os.rename(tmp_path / "doc", tmp_path / "elsewhere")
        (tmp_path / "doc").write_bytes(b"another file under its name")
        with pytest.raises(OSError, match="names another file"):
            trash.send_to_trash("elsewhere", original=str(tmp_path / "doc"), dir_fd=folder)
        assert sent == []
        trash.send_to_trash("doc", original=str(tmp_path / "doc"), dir_fd=folder)
        assert sent == [str(tmp_path / "doc")]
    finally:
        os.close(folder)


def test_the_actions_import_without_posix_calls() -> None:
    """Windows lacks these: importing the actions must not need them."""
    script = textwrap.dedent(
        """
        import os, signal, sys
        for name in ("O_DIRECTORY", "O_NOFOLLOW", "O_CLOEXEC", "O_NONBLOCK", "getuid",
                     "pread", "fchmod", "fchown", "nice"):
            if hasattr(os, name):
                delattr(os, name)
        delattr(signal, "setitimer")
        os.supports_dir_fd = set()
        sys.modules["fcntl"] = None
        sys.modules["pwd"] = None
        import dupfinder.core.actions.apply, dupfinder.core.actions.undo
        import dupfinder.core.actions.folders as folders
        import dupfinder.core.filesystem, dupfinder.core.fingerprints.worker
        assert not folders.FOLDER_FDS
        print("imported")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == "imported", done.stderr
