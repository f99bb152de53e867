# cython: language_level=3
"""One rank of an unsorted array, for the compiled picture kernels (``cimport``-ed: inline)."""


cdef inline double select_rank(double *values, int n, int rank) noexcept nogil:
    """The ``rank``-th smallest of ``n`` ``values`` (0-based; reordered in place: Hoare's
    quickselect)."""
    cdef int lo = 0, hi = n - 1, i, j
    cdef double pivot, swap
    while lo < hi:
        pivot = values[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while values[i] < pivot:
                i += 1
            while values[j] > pivot:
                j -= 1
            if i <= j:
                swap = values[i]
                values[i] = values[j]
                values[j] = swap
                i += 1
                j -= 1
        if rank <= j:
            hi = j
        elif rank >= i:
            lo = i
        else:
            break
    return values[rank]
