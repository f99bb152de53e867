"""Write the man page and the shell completions from the command-line parser: one command.

    .venv/bin/python packaging/cli_docs.py           # rewrites resources/man, resources/completions
    .venv/bin/python packaging/cli_docs.py --check   # exits 1 when a file is out of date

The files are committed (a wheel installs them as data files; the tests check they match the
parser), so a change to an option shows in ``man dupfinder`` and in completion once this runs.
The man page comes from argparse-manpage; the completions from shtab, which also serves
``dupfinder --print-completion SHELL`` at run time.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAN_PAGE = ROOT / "resources" / "man" / "dupfinder.1"
COMPLETIONS = {
    "bash": ROOT / "resources" / "completions" / "dupfinder",
    "zsh": ROOT / "resources" / "completions" / "_dupfinder",
}


def _preformatted(text: str) -> str:
    """Plain lines as roff shows them: no filling, no adjusting, backslashes and dashes kept."""
    body = text.replace("\\", "\\e").replace("-", "\\-")
    lines = [("\\&" + line) if line.startswith((".", "'")) else line for line in body.splitlines()]
    return "\n".join([".nf", *lines, ".fi"]) + "\n"


def _section(text: str) -> str:
    """An epilog block without its ``heading:`` line, indented lines brought to the margin."""
    lines = text.strip("\n").splitlines()[1:]
    return "\n".join(line[2:] if line.startswith("  ") else line for line in lines)


def man_page() -> str:
    from argparse_manpage.manpage import Manpage

    from dupfinder import __version__
    from dupfinder.cli import EXAMPLES, EXIT_CODES, build_parser
    from dupfinder.cli.scan_cmd import PATTERNS_HELP

    parser = build_parser()
    parser.epilog = None  # its parts become sections of their own below
    page = Manpage(
        parser,
        _data={
            "project_name": "dupfinder",
            "version": __version__,
            "manual_title": "User Commands",
            "description": "find near-duplicate documents and images",
            "date": " ",  # no build date: the page changes only when the parser does
        },
    )
    page.add_section("patterns", "=", _preformatted(PATTERNS_HELP.rstrip("\n")))
    page.add_section("examples", "=", _preformatted(_section(EXAMPLES)))
    page.add_section("exit status", "=", _preformatted(_section(EXIT_CODES)))
    return str(page)


def completion(shell: str) -> str:
    import shtab

    from dupfinder.cli import build_parser

    return str(shtab.complete(build_parser(), shell)) + "\n"


def generated() -> dict[Path, str]:
    """Every generated file and its text, the same on every terminal (argparse wraps usage
    lines at $COLUMNS)."""
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        files = {MAN_PAGE: man_page()}
        files.update({path: completion(shell) for shell, path in COMPLETIONS.items()})
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved
    return files


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    stale = []
    for path, text in generated().items():
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path.relative_to(ROOT))
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    verb = "out of date" if args.check else "written"
    for path in stale:
        print(f"{path}: {verb}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
