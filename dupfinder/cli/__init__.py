"""The headless command line: ``dupfinder scan``, ``apply``, ``undo``, and ``gui``.

A thin shell over ``dupfinder.core``: it parses arguments, runs the core in a
background thread so Ctrl-C can cancel cleanly, and writes results.

Exit codes: 0 success (duplicates or not), 1 fatal error, 2 usage error, 3 some planned
actions were skipped or failed, 130 cancelled by Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from dupfinder import __version__

__all__ = ["EXIT_CANCELLED", "EXIT_FATAL", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

EXIT_OK = 0
EXIT_FATAL = 1
EXIT_USAGE = 2
EXIT_CANCELLED = 130


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """Raises instead of exiting, so ``main`` owns every exit code."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: error: {message}")


def build_parser() -> argparse.ArgumentParser:
    from dupfinder.cli import scan_cmd

    parser = _Parser(
        prog="dupfinder",
        description="Find near-duplicate documents and images. "
        "Without a command, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"dupfinder {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    scan_cmd.register(commands)
    try:
        from dupfinder.cli import actions_cmd
    except ImportError:  # pragma: no cover - present in every release
        actions_cmd = None  # type: ignore[assignment]
    if actions_cmd is not None:
        actions_cmd.register(commands)
    gui = commands.add_parser("gui", help="open the desktop app")
    gui.add_argument("paths", nargs="*", help="folders to put in the scan list")
    return parser


def main(
    argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list:
        return _open_gui([], err)
    try:
        args = build_parser().parse_args(args_list)
    except _UsageError as exc:
        err.write(f"{exc}\n")
        return EXIT_USAGE
    except SystemExit as exc:  # --help and --version
        return int(exc.code or 0)
    if args.command == "gui":
        return _open_gui(args.paths, err)
    if args.command is None:
        build_parser().print_help(out)
        return EXIT_USAGE
    try:
        return int(args.handler(args, out, err))
    except _UsageError as exc:
        err.write(f"{exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): not an error worth a traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


def _open_gui(paths: list[str], err: TextIO) -> int:
    try:
        from dupfinder.gui.app import main as gui_main
    except ImportError as exc:
        err.write(
            f"dupfinder: the desktop app is not available ({exc}).\n"
            "Install it with: pip install 'dupfinder[gui]'  —  or use 'dupfinder scan PATH'.\n"
        )
        return EXIT_FATAL
    return int(gui_main(paths))
