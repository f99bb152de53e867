# cython: language_level=3
# The picture hashes built for AVX2 CPUs: the same source as hash_kernels.pyx, compiled with -mavx2.
include "hash_kernels.pyx"
