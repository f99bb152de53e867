"""The index's measured costs, in nanoseconds, in one place: the cost models that choose
layouts, engines and search strategies read them here.

Only their ratios matter. Each block says what was measured and where; re-measure with
``bench/bench_index.py`` (and ``bench/bench_distributed.py`` for the shuffle) when a kernel
changes.
"""

from __future__ import annotations

# Cost model in nanoseconds (only ratios matter): the per-table fixed cost of Python and numpy
# calls, the per-entry cost of keying a table and finding its runs, and per candidate pair
# generated and verified; measured with numpy 2 on a 2-core x86-64 machine. Sorting, the
# largest part, is timed on the running machine instead (_ns_sort_per_entry_bit): its speed
# differs several-fold between machines, and with it the best number of tables.
NUMPY_TABLE = 40_000.0
NUMPY_ENTRY = 20.0
NUMPY_CANDIDATE = 30.0
NUMPY_DIRECT = 2.0
# Per-query costs: one binary search in a table, and one candidate checked.
NUMPY_PROBE = 400.0
NUMPY_QUERY_CANDIDATE = 25.0
# The compiled kernel, per table: a fixed cost (thread hand-off, buffers), per entry (two-level
# counting sort and the walk over the sorted entries) and per candidate pair (mostly in long
# runs, where a vectorised loop tests several pairs per instruction), measured on the same
# 2-core x86-64 machine with numba 0.68 (k = 3 and 8, n = 100,000 and 1,000,000).
KERNEL_TABLE_ESTIMATE = 20_000.0
KERNEL_ENTRY_ESTIMATE = 6.0
KERNEL_CANDIDATE_ESTIMATE = 0.15

# The kernel's costs (ns), fitted to k = 8, n = 1,000,000 on a 2-core x86-64 (AVX-512)
# machine with numba 0.68 (layouts of 30 to 165 tables): per table (buffers, hand-off); per
# entry and table (permutation, counting sort in cache, the window or bucket set-up); per
# entry, table and fingerprint of the mean run of equal keys (vectorised comparisons, about
# half the run); per entry of each first-level sort (shared by the tables one block leads).
KERNEL_TABLE = 20_000.0
KERNEL_ENTRY = 4.5
KERNEL_RUN = 0.02
KERNEL_GROUP = 3.0
# Probe index costs (ns): building, per value and table; per probe (a bucket start, often a
# cache miss); per candidate (read in sequence from the bucket), measured at 1,000,000.
PROBE_BUILD = 15.0
PROBE = 60.0
PROBE_CANDIDATE = 10.0

# Cross search cost per table (ns): per known value streamed, per binary search, per
# candidate, per new value.
CROSS_STREAM = 3.0
CROSS_SEARCH = 80.0
CROSS_CANDIDATE = 1.5
CROSS_NEW = 100.0

# Distributed costs in nanoseconds: per table (a shuffle's set-up and barrier, whatever its
# size), per table entry (serialise, send, receive, sort) and per random candidate pair
# verified; from bench/bench_distributed.py on 2 local workers.
SHUFFLE_TABLE = 2e9
SHUFFLE_ENTRY = 400.0
SHUFFLE_CANDIDATE = 30.0
