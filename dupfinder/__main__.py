"""``python -m dupfinder``, the ``dupfinder`` console script and the ``dupfinder-gui`` GUI script."""

from __future__ import annotations

import os
import sys


def one_blas_thread() -> None:
    """numpy's BLAS on one thread in every process of the program (its workers inherit the
    setting), unless the person chose otherwise: the products here are small (the kernels
    that matter are compiled), and OpenBLAS starting its pool of threads costs each process
    about a tenth of a second of CPU (a warm rescan of 13,900 files: 1.89 -> 1.73 s)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> int:
    one_blas_thread()
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
    one_blas_thread()
    from dupfinder.cli import open_gui

    return open_gui(sys.argv[1:], sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
