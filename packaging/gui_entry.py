"""Entry point of the bundle's windowed executable, ``dupfinder-gui``: the desktop app only.

A windowed Windows or macOS executable has no console (``sys.stdout`` is None), so this
entry never runs the command-line parser: every argument is a folder for the scan list
(for example folders dropped on the icon). The console executable ``dupfinder`` next to it
runs ``scan``, ``apply`` and ``undo``. When Qt cannot load (a system library or font is
missing), the message says what to install, without a traceback.
"""

from __future__ import annotations

import multiprocessing
import sys


def main() -> int:
    # The scan's worker processes are started from this same executable: let them in first.
    multiprocessing.freeze_support()
    from dupfinder.__main__ import one_blas_thread

    one_blas_thread()
    try:
        from dupfinder.gui.app import main as gui_main
    except ImportError as exc:  # GuiUnavailable: its message names what is missing
        if sys.stderr is not None:
            sys.stderr.write(f"{exc}\n")
        return 1
    return int(gui_main(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
