# cython: language_level=3
# The index's kernels built for AVX2 CPUs: the same source as kernels.pyx, compiled with -mavx2.
include "kernels.pyx"
