"""Keep what libraries print away from the terminal while files are fingerprinted.

Readers wrap third-party parsers that may print to stdout or stderr, from Python or from
C, on damaged input. The command line's stdout carries the JSON or CSV result, so nothing a
library prints may reach it: pool workers point file descriptors 1 and 2 at the null device
for their whole life, and a scan that fingerprints in its own process does the same around
each batch. Warnings are not shown either: a reader's failures reach the user as per-file
errors, not as console noise.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress

__all__ = ["silence_process", "silenced"]

_STREAMS = (1, 2)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with suppress(OSError, ValueError):  # closed or broken stream: nothing to keep
                stream.flush()


def _point_at_null() -> list[int]:
    """Duplicates of fds 1 and 2 (to restore them), which now lead to the null device."""
    _flush()
    saved = [os.dup(fd) for fd in _STREAMS]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in _STREAMS:
            os.dup2(null, fd)
    finally:
        os.close(null)
    return saved


def silence_process() -> None:
    """For a worker process: fds 1 and 2 lead nowhere, warnings and log records are dropped."""
    for fd in _point_at_null():
        os.close(fd)
    warnings.simplefilter("ignore")
    logging.lastResort = None  # records without a handler are dropped, not printed


@contextmanager
def silenced() -> Iterator[None]:
    """Within the block, nothing written to fds 1 or 2 (from Python or C) reaches them."""
    saved = _point_at_null()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        _flush()  # what Python buffered inside the block goes to the null device too
        for fd, copy in zip(_STREAMS, saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)
