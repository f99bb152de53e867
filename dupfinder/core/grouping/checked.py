"""The second check of each proposed pair, done once: outcomes remembered across scans.

A rescan proposes the same pairs as the scan before it, and checking a pair of pictures
(thumbnails compared block by block) is the costliest step left once every fingerprint
comes from the cache. Each pair is therefore known by what decides its outcome, the
*content keys* of its two files (a 64-bit mix of the fingerprint and every byte of the
sketch or descriptor), and a ``CheckMemory`` (the scan's library) answers the pairs it has
seen under the same check; only the others are checked, in threads when there are many
(the compiled comparisons release the interpreter lock), and all are remembered. A check
whose code changes gets another name (``check_name``), so nothing it decided before is
taken for its answer.

The similarities that groups show (each member against the representative) are read from
the same outcomes where the pair was checked, so a group costs no second comparison.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import itertools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from dupfinder.core.grouping.verify import Candidates, Similarity

__all__ = [
    "CheckMemory",
    "CheckedPairs",
    "EarlyStop",
    "IndexedMeasure",
    "check_name",
    "checked_pairs",
    "content_keys",
    "in_threads",
]

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

_MIX = np.uint64(0x9E3779B97F4A7C15)
#: Pairs a thread checks at the least: a thread start is some 100 us, a pair 3 to 30 us.
_PARALLEL_MIN = 1024
#: Pairs handed to an indexed measure at once, and the most files they may name (a file's
#: own share of a picture check holds some 25 kB while its pairs are checked: 13 MB a thread
#: at most). The index proposes pairs around each file, so 1,024 of them name some 250 files
#: of a picture scan (each file's share is used 8 times), and a step naming more files is
#: measured pair by pair.
_INDEXED_PAIRS = 1024
_INDEXED_NODES = 512
#: What a part of ``in_threads``'s work gives.
_Part = TypeVar("_Part")
#: A measure of the pairs (first[i], second[i]) of a table of sketches, under a threshold.
IndexedMeasure = Callable[[U8, I64, I64, float], F64]


class CheckMemory(Protocol):
    """Similarities of pairs checked by an earlier scan, by the pairs' content keys."""

    def recall(self, name: str, keys: U64) -> tuple[npt.NDArray[np.bool_], F64]:
        """For (P, 2) content keys: which pairs are known, and their similarity (0 if not),
        or their row of figures where ``keep`` was given rows."""
        ...

    def keep(self, name: str, keys: U64, similarities: F64) -> None:
        """Remember these pairs' similarities, (P,), or rows of figures, (P, F) (and forget
        pairs of this name not among them)."""
        ...


@dataclass(frozen=True, slots=True)
class EarlyStop:
    """A measure that may stop early on a pair that cannot reach the threshold:
    ``measure(a, b, below)`` answers such a pair with an upper bound of its similarity plus
    ``offset`` (a negative constant, so that bounds lie under every exact answer). Most
    proposed pairs fail, and most of them on the check's first figure; a bound is remembered
    as one, so a rescan with a lower threshold checks that pair again."""

    measure: Callable[[U8, U8, float], F64]
    offset: float
    #: The same measure of pairs of a table's rows, which works out each row's own share of
    #: a pair once for all its pairs (None: the measure has no such form).
    indexed: IndexedMeasure | None = None

    def bounded(self, answers: F64) -> npt.NDArray[np.bool_]:
        """Which answers are bounds."""
        out: npt.NDArray[np.bool_] = answers < self.offset / 2
        return out

    def decoded(self, answers: F64) -> F64:
        """Each answer as a similarity: a bound as its upper bound (under the threshold)."""
        out: F64 = np.where(self.bounded(answers), answers - self.offset, answers)
        return out


def check_name(kind_name: str, measure: Similarity, compiled: Sequence[str] = ()) -> str:
    """What names a check's outcomes: the kind, the measure, and a digest of the source of
    the module that defines it (where the source is not shipped, the package's version) and
    of the ``compiled`` files it runs (its kernels: one changed alone renames them too)."""
    digest = hashlib.blake2b(digest_size=8)
    try:
        path = inspect.getsourcefile(measure)
        if path is None or not os.path.exists(path):
            raise OSError("no source")
        for name in (path, *compiled):
            with open(name, "rb") as handle:
                digest.update(handle.read())
        source = digest.hexdigest()
    except (OSError, TypeError):
        from dupfinder import __version__

        source = __version__
    qualname = getattr(measure, "__qualname__", type(measure).__name__)
    return f"{kind_name}.{qualname}.{source}".replace("<", "").replace(">", "")


