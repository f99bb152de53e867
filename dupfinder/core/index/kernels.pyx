# cython: language_level=3
"""The permuted-table search compiled ahead of time: one set of tables per call, no Python in the loops.

Only :mod:`dupfinder.core.index.compiled` calls this module (through
:func:`dupfinder.core.jit.engine.load`); when the extension was not built, the index uses its
numpy reference. The functions take plain arrays describing the tables (see
``compiled.TableArrays``) and release the GIL, so tables run in parallel on a thread pool.

An entry is the fingerprint with its bits permuted, the table's blocks first: the XOR of two
entries has the pair's distance as its bit count, so candidates are verified from the sorted
entries alone (no gather of values), and the canonical-table test works on permuted masks.
Row numbers travel beside the entries. Tables led by the same block are searched together:
one counting sort on that block's top bits puts the fingerprints in groups of a few thousand,
then, group by group while it is in cache, each table permutes the group and orders it by
counting sort on the rest of its key (no comparison sort). Candidates are found without
branches on the data: short runs of equal keys by a fixed window (the loop over entries has
no branch that depends on them), long runs diagonal by diagonal (every entry against the one
w places on); only entries flagged as having a partner within k are visited pair by pair.
Output grows in a C buffer, copied once into the array returned.

The same source is built twice on x86-64: for the CPUs numpy's own wheels need (x86-64-v2,
this module) and for AVX2 (``kernels_avx2``, which includes this file), where the loops over
entries run four bit counts per instruction; :func:`avx2` tells the loader which one fits.
"""

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy as np

cdef extern from "popcount.h" nogil:
    int df_popcount(uint64_t x)
    int df_cpu_avx2()

#: Buckets up to this size are compared pair by pair; larger ones are sorted first.
DEF _SMALL_BUCKET = 12
#: Entries of a bucket compared at once with a flagged entry (one bit each of a mask).
DEF _SPAN = 64
#: Most rows of output room made for a group's flagged entries without counting their pairs.
DEF _ROOM = 1 << 20
DEF BITS = 64


def avx2() -> bool:
    """Whether this CPU runs the build of these kernels for AVX2 (``kernels_avx2``)."""
    return df_cpu_avx2() != 0


# ----------------------------------------------------------------------------- output buffer

cdef struct Found:
    int64_t *data  # rows of three: (row, row, distance)
    Py_ssize_t rows
    Py_ssize_t room


cdef int _grow(Found *out, Py_ssize_t size) except -1 nogil:
    """Room for at least ``size`` rows (at least twice the room before)."""
    cdef Py_ssize_t room = size if size > 2 * out.room else 2 * out.room
    cdef int64_t *data = <int64_t *> realloc(out.data, <size_t> room * 3 * sizeof(int64_t))
    if data == NULL:
        with gil:
            raise MemoryError()
    out.data = data
    out.room = room
    return 0


cdef int _start(Found *out) except -1 nogil:
    out.data = NULL
    out.rows = 0
    out.room = 0
    return _grow(out, 1024)


cdef object _finish(Found *out):
    """The rows found as an int64 ``(P, 3)`` array; the buffer is freed."""
    result = np.empty((out.rows, 3), np.int64)
    cdef int64_t[:, ::1] view = result
    if out.rows:
        memcpy(&view[0, 0], out.data, <size_t> out.rows * 3 * sizeof(int64_t))
    free(out.data)
    out.data = NULL
    return result


cdef inline void _put(Found *out, int64_t a, int64_t b, int64_t d) noexcept nogil:
    cdef int64_t *row = out.data + 3 * out.rows
    row[0] = a
    row[1] = b
    row[2] = d
    out.rows += 1


# ----------------------------------------------------------------------------- helpers

cdef inline uint64_t _pack(
    uint64_t v, const uint64_t *masks, const uint64_t *lshift, const uint64_t *rshift,
    Py_ssize_t nseg,
) noexcept nogil:
    """Key and stash of one fingerprint, as ``TableArrays.entries`` writes them."""
    cdef uint64_t e = 0
    cdef Py_ssize_t s
    for s in range(nseg):
        e |= ((v & masks[s]) << lshift[s]) >> rshift[s]
    return e


cdef inline bint _canonical(
    uint64_t x, uint64_t full, const uint64_t *differ, Py_ssize_t ndiffer
) noexcept nogil:
    """Whether the pair with XOR ``x`` agrees on this table's blocks and no earlier table's."""
    cdef Py_ssize_t j
    if x & full:
        return False
    for j in range(ndiffer):
        if (x & differ[j]) == 0:
            return False
    return True


cdef void _scatter_sub(
    uint64_t *entries, Py_ssize_t lo, Py_ssize_t hi, uint64_t *local, int64_t *sub,
    Py_ssize_t nsub, uint64_t drop, uint64_t mask,
) noexcept nogil:
    """``entries[lo:hi]`` into ``local`` by counting sort on ``(e >> drop) & mask``:
    ``sub[b] : sub[b + 1]`` is then bucket b of ``local`` (``nsub`` buckets)."""
    cdef Py_ssize_t i, g
    cdef int64_t b
    memset(sub, 0, <size_t> (nsub + 1) * sizeof(int64_t))
    for i in range(lo, hi):
        sub[<int64_t> ((entries[i] >> drop) & mask) + 1] += 1
    for g in range(nsub):
        sub[g + 1] += sub[g]
    for i in range(lo, hi):
        b = <int64_t> ((entries[i] >> drop) & mask)
        local[sub[b]] = entries[i]
        sub[b] += 1
    # the scatter advanced each start to the next one's: shift back by one bucket
    for g in range(nsub, 0, -1):
        sub[g] = sub[g - 1]
    sub[0] = 0


