"""Every removal is proven at the moment of acting: the scenarios in which a file was lost
because a claim (the results file's, the kept file's state a moment ago, a path looked up
twice, a lock's scope, the inode number) was taken as proof."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dupfinder.cli import main
from dupfinder.core import filesystem
from dupfinder.core.actions import Action, ActionKind, make_plan
from dupfinder.core.actions import apply as apply_module
from dupfinder.core.actions import trash as trash_module
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.actions.proof import Proof, open_in_folder, same_file
from dupfinder.core.fingerprints.digest import digest_of
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult
from dupfinder.core.results.report import save_result

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def document(seed: int, words: int = 150) -> str:
    return " ".join(
        WORDS[(i * (seed + 3) + seed) % len(WORDS)] + str(i % (seed + 5)) for i in range(words)
    )


def member(path: Path, *, copy: bool = False, kind: Kind = Kind.TEXT) -> Member:
    st = path.stat()
    return Member(
        str(path),
        st.st_size,
        st.st_mtime_ns,
        0,
        Fingerprint(kind, 0xABC),
        dev=st.st_dev,
        ino=st.st_ino,
        ctime_ns=st.st_ctime_ns,
        content_hash=digest_of(path.read_bytes()).hex() if copy else None,
    )


def group_of(*members: Member) -> ScanResult:
    return ScanResult((Group(members[0].fingerprint.kind, members),))


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal.jsonl")


# --- file systems where an inode number does not name a file -------------------------------


@pytest.fixture
def exfat(tmp_path: Path) -> Iterator[Path]:
    """A real exFAT volume through FUSE on a loop device (root, exfat-fuse, /dev/fuse)."""
    tools = ("mount.exfat-fuse", "mkfs.exfat", "losetup", "umount")
    if os.geteuid() != 0 or not all(shutil.which(tool) for tool in tools):
        pytest.skip("needs root, exfat-fuse, exfatprogs and losetup")
    if not os.path.exists("/dev/fuse"):
        pytest.skip("no /dev/fuse here")
    image, mount = tmp_path / "card.img", tmp_path / "card"
    with open(image, "wb") as handle:
        handle.truncate(16 * 1024 * 1024)
    made = subprocess.run(["mkfs.exfat", str(image)], check=False, capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"mkfs.exfat failed: {made.stderr.decode().strip()}")
    loop = subprocess.run(["losetup", "-f", "--show", str(image)], capture_output=True, text=True)
    if loop.returncode != 0:
        pytest.skip(f"no loop device: {loop.stderr.strip()}")
    device = loop.stdout.strip()
    mount.mkdir()
    mounted = subprocess.run(["mount.exfat-fuse", device, str(mount)], capture_output=True)
    if mounted.returncode != 0:
        subprocess.run(["losetup", "-d", device], check=False)
        pytest.skip(f"exFAT could not be mounted: {mounted.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False, capture_output=True)
        subprocess.run(["losetup", "-d", device], check=False)


def test_two_spellings_of_one_folder_on_exfat_are_one_file_for_scan_and_delete(
    exfat: Path, tmp_path: Path
) -> None:
    photo = exfat / "DCIM" / "a.txt"
    photo.parent.mkdir()
    photo.write_text(document(1))
    before = photo.read_bytes()
    assert os.stat(exfat / "dcim" / "A.TXT").st_ino != os.stat(photo).st_ino  # the trap
    journal = str(tmp_path / "journal.jsonl")
    code, _, err = cli(
        "scan", str(exfat / "DCIM"), str(exfat / "dcim"), "--no-cache", "--jobs", "1",
        "--keep", "shortest-path", "--action", "delete", "--yes", "--journal", journal,
    )  # fmt: skip
    assert code == 0, err
    assert photo.read_bytes() == before


def test_a_results_file_naming_one_exfat_file_twice_is_never_acted_on(
    exfat: Path, journal: Journal
) -> None:
    photo = exfat / "DCIM" / "a.txt"
    photo.parent.mkdir()
    photo.write_text(document(2))
    other = exfat / "dcim" / "A.TXT"
    result = group_of(member(photo, copy=True), member(other, copy=True))
    for kind in (ActionKind.TRASH, ActionKind.DELETE, ActionKind.HARDLINK):
        report = apply(make_plan(result, {str(other)}, Action(kind)), journal=journal)
        assert [o.status for o in report.outcomes] == ["skipped"], report
        assert photo.read_text() == document(2)


def test_same_file_compares_spellings_where_inodes_do_not_name_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = tmp_path / "Photo.jpg", tmp_path / "other.jpg"
    a.write_bytes(b"x")
    b.write_bytes(b"x")
    first, second = open_in_folder(str(a)), open_in_folder(str(b))
    try:
        assert not same_file(first, second)
        monkeypatch.setattr(
            filesystem, "mounts", lambda: (filesystem.Mount(str(tmp_path), "vfat"),)
        )
        assert not filesystem.inodes_name_files(str(a))
        assert filesystem.spelling(str(a)) == filesystem.spelling(str(tmp_path / "PHOTO.JPG"))
        assert not same_file(first, second)  # two names, two files, whatever the case rule
    finally:
        first.close()
        second.close()


# --- the kept file rewritten while the apply runs -----------------------------------------


@pytest.mark.parametrize("kind", [ActionKind.TRASH, ActionKind.DELETE, ActionKind.MOVE])
def test_a_kept_file_rewritten_during_the_act_gets_the_copy_put_back(
    tmp_path: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch, kind: ActionKind
) -> None:
    keep, copy = tmp_path / "keep.txt", tmp_path / "copy.txt"
    keep.write_text(document(3))
    copy.write_text(document(3))
    original = copy.read_bytes()
    result = group_of(member(keep, copy=True), member(copy, copy=True))
    real = Proof.kept_intact

    def rewritten_meanwhile(self: Proof) -> str | None:
        keep.write_text("somebody saved other words over the kept file")
        return real(self)

    monkeypatch.setattr(Proof, "kept_intact", rewritten_meanwhile)
    action = Action(kind, str(tmp_path / "moved")) if kind is ActionKind.MOVE else Action(kind)
    report = apply(make_plan(result, {str(copy)}, action), journal=journal)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert "rewritten" in str(report.outcomes[0].reason)
    assert copy.read_bytes() == original  # the only copy of these bytes is back in place


def test_a_hard_link_never_replaces_the_copy_with_a_rewritten_kept_file(
    tmp_path: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    keep, copy = tmp_path / "keep.txt", tmp_path / "copy.txt"
    keep.write_text(document(4))
    copy.write_text(document(4))
    original = copy.read_bytes()
    result = group_of(member(keep, copy=True), member(copy, copy=True))
    real_link = os.link

    def rewrite_then_link(src: str, dst: str, **kwargs: object) -> None:
        if kwargs.get("dst_dir_fd") is not None and dst == "copy.txt":
            with open(keep, "r+b") as handle:  # in place: the inode the link will name
                handle.write(b"X" * 20)
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", rewrite_then_link)
    report = apply(make_plan(result, {str(copy)}, Action(ActionKind.HARDLINK)), journal=journal)
    assert [o.status for o in report.outcomes] == ["failed"], report
    assert copy.read_bytes() == original
    assert copy.stat().st_ino != keep.stat().st_ino


# --- a results file's word is no proof ------------------------------------------------------


def test_a_hand_edited_results_file_calling_a_unique_file_a_copy_removes_nothing(
    tmp_path: Path, journal: Journal
) -> None:
    (tmp_path / "kept").mkdir()
    keep, unique = tmp_path / "kept" / "keep.txt", tmp_path / "unique.txt"
    keep.write_text(document(5))
    unique.write_text(document(6))
    forged = dataclasses.replace(member(unique), content_hash=member(keep, copy=True).content_hash)
    saved = tmp_path / "forged.json"
    save_result(group_of(member(keep, copy=True), forged), saved)
    code, _, err = cli(
        "apply", str(saved), "--keep", f"in:{keep.parent}", "--action", "delete",
        "--yes", "--journal", str(journal.path),
    )  # fmt: skip
    assert unique.read_text() == document(6), err
    assert code != 0 or "skipped" in err


def test_a_results_file_calling_two_different_documents_near_duplicates_removes_nothing(
    tmp_path: Path, journal: Journal
) -> None:
    keep, other = tmp_path / "keep.txt", tmp_path / "other.txt"
    keep.write_text(document(7))
    other.write_text(document(8))
    report = apply(make_plan(group_of(member(keep), member(other)), {str(other)}), journal=journal)
    assert [o.status for o in report.outcomes] == ["skipped"]
    assert "similar now" in str(report.outcomes[0].reason)
    assert other.read_text() == document(8)


def test_a_near_duplicate_proven_now_is_removed(tmp_path: Path, journal: Journal) -> None:
    keep, edited = tmp_path / "keep.txt", tmp_path / "edited.txt"
    keep.write_text(document(9, 400))
    edited.write_text(document(9, 400) + " one more sentence at the end")
    report = apply(
        make_plan(group_of(member(keep), member(edited)), {str(edited)}), journal=journal
    )
    assert [o.status for o in report.outcomes] == ["done"], report


def test_a_dotdot_through_a_link_acts_on_the_file_the_system_names(
    tmp_path: Path, journal: Journal
) -> None:
    root, other = tmp_path / "root", tmp_path / "other"
    (other / "sub").mkdir(parents=True)
    root.mkdir()
    (root / "link").symlink_to(other / "sub")
    keep = root / "keep.txt"
    keep.write_text(document(10))
    lexical = root / "victim.txt"  # what text rules make of root/link/../victim.txt
    lexical.write_text(document(10))
    real = other / "victim.txt"  # what the system opens for it
    real.write_text(document(11))
    claimed = dataclasses.replace(
        member(lexical, copy=True), path=str(root / "link" / ".." / "victim.txt")
    )
    result = group_of(member(keep, copy=True), claimed)
    for kind in (ActionKind.TRASH, ActionKind.DELETE):
        report = apply(make_plan(result, {claimed.path}, Action(kind)), journal=journal)
        assert [o.status for o in report.outcomes] == ["skipped"], report
    assert real.read_text() == document(11)
    assert lexical.read_text() == document(10)


# --- check, then act by path ----------------------------------------------------------------


def test_a_name_swapped_between_the_proof_and_the_delete_is_given_back(
    tmp_path: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    keep, copy, unique = tmp_path / "keep.txt", tmp_path / "copy.txt", tmp_path / "unique.txt"
    keep.write_text(document(12))
    copy.write_text(document(12))
    unique.write_text(document(13))
    result = group_of(member(keep, copy=True), member(copy, copy=True))
    real_claim = apply_module._claim

    def swap_then_claim(folder: int, name: str, claim: str, proof: object) -> None:
        # what a renameat2(RENAME_EXCHANGE) by another process does between check and act
        os.rename(copy, tmp_path / "swap")
        os.rename(unique, copy)
        os.rename(tmp_path / "swap", unique)
        real_claim(folder, name, claim, proof)  # type: ignore[arg-type]

    monkeypatch.setattr(apply_module, "_claim", swap_then_claim)
    report = apply(make_plan(result, {str(copy)}, Action(ActionKind.DELETE)), journal=journal)
    assert [o.status for o in report.outcomes] == ["skipped"]
    assert "another file took its name" in str(report.outcomes[0].reason)
    assert sorted(p.read_text() for p in tmp_path.glob("*.txt")) == sorted(
        [document(12), document(12), document(13)]
    )


def test_a_name_swapped_between_the_proof_and_the_trash_is_put_back(
    tmp_path: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    keep, copy, unique = tmp_path / "keep.txt", tmp_path / "copy.txt", tmp_path / "unique.txt"
    keep.write_text(document(14))
    copy.write_text(document(14))
    unique.write_text(document(15))
    result = group_of(member(keep, copy=True), member(copy, copy=True))
    real_trash = trash_module.send_to_trash

    def swap_then_trash(path: str, entry: object = None, **kwargs: object) -> object:
        os.rename(copy, tmp_path / "swap")
        os.rename(unique, copy)
        os.rename(tmp_path / "swap", unique)
        return real_trash(path, entry, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(apply_module, "send_to_trash", swap_then_trash)
    report = apply(make_plan(result, {str(copy)}), journal=journal)
    assert [o.status for o in report.outcomes] in (["skipped"], ["failed"])
    contents = sorted(p.read_text() for p in tmp_path.glob("*.txt"))
    assert document(15) in contents  # the unique file is in place, not in the trash


# --- one lock per account, whatever the data folder -----------------------------------------

HOLD = textwrap.dedent(
    """
    import time
    from dupfinder.core.actions.lock import hold_action_lock
    with hold_action_lock():
        print("held", flush=True)
        time.sleep(30)
    """
)


def test_two_data_folders_still_take_turns(tmp_path: Path) -> None:
    (tmp_path / "kept").mkdir()
    keep, copy = tmp_path / "kept" / "keep.txt", tmp_path / "copy.txt"
    keep.write_text(document(16))
    copy.write_text(document(16))
    saved = tmp_path / "result.json"
    save_result(group_of(member(keep, copy=True), member(copy, copy=True)), saved)
    first = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data-a"))
    second = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data-b"))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True, env=first
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        runner = subprocess.Popen(
            [
                sys.executable, "-m", "dupfinder", "apply", str(saved), "--keep", f"in:{keep.parent}",
                "--action", "delete", "--yes", "--journal", str(tmp_path / "elsewhere.jsonl"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=second,
        )  # fmt: skip
        time.sleep(3)
        still_waiting = runner.poll() is None
        runner.kill()
        _, err = runner.communicate()
    finally:
        holder.kill()
        holder.communicate()
    assert still_waiting, err
    assert "another dupfinder apply or undo is running" in err
    assert copy.exists()


def test_a_lock_path_that_is_a_folder_is_a_message(tmp_path: Path, journal: Journal) -> None:
    from dupfinder.core.errors import ActionError

    keep, copy = tmp_path / "keep.txt", tmp_path / "copy.txt"
    keep.write_text("x" * 40)
    copy.write_text("x" * 40)
    (tmp_path / "lock").mkdir()
    plan = make_plan(group_of(member(keep, copy=True), member(copy, copy=True)), {str(copy)})
    with pytest.raises(ActionError, match="is a folder"):
        apply(plan, journal=journal, lock_path=tmp_path / "lock")
    assert copy.exists()


# --- the user's trash is never scanned ------------------------------------------------------


def test_a_hidden_scan_of_home_never_groups_the_trash_with_live_copies(tmp_path: Path) -> None:
    data = Path(os.environ["XDG_DATA_HOME"])
    trashed = data / "Trash" / "files" / "report.txt"
    trashed.parent.mkdir(parents=True, exist_ok=True)
    trashed.write_text(document(17))
    volume_trash = tmp_path / "vol" / f".Trash-{os.getuid()}" / "files" / "report.txt"
    volume_trash.parent.mkdir(parents=True)
    volume_trash.write_text(document(17))
    live = tmp_path / "vol" / "report.txt"
    live.write_text(document(17))
    with contextlib.suppress(FileExistsError):
        os.symlink(data, tmp_path / "vol" / "data-home")
    code, out, err = cli(
        "scan", str(tmp_path / "vol"), str(data), "--hidden", "--follow-symlinks", "--no-cache",
        "--jobs", "1", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert "Trash" not in out
    assert live.exists()


# --- one proof for every action ---------------------------------------------------------


def _plant(path: Path, text: str) -> None:
    """Other bytes of the same length, with the size and modification time put back."""
    st = path.stat()
    data = path.read_bytes()
    changed = (text.encode() * (len(data) // max(len(text), 1) + 1))[: len(data)]
    assert changed != data
    path.write_bytes(changed)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("kind", list(ActionKind))
@pytest.mark.parametrize("planted_in", ["copy", "kept"])
def test_a_content_change_planted_between_plan_and_act_is_always_caught(
    tmp_path: Path, journal: Journal, kind: ActionKind, planted_in: str
) -> None:
    keep, copy = tmp_path / "keep.txt", tmp_path / "copy.txt"
    keep.write_text(document(20))
    copy.write_text(document(20))
    result = group_of(member(keep, copy=True), member(copy, copy=True))
    action = Action(kind, str(tmp_path / "moved")) if kind is ActionKind.MOVE else Action(kind)
    plan = make_plan(result, {str(copy)}, action)
    _plant(copy if planted_in == "copy" else keep, "planted words ")
    before = {p.name: p.read_bytes() for p in (keep, copy)}
    report = apply(plan, journal=journal)
    assert [o.status for o in report.outcomes] == ["skipped"], report
    assert {p.name: p.read_bytes() for p in (keep, copy)} == before


KILL_AFTER_CLAIM = textwrap.dedent(
    """
    import json, os, signal, sys
    from dupfinder.core.actions import apply as A
    from dupfinder.core.actions import make_plan
    from dupfinder.core.actions.journal import Journal
    from dupfinder.core.results.report import load_result

    result, _ = load_result(sys.argv[1])
    real_claim = A._claim

    def claim_then_die(*args, **kwargs):
        real_claim(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)

    A._claim = claim_then_die
    plan = make_plan(result, {sys.argv[2]}, A.Action.parse(sys.argv[4]))
    A.apply(plan, journal=Journal(sys.argv[3]), lock_path=sys.argv[5])
    """
)


@pytest.mark.parametrize("action", ["delete", "hardlink"])
def test_a_file_claimed_by_a_killed_run_gets_its_name_back(
    tmp_path: Path, journal: Journal, action: str
) -> None:
    keep, copy = tmp_path / "keep.txt", tmp_path / "copy.txt"
    keep.write_text(document(21))
    copy.write_text(document(21))
    saved = tmp_path / "result.json"
    save_result(group_of(member(keep, copy=True), member(copy, copy=True)), saved)
    lock = tmp_path / "lock"
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            KILL_AFTER_CLAIM,
            str(saved),
            str(copy),
            str(journal.path),
            action,
            str(lock),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == -9, child.stderr
    assert not copy.exists()  # killed while the file was under its private name
    assert apply_module.restore_claims(journal) == 1
    assert copy.read_text() == document(21)
    assert not list(tmp_path.glob(".dupfinder-*"))
