"""Print the table of core's packages for docs/ARCHITECTURE.md, from the packages themselves.

Each row is a package's job (the first line of its docstring), its face (``FACE``) and what
it may import (``MAY_IMPORT``). ``--write`` replaces the table between the markers in the
document; ``tests/test_layers.py`` fails when the document and the code disagree.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "ARCHITECTURE.md"
BEGIN = "<!-- packages: generated from the code by `python scripts/layers.py --write`; a test keeps it current -->"
END = "<!-- end packages -->"


def _names(names: tuple[str, ...], empty: str) -> str:
    return ", ".join(f"`{n}`" if n != "root" else "root" for n in names) or empty


def table() -> str:
    core = importlib.import_module("dupfinder.core")
    roots = ", ".join(f"`{m}`" for m in core.ROOT_MODULES)
    rows = [
        "| package | job | face (`FACE`) | may import (`MAY_IMPORT`) |",
        "|---|---|---|---|",
        f"| root: {roots} | value types, the one error tree, how counts, sizes, percentages "
        "and OS errors read, what names one file and which folders are trash | all | nothing |",
    ]
    for name in core.PACKAGES:
        package = importlib.import_module(f"dupfinder.core.{name}")
        job = (package.__doc__ or "").strip().splitlines()[0].rstrip(".")
        face = _names(tuple(package.FACE), "the package itself")
        rows.append(
            f"| `{name}/` | {job} | {face} | {_names(tuple(package.MAY_IMPORT), 'nothing')} |"
        )
    return "\n".join(rows) + "\n"


def written() -> str:
    """The table as the document has it now."""
    text = DOCUMENT.read_text(encoding="utf-8")
    return text.split(BEGIN + "\n", 1)[1].split(END, 1)[0]


def main() -> int:
    if sys.argv[1:] == ["--write"]:
        text = DOCUMENT.read_text(encoding="utf-8")
        head, rest = text.split(BEGIN + "\n", 1)
        tail = rest.split(END, 1)[1]
        DOCUMENT.write_text(head + BEGIN + "\n" + table() + END + tail, encoding="utf-8")
    else:
        sys.stdout.write(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
