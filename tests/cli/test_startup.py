"""Start-up: a command imports only what it needs, and the lazy parser says what the full one says."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from import_graph import modules_loaded_by

from dupfinder.cli import COMMANDS, build_parser, main

#: Packages a command that only prints must never import: the engine's numeric stack.
_HEAVY = ("numpy", "scipy", "PIL", "numba", "dupfinder.core.scan", "dupfinder.core.grouping")


def _imported_by(*args: str) -> list[str]:
    """Modules that ``dupfinder ARGS`` imports, seen from inside a fresh interpreter."""
    return modules_loaded_by(
        "import io, sys\n"
        "from dupfinder.__main__ import main\n"
        "sys.stdout = io.StringIO()\n"
        "try:\n"
        f"    main({list(args)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stdout = sys.__stdout__"
    )


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parsers of the sub-commands, by name, as the parser lists them."""
    return next(
        action.choices
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    )


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("scan", "--help")])
def test_printing_commands_import_no_engine(args: tuple[str, ...]) -> None:
    modules = _imported_by(*args)
    heavy = [m for m in modules if any(m == h or m.startswith(h + ".") for h in _HEAVY)]
    assert heavy == [], f"dupfinder {' '.join(args)} imported {heavy[:8]}"


def test_lazy_help_lists_what_every_command_registers() -> None:
    """The one-line help of each command, as ``--help`` lists it without importing the
    command, is the one its module registers."""
    full, lazy = io.StringIO(), io.StringIO()
    build_parser("*").print_help(full)
    build_parser(None).print_help(lazy)
    assert lazy.getvalue() == full.getvalue()
    assert list(_commands(build_parser("*"))) == [name for name, _, _ in COMMANDS]


@pytest.mark.parametrize("name", [name for name, _, _ in COMMANDS])
def test_each_command_parses_alone_as_in_full(name: str) -> None:
    """A command built alone has the options it has in the full parser."""

    def options(parser: argparse.ArgumentParser) -> list[str]:
        chosen = _commands(parser)[name]
        return sorted(s for action in chosen._actions for s in action.option_strings)

    assert options(build_parser(name)) == options(build_parser("*"))


def test_an_unknown_command_is_a_usage_error() -> None:
    err = io.StringIO()
    assert main(["scna", "x"], io.StringIO(), err) == 2
    assert "invalid choice: 'scna'" in err.getvalue()


def test_version_prints_the_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dupfinder", "--version"], capture_output=True, text=True, check=True
    )
    assert json.dumps(done.stdout).startswith('"dupfinder ')


def test_a_scan_imports_nothing_that_acts(tmp_path: Path) -> None:
    """``--keep`` and ``--action`` are parsed without the journal, the lock and the trash."""
    (tmp_path / "a.bin").write_bytes(b"same bytes")
    (tmp_path / "b.bin").write_bytes(b"same bytes")
    modules = _imported_by("scan", str(tmp_path), "--exact-only", "--no-cache")
    assert "dupfinder.core.scan.exact_only" in modules  # the scan ran (byte-identical only)
    acting = ("dupfinder.core.actions.apply", "dupfinder.core.actions.journal", "send2trash")
    assert [m for m in modules if m.startswith(acting)] == []
    assert "shtab" not in modules  # completion marks become shtab's only for the scripts


def test_completion_scripts_complete_paths(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--print-completion", "zsh"], io.StringIO(), io.StringIO())
    script = capsys.readouterr().out
    assert "--cache-dir[" in script
    assert "_files -/" in script  # folders, the way shtab offers them


@pytest.mark.parametrize(("preset", "expected"), [(None, "1"), ("4", "4")])
def test_the_program_runs_blas_on_one_thread_unless_told(preset: str | None, expected: str) -> None:
    """Every process of the program (the workers inherit the variable) starts OpenBLAS with
    one thread, which saves each a tenth of a second; a person's own setting wins."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    code = (
        "import io, os, sys\n"
        "from dupfinder.__main__ import main\n"
        "sys.stdout = io.StringIO()\n"
        "main(['--version'])\n"
        "sys.stdout = sys.__stdout__\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'])\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == expected