#: Rows keyed at once: bounds the temporary (rows, width) arrays to a few MB.
_KEY_ROWS = 1 << 15


def content_keys(values: U64, sketch_keys: U8 | Callable[[I64], U8]) -> U64:
    """A 64-bit key per row from its fingerprint and its sketch key bytes (the sketch's
    first bytes and a digest of the rest, ``OutcomeColumns.sketch_keys``): equal rows get
    equal keys, and two different rows one by chance with odds of 2^-64. ``sketch_keys``
    may be a function giving the keys of the positions asked for (read a few at a time)."""
    key = np.empty(len(values), dtype=np.uint64)
    for lo in range(0, len(values), _KEY_ROWS):
        positions = np.arange(lo, min(lo + _KEY_ROWS, len(values)), dtype=np.int64)
        part = sketch_keys(positions) if callable(sketch_keys) else sketch_keys[positions]
        key[positions] = _content_keys(values[positions], part)
    return key


def _content_keys(values: U64, sketch_keys: U8) -> U64:
    rows = len(values)
    width = sketch_keys.shape[1] if sketch_keys.ndim == 2 else 0
    words = -(-width // 8)
    data = np.zeros((rows, 1 + words), dtype=np.uint64)
    data[:, 0] = values
    if width:
        padded = np.zeros((rows, words * 8), dtype=np.uint8)
        padded[:, :width] = sketch_keys
        data[:, 1:] = padded.view("<u8")
    key = np.full(rows, 0x243F6A8885A308D3, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in range(data.shape[1]):
            key ^= data[:, column]
            key *= _MIX
            key ^= key >> np.uint64(31)
    return key


def _pair_keys(node_keys: U64, pairs: I64) -> U64:
    a, b = node_keys[pairs[:, 0]], node_keys[pairs[:, 1]]
    return np.stack((np.minimum(a, b), np.maximum(a, b)), axis=1)


#: Bytes of sketches gathered per side of one step: bounds the temporary arrays.
_STEP_BYTES = 8 << 20


#: An indexed measure with its threshold given: the pairs (first[i], second[i]) of a table.
Indexed = Callable[[U8, I64, I64], F64]


def _under(measure: IndexedMeasure, threshold: float, table: U8, first: I64, second: I64) -> F64:
    return measure(table, first, second, threshold)


def _similarities(
    found: Candidates,
    pairs: I64,
    gather: Callable[[I64], U8],
    measure: Similarity,
    indexed: Indexed | None = None,
) -> F64:
    """The similarity of each pair, a step of a few MB of sketches at a time: each node's
    sketch gathered once a step (a picture proposed with many others is read once), then
    handed to ``indexed`` with the pairs as rows of them, or laid out side by side for the
    measure (a step naming too many nodes for ``indexed`` to hold their shares)."""
    out = np.zeros(len(pairs), dtype=np.float64)
    if not len(pairs):
        return out
    width = max(gather(found.first[:1]).shape[1], 1)
    step = max(1, _STEP_BYTES // width)
    if indexed is not None:
        step = min(step, _INDEXED_PAIRS)
    for lo in range(0, len(pairs), step):
        chunk = pairs[lo : lo + step]
        nodes, where = np.unique(chunk.reshape(-1), return_inverse=True)
        sketches = gather(found.first[nodes])
        where = where.reshape(-1, 2)
        if indexed is not None and len(nodes) <= _INDEXED_NODES:
            answers = indexed(sketches, where[:, 0], where[:, 1])
        else:
            answers = measure(sketches[where[:, 0]], sketches[where[:, 1]])
        out[lo : lo + len(chunk)] = np.nan_to_num(np.asarray(answers, dtype=np.float64), nan=0.0)
    return out


def _all_similarities(
    found: Candidates,
    pairs: I64,
    gather: Callable[[I64], U8],
    measure: Similarity,
    indexed: Indexed | None = None,
) -> F64:
    """The similarity of every pair of ``pairs``, on every core when there are enough
    (``in_threads``)."""
    parts = in_threads(
        lambda part: _similarities(found, pairs[part], gather, measure, indexed), len(pairs)
    )
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def in_threads(
    work: Callable[[slice], _Part], count: int, least: int = _PARALLEL_MIN
) -> list[_Part]:
    """``work`` of each part of ``count`` items, in order: on every core where each thread
    gets at least ``least`` of them (the compiled checks release the interpreter lock), four
    parts a thread so that one slow part (graphics compared in detail) does not hold the
    others up; else all of them at once, here."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = max(1, min(cores or 1, 16, count // max(least, 1)))
    if workers <= 1:
        return [work(slice(0, count))]
    parts = workers * 4
    size, extra = divmod(count, parts)  # as ``np.array_split``: the first parts one longer
    bounds = [0]
    for i in range(parts):
        bounds.append(bounds[-1] + size + (i < extra))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dupfinder-check") as pool:
        return list(pool.map(work, (slice(lo, hi) for lo, hi in itertools.pairwise(bounds))))


class CheckedPairs:
    """A kind's proposed pairs after the check: those that passed, with their similarity,
    and the similarity of any checked pair by node (``similarity_of``)."""

    def __init__(self, found: Candidates, similarity: F64, threshold: float) -> None:
        passed = similarity >= threshold
        self.pairs: I64 = found.pairs[passed]
        self.similarities: F64 = similarity[passed]
        n = max(len(found.first), 1)
        codes = found.pairs[:, 0] * np.int64(n) + found.pairs[:, 1]
        order = np.argsort(codes, kind="stable")
        self._codes = codes[order]
        self._all = similarity[order]
        self._n = np.int64(n)

    def similarity_of(self, a: I64, b: I64) -> tuple[npt.NDArray[np.bool_], F64]:
        """For node pairs (a[i], b[i]): whether they were checked, and their similarity."""
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        codes = lo * self._n + hi
        at = np.minimum(np.searchsorted(self._codes, codes), max(len(self._codes) - 1, 0))
        known = (self._codes[at] == codes) if len(self._codes) else np.zeros(len(a), bool)
        same = lo == hi  # rows of one node: equal fingerprint and sketch
        similarity = np.where(known, self._all[at] if len(self._all) else 0.0, 0.0)
        return known | same, np.where(same, 1.0, similarity)


def checked_pairs(
    found: Candidates,
    gather: Callable[[I64], U8],
    threshold: float,
    measure: Similarity,
    node_keys: U64 | None = None,
    memory: CheckMemory | None = None,
    name: str = "",
    early: EarlyStop | None = None,
) -> CheckedPairs:
    """Check every proposed pair (the pairs ``verify.verified`` keeps pass, in its order),
    taking what ``memory`` remembers under ``name`` and remembering the rest; with ``early``,
    a pair that cannot pass may stop at a bound (remembered as one: it answers a later scan
    only where that scan's threshold is above the bound)."""
    pairs = found.pairs
    answers = np.zeros(len(pairs), dtype=np.float64)
    run = measure
    indexed: Indexed | None = None
    if early is not None:

        def run(a: U8, b: U8) -> F64:
            return early.measure(a, b, threshold)

        if early.indexed is not None:
            indexed = functools.partial(_under, early.indexed, threshold)

    if memory is not None and node_keys is not None and len(pairs):
        keys = _pair_keys(node_keys, pairs)
        known, remembered = memory.recall(name, keys)
        if early is not None:  # a bound decides only a threshold above it
            known &= ~early.bounded(remembered) | (early.decoded(remembered) < threshold)
        answers[known] = remembered[known]
        todo = np.flatnonzero(~known)
        if len(todo):
            answers[todo] = _all_similarities(found, pairs[todo], gather, run, indexed)
        memory.keep(name, keys, answers)
    elif len(pairs):
        answers = _all_similarities(found, pairs, gather, run, indexed)
    similarity = answers if early is None else early.decoded(answers)
    return CheckedPairs(found, similarity, threshold)
