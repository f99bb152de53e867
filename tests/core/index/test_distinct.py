"""Distinct values and pairs by one sort give exactly what ``np.unique`` gives."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dupfinder.core.index.distinct import pairs_of_keys, sorted_unique, unique_pairs


@settings(max_examples=200, deadline=None)
@given(arrays(np.uint64, st.integers(0, 300), elements=st.integers(0, 2**64 - 1)))
def test_sorted_unique_is_numpys_unique_of_64_bit_values(values: np.ndarray) -> None:
    found = sorted_unique(values)
    assert found.dtype == np.uint64
    assert np.array_equal(found, np.unique(values))


@settings(max_examples=200, deadline=None)
@given(arrays(np.int64, st.integers(0, 300), elements=st.integers(-5, 5)))
def test_sorted_unique_with_many_repeats_and_negative_values(values: np.ndarray) -> None:
    assert np.array_equal(sorted_unique(values), np.unique(values))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.data())
def test_unique_pairs_is_numpys_unique_of_rows(n: int, data: st.DataObject) -> None:
    pairs = data.draw(
        arrays(np.int64, (data.draw(st.integers(0, 200)), 2), elements=st.integers(0, n - 1))
    )
    found = unique_pairs(pairs, n)
    assert found.dtype == np.int64
    assert found.shape[1] == 2
    assert np.array_equal(found, np.unique(pairs, axis=0).reshape(-1, 2))


def test_pairs_of_keys_splits_each_key_into_its_pair() -> None:
    keys = np.array([7 * 10 + 3, 2 * 10 + 9, 7 * 10 + 3, 0], dtype=np.int64)
    assert pairs_of_keys(keys, 10).tolist() == [[0, 0], [2, 9], [7, 3]]
