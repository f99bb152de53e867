"""Two-stage matching: the index proposes pairs, a second, independent estimate decides.

The 64-bit fingerprint (SimHash for documents, a perceptual hash for pictures) is what the
permuted-table index can search fast, but on its own it is biased: unrelated documents that
share boilerplate, or icons of one theme, land a few bits apart. Every pair it proposes is
therefore checked with each file's *sketch* (``FingerprintOutcome.sketch``: a MinHash of the shingle set
for documents, see ``dupfinder.core.text.sketch``) and kept only when that estimate reaches the
scan's similarity threshold. The same estimate is the similarity a person is shown.

Documents get proposals from a second source too: bands of their sketches (LSH banding, as
in Broder's and Indyk-Motwani's schemes). Two documents whose sketches agree on every bin of
at least one band of ``BAND_BINS`` bins are proposed as well, whatever their SimHash distance:
with 25 bands of 5 bins, a pair sharing 70 % of its text is proposed with probability 0.99,
one sharing 30 % with 0.06. Proposals from either source go through the same verification.

A short document (under some 400 words) leaves bins of its sketch empty, and a band with an
empty bin cannot be compared: a page and its HTML rendering, 74 % alike but 13 SimHash bits
apart, were never proposed. So the bands are cut from *densified* sketches (Shrivastava and
Li, ICML 2014): an empty bin borrows the value of the next filled bin, mixed with how far it
had to look, so two documents agree on it about as often as on a filled one. Full sketches
are unchanged; an empty sketch stays empty and proposes nothing.

Rows whose fingerprint and sketch are both identical are one *node* (copies of one file), so
10,000 copies cost one node and no pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dupfinder.core.index.distinct import pairs_of_keys, sorted_unique, unique_pairs
from dupfinder.core.index.pairs import near_pairs

__all__ = [
    "BAND_BINS",
    "Candidates",
    "Gather",
    "PairSearch",
    "Similarity",
    "band_pairs",
    "candidates",
    "densified",
    "verified",
]

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
#: Similarity (0..1) of each row of one sketch array with the same row of another.
Similarity = Callable[[U8, U8], npt.NDArray[np.float64]]
#: Pairs of distinct values within k bits, as ``pairs.near_pairs`` returns them.
PairSearch = Callable[
    [npt.NDArray[np.uint64], int, Sequence[Sequence[int]] | None], npt.NDArray[np.int64]
]
#: Pairs verified per step, and bytes of sketches gathered per side of a step: bound the
#: temporary (P, width) arrays to a few MB whatever the sketch width.
_CHUNK = 1 << 15
_CHUNK_BYTES = 8 << 20
#: Sketch bins per LSH band (of the densified sketch).
BAND_BINS = 5
#: Filled bins of its own a band needs to be compared: two make a chance agreement of two
#: unrelated documents 1 in 65,025 per band instead of 1 in 255.
_OWN_BINS = 2
#: Bytes of densified bands held at once by ``band_pairs`` (more bands take more passes).
_DENSE_BYTES = 64 << 20
#: Rows densified at once: bounds the temporary (rows, 2 x bins) arrays to a few MB.
_DENSIFY_ROWS = 1 << 11


@dataclass(frozen=True, slots=True)
class Candidates:
    """Rows folded into nodes, and the node pairs the index proposes."""

    inverse: I64  # node of each row
    first: I64  # one row of each node
    pairs: I64  # (P, 2) node pairs, i < j


#: Sketch rows of the given row numbers (an array's rows, or keys read a few at a time).
Gather = Callable[[I64], U8]


def _gatherer(sketches: U8 | Gather) -> Gather:
    """``sketches`` as a function of the rows asked for."""
    if callable(sketches):
        return sketches
    table = np.asarray(sketches, dtype=np.uint8)

    def gather(rows: I64) -> U8:
        return table[rows]

    return gather


def _nodes(values: npt.NDArray[np.uint64], sketches: Gather) -> tuple[I64, I64]:
    """Each row's node (equal fingerprint and sketch), and the first row of each node.

    Nodes are numbered in the byte order of (little-endian fingerprint, sketch), the order a
    sort of whole rows gives, but only rows sharing a fingerprint are sorted on their sketch:
    a row costs some 40 bytes here instead of three copies of fingerprint and sketch."""
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # the little-endian bytes read big-endian: numeric order is the bytes' order
    key = np.ascontiguousarray(values, dtype="<u8").view(">u8").astype(np.uint64)
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = np.ones(n, dtype=np.bool_)
    starts[1:] = key[1:] != key[:-1]
    del key
    tied = np.flatnonzero(~starts)
    if len(tied):
        _split_tied(order, starts, tied, sketches)
    node = np.cumsum(starts) - 1
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = node
    return inverse, order[starts].astype(np.int64)


def _split_tied(order: I64, starts: npt.NDArray[np.bool_], tied: I64, sketches: Gather) -> None:
    """Within runs of one fingerprint (``tied``: positions equal to the one before), sort the
    rows by sketch bytes in place of ``order`` (stably) and mark where a sketch changes."""
    run = np.zeros(len(order), dtype=np.bool_)
    run[tied] = True
    run[tied - 1] = True
    members = np.flatnonzero(run)
    run_start = np.maximum.accumulate(np.where(starts[members], members, 0))
    tied_sketches = sketches(order[members])
    width = tied_sketches.shape[1]
    keyed = np.empty((len(members), 8 + width), dtype=np.uint8)
    keyed[:, :8] = run_start.astype(">u8").view(np.uint8).reshape(-1, 8)
    keyed[:, 8:] = tied_sketches
    del tied_sketches
    rows = keyed.view(np.dtype((np.void, 8 + width))).reshape(-1)
    moved = np.argsort(rows, kind="stable")
    order[members] = order[members][moved]
    rows = rows[moved]
    starts[members[1:]] |= rows[1:] != rows[:-1]


def _expand(value_pairs: I64, node_value: I64, n_values: int) -> I64:
    """Node pairs from pairs of distinct fingerprint values (several nodes may share one):
    the pairs of values held by one node each, then every node of one value with every node
    of the other, then the nodes of each shared value among themselves, each row sorted.
    Made in numpy (a node pair a Python tuple cost the picture corpus 0.4 s of the parent's
    time for 310,000 pairs)."""
    order = np.argsort(node_value, kind="stable")
    count = np.bincount(node_value, minlength=n_values)
    if len(count) == 0 or count.max() <= 1:
        return order[value_pairs].reshape(-1, 2)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    single = (count[value_pairs[:, 0]] == 1) & (count[value_pairs[:, 1]] == 1)
    out = [
        order[start[value_pairs[single]]].reshape(-1, 2),
        _crossed(value_pairs[~single], order, start, count),
        _among(order, start, count),
    ]
    return np.sort(np.concatenate(out), axis=1)


def _crossed(value_pairs: I64, order: I64, start: I64, count: I64) -> I64:
    """For each value pair in turn, every node of the first value with every node of the
    second (the first's nodes in order, each with all of the second's)."""
    first, second = value_pairs[:, 0], value_pairs[:, 1]
    across = count[second]
    sizes = count[first] * across
    which = np.repeat(np.arange(len(value_pairs)), sizes)
    within = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    step = across[which]
    return np.stack(
        (order[start[first[which]] + within // step], order[start[second[which]] + within % step]),
        axis=1,
    )


def _among(order: I64, start: I64, count: I64) -> I64:
    """For each value of several nodes in turn, its nodes' pairs i < j in order (values of
    one node count are made together, then put in their place)."""
    values = np.flatnonzero(count > 1)
    held = count[values]
    sizes = held * (held - 1) // 2
    at = np.cumsum(sizes) - sizes
    out = np.empty((int(sizes.sum()), 2), dtype=np.int64)
    for nodes in sorted_unique(held).tolist():  # (np.unique imports numpy.ma: 20 ms)
        these = np.flatnonzero(held == nodes)
        i, j = np.triu_indices(nodes, 1)
        first = start[values[these]][:, None]
        rows = (at[these][:, None] + np.arange(len(i))).reshape(-1)
        out[rows, 0] = order[first + i].reshape(-1)
        out[rows, 1] = order[first + j].reshape(-1)
    return out


def _equal_runs(keys: npt.NDArray[np.uint64], ids: I64) -> I64:
    """Every pair of ``ids`` whose ``keys`` are equal; work in proportion to the pairs."""
    order = np.argsort(keys, kind="stable")
    keys, ids = keys[order], ids[order]
    n = len(keys)
    cuts = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    starts = np.concatenate([[0], cuts])
    ends = np.concatenate([cuts, [n]])
    run_end = np.repeat(ends, ends - starts)
    position = np.arange(n)
    active = position[run_end - position > 1]
    out = []
    step = 1
    while active.size:
        out.append(np.stack([ids[active], ids[active + step]], axis=1))
        step += 1
        active = active[run_end[active] - active > step]
    return np.concatenate(out) if out else np.zeros((0, 2), dtype=np.int64)


def _band_runs(keys: npt.NDArray[np.uint64], ids: I64, band_bins: int, n: int) -> I64:
    """``_equal_runs`` of one band's keys, found first by one in-place sort of key and id
    packed in 64 bits (when they fit), so only the rows that share a key are sorted again."""
    id_bits = max(1, (n - 1).bit_length())
    if 8 * band_bins + id_bits > 64:
        return _equal_runs(keys, ids)
    packed = keys << np.uint64(id_bits)
    packed |= np.ascontiguousarray(ids, dtype=np.int64).view(np.uint64)  # ids are >= 0
    packed.sort()
    high = packed >> np.uint64(id_bits)
    shared = np.flatnonzero(high[1:] == high[:-1])
    members = sorted_unique(np.concatenate((shared, shared + 1)))
    mask = np.uint64((1 << id_bits) - 1)
    return _equal_runs(high[members], (packed[members] & mask).astype(np.int64))


def densified(sketches: U8) -> U8:
    """``sketches`` with every empty bin (0) filled from the next filled bin to its right
    (wrapping around), its value mixed with the distance, so that it stays in 1..255; rows
    with no filled bin stay empty."""
    out = np.array(sketches, dtype=np.uint8, copy=True)
    for lo in range(0, len(out), _DENSIFY_ROWS):
        _densify(out[lo : lo + _DENSIFY_ROWS])
    return out


def _densify(block: U8) -> None:
    """``densified`` in place on a few rows: the temporaries are (rows, 2 x bins)."""
    width = block.shape[1]
    filled = block != 0
    short = np.flatnonzero(~filled.all(axis=1) & filled.any(axis=1))
    if len(short) == 0:
        return
    # int32 unless the sketch is millions of bins wide: positions are under 2 x bins, the
    # mixed values under 97 x 2 x bins + 255
    wide: type[np.signedinteger[Any]] = (
        np.int64 if 97 * 2 * width + 255 > np.iinfo(np.int32).max else np.int32
    )
    doubled = np.concatenate([filled[short]] * 2, axis=1)
    index = np.where(doubled, np.arange(2 * width, dtype=wide), wide(2 * width))
    following = np.minimum.accumulate(index[:, ::-1], axis=1)[:, ::-1][:, :width]
    value = np.take_along_axis(block[short], following % width, axis=1).astype(wide)
    distance = following - np.arange(width, dtype=wide)
    block[short] = ((value - 1 + 97 * distance) % 255 + 1).astype(np.uint8)


def band_pairs(
    node_sketches: U8 | Gather, band_bins: int = BAND_BINS, rows: I64 | None = None
) -> I64:
    """Node pairs whose densified sketches agree on all bins of at least one band, i < j.

    With ``rows``, node i's sketch is ``node_sketches[rows[i]]`` (gathered a few rows at a
    time, never copied whole; ``node_sketches`` may be a function giving the rows asked for).
    Only the banded bins are kept densified, a band that cannot be compared marked by a 0 in
    its first bin; each band's pairs are held as one int64 key."""
    if callable(node_sketches):
        if rows is None:
            raise ValueError("sketches read by a function need the rows to read")
        gather = node_sketches
    else:
        table = np.asarray(node_sketches, dtype=np.uint8)
        rows = np.arange(len(table), dtype=np.int64) if rows is None else rows
        gather = _gatherer(table)
    n = len(rows)
    if n < 2 or band_bins < 1:
        return np.zeros((0, 2), dtype=np.int64)
    width = gather(rows[:1]).shape[1]
    if width < band_bins:
        return np.zeros((0, 2), dtype=np.int64)
    bands = width // band_bins
    # bands a pass: the densified bands of every node held at once stay under _DENSE_BYTES
    # (a million documents' 25 bands were 125 MB); each pass densifies the sketches again
    per_pass = max(1, min(bands, _DENSE_BYTES // max(1, n * band_bins)))
    found: list[I64] = []
    for first_band in range(0, bands, per_pass):
        last_band = min(bands, first_band + per_pass)
        found.extend(_bands_pairs(gather, rows, band_bins, first_band, last_band))
    if not found:
        return np.zeros((0, 2), dtype=np.int64)
    return pairs_of_keys(np.concatenate(found), n)


def _bands_pairs(
    gather: Gather, rows: I64, band_bins: int, first_band: int, last_band: int
) -> list[I64]:
    """``band_pairs``' keys (``i * n + j``) of the bands from ``first_band`` to ``last_band``."""
    n = len(rows)
    bands = last_band - first_band
    lo_bin, hi_bin = first_band * band_bins, last_band * band_bins
    span = hi_bin - lo_bin
    dense = np.empty((n, span), dtype=np.uint8)
    for lo in range(0, n, _DENSIFY_ROWS):
        hi = min(n, lo + _DENSIFY_ROWS)
        raw = gather(rows[lo:hi])
        block = densified(raw)[:, lo_bin:hi_bin].reshape(-1, bands, band_bins)
        # a band borrowed from one filled bin is 8 bits of chance: unrelated short documents
        # would agree on 1 in 255 and their pairs would grow with the square of their number
        own = np.count_nonzero(raw[:, lo_bin:hi_bin].reshape(-1, bands, band_bins), axis=2)
        block[:, :, 0][own < _OWN_BINS] = 0
        dense[lo:hi] = block.reshape(-1, span)
    found = []
    for band in range(bands):
        columns = dense[:, band * band_bins : (band + 1) * band_bins]
        full = np.flatnonzero(columns.all(axis=1))
        if len(full) < 2:
            continue
        padded = np.zeros((len(full), 8), dtype=np.uint8)
        padded[:, :band_bins] = columns[full]
        keys = padded.view("<u8").reshape(-1)
        del padded
        pairs = _band_runs(keys, full.astype(np.int64, copy=False), band_bins, n)
        del keys, full
        if len(pairs):
            found.append(np.min(pairs, axis=1) * np.int64(n) + np.max(pairs, axis=1))
    return found


def candidates(
    values: npt.NDArray[np.uint64],
    sketches: U8 | Gather,
    k: int,
    variants: Sequence[Sequence[int]] | None = None,
    pair_finder: PairSearch = near_pairs,
    *,
    bands: bool = False,
) -> Candidates:
    """Fold rows into nodes and ask the index for every node pair within ``k`` bits.

    ``variants`` (per row, mirrored/rotated picture hashes) also propose pairs; with
    ``bands`` so do equal bands of the sketches (documents). ``pair_finder`` replaces the
    index (pairs found elsewhere, e.g. on a cluster). ``sketches`` may be a function giving
    the rows asked for: only rows sharing a fingerprint, and (with ``bands``) a few nodes at
    a time, are read.
    """
    values = np.asarray(values, dtype=np.uint64)
    if not callable(sketches):
        sketches = np.asarray(sketches, dtype=np.uint8).reshape(len(values), -1)
    gather = _gatherer(sketches)
    inverse, first = _nodes(values, gather)
    node_values = values[first]
    unique, node_value = np.unique(node_values, return_inverse=True)
    node_variants = [variants[row] for row in first.tolist()] if variants else None
    value_pairs = pair_finder(node_values, k, node_variants).astype(np.int64).reshape(-1, 2)
    del node_values, node_variants
    pairs = _expand(value_pairs, node_value.astype(np.int64).reshape(-1), len(unique))
    # the bands hold the most of the grouping: what the index needed goes first
    del value_pairs, node_value, unique
    if bands:
        extra = band_pairs(gather, rows=first)
        if len(extra):
            both = np.concatenate([np.sort(pairs, axis=1), extra])
            pairs = unique_pairs(both, len(first))
    return Candidates(inverse, first, pairs)


def verified(
    found: Candidates,
    sketches: U8 | Gather,
    min_similarity: float,
    measure: Similarity,
) -> tuple[I64, npt.NDArray[np.float64]]:
    """The candidate node pairs whose sketches are at least ``min_similarity`` alike, with
    their similarity. ``sketches`` are per row: an array, or a function giving the rows
    asked for (so wide sketches are gathered a chunk of pairs at a time, never all)."""
    gather = _gatherer(sketches)
    keep_pairs, keep_sims = [], []
    chunk_size = _CHUNK
    if len(found.pairs):
        width = gather(found.first[:1]).shape[1]
        chunk_size = max(1, min(_CHUNK, _CHUNK_BYTES // max(width, 1)))
    for lo in range(0, len(found.pairs), chunk_size):
        chunk = found.pairs[lo : lo + chunk_size]
        sims = measure(gather(found.first[chunk[:, 0]]), gather(found.first[chunk[:, 1]]))
        ok = sims >= min_similarity
        keep_pairs.append(chunk[ok])
        keep_sims.append(sims[ok])
    if not keep_pairs:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.float64)
    return np.concatenate(keep_pairs), np.concatenate(keep_sims)
