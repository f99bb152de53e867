"""Every pair of 64-bit fingerprints within k bits, exactly: permuted tables (Manku et al.).

``layout`` owns the block split and the 64-bit constants; ``reference`` is the numpy index
(all pairs, single queries) that the compiled kernel (``compiled`` over ``kernels``) is
tested against; ``pairs`` finds the near pairs of one kind; ``library`` remembers the last
scan's pairs so a rescan compares only what changed; ``cost`` holds the measured constants
the cost models choose layouts with; ``distinct`` finds distinct values and pairs by one
sort (numpy's own ``unique`` hashes, many times slower here).
"""

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("reference", "compiled", "pairs", "library", "layout", "cost", "distinct")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root", "jit")
