"""When documents are fingerprinted by the compiled kernel, and how it is called.

The numpy path of :mod:`dupfinder.core.text.simhash` is the reference; the numba kernel
(:mod:`dupfinder.core.text.kernels`) gives the same fingerprints and sketches about 5 times
faster, but loading it costs about 0.55 s of CPU per process (importing numba, then loading
the compiled code from the cache; a machine's first run also compiles, about a second). So a
process loads the kernel only when its text is worth it: when the caller announces
(``expect``) at least ``COMPILED_AFTER`` characters, the amount whose numpy time equals the
kernel's load (a scan announces each worker's share of its documents' bytes), or else once it
has fingerprinted that much (without an announcement, the rule that never costs more than
twice the better choice made in hindsight). A small scan never pays for numba; a large one
gets the kernel from its first document. ``DUPFINDER_TEXT=numpy`` or ``compiled`` forces
either path.
"""

from __future__ import annotations

import functools
import logging
from types import ModuleType

import numpy as np

from dupfinder.core.jit.engine import Engine, Kernel, effective, load
from dupfinder.core.text import chars as textchars

__all__ = [
    "COMPILED_AFTER",
    "ENGINE_VARIABLE",
    "expect",
    "fingerprint",
    "kernel",
]

_log = logging.getLogger(__name__)

#: Characters worth loading the kernel for: it saves about 23 ms of CPU per million
#: characters (28 against 5.5 on bench/bench_datasketch.py's corpus) and loading it costs about
#: 0.7 s, so 30 million characters cost on numpy what loading it costs.
COMPILED_AFTER = 30_000_000
#: Environment variable that replaces AUTO: ``numpy`` (never load numba) or ``compiled``.
ENGINE_VARIABLE = Kernel.TEXT.variable


class _Usage:
    """What the AUTO rule knows of this process: characters fingerprinted and announced."""

    def __init__(self) -> None:
        self.characters = 0
        self.expected = 0


@functools.cache
def _usage() -> _Usage:
    return _Usage()


def expect(characters: int) -> None:
    """Announce about how many characters this process is going to fingerprint (replacing an
    earlier announcement): from ``COMPILED_AFTER`` on, AUTO uses the kernel from the next
    document on instead of after ``COMPILED_AFTER`` characters on numpy."""
    _usage().expected = max(0, int(characters))


def kernel(characters: int, engine: Engine = Engine.AUTO) -> ModuleType | None:
    """The kernel module to fingerprint a text of ``characters`` with, or None for numpy."""
    engine = effective(Kernel.TEXT, engine)
    if engine is Engine.NUMPY:
        return None
    if engine is Engine.AUTO:
        usage = _usage()
        if max(usage.characters, usage.expected) < COMPILED_AFTER:
            usage.characters += characters
            return None
    jit = load(Kernel.TEXT)
    if jit is None and engine is Engine.COMPILED:
        raise RuntimeError("the compiled text kernel needs numba, which could not be imported")
    return jit


def fingerprint(
    jit: ModuleType, text: str, *, shingle: int, scale: float, bin_bits: int, bits: int
) -> tuple[int, int, bytes]:
    """Token count, SimHash and sketch of ``text`` through the kernel (see ``text_jit``)."""
    classes = textchars.class_table()
    if text.isascii():  # NFKC is the identity, casefold is lower(), nothing is dropped
        cps = np.frombuffer(text.lower().encode("ascii"), dtype=np.uint8)
        hashes, count = jit.shingle_hashes(cps, _NO_FOLD, classes, shingle)
    else:
        hashes, count = jit.shingle_hashes(
            textchars.utf32(text), textchars.fold_table(), classes, shingle
        )
        if count < 0:  # a character the table cannot fold alone: the general way
            folded, _ = textchars.code_points(text)
            hashes, count = jit.shingle_hashes(folded, _NO_FOLD, classes, shingle)
    hashes.sort()
    value, sketch = jit.fingerprint(hashes, scale, bin_bits, bits)
    return int(count), int(value), sketch.tobytes()


_NO_FOLD = np.zeros(0, dtype=np.uint32)