cdef inline int64_t _largest(const int64_t *starts, Py_ssize_t count) noexcept nogil:
    cdef int64_t largest = 0
    cdef Py_ssize_t g
    for g in range(count - 1):
        if starts[g + 1] - starts[g] > largest:
            largest = starts[g + 1] - starts[g]
    return largest


cdef inline uint8_t _near(uint64_t x, int k, uint64_t key_drop) noexcept nogil:
    """1 when an XOR of two entries is within k and has no bit in the key (branch-free)."""
    return <uint8_t> (df_popcount(x) <= k) & <uint8_t> ((x >> key_drop) == 0)


cdef inline void _flag_window(
    const uint64_t *local, Py_ssize_t size, int k, uint64_t key_drop, uint64_t sort_drop,
    Py_ssize_t window, uint8_t *flags,
) noexcept nogil:
    """``flags[i]``: bit 0 when one of the next ``window`` entries is a partner of entry i,
    bit 1 when entry i's run of equal sort bits reaches past that window. Called with a
    constant ``window``, the inner loop unrolls: no branch depends on the data."""
    cdef Py_ssize_t body = size - window - 1
    cdef Py_ssize_t i, w, j, end
    cdef uint64_t ei
    cdef uint8_t hit
    if body < 0:
        body = 0
    for i in range(body):
        ei = local[i]
        hit = 0
        for w in range(1, window + 1):
            hit |= _near(ei ^ local[i + w], k, key_drop)
        flags[i] = hit | (<uint8_t> (((ei ^ local[i + window + 1]) >> sort_drop) == 0) << 1)
    for i in range(body, size):
        ei = local[i]
        hit = 0
        end = i + window + 1
        if end > size:
            end = size
        for j in range(i + 1, end):
            hit |= _near(ei ^ local[j], k, key_drop)
        flags[i] = hit


cdef void _flags_4(
    const uint64_t *local, Py_ssize_t size, int k, uint64_t key_drop, uint64_t sort_drop,
    uint8_t *flags,
) noexcept nogil:
    _flag_window(local, size, k, key_drop, sort_drop, 4, flags)


cdef void _flags_8(
    const uint64_t *local, Py_ssize_t size, int k, uint64_t key_drop, uint64_t sort_drop,
    uint8_t *flags,
) noexcept nogil:
    _flag_window(local, size, k, key_drop, sort_drop, 8, flags)


cdef void _flags_16(
    const uint64_t *local, Py_ssize_t size, int k, uint64_t key_drop, uint64_t sort_drop,
    uint8_t *flags,
) noexcept nogil:
    _flag_window(local, size, k, key_drop, sort_drop, 16, flags)


cdef void _flag_long_runs(
    const uint64_t *local, Py_ssize_t size, int k, uint64_t key_drop, uint64_t sort_drop,
    Py_ssize_t window, uint8_t *flags,
) noexcept nogil:
    """Bit 0 of ``flags`` for partners further than ``window`` apart, in the runs that bit 1
    marks: diagonal by diagonal (offset w, every i at once), so each step is a loop over
    contiguous entries however long the run."""
    cdef Py_ssize_t i = 0, lo, hi, w, j, span
    cdef const uint64_t *run
    cdef uint8_t *marks
    while i < size:
        if not flags[i] & 2:
            i += 1
            continue
        lo = i
        hi = i + window + 2
        while hi < size and ((local[hi] ^ local[lo]) >> sort_drop) == 0:
            hi += 1
        run = local + lo
        marks = flags + lo
        span = hi - lo
        if sort_drop == key_drop:  # the run is one key: the distance alone decides
            for w in range(window + 1, span):
                for j in range(span - w):
                    marks[j] |= <uint8_t> (df_popcount(run[j] ^ run[j + w]) <= k)
        else:
            for w in range(window + 1, span):
                for j in range(span - w):
                    marks[j] |= _near(run[j] ^ run[j + w], k, key_drop)
        i = hi


cdef inline int _nearest(uint64_t e, const uint64_t *rest, Py_ssize_t size) noexcept nogil:
    """The smallest distance from ``e`` to an entry of ``rest`` (64 when empty)."""
    cdef int m = 64, d
    cdef Py_ssize_t j
    for j in range(size):
        d = df_popcount(e ^ rest[j])
        if d < m:
            m = d
    return m


cdef inline int _min(int a, int b) noexcept nogil:
    return a if a < b else b


