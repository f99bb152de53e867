"""When documents are fingerprinted by the compiled kernel, and how it is called.

The numpy path of :mod:`dupfinder.core.text.simhash` is the reference; the kernel compiled ahead
of time (the Cython extension :mod:`dupfinder.core.text.kernels`) gives the same fingerprints
and sketches about 5 times faster. Loading it is an import of about a millisecond, so every
document uses it when it was built; ``DUPFINDER_TEXT=numpy`` or ``compiled`` forces either path.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from dupfinder.core.jit.engine import Engine, Kernel, choose
from dupfinder.core.text import chars as textchars

__all__ = ["ENGINE_VARIABLE", "fingerprint", "kernel"]

#: Environment variable that replaces AUTO: ``numpy`` (never load the kernel) or ``compiled``.
ENGINE_VARIABLE = Kernel.TEXT.variable


def kernel(engine: Engine = Engine.AUTO) -> ModuleType | None:
    """The kernel module to fingerprint texts with, or None for numpy."""
    return choose(Kernel.TEXT, engine)


def fingerprint(
    kernels: ModuleType, text: str, *, shingle: int, scale: float, bin_bits: int, bits: int
) -> tuple[int, int, bytes]:
    """Token count, SimHash and sketch of ``text`` through the kernel (see ``text.kernels``)."""
    classes = textchars.class_table()
    if text.isascii():  # NFKC is the identity, casefold is lower(), nothing is dropped
        cps = np.frombuffer(text.lower().encode("ascii"), dtype=np.uint8)
        hashes, count = kernels.shingle_hashes(cps, _NO_FOLD, classes, shingle)
    else:
        hashes, count = kernels.shingle_hashes(
            textchars.utf32(text), textchars.fold_table(), classes, shingle
        )
        if count < 0:  # a character the table cannot fold alone: the general way
            folded, _ = textchars.code_points(text)
            hashes, count = kernels.shingle_hashes(folded, _NO_FOLD, classes, shingle)
    hashes.sort()
    value, sketch = kernels.fingerprint(hashes, scale, bin_bits, bits)
    return int(count), int(value), sketch.tobytes()


_NO_FOLD = np.zeros(0, dtype=np.uint32)
