"""Compiled kernels: which engine runs each one, and loading the extension modules built with the package.

``engine`` is the face: :class:`~dupfinder.core.jit.engine.Engine` and the one rule that picks
numpy (or, for a small picture's steps, Pillow) or the compiled code for the index, the
documents, the pictures' hashes and small pictures' steps, the picture check and the grouping's
components. The kernels themselves are Cython extension modules
compiled ahead of time, each beside the module that drives it (``index/kernels.pyx``,
``text/kernels.pyx``, ``image/hash_kernels.pyx``, ``image/direct_kernels.pyx``,
``image/check_kernels.pyx``,
``grouping/components.pyx``; ``popcount.h`` here is their shared bit count); ``loader`` imports one, or says once why it cannot and lets numpy answer. Nothing is
compiled on a user's machine. ``lazy`` names a module (numpy) that is imported only where it is
first used: a rescan given its last result never is.
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("engine", "lazy")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT: tuple[str, ...] = ()
