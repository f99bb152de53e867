"""Path arguments of the command line: an empty or impossible path is a usage error.

An empty argument (``dupfinder scan ""``, a shell variable that was never set) would
otherwise mean the current folder, and a scan with ``--yes`` would act there. A path longer
than the system takes, or with a name longer than a file system allows, is refused with its
length, not echoed back: no file can have it, and the message stays one line.
"""

from __future__ import annotations

import argparse
import os

__all__ = ["COMPLETE_FILE", "COMPLETE_FOLDER", "NAME_MAX", "PATH_MAX", "path_argument"]

#: Longest path the system calls take (Linux ``PATH_MAX``, with its closing NUL).
PATH_MAX = 4096
#: Longest single name in a path on the file systems dupfinder meets.
NAME_MAX = 255
#: What an argument's shell completion offers (``action.complete``), as marks that the full
#: parser, the one completion scripts and the manual are made from, turns into shtab's:
#: building one command's parser then never imports shtab (and, through it, logging and
#: package metadata).
COMPLETE_FILE = "file"
COMPLETE_FOLDER = "folder"


def path_argument(text: str) -> str:
    """``text`` as given, when it can name a file; ``ArgumentTypeError`` otherwise."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    if "\0" in text:
        raise argparse.ArgumentTypeError("a path cannot hold a NUL character")
    raw = os.fsencode(text)
    if len(raw) >= PATH_MAX:
        raise argparse.ArgumentTypeError(
            f"path too long ({len(raw):,} bytes; the system takes up to {PATH_MAX - 1:,})"
        )
    longest = max(len(part) for part in raw.split(b"/"))
    if longest > NAME_MAX:
        raise argparse.ArgumentTypeError(
            f"a name in the path is too long ({longest:,} bytes; file systems take up to "
            f"{NAME_MAX})"
        )
    return text
