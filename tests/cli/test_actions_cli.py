"""The action commands: plan first, dry run by default, exit codes, apply/undo/ignore/decisions."""

from __future__ import annotations

import argparse
import io
import os
from pathlib import Path

import pytest

from dupfinder.cli.actions_cmd import add_action_options, register, run_actions
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult
from dupfinder.core.results.session import save_session

REPORT = (
    "Quarterly report on the regional water supply. The reservoir levels remained stable "
    "through the spring, while demand in the northern districts rose by four percent. "
    "Maintenance crews replaced two kilometres of old pipe and the new pumping station came "
    "online in May. Customer complaints fell for the third quarter in a row. "
) * 3
BREAD = (
    "A recipe for a simple bread: mix flour, water, salt and yeast, knead the dough for ten "
    "minutes, let it rise in a warm place for an hour, shape it into a loaf, let it rise again "
    "and bake in a hot oven until the crust is brown and the loaf sounds hollow when tapped. "
) * 3


def make_corpus(root: Path) -> dict[str, list[Path]]:
    """Two groups of three identical copies each; the middle copy is the oldest."""
    groups: dict[str, list[Path]] = {}
    for name, text in (("report", REPORT), ("bread", BREAD)):
        for number, age in enumerate((2_000_000, 1_000_000, 3_000_000)):
            path = root / name / f"{name}{number}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            os.utime(path, (age, age))
            groups.setdefault(name, []).append(path)
    return groups


def result_of(groups: dict[str, list[Path]]) -> ScanResult:
    built = []
    for value, paths in enumerate(groups.values()):
        members = tuple(
            Member(str(p), p.stat().st_size, p.stat().st_mtime_ns, 0, Fingerprint(Kind.TEXT, value))
            for p in paths
        )
        built.append(Group(Kind.TEXT, members))
    return ScanResult(tuple(built))


def action_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_action_options(parser)
    return parser.parse_args(argv)


def command(*argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="dupfinder")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    code = args.handler(args, out, err)
    return code, out.getvalue(), err.getvalue()


