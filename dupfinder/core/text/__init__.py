"""Documents as fingerprints: a 64-bit SimHash of weighted shingles and a MinHash sketch.

``simhash`` turns text (any script, CJK as character n-grams) into the fingerprint the index
searches; ``sketch`` is the second, independent estimate of shared text that verifies a pair;
``chars`` normalises characters; ``compiled`` decides when the numba kernel (``kernels``)
computes both in one pass.
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("simhash", "sketch", "compiled")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root", "jit")
