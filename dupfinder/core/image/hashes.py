"""A working image's hashes, compiled or numpy: the resize plans, the reference, one entry.

Every picture's fingerprint hashes its working image (``WORKING_SIZE`` square, grey), the
image's seven mirrored and turned forms and its nine parts ``CROP_BOXES`` (``perceptual``):
some twenty resizes, DCTs and medians a picture. ``numpy_pdhashes`` is the reference: each
resize is Pillow's own fixed-point arithmetic as two small matrix products (``resample``).
``hash_kernels`` computes the same in compiled code from the same resize plans, bit for bit;
AUTO uses it whenever it was built, and ``DUPFINDER_PICTURE_HASH`` set to ``numpy`` or
``compiled`` forces either engine.

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

from dupfinder.core.image import resample
from dupfinder.core.jit.engine import Engine, Kernel, choose

__all__ = [
    "CROP_BOXES",
    "CROP_SHARE",
    "DCT32",
    "ENGINE_VARIABLE",
    "TIE",
    "WORKING_SIZE",
    "Box",
    "numpy_pdhashes",
    "pdhashes",
]

#: The environment variable that forces the engine (``numpy`` or ``compiled``).
ENGINE_VARIABLE = Kernel.PICTURE_HASH.variable

#: Side of the square greyscale image every hash is computed from.
WORKING_SIZE = 64
#: A part of a picture: (left, top, right, bottom) as shares of its width and height.
Box = tuple[float, float, float, float]
#: Share of a side cut by the crops hashed as variants (see ``CROP_BOXES``).
CROP_SHARE = 0.1
_C = CROP_SHARE
#: The parts of the working image hashed as variants, so that the index proposes a copy
#: cropped by up to about 15 %: the hash moves 12 bits or more once a crop passes some 8 %
#: of a side, and a copy cropped at one side or corner, or all round, is near one of these.
CROP_BOXES: tuple[Box, ...] = tuple(
    (left, top, left + 1.0 - _C, top + 1.0 - _C)
    for top in (0.0, _C / 2, _C)
    for left in (0.0, _C / 2, _C)
)


def _dct_matrix(n: int) -> npt.NDArray[np.float64]:
    """DCT-II as a matrix, unnormalised like ``scipy.fftpack.dct``: 2 cos(pi k (2j + 1) / 2n)."""
    k = np.arange(n, dtype=np.float64)[:, None]
    j = np.arange(n, dtype=np.float64)[None, :]
    matrix: npt.NDArray[np.float64] = 2.0 * np.cos(np.pi * k * (2.0 * j + 1.0) / (2.0 * n))
    return matrix


DCT32 = _dct_matrix(32)
#: The rows of the 8 lowest frequencies: all pHash reads of the DCT.
_DCT8 = np.ascontiguousarray(DCT32[:8])
#: Relative size of the rounding noise of a sum of a thousand products (about 1e-13 here).
TIE = 1e-9


def _crop_parts(size: tuple[int, int], kind: resample.Filter) -> resample.Resize:
    side = WORKING_SIZE
    boxes = [(lt * side, tp * side, rt * side, bm * side) for lt, tp, rt, bm in CROP_BOXES]
    return resample.resize_plan((side, side), size, [(box, kind) for box in boxes])


_WHOLE_BOX = (0.0, 0.0, float(WORKING_SIZE), float(WORKING_SIZE))
#: The working image (and its mirrored and turned forms) at the sizes pHash and dHash read,
#: Lanczos as ``perceptual``'s pHash and dHash resize it, and the ``CROP_BOXES`` parts at
#: the same sizes, bilinear: Pillow's pixels, each from two small matrix products.
_WHOLE_32 = resample.resize_plan((WORKING_SIZE,) * 2, (32, 32), [(_WHOLE_BOX, resample.LANCZOS)])
_WHOLE_9X8 = resample.resize_plan((WORKING_SIZE,) * 2, (9, 8), [(_WHOLE_BOX, resample.LANCZOS)])
_CROPS_32 = _crop_parts((32, 32), resample.BILINEAR)
_CROPS_9X8 = _crop_parts((9, 8), resample.BILINEAR)


def numpy_pdhashes(forms: npt.NDArray[Any], pixels: npt.NDArray[Any]) -> list[int]:
    """The numpy reference: the pdhash of each working image of ``forms`` (n, side, side),
    then the crop hash of each ``CROP_BOXES`` part of ``pixels``: every resize, DCT, median
    and bit taken at once."""
    forms = np.asarray(forms, dtype=np.float64)
    pixels = np.asarray(pixels, dtype=np.float64)
    grids = np.concatenate([_WHOLE_32(forms), _CROPS_32(pixels)])
    steps = np.concatenate([_WHOLE_9X8(forms), _CROPS_9X8(pixels)])
    flat = (_DCT8 @ grids @ _DCT8.T).reshape(len(grids), -1)
    noise = TIE * np.abs(flat).max(axis=1, keepdims=True)
    p = (flat > np.median(flat, axis=1, keepdims=True) + noise).reshape(-1, 8, 8)[:, :4]
    d = (steps[:, :, 1:] > steps[:, :, :-1])[:, ::2]
    bits = np.concatenate([p, d], axis=1).reshape(len(grids), 64)
    return [int(v) for v in np.packbits(bits, axis=1).view(">u8").ravel()]


@functools.cache
def _hasher(module: ModuleType) -> Any:
    """The compiled hasher with the reference's resize plans and DCT rows (one definition
    of every weight), made once a process."""
    return module.Hasher(_WHOLE_32, _WHOLE_9X8, _CROPS_32, _CROPS_9X8, _DCT8, TIE)


def pdhashes(
    forms: npt.NDArray[Any], pixels: npt.NDArray[Any], engine: Engine = Engine.AUTO
) -> list[int]:
    """The pdhash of each working image of ``forms`` (n, side, side), then the crop hash of
    each ``CROP_BOXES`` part of ``pixels`` (side, side): grey levels 0..255, uint8
    or whole float64, as ``numpy_pdhashes`` gives them (uint8 forms spare the compiled
    kernel a quarter of its time: eight float images read and checked)."""
    module = choose(Kernel.PICTURE_HASH, engine)
    if module is not None:
        found: list[int] | None = _hasher(module).hashes(forms, pixels)
        if found is not None:
            return found
    return numpy_pdhashes(forms, pixels)
