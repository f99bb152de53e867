"""A one-line progress bar on stderr, only when stderr is a terminal."""

from __future__ import annotations

import shutil
import time
from typing import TextIO

from dupfinder.core.model import Phase, Progress

__all__ = ["TerminalProgress"]

_LABELS = {
    Phase.WALKING: "Finding files",
    Phase.FINGERPRINTING: "Fingerprinting",
    Phase.IDENTICAL: "Comparing bytes",
    Phase.COMPARING: "Comparing",
    Phase.DONE: "Done",
    Phase.APPLYING: "Applying",
}


class TerminalProgress:
    """Draws ``Progress`` samples in place; does nothing when the stream is not a TTY."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._active = stream.isatty()
        self._started = time.monotonic()
        self._drawn = False

    def __call__(self, sample: Progress) -> None:
        if not self._active:
            return
        width = shutil.get_terminal_size((80, 20)).columns
        label = _LABELS[sample.phase]
        if sample.total:
            fraction = min(1.0, sample.done / sample.total)
            bar_width = max(10, min(30, width - 50))
            filled = round(fraction * bar_width)
            bar = "█" * filled + "·" * (bar_width - filled)
            line = f"{label:<15} {bar} {sample.done:>8,}/{sample.total:,}"
        else:
            line = f"{label:<15} {sample.done:>8,}"
        line += f"  {time.monotonic() - self._started:5.1f} s"
        self._stream.write("\r" + line[: width - 1].ljust(width - 1))
        self._stream.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._active and self._drawn:
            self._stream.write("\r" + " " * (shutil.get_terminal_size((80, 20)).columns - 1) + "\r")
            self._stream.flush()