cdef Py_ssize_t _flag_buckets(
    const uint64_t *local, const int64_t *ends, Py_ssize_t nsub, int k, int64_t *hits
) noexcept nogil:
    """Positions of the entries with a partner within k later in their bucket, where a bucket
    is one key (``ends[b]`` is where bucket b ends), into ``hits``; returns how many.

    Four entries at a time meet the rest of their bucket in one loop (a minimum of distances,
    no branch on the data): each later entry is loaded once for four comparisons."""
    cdef Py_ssize_t lo = 0, hi, i, j, size, at, last, count = 0
    cdef Py_ssize_t b
    cdef const uint64_t *run
    cdef uint64_t e0, e1, e2, e3, r
    cdef int m0, m1, m2, m3
    for b in range(nsub):
        hi = ends[b]
        run = local + lo
        size = hi - lo
        i = 0
        while i + 4 <= size:
            e0, e1, e2, e3 = run[i], run[i + 1], run[i + 2], run[i + 3]
            m0 = _min(_min(df_popcount(e0 ^ e1), df_popcount(e0 ^ e2)), df_popcount(e0 ^ e3))
            m1 = _min(df_popcount(e1 ^ e2), df_popcount(e1 ^ e3))
            m2 = df_popcount(e2 ^ e3)
            m3 = 64
            for j in range(i + 4, size):
                r = run[j]
                m0 = _min(m0, df_popcount(e0 ^ r))
                m1 = _min(m1, df_popcount(e1 ^ r))
                m2 = _min(m2, df_popcount(e2 ^ r))
                m3 = _min(m3, df_popcount(e3 ^ r))
            at = lo + i
            hits[count] = at
            count += m0 <= k
            hits[count] = at + 1
            count += m1 <= k
            hits[count] = at + 2
            count += m2 <= k
            hits[count] = at + 3
            count += m3 <= k
            i += 4
        for last in range(i, size):
            hits[count] = lo + last
            count += _nearest(run[last], run + last + 1, size - last - 1) <= k
        lo = hi
    return count


cdef Py_ssize_t _flagged(const uint8_t *flags, Py_ssize_t size, int64_t *hits) noexcept nogil:
    """Positions of the entries with bit 0 of ``flags`` into ``hits``; returns how many."""
    cdef Py_ssize_t count = 0, i
    for i in range(size):
        hits[count] = i
        count += flags[i] & 1
    return count


cdef inline uint64_t _partners(uint64_t ei, const uint64_t *block, int k) noexcept nogil:
    """Bit c set when ``block[c]`` is within k of ``ei``, for the ``_SPAN`` entries of
    ``block``: a fixed-length loop without branches (a bit mask, no walk to find where the
    partner was)."""
    cdef uint64_t found = 0
    cdef int c
    for c in range(_SPAN):
        found |= (<uint64_t> (df_popcount(ei ^ block[c]) <= k)) << c
    return found


cdef void _write_pairs(
    const uint64_t *local, const uint32_t *local_rows, const int64_t *ends,
    const int64_t *hits, Py_ssize_t count, int k, uint64_t key_drop, uint64_t sort_drop,
    uint64_t sub_mask, uint64_t full, const uint64_t *differ, Py_ssize_t ndiffer,
    int64_t limit, Found *out,
) noexcept nogil:
    """Write to ``out`` the pairs of the entries ``hits[:count]`` with the later entries of
    their bucket: within k, of equal key, canonical here, with a row below ``limit`` (room is
    made by the caller).

    The rest of the bucket is read ``_SPAN`` entries at a time as a mask of the entries
    within k (``local`` has that many entries of room past its end: bits past the bucket are
    dropped); only those are checked further."""
    cdef uint64_t one = 1, ei, near, x
    cdef Py_ssize_t h, i, j, jj, end
    cdef int64_t a, b
    for h in range(count):
        i = hits[h]
        ei = local[i]
        end = ends[(ei >> sort_drop) & sub_mask]
        for j in range(i + 1, end, _SPAN):
            near = _partners(ei, local + j, k)
            if end - j < _SPAN:
                near &= (one << <uint64_t> (end - j)) - one
            while near:
                jj = j + df_popcount((near & (~near + one)) - one)
                near &= near - one
                x = ei ^ local[jj]
                if (x >> key_drop) == 0 and _canonical(x, full, differ, ndiffer):
                    a = local_rows[i]
                    b = local_rows[jj]
                    if (a if a < b else b) >= limit:
                        continue
                    _put(out, a if a < b else b, b if a < b else a, df_popcount(x))


cdef int _emit_flagged(
    const uint64_t *local, const uint32_t *local_rows, const int64_t *ends,
    const int64_t *hits, Py_ssize_t count, int k, uint64_t key_drop, uint64_t sort_drop,
    uint64_t sub_mask, uint64_t full, const uint64_t *differ, Py_ssize_t ndiffer,
    int64_t limit, Found *out,
) except -1 nogil:
    """Append to ``out`` the pairs (row, row, distance) of the entries ``hits[:count]`` with
    the later entries of their bucket. Room is made first: the rest of each bucket when that
    takes at most ``_ROOM`` rows more, else an exact count (a second pass)."""
    cdef Py_ssize_t bound = 0, room = 0, h, i, j, end
    cdef uint64_t ei
    for h in range(count):
        i = hits[h]
        bound += ends[(local[i] >> sort_drop) & sub_mask] - i - 1
    if out.rows + bound > out.room and bound <= _ROOM:
        _grow(out, out.rows + bound)
    elif out.rows + bound > out.room:
        for h in range(count):  # the bound would take too much memory (long runs)
            i = hits[h]
            ei = local[i]
            end = ends[(ei >> sort_drop) & sub_mask]
            for j in range(i + 1, end):
                room += df_popcount(ei ^ local[j]) <= k
        if out.rows + room > out.room:
            _grow(out, out.rows + room)
    _write_pairs(
        local, local_rows, ends, hits, count, k, key_drop, sort_drop, sub_mask, full, differ,
        ndiffer, limit, out,
    )
    return 0


