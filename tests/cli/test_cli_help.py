"""What the command line tells people: help, completion, the man page and the summary line."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from scan_helpers import essay, write

from dupfinder.cli import EXIT_OK, main


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def test_help_shows_examples_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == EXIT_OK
    text = capsys.readouterr().out
    assert "examples:\n  dupfinder scan ~/Documents" in text
    for code, meaning in [
        ("0", "success"),
        ("2", "usage error"),
        ("3", "skipped"),
        ("130", "Ctrl-C"),
    ]:
        assert re.search(rf"^  {code} +.*{meaning}", text, re.MULTILINE), code


def test_scan_help_explains_gitignore_patterns(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--help"]) == EXIT_OK
    text = capsys.readouterr().out
    assert "as in .gitignore" in text
    assert "node_modules/   a folder at any depth" in text
    assert "exit codes:" in text


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_scripts_know_the_commands_and_options(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--print-completion", shell]) == EXIT_OK
    script = capsys.readouterr().out
    for word in ("scan", "undo", "--exclude", "--image-threshold"):
        assert word in script, word


def test_summary_counts_add_up_and_speak_singular(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs / "a.txt", essay(1))
    write(docs / "b.txt", essay(1))
    write(docs / "short.txt", "too short")
    cache = str(tmp_path / "cache")
    _, first, _ = _run("scan", str(docs), "--cache-dir", cache)
    _, again, _ = _run("scan", str(docs), "--cache-dir", cache)
    expected = "1 group in 3 files · 2 fingerprinted, 1 skipped · {} from the cache, {} read now"
    assert expected.format(0, 3) in first
    assert expected.format(3, 0) in again


def test_exclude_takes_gitignore_patterns(tmp_path: Path) -> None:
    for folder in ("node_modules/pkg", "src"):
        write(tmp_path / folder / "a.txt", essay(1))
        write(tmp_path / folder / "b.txt", essay(1))
    code, out, _ = _run("scan", str(tmp_path), "--no-cache", "--exclude", "node_modules/**")
    assert code == EXIT_OK
    assert "node_modules" not in out
    assert out.count("/src/") == 2
