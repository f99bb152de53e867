"""``python -m dupfinder``, the ``dupfinder`` console script and the ``dupfinder-gui`` GUI script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    if getattr(sys, "frozen", False):  # the bundled app's worker processes start here
        import multiprocessing  # (40 ms a command without a worker would pay)

        multiprocessing.freeze_support()
    from dupfinder.cli import main as cli_main

    return cli_main(argv)


def gui_main() -> int:
    """The desktop app alone: every argument is a folder for the scan list.

    Installed as a GUI script, it gets no console window on Windows, so it never runs the
    command-line parser (``dupfinder gui`` is the console's way in).
    """
    from dupfinder.cli import open_gui

    return open_gui(sys.argv[1:], sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