cdef void _group_starts(
    const uint64_t *values, Py_ssize_t n, uint64_t shift, uint64_t mask, int top_bits,
    int64_t *starts,
) noexcept nogil:
    """Where each group of values sharing ``(v >> shift) & mask`` starts (2^top_bits + 1)."""
    cdef Py_ssize_t i, g, groups = (<Py_ssize_t> 1) << top_bits
    memset(starts, 0, <size_t> (groups + 1) * sizeof(int64_t))
    for i in range(n):
        starts[((values[i] >> shift) & mask) + 1] += 1
    for g in range(groups):
        starts[g + 1] += starts[g]


cdef void _scatter_groups(
    const uint64_t *values, Py_ssize_t n, uint64_t shift, int top_bits, uint64_t *entries,
    uint32_t *rows, int64_t *starts, int64_t *fill,
) noexcept nogil:
    """Fingerprints (unpermuted, rows beside) grouped by the ``top_bits`` bits at ``shift``
    into ``starts``: one counting pass and one stable scatter into at most 2^top_bits places
    (few enough that every write stream stays in cache)."""
    cdef uint64_t mask = ((<uint64_t> 1) << top_bits) - 1
    cdef Py_ssize_t i, g, groups = (<Py_ssize_t> 1) << top_bits
    cdef uint64_t v, b
    cdef int64_t p
    if not top_bits:
        shift = 0  # a shift by 64 is undefined
    _group_starts(values, n, shift, mask, top_bits, starts)
    for g in range(groups):
        fill[g] = starts[g]
    for i in range(n):
        v = values[i]
        b = (v >> shift) & mask
        p = fill[b]
        entries[p] = v
        rows[p] = <uint32_t> i
        fill[b] = p + 1


cdef void _sort_group(
    const uint64_t *entries, const uint32_t *rows, Py_ssize_t size, const uint64_t *masks,
    const uint64_t *lshift, const uint64_t *rshift, Py_ssize_t nseg, uint64_t sort_drop,
    int sub_bits, int64_t *sub, uint64_t *perm, uint64_t *local, uint32_t *local_rows,
) noexcept nogil:
    """The fingerprints ``entries`` permuted into ``local`` (rows beside), ordered by counting
    sort on the ``sub_bits`` bits above ``sort_drop``. The permutation is computed once, in a
    loop of its own."""
    cdef Py_ssize_t nsub = (<Py_ssize_t> 1) << sub_bits, i, g
    cdef uint64_t mask = <uint64_t> (nsub - 1), e, b
    cdef int64_t p
    for i in range(size):
        perm[i] = _pack(entries[i], masks, lshift, rshift, nseg)
    memset(sub, 0, <size_t> (nsub + 1) * sizeof(int64_t))
    for i in range(size):
        sub[((perm[i] >> sort_drop) & mask) + 1] += 1
    for g in range(nsub):
        sub[g + 1] += sub[g]
    for i in range(size):
        e = perm[i]
        b = (e >> sort_drop) & mask
        p = sub[b]
        local[p] = e
        local_rows[p] = rows[i]
        sub[b] = p + 1


# ----------------------------------------------------------------------------- all pairs

