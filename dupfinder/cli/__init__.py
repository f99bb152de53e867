"""The headless command line: ``dupfinder scan``, ``apply``, ``undo``, ``gui``, and the
commands that split a scan across machines (``fingerprint``, ``pairs``, ``groups``).

A thin shell over ``dupfinder.core``: it parses arguments, runs the core in a
background thread so Ctrl-C can cancel cleanly, and writes results.

Exit codes (``EXIT_CODES``, shown by ``--help``): 0 success (duplicates or not), 1 fatal
error, 2 usage error, 3 some planned actions were skipped or failed, 130 cancelled by Ctrl-C.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from dupfinder.cli.exit_codes import (
    EXIT_CANCELLED,
    EXIT_CODES,
    EXIT_FATAL,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
)
from dupfinder.cli.paths import COMPLETE_FILE, COMPLETE_FOLDER

__all__ = [
    "COMMANDS",
    "EXIT_CANCELLED",
    "EXIT_FATAL",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_USAGE",
    "build_parser",
    "main",
    "open_gui",
]

EXAMPLES = """\
examples:
  dupfinder scan ~/Documents ~/Pictures          groups for people, on stdout
  dupfinder scan ~/Documents --format json -o dups.json
  dupfinder scan ~/Code --exclude node_modules/ --exclude 'build/**'
  dupfinder scan ~/Downloads --keep oldest --action trash        print the plan only
  dupfinder scan ~/Downloads --keep oldest --action trash --yes  carry it out
  dupfinder undo                                 put back what the last apply changed
  dupfinder                                      open the desktop app
  dupfinder --print-completion bash > ~/.local/share/bash-completion/completions/dupfinder
"""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """Raises instead of exiting, so ``main`` owns every exit code; epilogs keep their lines."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: error: {message}")


#: Every command in the order ``--help`` lists them: (name, module that registers it, the
#: one-line help ``--help`` shows). Only the module of the command being run is imported: a
#: command's module may import the engine (numpy, scipy, Pillow), which ``--version``,
#: ``--help`` and the desktop app's start need none of. A test checks these lines against
#: what each module registers.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("scan", "scan_cmd", "find near-duplicate files in folders"),
    ("apply", "actions_cmd", "act on a saved result (its saved marks, or --keep rules)"),
    ("undo", "actions_cmd", "undo the last apply (or a given session)"),
    ("ignore", "actions_cmd", "remember that files of a saved result are not duplicates"),
    ("decisions", "actions_cmd", "list or clear remembered decisions"),
    ("fingerprint", "distributed_cmd", "fingerprint files into Parquet (one shard per machine)"),
    ("pairs", "distributed_cmd", "find every near pair of stored fingerprints on a Dask cluster"),
    ("groups", "distributed_cmd", "groups of stored fingerprints, as 'scan' prints them"),
    ("similar", "similar_cmd", "find files like one document, picture, song or video"),
    ("gui", "", "open the desktop app"),
)


class _OneCommand:
    """The sub-parsers action as a command module sees it, keeping only ``wanted``: a module
    registers all its commands at once, and the others are listed by their help line."""

    def __init__(self, commands: Any, wanted: str) -> None:
        self._commands = commands
        self._wanted = wanted

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if name == self._wanted:
            parser: argparse.ArgumentParser = self._commands.add_parser(name, **kwargs)
            return parser
        return _Parser(prog=name)


