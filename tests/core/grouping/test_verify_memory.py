"""Candidate generation held to the rows-at-a-time implementation: the same nodes, in the same
order, and the same pairs as the whole-array one it replaced (kept here as the oracle), on
random fingerprints and sketches with copies, near copies, shared fingerprints and empty
sketches."""

from __future__ import annotations

from unittest import mock

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dupfinder.core.grouping import verify
from dupfinder.core.index.pairs import near_pairs

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


def _oracle_nodes(values: npt.NDArray[np.uint64], sketches: U8) -> tuple[I64, I64]:
    keyed = np.concatenate([values.astype("<u8").view(np.uint8).reshape(-1, 8), sketches], axis=1)
    rows = np.ascontiguousarray(keyed).view(np.dtype((np.void, keyed.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    return inverse.astype(np.int64).reshape(-1), first.astype(np.int64)


def _oracle_densified(sketches: U8) -> U8:
    out = np.array(sketches, dtype=np.uint8, copy=True)
    width = out.shape[1]
    rows = np.flatnonzero((out == 0).any(axis=1) & (out != 0).any(axis=1))
    if len(rows) == 0:
        return out
    filled = np.concatenate([out[rows] != 0] * 2, axis=1)
    index = np.where(filled, np.arange(2 * width), 2 * width)
    following = np.minimum.accumulate(index[:, ::-1], axis=1)[:, ::-1][:, :width]
    value = np.take_along_axis(out[rows], following % width, axis=1).astype(np.int64)
    out[rows] = ((value - 1 + 97 * (following - np.arange(width))) % 255 + 1).astype(np.uint8)
    return out


def _oracle_band_pairs(node_sketches: U8, band_bins: int = verify.BAND_BINS) -> I64:
    """Every pair agreeing on a whole band with two filled bins of its own, by brute force."""
    width = node_sketches.shape[1]
    dense = _oracle_densified(node_sketches)
    found = set()
    for first in range(0, width - band_bins + 1, band_bins):
        band = dense[:, first : first + band_bins]
        own = np.count_nonzero(node_sketches[:, first : first + band_bins], axis=1) >= 2
        usable = np.flatnonzero(band.all(axis=1) & own).tolist()
        for i in usable:
            for j in usable:
                if i < j and (band[i] == band[j]).all():
                    found.add((i, j))
    return np.array(sorted(found), dtype=np.int64).reshape(-1, 2)


def _oracle_candidates(
    values: npt.NDArray[np.uint64], sketches: U8, k: int
) -> tuple[I64, I64, I64]:
    inverse, first = _oracle_nodes(values, sketches)
    node_values = values[first]
    unique, node_value = np.unique(node_values, return_inverse=True)
    value_pairs = near_pairs(node_values, k, None).astype(np.int64).reshape(-1, 2)
    pairs = verify._expand(value_pairs, node_value.astype(np.int64).reshape(-1), len(unique))
    extra = _oracle_band_pairs(sketches[first])
    if len(extra):
        pairs = np.unique(np.concatenate([np.sort(pairs, axis=1), extra]), axis=0)
    return inverse, first, pairs


def _rows(seed: int, n: int, width: int) -> tuple[npt.NDArray[np.uint64], U8]:
    """Fingerprints from a small pool (so many rows share one), sketches from a small alphabet
    with empty bins and empty rows, copies and near copies of earlier rows."""
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 2**64, max(1, n // 4), dtype=np.uint64, endpoint=False)
    values = pool[rng.integers(0, len(pool), n)]
    empty = rng.random()
    sketches = rng.choice(np.array([1, 2, 3, 200, 255], dtype=np.uint8), (n, width))
    sketches[rng.random((n, width)) < empty] = 0
    sketches[rng.random(n) < 0.1] = 0
    for row in range(1, n):
        source = int(rng.integers(0, row))
        chance = rng.random()
        if chance < 0.2:  # a copy
            values[row], sketches[row] = values[source], sketches[source]
        elif chance < 0.4:  # a near copy: one bit and one bin apart
            values[row] = values[source] ^ (np.uint64(1) << np.uint64(rng.integers(0, 64)))
            sketches[row] = sketches[source]
            sketches[row, rng.integers(0, width)] = rng.integers(0, 256)
    return values, sketches


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 80),  # a kind with fewer rows is never compared
    width=st.sampled_from([1, 5, 7, 16, 128]),
    k=st.integers(0, 4),
    chunk=st.sampled_from([1, 3, 2048]),
)
def test_candidates_are_those_of_the_whole_array_version(
    seed: int, n: int, width: int, k: int, chunk: int
) -> None:
    values, sketches = _rows(seed, n, width)
    with mock.patch.object(verify, "_DENSIFY_ROWS", chunk):
        found = verify.candidates(values, sketches, k, bands=True)
    inverse, first, pairs = _oracle_candidates(values, sketches, k)
    np.testing.assert_array_equal(found.inverse, inverse)
    np.testing.assert_array_equal(found.first, first)
    np.testing.assert_array_equal(found.pairs, pairs)
    assert found.inverse.dtype == found.first.dtype == found.pairs.dtype == np.int64
    # sketches read by a function, a few rows at a time: the same nodes and pairs
    with mock.patch.object(verify, "_DENSIFY_ROWS", chunk):
        read = verify.candidates(values, lambda rows: sketches[rows], k, bands=True)
    np.testing.assert_array_equal(read.inverse, inverse)
    np.testing.assert_array_equal(read.first, first)
    np.testing.assert_array_equal(read.pairs, pairs)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 60), chunk=st.sampled_from([1, 4, 2048]))