def tables_pairs(
    const uint64_t[::1] values,
    int k,
    int group_shift,
    int top_bits,
    const uint64_t[:, ::1] masks,
    const uint64_t[:, ::1] lshift,
    const uint64_t[:, ::1] rshift,
    const int64_t[::1] key_bits,
    const int64_t[::1] sub_bits,
    const uint64_t[::1] full,
    const uint64_t[:, ::1] differ,
    const int64_t[::1] ndiffer,
    const int64_t[::1] windows,
    uint64_t[::1] entries,
    uint32_t[::1] rows,
    int64_t limit,
):
    """Pairs ``(i, j, distance)``, i < j rows of ``values``, within k whose canonical table is
    one of the tables described (one line of each array per table): an int64 ``(P, 3)`` array.

    The tables share their first block, whose top ``top_bits`` bits (at ``group_shift`` in a
    fingerprint) group the fingerprints once for all of them. Then, group by group while it
    is in cache, each table permutes the group's fingerprints (``masks``/``lshift``/``rshift``:
    the key's ``key_bits`` on top; unused segments have mask 0) and orders them by counting
    sort on the next ``sub_bits`` bits. Candidates share the top ``top_bits + sub_bits`` bits;
    the rest of the key is checked with the distance. ``full``/``differ`` (the first
    ``ndiffer`` of each line) are the canonical-table masks, permuted like the entries.

    Within a group, a branch-free pass flags entries with a partner among the next
    ``windows[t]`` (4, 8 or 16) entries or a run longer than that; long runs are searched
    diagonal by diagonal. With ``windows[t]`` 0 (long runs, each one key) every bucket is
    searched four entries at a time and the entries with a partner are listed directly.
    Only those entries are visited pair by pair. Pairs of two rows from ``limit`` on are left
    out (a search of queries against known fingerprints skips the pairs among queries).
    """
    cdef Py_ssize_t n = values.shape[0], tables = masks.shape[0], nseg = masks.shape[1]
    cdef Py_ssize_t ndiff_width = differ.shape[1]
    cdef Py_ssize_t groups = (<Py_ssize_t> 1) << top_bits
    cdef Py_ssize_t t, group, size, count, window, most_sub = 0, largest
    cdef int64_t glo, ghi
    cdef uint64_t sort_drop, key_drop
    cdef int64_t *starts = NULL
    cdef int64_t *fill = NULL
    cdef uint64_t *local = NULL
    cdef uint32_t *local_rows = NULL
    cdef uint8_t *flags = NULL
    cdef int64_t *hits = NULL
    cdef uint64_t *perm = NULL
    cdef int64_t *sub = NULL
    cdef Found out
    if entries.shape[0] < n or rows.shape[0] < n:
        raise ValueError("the workspace is smaller than the fingerprints")
    if (masks.shape[0] != lshift.shape[0] or masks.shape[0] != rshift.shape[0]
            or masks.shape[1] != lshift.shape[1] or masks.shape[1] != rshift.shape[1]
            or key_bits.shape[0] != tables or sub_bits.shape[0] != tables
            or full.shape[0] != tables or differ.shape[0] != tables
            or ndiffer.shape[0] != tables or windows.shape[0] != tables):
        raise ValueError("one line per table in every table array")
    if n == 0:
        return np.empty((0, 3), np.int64)
    for t in range(tables):
        if sub_bits[t] > most_sub:
            most_sub = sub_bits[t]
        if ndiffer[t] > ndiff_width:
            raise ValueError("ndiffer exceeds the differ masks")
    out.data = NULL
    try:
        _start(&out)
        starts = <int64_t *> malloc(<size_t> (groups + 1) * sizeof(int64_t))
        fill = <int64_t *> malloc(<size_t> (groups + 1) * sizeof(int64_t))
        sub = <int64_t *> malloc(<size_t> (((<Py_ssize_t> 1) << most_sub) + 1) * sizeof(int64_t))
        if starts == NULL or fill == NULL or sub == NULL:
            raise MemoryError()
        with nogil:
            _scatter_groups(
                &values[0], n, <uint64_t> group_shift, top_bits, &entries[0], &rows[0],
                starts, fill,
            )
        largest = _largest(starts, groups + 1)
        local = <uint64_t *> malloc(<size_t> (largest + _SPAN) * sizeof(uint64_t))
        local_rows = <uint32_t *> malloc(<size_t> (largest + 1) * sizeof(uint32_t))
        flags = <uint8_t *> malloc(<size_t> (largest + 1))
        hits = <int64_t *> malloc(<size_t> (largest + 1) * sizeof(int64_t))
        perm = <uint64_t *> malloc(<size_t> (largest + 1) * sizeof(uint64_t))
        if local == NULL or local_rows == NULL or flags == NULL or hits == NULL or perm == NULL:
            raise MemoryError()
        # room for a mask's reach past the end: defined values, never reported
        memset(local + largest, 0, _SPAN * sizeof(uint64_t))
        with nogil:
            for group in range(groups):
                glo = starts[group]
                ghi = starts[group + 1]
                size = ghi - glo
                if size < 2:
                    continue
                for t in range(tables):
                    sort_drop = <uint64_t> (BITS - top_bits - sub_bits[t])
                    key_drop = <uint64_t> (BITS - key_bits[t])
                    _sort_group(
                        &entries[glo], &rows[glo], size, &masks[t, 0], &lshift[t, 0],
                        &rshift[t, 0], nseg, sort_drop, <int> sub_bits[t], sub, perm, local,
                        local_rows,
                    )
                    window = windows[t]
                    if window == 0:
                        count = _flag_buckets(
                            local, sub, (<Py_ssize_t> 1) << sub_bits[t], k, hits
                        )
                    else:
                        if window == 4:
                            _flags_4(local, size, k, key_drop, sort_drop, flags)
                        elif window == 8:
                            _flags_8(local, size, k, key_drop, sort_drop, flags)
                        else:
                            _flags_16(local, size, k, key_drop, sort_drop, flags)
                        _flag_long_runs(local, size, k, key_drop, sort_drop, window, flags)
                        count = _flagged(flags, size, hits)
                    if count == 0:
                        continue
                    _emit_flagged(
                        local, local_rows, sub, hits, count, k, key_drop, sort_drop,
                        (((<uint64_t> 1) << sub_bits[t]) - 1), full[t], &differ[t, 0],
                        ndiffer[t], limit, &out,
                    )
        return _finish(&out)
    finally:
        free(out.data)
        free(starts)
        free(fill)
        free(sub)
        free(local)
        free(local_rows)
        free(flags)
        free(hits)
        free(perm)


