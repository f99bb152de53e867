"""``python -m dupfinder`` and the ``dupfinder`` console script."""

from __future__ import annotations

import multiprocessing
import sys


def main(argv: list[str] | None = None) -> int:
    multiprocessing.freeze_support()  # the bundled app's worker processes start here
    from dupfinder.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
