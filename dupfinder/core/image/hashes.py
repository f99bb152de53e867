"""A fingerprint's picture hashes, compiled or numpy: one entry for both engines.

Every picture's fingerprint hashes its working image, the image's seven mirrored and turned
forms and nine parts of it (``perceptual``): some twenty resizes, DCTs and medians a picture.
``hash_kernels`` computes them in compiled code from the same resize plans, bit for bit what
the numpy reference ``perceptual._pdhashes`` gives; AUTO uses it whenever it was built, and
``DUPFINDER_PICTURE_HASH`` set to ``numpy`` or ``compiled`` forces either engine.

The compiled DCT sums in its own order, as numpy's BLAS does in its own: a pHash coefficient
within rounding of its threshold could fall on either side. The kernel says when one is that
close (never yet on a real picture; see ``hash_kernels``), and numpy answers for that picture.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from dupfinder.core.jit.engine import Engine, Kernel, choose

__all__ = ["ENGINE_VARIABLE", "pdhashes"]

#: The environment variable that forces the engine (``numpy`` or ``compiled``).
ENGINE_VARIABLE = Kernel.PICTURE_HASH.variable


@functools.cache
def _hasher(module: ModuleType) -> Any:
    """The compiled hasher with the reference's resize plans and DCT rows (one definition
    of every weight), made once a process."""
    from dupfinder.core.image import perceptual  # here: perceptual calls this module

    return module.Hasher(
        perceptual._WHOLE_32,
        perceptual._WHOLE_9X8,
        perceptual._CROPS_32,
        perceptual._CROPS_9X8,
        perceptual._DCT8,
        perceptual._TIE,
    )


def _numpy(forms: npt.NDArray[Any], pixels: npt.NDArray[Any]) -> list[int]:
    from dupfinder.core.image import perceptual  # here: perceptual calls this module

    return perceptual._pdhashes(
        np.asarray(forms, dtype=np.float64), np.asarray(pixels, dtype=np.float64)
    )


def pdhashes(
    forms: npt.NDArray[Any], pixels: npt.NDArray[Any], engine: Engine = Engine.AUTO
) -> list[int]:
    """The pdhash of each working image of ``forms`` (n, side, side), then the crop hash of
    each ``perceptual.CROP_BOXES`` part of ``pixels`` (side, side): grey levels 0..255, uint8
    or whole float64, as ``perceptual._pdhashes`` gives them (uint8 forms spare the compiled
    kernel a quarter of its time: eight float images read and checked)."""
    module = choose(Kernel.PICTURE_HASH, engine)
    if module is not None:
        found: list[int] | None = _hasher(module).hashes(forms, pixels)
        if found is not None:
            return found
    return _numpy(forms, pixels)