def sorted_entries(
    const uint64_t[::1] values,
    const uint64_t[::1] high,
    int top_bits,
    int sub_bits,
    uint64_t[::1] entries,
):
    """``np.sort((values & high) | row)`` into ``entries`` (``high`` leaves the row bits free):
    grouped by the top bits with the rows written in (no array of rows beside), then each
    group by counting sort on the next bits, then each bucket sorted."""
    cdef Py_ssize_t n = values.shape[0], groups = (<Py_ssize_t> 1) << top_bits
    cdef Py_ssize_t nsub = (<Py_ssize_t> 1) << sub_bits
    cdef uint64_t mask = ((<uint64_t> 1) << top_bits) - 1
    cdef uint64_t shift = <uint64_t> (BITS - top_bits) if top_bits else 0
    cdef uint64_t sub_drop = <uint64_t> (BITS - top_bits - sub_bits)
    cdef uint64_t sub_mask = <uint64_t> (nsub - 1)
    cdef uint64_t v, b, e, keep = high[0]
    cdef Py_ssize_t i, j, g, group, bucket, largest
    cdef int64_t p, glo, ghi, lo, hi
    cdef int64_t *starts = NULL
    cdef int64_t *fill = NULL
    cdef int64_t *sub = NULL
    cdef uint64_t *local = NULL
    if entries.shape[0] < n:
        raise ValueError("entries is smaller than the fingerprints")
    if n == 0:
        return
    try:
        starts = <int64_t *> malloc(<size_t> (groups + 1) * sizeof(int64_t))
        fill = <int64_t *> malloc(<size_t> (groups + 1) * sizeof(int64_t))
        sub = <int64_t *> malloc(<size_t> (nsub + 1) * sizeof(int64_t))
        if starts == NULL or fill == NULL or sub == NULL:
            raise MemoryError()
        with nogil:
            _group_starts(&values[0], n, shift, mask, top_bits, starts)
            for g in range(groups):
                fill[g] = starts[g]
            for i in range(n):
                v = values[i]
                b = (v >> shift) & mask
                p = fill[b]
                entries[p] = (v & keep) | <uint64_t> i
                fill[b] = p + 1
            largest = _largest(starts, groups + 1)
            local = <uint64_t *> malloc(<size_t> (largest + 1) * sizeof(uint64_t))
        if local == NULL:
            raise MemoryError()
        with nogil:
            for group in range(groups):
                glo = starts[group]
                ghi = starts[group + 1]
                if ghi - glo < 2:
                    continue
                _scatter_sub(&entries[0], glo, ghi, local, sub, nsub, sub_drop, sub_mask)
                for bucket in range(nsub):
                    lo = sub[bucket]
                    hi = sub[bucket + 1]
                    if hi - lo > _SMALL_BUCKET:
                        _sort_u64(local + lo, hi - lo)
                    else:
                        for i in range(lo + 1, hi):  # insertion sort
                            e = local[i]
                            j = i - 1
                            while j >= lo and local[j] > e:
                                local[j + 1] = local[j]
                                j -= 1
                            local[j + 1] = e
                memcpy(&entries[glo], local, <size_t> (ghi - glo) * sizeof(uint64_t))
    finally:
        free(starts)
        free(fill)
        free(sub)
        free(local)


cdef void _sort_u64(uint64_t *a, Py_ssize_t n) noexcept nogil:
    """Ascending sort in place: an insertion sort below 64 entries, a heap sort above (long
    buckets are rare: a bucket holds about two entries)."""
    cdef Py_ssize_t i, j
    cdef uint64_t e
    if n < 64:
        for i in range(1, n):
            e = a[i]
            j = i - 1
            while j >= 0 and a[j] > e:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = e
        return
    _heap_sort(a, n)