def test_densified_rows_at_a_time_match_all_at_once(seed: int, n: int, chunk: int) -> None:
    _, sketches = _rows(seed, n, 128)
    with mock.patch.object(verify, "_DENSIFY_ROWS", chunk):
        dense = verify.densified(sketches)
    np.testing.assert_array_equal(dense, _oracle_densified(sketches))


def test_band_pairs_of_chosen_rows_are_those_of_their_copy() -> None:
    _, sketches = _rows(7, 200, 128)
    rows = np.random.default_rng(7).permutation(200)[:150].astype(np.int64)
    found = verify.band_pairs(sketches, rows=rows)
    np.testing.assert_array_equal(found, verify.band_pairs(sketches[rows]))
    np.testing.assert_array_equal(found, _oracle_band_pairs(sketches[rows]))
    assert len(found)
    # bands of eight bins leave no room to pack a row id beside the key: the other path
    wide = verify.band_pairs(sketches, band_bins=8, rows=rows)
    np.testing.assert_array_equal(wide, _oracle_band_pairs(sketches[rows], band_bins=8))


def test_band_pairs_found_a_few_bands_a_pass_are_those_of_all_at_once() -> None:
    _, sketches = _rows(11, 300, 128)
    sketches[1::7] = sketches[0::7][: len(sketches[1::7])]  # copies agree on every band
    rows = np.arange(300, dtype=np.int64)
    expected = _oracle_band_pairs(sketches)
    assert len(expected)
    for budget in (1, 300 * verify.BAND_BINS * 4):  # a band a pass; four bands a pass
        with mock.patch.object(verify, "_DENSE_BYTES", budget):
            found = verify.band_pairs(lambda at: sketches[at], rows=rows)
        np.testing.assert_array_equal(found, expected)


def test_a_planted_short_copy_is_proposed_and_empty_sketches_are_not() -> None:
    rng = np.random.default_rng(3)
    sketches = np.zeros((300, 128), dtype=np.uint8)
    filled = rng.random((300, 128)) < 0.2
    sketches[filled] = rng.integers(1, 256, int(filled.sum()))
    sketches[250:] = 0  # fifty empty documents, all distinct fingerprints
    sketches[101] = sketches[100]
    sketches[101, :3] = 7
    values = rng.integers(0, 2**63, 300, dtype=np.uint64)  # far apart: only bands propose
    found = verify.candidates(values, sketches, 0, bands=True)
    proposed = {tuple(sorted(found.first[p].tolist())) for p in found.pairs}
    assert (100, 101) in proposed
    assert not any(a >= 250 or b >= 250 for a, b in proposed)


def _expand_oracle(value_pairs: I64, node_value: I64, n_values: int) -> I64:
    """Node pairs from value pairs, one pair at a time in Python, in ``verify._expand``'s order."""
    nodes: list[list[int]] = [[] for _ in range(n_values)]
    for node, value in enumerate(node_value.tolist()):
        nodes[value].append(node)
    listed = [(a, b, len(nodes[a]) == len(nodes[b]) == 1) for a, b in value_pairs.tolist()]
    out = [(nodes[a][0], nodes[b][0]) for a, b, single in listed if single]
    for a, b, single in listed:
        if not single:
            out += [(x, y) for x in nodes[a] for y in nodes[b]]
    for same in nodes:
        out += [(x, y) for i, x in enumerate(same) for y in same[i + 1 :]]
    return np.sort(np.array(out, dtype=np.int64).reshape(-1, 2), axis=1)


@pytest.mark.parametrize("seed", range(40))
def test_expand_gives_every_node_pair_in_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_values = int(rng.integers(1, 30))
    nodes = int(rng.integers(n_values, 4 * n_values + 1))
    node_value = np.concatenate(
        [np.arange(n_values), rng.integers(0, n_values, nodes - n_values)]
    ).astype(np.int64)
    rng.shuffle(node_value)
    pairs = rng.integers(0, n_values, (int(rng.integers(0, 60)), 2))
    value_pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], axis=1), axis=0)
    found = verify._expand(value_pairs.astype(np.int64), node_value, n_values)
    assert np.array_equal(found, _expand_oracle(value_pairs, node_value, n_values))
