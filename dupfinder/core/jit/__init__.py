"""Compiled kernels: which engine runs each one, and loading numba with its cache in place.

``engine`` is the face: :class:`~dupfinder.core.jit.engine.Engine` and the one rule that picks
numpy or the compiled code for the index, the documents and the picture check. ``loader``
imports a kernel module with numba's cache pointed at the user cache folder; ``cache`` is the
locator numba finds by name (it keys compiled code by byte code, so bundles reuse it).
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("engine",)
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT: tuple[str, ...] = ()