def run(result: ScanResult, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_actions(result, action_args(*argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def corpus(tmp_path: Path) -> dict[str, list[Path]]:
    return make_corpus(tmp_path / "corpus")


def existing(groups: dict[str, list[Path]]) -> dict[str, list[str]]:
    return {name: [p.name for p in paths if p.exists()] for name, paths in groups.items()}


def test_dry_run_is_the_default_and_prints_the_plan(
    tmp_path: Path, corpus: dict[str, list[Path]]
) -> None:
    code, out, _ = run(result_of(corpus), "--keep", "oldest", "--journal", str(tmp_path / "j"))
    assert code == 0
    assert f"keep     {corpus['report'][1]}" in out
    assert f"trash    {corpus['report'][0]}" in out
    assert "Dry run: nothing was changed" in out
    assert all(p.exists() for paths in corpus.values() for p in paths)
    assert not (tmp_path / "j").exists()


def test_yes_trashes_and_exit_code_zero(tmp_path: Path, corpus: dict[str, list[Path]]) -> None:
    journal = str(tmp_path / "j")
    code, out, err = run(result_of(corpus), "--keep", "oldest", "--yes", "--journal", journal)
    assert (code, err) == (0, "")
    assert "4 done" in out
    assert existing(corpus) == {"report": ["report1.txt"], "bread": ["bread1.txt"]}


def test_skipped_files_give_exit_code_3_with_reasons(
    tmp_path: Path, corpus: dict[str, list[Path]]
) -> None:
    result = result_of(corpus)
    corpus["bread"][2].write_text("changed", encoding="utf-8")
    code, out, err = run(result, "--keep", "oldest", "--yes", "--journal", str(tmp_path / "j"))
    assert code == 3
    assert f"skipped: {corpus['bread'][2]}: changed since the scan" in err
    assert "3 done" in out


def test_refused_and_unusable_requests(tmp_path: Path, corpus: dict[str, list[Path]]) -> None:
    result = result_of(corpus)
    code, _, err = run(result, "--action", "hardlink")
    assert code == 2
    assert "--keep" in err
    args = action_args("--yes", "--journal", str(tmp_path / "j"))
    args.marks = frozenset(str(p) for p in corpus["report"])
    err_io = io.StringIO()
    assert run_actions(result, args, io.StringIO(), err_io) == 2
    assert "refused" in err_io.getvalue()
    assert all(p.exists() for p in corpus["report"])
    with pytest.raises(SystemExit):
        action_args("--keep", "prettiest")
    with pytest.raises(SystemExit):
        action_args("--action", "shred")


def test_apply_saved_marks_then_undo(tmp_path: Path, corpus: dict[str, list[Path]]) -> None:
    before = {p: p.read_bytes() for paths in corpus.values() for p in paths}
    saved = tmp_path / "result.json"
    save_session(saved, result_of(corpus), {str(corpus["report"][0])})
    journal = str(tmp_path / "journal.jsonl")
    code, out, _ = command("apply", str(saved), "--yes", "--journal", journal)
    assert code == 0
    assert not corpus["report"][0].exists()
    code, out, _ = command("undo", "--list", "--journal", journal)
    assert code == 0
    assert "apply trash  1 done" in out
    code, out, _ = command("undo", "--journal", journal)
    assert code == 0
    assert "1 restored" in out
    assert {p: p.read_bytes() for p in before} == before
    assert command("undo", "--journal", journal)[1].endswith(
        "was already undone. Nothing to undo.\n"
    )
    assert command("undo", "--session", "nope", "--journal", journal)[0] == 2


def test_apply_without_marks_needs_keep(tmp_path: Path, corpus: dict[str, list[Path]]) -> None:
    saved = tmp_path / "result.json"
    save_session(saved, result_of(corpus))
    code, _, err = command("apply", str(saved))
    assert code == 2
    assert "no marks" in err


def test_ignored_group_is_never_acted_on(tmp_path: Path, corpus: dict[str, list[Path]]) -> None:
    saved = tmp_path / "result.json"
    save_session(saved, result_of(corpus))
    store = str(tmp_path / "decisions.json")
    assert command("ignore", str(saved), "--group", "1", "--decisions", store)[0] == 0
    code, out, _ = command(
        "apply",
        str(saved),
        "--keep",
        "oldest",
        "--decisions",
        store,
        "--yes",
        "--journal",
        str(tmp_path / "j"),
    )
    assert code == 0
    assert existing(corpus)["report"] == ["report0.txt", "report1.txt", "report2.txt"]
    assert existing(corpus)["bread"] == ["bread1.txt"]
    pair = [str(corpus["bread"][0]), str(corpus["bread"][1])]
    assert command("ignore", str(saved), "--pair", *pair, "--decisions", store)[0] == 0
    code, out, _ = command("decisions", "list", "--decisions", store)
    assert out.startswith("1. group")
    assert "2. pair" in out
    assert command("decisions", "clear", "--decisions", store)[1] == "Forgot 2 decision(s).\n"
    assert command("ignore", str(saved), "--group", "9", "--decisions", store)[0] == 2


def test_scan_keep_oldest_trash_then_undo_end_to_end(tmp_path: Path) -> None:
    """The whole promise: one file per group left, and undo brings the rest back."""
    from dupfinder.cli import main

    corpus = make_corpus(tmp_path / "corpus")
    before = {p: p.read_bytes() for paths in corpus.values() for p in paths}
    journal = str(tmp_path / "journal.jsonl")
    out, err = io.StringIO(), io.StringIO()
    argv = ["scan", str(tmp_path / "corpus"), "--no-cache", "--jobs", "1", "--keep", "oldest"]
    code = main([*argv, "--action", "trash", "--yes", "--journal", journal], out, err)
    assert code == 0, err.getvalue()
    assert existing(corpus) == {"report": ["report1.txt"], "bread": ["bread1.txt"]}
    code = main(["undo", "--journal", journal], out, err)
    assert code == 0, err.getvalue()
    assert {p: p.read_bytes() for p in before} == before
