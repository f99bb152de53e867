"""Nothing is lost: each way a careful user or a fault could lose a file, tried end to end.

Every test here reproduces a way files were once lost or a user was misled, through the
command line or the core API, on real files in a temporary folder (the trash is the test
sandbox's). The slow and violent ones (SIGKILL, full disks, huge trashes) are in
``bench/fault_campaign.py``.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dupfinder.cli import main
from dupfinder.core.actions import Action, ActionKind, make_plan
from dupfinder.core.actions import trash as trash_module
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import Journal, JournalSession
from dupfinder.core.actions.undo import clear_leftovers, undo
from dupfinder.core.errors import JournalWriteError
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult
from dupfinder.core.results.report import save_result

HOLD_THE_LOCK = textwrap.dedent(
    """
    import sys, time
    from dupfinder.core.actions.lock import hold_action_lock
    with hold_action_lock(sys.argv[1] if len(sys.argv) > 1 else None):
        print("held", flush=True)
        time.sleep(60)
    """
)
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def document(seed: int, words: int = 120) -> str:
    return " ".join(
        WORDS[(i * (seed + 3) + seed) % len(WORDS)] + str(i % (seed + 5)) for i in range(words)
    )


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def member(path: Path, fingerprint: int = 0xABC) -> Member:
    st = path.stat()
    return Member(
        str(path),
        st.st_size,
        st.st_mtime_ns,
        0,
        Fingerprint(Kind.TEXT, fingerprint),
        dev=st.st_dev,
        ino=st.st_ino,
        ctime_ns=st.st_ctime_ns,
        links=st.st_nlink,
    )


def two_copies(folder: Path) -> list[Path]:
    """a.txt (older) and b.txt with the same words."""
    files = [folder / "a.txt", folder / "b.txt"]
    for i, f in enumerate(files):
        f.write_text("same words")
        os.utime(f, ns=(10**18 + i, 10**18 + i))
    return files


def pairs_result(pairs: list[tuple[Path, Path]]) -> ScanResult:
    return ScanResult(tuple(Group(Kind.TEXT, (member(a), member(b))) for a, b in pairs))


def test_a_folder_and_its_symlink_are_one_folder_for_scan_and_delete(tmp_path: Path) -> None:
    data = tmp_path / "X" / "data"
    data.mkdir(parents=True)
    for seed in range(3):
        (data / f"doc{seed}.txt").write_text(document(seed))
    (tmp_path / "X" / "link").symlink_to("data")
    journal = str(tmp_path / "journal.jsonl")
    argv = ["scan", str(data), str(tmp_path / "X" / "link"), "--no-cache", "--jobs", "1"]
    code, out, err = cli(
        *argv, "--keep", "shortest-path", "--action", "delete", "--yes", "--journal", journal
    )
    assert code == 0, err
    assert sorted(p.name for p in data.iterdir()) == ["doc0.txt", "doc1.txt", "doc2.txt"]
    assert "0 groups" in out or "Nothing to do" in out


def test_one_file_under_two_spellings_in_a_results_file_is_never_acted_on(tmp_path: Path) -> None:
    """A hand-made result lists X/data/a.txt and X/link/a.txt as a group: the same file."""
    data = tmp_path / "X" / "data"
    data.mkdir(parents=True)
    original = data / "a.txt"
    original.write_text(document(1))
    (tmp_path / "X" / "link").symlink_to("data")
    via_link = tmp_path / "X" / "link" / "a.txt"
    group = Group(Kind.TEXT, (member(original), _at(member(original), via_link)))
    saved = tmp_path / "res.json"
    save_result(ScanResult((group,)), saved)
    journal = str(tmp_path / "journal.jsonl")
    for keep in ("shortest-path", "oldest"):
        code, _, err = cli(
            "apply", str(saved), "--keep", keep, "--action", "delete", "--yes", "--journal", journal
        )
        assert code == 3, err
        assert "same file under another path" in err
    assert original.read_text() == document(1)


def _at(m: Member, path: Path) -> Member:
    return Member(
        str(path),
        m.size,
        m.mtime_ns,
        m.distance,
        m.fingerprint,
        dev=m.dev,
        ino=m.ino,
        ctime_ns=m.ctime_ns,
        links=m.links,
    )


def test_two_applies_at_once_never_empty_a_group(tmp_path: Path) -> None:
    """Two processes apply the same result with opposite keep rules at the same moment."""
    pairs = []
    for i in range(150):
        a, b = tmp_path / "d" / f"{i}-a.txt", tmp_path / "d" / f"{i}-b.txt"
        a.parent.mkdir(exist_ok=True)
        a.write_text(f"copy {i}")
        b.write_text(f"copy {i}")
        os.utime(a, ns=(10**18, 10**18 + i))
        os.utime(b, ns=(10**18, 10**18 + 10**6 + i))
        pairs.append((a, b))
    saved = tmp_path / "res.json"
    save_result(pairs_result(pairs), saved)
    script = textwrap.dedent(
        """
        import sys
        from dupfinder.cli import main
        sys.exit(main(["apply", sys.argv[1], "--keep", sys.argv[2], "--action", "delete",
                       "--yes", "--journal", sys.argv[3]]))
        """
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(saved), keep, str(tmp_path / f"j-{keep}.jsonl")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for keep in ("oldest", "newest")
    ]
    for proc in procs:
        proc.communicate(timeout=120)
    left = [sum(p.exists() for p in pair) for pair in pairs]
    assert min(left) == 1, f"{left.count(0)} groups lost every file"


def test_a_hard_link_over_different_bytes_of_the_same_size_is_refused(tmp_path: Path) -> None:
    text = document(2)
    original = tmp_path / "original.txt"
    original.write_text(text)
    os.utime(original, ns=(10**18, 10**18))
    edited = tmp_path / "edited.txt"
    edited.write_text(text.upper())  # same size, same SimHash after case folding
    result = ScanResult((Group(Kind.TEXT, (member(original), member(edited))),))
    saved = tmp_path / "res.json"
    save_result(result, saved)
    journal = str(tmp_path / "journal.jsonl")
    code, out, err = cli(
        "apply",
        str(saved),
        "--keep",
        "oldest",
        "--action",
        "hardlink",
        "--yes",
        "--journal",
        journal,
    )
    assert code == 3
    assert f"1 of them differ from the kept file ({edited})" in out
    assert "bytes differ" in err
    assert edited.read_text() == text.upper()
    code, out, err = cli(
        "apply",
        str(saved),
        "--keep",
        "oldest",
        "--action",
        "hardlink",
        "--yes",
        "--allow-different-content",
        "--journal",
        journal,
    )
    assert code == 0, err
    assert edited.stat().st_ino == original.stat().st_ino
    assert cli("undo", "--journal", journal)[0] == 0
    assert edited.read_text() == text.upper()
    assert edited.stat().st_ino != original.stat().st_ino


def test_a_file_rewritten_with_its_old_mtime_is_not_deleted(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    text = document(3)
    (folder / "a.txt").write_text(text)
    os.utime(folder / "a.txt", ns=(10**18, 10**18))
    (folder / "b.txt").write_text(text.replace("alpha", "ALPHA", 1))
    saved = tmp_path / "res.json"
    code, out, err = cli("scan", str(folder), "--no-cache", "--jobs", "1", "--format", "json")
    assert code == 0, err
    saved.write_text(out)
    target = folder / "b.txt"
    before = target.stat()
    target.write_text(document(7)[: before.st_size].ljust(before.st_size, "x"))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    journal = str(tmp_path / "journal.jsonl")
    code, _, err = cli(
        "apply", str(saved), "--keep", "oldest", "--action", "delete", "--yes", "--journal", journal
    )
    assert code == 3
    assert "rewritten" in err
    assert target.exists()


def test_keep_in_a_folder_given_through_a_symlink_protects_it(tmp_path: Path) -> None:
    originals = tmp_path / "originals"
    backup = tmp_path / "backup"
    for folder in (originals, backup):
        folder.mkdir()
        (folder / "report.txt").write_text(document(4))
    os.utime(originals / "report.txt", ns=(2 * 10**18, 2 * 10**18))  # newer: oldest would lose it
    (tmp_path / "refs").symlink_to("originals")
    journal = str(tmp_path / "journal.jsonl")
    scan = ["scan", str(tmp_path), "--no-cache", "--jobs", "1", "--journal", journal]
    code, _, err = cli(*scan, "--keep", f"in:{tmp_path / 'refs'}", "--keep", "oldest", "--yes")
    assert code == 0, err
    assert (originals / "report.txt").exists()
    assert not (backup / "report.txt").exists()


@pytest.mark.parametrize("folder", ["misspelt", "/usr"])
def test_keep_in_a_missing_or_outside_folder_is_a_usage_error(tmp_path: Path, folder: str) -> None:
    (tmp_path / "a.txt").write_text(document(5))
    (tmp_path / "b.txt").write_text(document(5))
    where = str(tmp_path / folder) if folder == "misspelt" else folder
    code, _, err = cli("scan", str(tmp_path), "--no-cache", "--keep", f"in:{where}", "--yes")
    assert code == 2
    assert "in:" in err
    assert (tmp_path / "a.txt").exists()
    assert (tmp_path / "b.txt").exists()


def test_names_that_are_not_utf8_survive_apply_and_undo(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path)
    paths = [os.fsdecode(folder + b"/caf\xe9-" + bytes([48 + i]) + b".txt") for i in range(2)]
    for i, path in enumerate(paths):
        Path(path).write_text("same words")
        os.utime(path, ns=(10**18 + i, 10**18 + i))
    journal = Journal(tmp_path / "journal.jsonl")
    report = apply(
        make_plan(pairs_result([(Path(paths[0]), Path(paths[1]))]), {paths[1]}), journal=journal
    )
    assert report.ok
    assert not os.path.exists(paths[1])
    assert undo(journal=journal).ok
    assert Path(paths[1]).read_text() == "same words"


def test_damaged_journal_records_are_skipped_with_a_message(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    files = two_copies(tmp_path)
    apply(make_plan(pairs_result([(files[0], files[1])]), {str(files[1])}), journal=journal)
    good = path.read_text()
    damaged = [
        {
            "type": "intent",
            "session": "x",
            "seq": 1,
            "op": "trash",
            "path": "/a",
            "size": 1,
            "mtime_ns": 1,
        },
        {
            "type": "intent",
            "session": "x",
            "seq": "2",
            "op": "trash",
            "path": "/b",
            "dev": 1,
            "ino": 1,
            "size": 1,
            "mtime_ns": 1,
        },
        {"type": "restored", "session": "y", "seq": 0, "path": "/c"},
        {
            "type": "intent",
            "session": "x",
            "seq": 3,
            "op": "trash",
            "path": None,
            "dev": 1,
            "ino": 1,
            "size": 1,
            "mtime_ns": 1,
        },
        ["not", "a", "record"],
    ]
    path.write_text("".join(json.dumps(d) + "\n" for d in damaged) + good + '{"type": "done", "ses')
    code, _, err = cli("undo", "--list", "--journal", str(path))
    assert code == 0
    assert err.count("skipped") == 6
    code, _out, err = cli("undo", "--journal", str(path))
    assert code == 0, err
    assert files[1].read_text() == "same words"
    assert not (tmp_path / "None").exists()


def test_a_journal_that_fails_mid_apply_stops_it_truthfully_and_undo_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = []
    for i in range(6):
        a, b = tmp_path / f"{i}a.txt", tmp_path / f"{i}b.txt"
        a.write_text(f"copy {i}")
        b.write_text(f"copy {i}")
        os.utime(b, ns=(10**18, 10**18))
        pairs.append((a, b))
    writes = {"left": 1 + 2 * 3}  # the session record, then three files' intent and outcome
    real_write = JournalSession.write

    def filling(self: JournalSession, record_type: object, **data: object) -> None:
        if writes["left"] <= 0:
            raise JournalWriteError(28, "cannot write the journal: no space left on the device")
        writes["left"] -= 1
        real_write(self, record_type, **data)  # type: ignore[arg-type]

    monkeypatch.setattr(JournalSession, "write", filling)
    journal = Journal(tmp_path / "journal.jsonl")
    report = apply(make_plan(pairs_result(pairs), {str(b) for _, b in pairs}), journal=journal)
    assert report.stopped is not None
    assert len(report.done) == 3
    assert sum(not b.exists() for _, b in pairs) == 3
    assert all("not touched" in str(o.reason) for o in report.skipped)
    monkeypatch.undo()
    assert undo(journal=journal).ok
    assert all(b.exists() for _, b in pairs)


def test_undo_undoes_the_last_session_then_says_nothing(tmp_path: Path) -> None:
    files = [tmp_path / n for n in ("a.txt", "b.txt", "c.txt")]
    for i, f in enumerate(files):
        f.write_text("same words")
        os.utime(f, ns=(10**18 + i, 10**18 + i))
    journal = Journal(tmp_path / "journal.jsonl")
    first = apply(make_plan(pairs_result([(files[0], files[1])]), {str(files[1])}), journal=journal)
    apply(
        make_plan(pairs_result([(files[0], files[2])]), {str(files[2])}, Action.parse("delete")),
        journal=journal,
    )
    report = undo(journal=journal)
    assert report.nothing is not None
    assert "cannot be restored" in report.nothing
    assert not files[1].exists()  # the older session is not reached into
    assert undo(first.session, journal=journal).ok
    assert files[1].exists()


def test_undo_of_a_link_restores_mode_and_owner(tmp_path: Path) -> None:
    kept, copy = tmp_path / "kept.txt", tmp_path / "copy.txt"
    for f in (kept, copy):
        f.write_text("same words")
    os.utime(kept, ns=(10**18, 10**18))
    os.chmod(copy, 0o600)
    if os.geteuid() == 0:
        os.chown(copy, 1234, 5678)
    before = copy.stat()
    journal = Journal(tmp_path / "journal.jsonl")
    plan = make_plan(pairs_result([(kept, copy)]), {str(copy)}, Action(ActionKind.HARDLINK))
    assert apply(plan, journal=journal).ok
    assert undo(journal=journal).ok
    after = copy.stat()
    assert (after.st_mode, after.st_uid, after.st_gid, after.st_mtime_ns) == (
        before.st_mode,
        before.st_uid,
        before.st_gid,
        before.st_mtime_ns,
    )


def test_trash_and_undo_never_list_the_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cost per file must not grow with the trash: no search of it, ever."""
    files = two_copies(tmp_path)

    def searched(*args: object) -> None:
        raise AssertionError("the trash was searched")

    monkeypatch.setattr(trash_module, "find_trash_entry", searched)
    monkeypatch.setattr("dupfinder.core.actions.undo.find_trash_entry", searched)
    journal = Journal(tmp_path / "journal.jsonl")
    assert apply(
        make_plan(pairs_result([(files[0], files[1])]), {str(files[1])}), journal=journal
    ).ok
    assert undo(journal=journal).ok
    assert files[1].exists()


