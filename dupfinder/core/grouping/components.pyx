# cython: language_level=3
"""Connected components of the matches graph compiled ahead of time: union-find over the edges.

Only :mod:`dupfinder.core.grouping.cluster` calls this module (through
:func:`dupfinder.core.jit.engine.load`); its numpy path (hooking and pointer jumping) is the
reference the tests compare it with. Each node's label is the smallest node of its component.
"""

from libc.stdint cimport int64_t

import numpy as np


cdef inline int64_t _root(int64_t *parent, int64_t x) noexcept nogil:
    """The root of ``x``, halving the path on the way."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def smallest_labels(int64_t n, const int64_t[::1] a, const int64_t[::1] b):
    """Per node of ``0..n-1``, the smallest node of its component, for the edges (a[i], b[i])."""
    cdef Py_ssize_t i, edges = a.shape[0]
    cdef int64_t ra, rb
    if b.shape[0] != edges:
        raise ValueError("a and b must have the same length")
    if n < 0:
        raise ValueError("n must not be negative")
    for i in range(edges):
        if not (0 <= a[i] < n and 0 <= b[i] < n):
            raise ValueError("an edge names a node outside 0..n-1")
    result = np.arange(n, dtype=np.int64)
    if n == 0:
        return result
    cdef int64_t[::1] parent = result
    with nogil:
        for i in range(edges):
            ra = _root(&parent[0], a[i])
            rb = _root(&parent[0], b[i])
            if ra < rb:  # the smaller root wins: every root is its component's smallest node
                parent[rb] = ra
            elif rb < ra:
                parent[ra] = rb
        for i in range(n):  # parents are smaller than their children: one pass resolves them
            parent[i] = parent[parent[i]]
    return result