cdef void _sift(uint64_t *a, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    cdef Py_ssize_t root = start, child
    cdef uint64_t tmp
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and a[child] < a[child + 1]:
            child += 1
        if a[root] < a[child]:
            tmp = a[root]
            a[root] = a[child]
            a[child] = tmp
            root = child
        else:
            return


cdef void _heap_sort(uint64_t *a, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t start, end
    cdef uint64_t tmp
    for start in range(n // 2 - 1, -1, -1):
        _sift(a, start, n)
    for end in range(n - 1, 0, -1):
        tmp = a[0]
        a[0] = a[end]
        a[end] = tmp
        _sift(a, 0, end)


# ----------------------------------------------------------------------------- queries

def cross_pairs(
    const uint64_t[::1] a_entries,
    const int64_t[::1] a_rows,
    const uint64_t[::1] b_values,
    int k,
    const uint64_t[::1] masks,
    const uint64_t[::1] lshift,
    const uint64_t[::1] rshift,
    int key_bits,
    uint64_t full,
    const uint64_t[::1] differ,
    int filter_bits,
):
    """Pairs ``(row of a, row of b, distance)`` within k whose canonical table is this one,
    between a small set ``a`` (its entries sorted, rows beside) and any number of ``b``.

    Each fingerprint of ``b`` is permuted on the fly and looked up: a bitmap of the top
    ``filter_bits`` key bits of ``a`` (small enough for the cache) turns most of them away
    with one load, and the rest are found by binary search. Cost: one pass over ``b``.
    """
    cdef Py_ssize_t na = a_entries.shape[0], nb = b_values.shape[0], nseg = masks.shape[0]
    cdef Py_ssize_t bi, i, lo, hi, mid, words = (((<Py_ssize_t> 1) << filter_bits) >> 6) + 1
    cdef uint64_t key_drop = <uint64_t> (BITS - key_bits)
    cdef uint64_t filter_drop = <uint64_t> (BITS - filter_bits)
    cdef uint64_t f, e, key, x
    cdef int d
    cdef uint64_t *bitmap = NULL
    cdef const uint64_t *differ_at = NULL
    cdef Py_ssize_t ndiffer = differ.shape[0]
    cdef Found out
    if ndiffer:
        differ_at = &differ[0]
    if a_rows.shape[0] != na or lshift.shape[0] != nseg or rshift.shape[0] != nseg:
        raise ValueError("mismatched table arrays")
    if not 1 <= filter_bits <= 63 or not 1 <= key_bits <= 64 or filter_bits > key_bits:
        raise ValueError("filter_bits and key_bits out of range")
    if na == 0 or nb == 0:
        return np.empty((0, 3), np.int64)
    out.data = NULL
    try:
        bitmap = <uint64_t *> malloc(<size_t> words * sizeof(uint64_t))
        if bitmap == NULL:
            raise MemoryError()
        with nogil:
            _start(&out)
            memset(bitmap, 0, <size_t> words * sizeof(uint64_t))
            for i in range(na):
                f = a_entries[i] >> filter_drop
                bitmap[f >> 6] |= (<uint64_t> 1) << (f & 63)
            for bi in range(nb):
                e = _pack(b_values[bi], &masks[0], &lshift[0], &rshift[0], nseg)
                f = e >> filter_drop
                if (bitmap[f >> 6] >> (f & 63)) & 1 == 0:
                    continue
                key = e >> key_drop
                lo = 0
                hi = na
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if (a_entries[mid] >> key_drop) < key:
                        lo = mid + 1
                    else:
                        hi = mid
                while lo < na and (a_entries[lo] >> key_drop) == key:
                    x = a_entries[lo] ^ e
                    d = df_popcount(x)
                    if d <= k and _canonical(x, full, differ_at, ndiffer):
                        if out.rows == out.room:
                            _grow(&out, out.rows + 1)
                        _put(&out, a_rows[lo], bi, d)
                    lo += 1
        return _finish(&out)
    finally:
        free(out.data)
        free(bitmap)


def probe_build(const uint64_t[::1] values, const int64_t[::1] shifts, int key_bits):
    """One table per block for probing: ``values`` (and their rows) ordered by counting sort on
    the ``key_bits`` bits at ``shifts[t]`` (the top bits of block t); returns (starts, sorted
    values, rows), one line per table. A bucket's values are contiguous: probing reads them
    in sequence instead of gathering from all over ``values``."""
    cdef Py_ssize_t n = values.shape[0], tables = shifts.shape[0], t, i, g
    cdef Py_ssize_t size = (<Py_ssize_t> 1) << key_bits
    cdef uint64_t mask = <uint64_t> (size - 1), shift
    cdef int64_t b
    if not 1 <= key_bits <= 30:
        raise ValueError("key_bits out of range")
    starts_array = np.zeros((tables, size + 1), np.int64)
    rows_array = np.empty((tables, n), np.uint32)
    ordered_array = np.empty((tables, n), np.uint64)
    fill_array = np.empty(size, np.int64)
    cdef int64_t[:, ::1] starts = starts_array
    cdef uint32_t[:, ::1] rows = rows_array
    cdef uint64_t[:, ::1] ordered = ordered_array
    cdef int64_t[::1] fill = fill_array
    with nogil:
        for t in range(tables):
            shift = <uint64_t> shifts[t]
            for i in range(n):
                starts[t, <int64_t> ((values[i] >> shift) & mask) + 1] += 1
            for g in range(size):
                starts[t, g + 1] += starts[t, g]
            for g in range(size):
                fill[g] = starts[t, g]
            for i in range(n):
                b = <int64_t> ((values[i] >> shift) & mask)
                rows[t, fill[b]] = <uint32_t> i
                ordered[t, fill[b]] = values[i]
                fill[b] += 1
    return starts_array, ordered_array, rows_array


def probe_query(
    const uint64_t[::1] queries,
    const int64_t[:, ::1] starts,
    const uint64_t[:, ::1] ordered,
    const uint32_t[:, ::1] rows,
    const int64_t[::1] shifts,
    int key_bits,
    int errors,
    int k,
):
    """Pairs ``(query, row of values, distance)`` within k, each once.

    Pigeonhole over the blocks: two fingerprints within k differ in at most ``errors`` =
    k // blocks bits of some block, hence of its top ``key_bits``. Each query probes, in each
    block's table, every key within ``errors`` flips of its own; a pair is reported by the
    first table where it is within ``errors`` (the others skip it).
    """
    cdef Py_ssize_t tables = shifts.shape[0], nq = queries.shape[0]
    cdef uint64_t mask = ((<uint64_t> 1) << key_bits) - 1
    cdef int most = errors if errors < key_bits else key_bits
    cdef int flips[64]
    cdef Py_ssize_t qi, t, s, at, b
    cdef int e, i, j, d
    cdef uint64_t q, key, probe, x
    cdef bint first
    cdef Found out
    if not 1 <= key_bits <= 30 or errors < 0:
        raise ValueError("key_bits or errors out of range")
    if starts.shape[0] != tables or ordered.shape[0] != tables or rows.shape[0] != tables:
        raise ValueError("one line per table")
    out.data = NULL
    try:
        with nogil:
            _start(&out)
            for qi in range(nq):
                q = queries[qi]
                for t in range(tables):
                    key = (q >> <uint64_t> shifts[t]) & mask
                    # more flips than key bits would probe outside the table (every key is
                    # reached with at most key_bits flips anyway)
                    for e in range(most + 1):
                        # every set of e distinct bit positions, in increasing order
                        for i in range(e):
                            flips[i] = i
                        while True:
                            probe = key
                            for i in range(e):
                                probe ^= (<uint64_t> 1) << flips[i]
                            b = <Py_ssize_t> probe
                            for at in range(starts[t, b], starts[t, b + 1]):
                                x = q ^ ordered[t, at]
                                d = df_popcount(x)
                                if d > k:
                                    continue
                                first = True
                                for s in range(t):
                                    if df_popcount((x >> <uint64_t> shifts[s]) & mask) <= errors:
                                        first = False
                                        break
                                if not first:
                                    continue
                                if out.rows == out.room:
                                    _grow(&out, out.rows + 1)
                                _put(&out, qi, rows[t, at], d)
                            # next combination
                            i = e - 1
                            while i >= 0 and flips[i] == key_bits - e + i:
                                i -= 1
                            if i < 0:
                                break
                            flips[i] += 1
                            for j in range(i + 1, e):
                                flips[j] = flips[j - 1] + 1
        return _finish(&out)
    finally:
        free(out.data)


# ----------------------------------------------------------------------------- packed pairs

def expand_packed(
    const int64_t[::1] group_of,
    const int64_t[::1] group_rows,
    const int64_t[::1] group_start,
    const int64_t[::1] group_size,
    const int64_t[::1] keep,
    const int64_t[::1] a,
    const int64_t[::1] b,
    const int64_t[::1] d,
    int64_t n,
):
    """Pairs of distinct values (indices into ``keep``, the row standing for each value) as
    pairs of rows, with every copy: one int64 ``((i * n + j) << 7) | distance`` per pair,
    i < j, unsorted. ``group_of[u]`` is the copy group of distinct value u (-1: no copies);
    group g is ``group_rows[group_start[g] : group_start[g] + group_size[g]]``, ascending.
    Copies of one value pair up at distance 0."""
    cdef Py_ssize_t p, g, x, y, w = 0, total = 0, ca, cb
    cdef int64_t ga, gb, ra, rb, start
    if b.shape[0] != a.shape[0] or d.shape[0] != a.shape[0]:
        raise ValueError("a, b and d must have the same length")
    for p in range(a.shape[0]):
        ga = group_of[a[p]]
        gb = group_of[b[p]]
        total += (group_size[ga] if ga >= 0 else 1) * (group_size[gb] if gb >= 0 else 1)
    for g in range(group_size.shape[0]):
        total += group_size[g] * (group_size[g] - 1) // 2
    result = np.empty(total, np.int64)
    cdef int64_t[::1] out = result
    with nogil:
        for p in range(a.shape[0]):
            ga = group_of[a[p]]
            gb = group_of[b[p]]
            ca = group_size[ga] if ga >= 0 else 1
            cb = group_size[gb] if gb >= 0 else 1
            for x in range(ca):
                ra = group_rows[group_start[ga] + x] if ga >= 0 else keep[a[p]]
                for y in range(cb):
                    rb = group_rows[group_start[gb] + y] if gb >= 0 else keep[b[p]]
                    out[w] = (((ra if ra < rb else rb) * n + (rb if ra < rb else ra)) << 7) | d[p]
                    w += 1
        for g in range(group_size.shape[0]):
            start = group_start[g]
            for x in range(group_size[g]):
                for y in range(x + 1, group_size[g]):
                    out[w] = (group_rows[start + x] * n + group_rows[start + y]) << 7
                    w += 1
    return result


def pack_pairs(const int64_t[::1] a, const int64_t[::1] b, const int64_t[::1] d, int64_t n):
    """``((i * n + j) << 7) | distance`` of each pair, i < j."""
    cdef Py_ssize_t p, size = a.shape[0]
    if b.shape[0] != size or d.shape[0] != size:
        raise ValueError("a, b and d must have the same length")
    result = np.empty(size, np.int64)
    cdef int64_t[::1] out = result
    with nogil:
        for p in range(size):
            out[p] = ((a[p] if a[p] < b[p] else b[p]) * n + (b[p] if a[p] < b[p] else a[p])) << 7
            out[p] |= d[p]
    return result


def unpack_pairs(int64_t[::1] packed, int64_t n):
    """The ``(P, 2)`` pairs and the distances of sorted packed pairs: the first row only
    grows along the sorted array, so it is found by walking, not by a division per pair.
    The distances overwrite ``packed`` (returned as the distances): with a hundred million
    pairs, touching a fresh gigabyte costs more than the loop itself."""
    cdef Py_ssize_t p, size = packed.shape[0]
    cdef int64_t i = 0, base = 0, v, ij
    pairs_array = np.empty((size, 2), np.int64)
    cdef int64_t[:, ::1] pairs = pairs_array
    with nogil:
        for p in range(size):
            v = packed[p]
            ij = v >> 7
            while ij >= base + n:
                i += 1
                base += n
            pairs[p, 0] = i
            pairs[p, 1] = ij - base
            packed[p] = v & 127
    return pairs_array, packed.base