class _Version(argparse._VersionAction):
    """``--version``: the version is read from the package metadata only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from dupfinder import __version__

        self.version = f"dupfinder {__version__}"
        super().__call__(parser, *args)


def build_parser(command: str | None = "*") -> argparse.ArgumentParser:
    """The command line's parser: every command in full (``"*"``, for completion scripts
    and the manual), or only ``command`` in full and the others by their help line (None:
    none in full, enough for ``--version`` and ``--help``)."""
    parser = _Parser(
        prog="dupfinder",
        description="Find near-duplicate documents and images. "
        "Without a command, opens the desktop app.",
        epilog=f"{EXAMPLES}\n{EXIT_CODES}\n'dupfinder COMMAND --help' describes each command.",
    )
    parser.add_argument("--version", action=_Version)
    entry = parser.add_mutually_exclusive_group()
    entry.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help="add dupfinder to this user's application menu (Linux; for pip, pipx and tarball "
        "installs)",
    )
    entry.add_argument(
        "--uninstall-desktop-entry",
        action="store_true",
        help="remove the menu entry --install-desktop-entry added",
    )
    if command == "*":
        import shtab

        shtab.add_argument_to(
            parser, ["--print-completion"], help="print a shell completion script"
        )
    else:
        parser.add_argument(
            "--print-completion",
            metavar="{bash,zsh,tcsh,fish,powershell}",  # shtab.SUPPORTED_SHELLS (a test checks)
            help="print a shell completion script",
        )
    commands = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    registered: set[str] = set()
    for name, module, summary in COMMANDS:
        if not module:
            gui = commands.add_parser(name, help=summary)
            gui.add_argument("paths", nargs="*", help="folders to put in the scan list")
        elif command == "*" and module not in registered:
            registered.add(module)
            importlib.import_module(f"dupfinder.cli.{module}").register(commands)
        elif command == name:
            wanted = _OneCommand(commands, name)
            importlib.import_module(f"dupfinder.cli.{module}").register(wanted)
        elif command != "*":
            commands.add_parser(name, help=summary)
    if command == "*":
        _complete_paths(parser)
    return parser


def _complete_paths(parser: argparse.ArgumentParser) -> None:
    """Turn the path arguments' completion marks (``paths.COMPLETE_FILE``...) into shtab's."""
    import shtab

    offered = {COMPLETE_FILE: shtab.FILE, COMPLETE_FOLDER: shtab.DIRECTORY}
    for action in parser._actions:
        mark = getattr(action, "complete", None)
        if isinstance(mark, str):
            action.complete = offered[mark]  # type: ignore[attr-defined]
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                _complete_paths(command)


def _command_of(args_list: Sequence[str]) -> str | None:
    """The command ``args_list`` runs ("*" when it asks for a completion script, which
    needs every command)."""
    for arg in args_list:
        if arg == "--print-completion" or arg.startswith("--print-completion="):
            return "*"
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg if any(arg == name for name, _, _ in COMMANDS) else None
    return None


def main(
    argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list:
        return open_gui([], err)
    try:
        return _run(args_list, out, err)
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): not an error worth a traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


def _run(args_list: list[str], out: TextIO, err: TextIO) -> int:
    try:
        args = build_parser(_command_of(args_list)).parse_args(args_list)
    except _UsageError as exc:
        err.write(f"{exc}\n")
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version and --print-completion
        return int(exc.code or 0)
    if args.command == "gui":
        return open_gui(args.paths, err)
    if args.install_desktop_entry or args.uninstall_desktop_entry:
        from dupfinder.cli import desktop_entry

        act = desktop_entry.install if args.install_desktop_entry else desktop_entry.uninstall
        return act(out)
    if args.command is None:
        build_parser(None).print_help(out)
        return EXIT_USAGE
    try:
        return int(args.handler(args, out, err))
    except _UsageError as exc:
        err.write(f"{exc}\n")
        return EXIT_USAGE


def open_gui(paths: list[str], err: TextIO) -> int:
    """Open the desktop app on ``paths``; explain what to install when Qt is missing."""
    try:
        from dupfinder.gui.app import main as gui_main
    except ImportError as exc:
        err.write(
            f"dupfinder: the desktop app is not available ({exc}).\n"
            "Install it with: pip install 'dupfinder[gui]'  —  or use 'dupfinder scan PATH'.\n"
        )
        return EXIT_FATAL
    return int(gui_main(paths))
