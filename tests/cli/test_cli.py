"""The headless command line: output formats, exit codes, usage errors."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from scan_helpers import essay, write

from dupfinder.cli import EXIT_OK, EXIT_USAGE, main


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    write(root / "a.txt", essay(1))
    write(root / "b.txt", essay(1))
    write(root / "c.txt", essay(2))
    write(root / "short.txt", "too short")
    return root


def test_json_output_follows_the_contract(folder: Path, tmp_path: Path) -> None:
    code, out, err = _run(
        "scan", str(folder), "--format", "json", "--cache-dir", str(tmp_path / "c")
    )
    assert code == EXIT_OK, err
    data = json.loads(out)
    assert data["version"] == 2
    (group,) = data["groups"]
    assert group["kind"] == "text"
    assert {Path(m["path"]).name for m in group["members"]} == {"a.txt", "b.txt"}
    assert all(Path(m["path"]).is_absolute() for m in group["members"])
    assert [Path(e["path"]).name for e in data["errors"]] == ["short.txt"]
    assert data["stats"]["files_seen"] == 4
    assert err == ""  # no progress bar when stderr is not a terminal


def test_csv_and_output_file(folder: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    code, out, _ = _run("scan", str(folder), "--format", "csv", "-o", str(target), "--no-cache")
    assert code == EXIT_OK
    assert out == ""
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert {r["group"] for r in rows} == {"1"}
    assert len(rows) == 2


def test_text_output_and_no_duplicates_is_still_success(tmp_path: Path) -> None:
    write(tmp_path / "only.txt", essay(5))
    code, out, _ = _run("scan", str(tmp_path), "--no-cache")
    assert code == EXIT_OK
    assert out.startswith("0 groups in 1 file ·")


@pytest.mark.parametrize(
    "args",
    [
        ["scan"],
        ["scan", ".", "--format", "xml"],
        ["scan", ".", "--text-threshold", "101"],
        ["scan", ".", "--text-bits", "99"],
        ["scan", ".", "--jobs", "0"],
        ["scan", ".", "--min-size", "lots"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    code, _, err = _run(*args)
    assert code == EXIT_USAGE
    assert "error" in err


def test_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = _run("scan", str(tmp_path / "nope"))
    assert code == EXIT_USAGE
    assert "no such file or folder" in err


def test_module_entry_point_and_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dupfinder", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("dupfinder ")


def test_sizes_accept_units(folder: Path) -> None:
    code, out, _ = _run("scan", str(folder), "--min-size", "1M", "--no-cache")
    assert code == EXIT_OK
    assert out.startswith("0 groups in 0 files")