def test_a_killed_run_leaves_nothing_behind_after_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed between the trash reservation and the rename, or mid-copy of a move."""
    files = two_copies(tmp_path)

    class Killed(BaseException):
        pass

    def killed(*args: object, **kwargs: object) -> None:
        raise Killed

    from dupfinder.core.actions import trash as trash_module

    monkeypatch.setattr(trash_module, "rename_noreplace", killed)
    journal = Journal(tmp_path / "journal.jsonl")
    with pytest.raises(Killed):
        apply(make_plan(pairs_result([(files[0], files[1])]), {str(files[1])}), journal=journal)
    monkeypatch.undo()
    intent = journal.sessions()[-1].files[0].intent
    assert intent is not None
    assert intent.trash_info is not None
    # a reservation made just before the kill, as the OS would leave it
    Path(intent.trash_info).write_text("[Trash Info]\n")
    assert clear_leftovers(journal) == 1
    assert not Path(intent.trash_info).exists()
    assert files[1].read_text() == "same words"


def test_the_plan_shows_the_move_destination_really_used(tmp_path: Path) -> None:
    files = [tmp_path / "src" / "a.txt", tmp_path / "src" / "b.txt"]
    for i, f in enumerate(files):
        f.parent.mkdir(exist_ok=True)
        f.write_text("same words")
        os.utime(f, ns=(10**18 + i, 10**18 + i))
    dest = tmp_path / "dest"
    (dest).mkdir()
    (dest / "b.txt").write_text("someone else's")
    saved = tmp_path / "res.json"
    save_result(pairs_result([(files[0], files[1])]), saved)
    code, out, _ = cli("apply", str(saved), "--keep", "oldest", "--action", f"move:{dest}")
    assert code == 0
    assert f"->  {dest / 'b (1).txt'}" in out
    plan = make_plan(
        pairs_result([(files[0], files[1])]), {str(files[1])}, Action.parse(f"move:{dest}")
    )
    assert plan.files[0].dest == str(dest / "b.txt")


def test_marks_spelt_differently_in_a_results_file_still_name_their_files(tmp_path: Path) -> None:
    files = two_copies(tmp_path)
    saved = tmp_path / "res.json"
    save_result(
        pairs_result([(files[0], files[1])]), saved, extra={"marks": [f"{tmp_path}/./b.txt"]}
    )
    journal = str(tmp_path / "journal.jsonl")
    code, _, err = cli("apply", str(saved), "--yes", "--journal", journal)
    assert code == 0, err
    assert not files[1].exists()
    assert files[0].exists()


def test_the_app_confirmation_names_files_a_link_would_change(tmp_path: Path) -> None:
    from dupfinder.app.wording import plan_text
    from dupfinder.core.actions import compare_link_contents

    kept, edited = tmp_path / "kept.txt", tmp_path / "edited.txt"
    kept.write_text("same size text")
    edited.write_text("SAME SIZE TEXT")
    plan = make_plan(pairs_result([(kept, edited)]), {str(edited)}, Action(ActionKind.HARDLINK))
    text = plan_text(compare_link_contents(plan))
    assert "1 of them differ from the kept file" in text
    assert str(edited) in text


def test_an_apply_from_the_app_waits_for_another_one_and_says_so(tmp_path: Path) -> None:
    import threading

    from dupfinder.app.jobs import apply_job
    from dupfinder.core.errors import ActionBusy
    from dupfinder.core.model import Progress

    files = two_copies(tmp_path)
    plan = make_plan(pairs_result([(files[0], files[1])]), {str(files[1])})
    seen: list[Progress] = []
    cancel = threading.Event()

    def report(progress: Progress) -> None:
        seen.append(progress)
        cancel.set()  # the user presses Cancel while it waits

    from dupfinder.core.actions import lock

    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(lock.default_lock_path())],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ActionBusy, match="stopped waiting"):
            apply_job(plan, Journal(tmp_path / "j.jsonl"))(report, cancel)
    finally:
        holder.kill()
        holder.communicate()
    assert "another dupfinder apply or undo is running" in str(seen[0].current)
    assert files[1].exists()


def test_byte_identical_files_are_rechecked_by_their_bytes(tmp_path: Path) -> None:
    """A chmod moves the ctime but not the bytes: still acted on. A rewrite with its old
    mtime put back: skipped. Files that are neither documents nor pictures included."""
    folder = tmp_path / "bin"
    folder.mkdir()
    data = bytes(range(256)) * 64
    for i, name in enumerate(("a.bin", "b.bin", "c.bin", "d.bin")):
        (folder / name).write_bytes(data if i < 2 else data[::-1])
        os.utime(folder / name, ns=(10**18 + i, 10**18 + i))
    code, out, err = cli("scan", str(folder), "--no-cache", "--jobs", "1", "--format", "json")
    assert code == 0, err
    saved = tmp_path / "res.json"
    saved.write_text(out)
    os.chmod(folder / "b.bin", 0o600)
    before = (folder / "d.bin").stat()
    (folder / "d.bin").write_bytes(bytes(len(data)))
    os.utime(folder / "d.bin", ns=(before.st_atime_ns, before.st_mtime_ns))
    journal = str(tmp_path / "journal.jsonl")
    code, _, err = cli(
        "apply", str(saved), "--keep", "oldest", "--action", "delete", "--yes", "--journal", journal
    )
    assert code == 3, err
    assert not (folder / "b.bin").exists()
    assert (folder / "d.bin").exists()
    assert "rewritten" in err
