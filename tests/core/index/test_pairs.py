"""Pairs of unique values, with picture variants: the compiled pass equals the numpy index
and brute force."""

from __future__ import annotations

import numpy as np
import pytest
from index_oracle import flip_bits, planted, swar_popcount

from dupfinder.core.index import compiled as index_kernel
from dupfinder.core.index.pairs import near_pairs
from dupfinder.core.jit.engine import Engine

needs_kernel = pytest.mark.skipif(not index_kernel.available(), reason="numba is not installed")


def brute_near_pairs(values: np.ndarray, k: int, variants: list[list[int]]) -> np.ndarray:
    """Every pair of unique values near by value, or by a variant of either row's file."""
    unique, inverse = np.unique(values, return_inverse=True)
    near = swar_popcount(unique[:, None] ^ unique[None, :]) <= k
    for row, extra in enumerate(variants):
        for v in extra:
            hits = swar_popcount(unique ^ np.uint64(v)) <= k
            near[inverse[row], hits] = True
            near[hits, inverse[row]] = True
    i, j = np.nonzero(np.triu(near, 1))
    return np.stack((i, j), axis=1).astype(np.int64)


def with_variants(seed: int, n: int, k: int) -> tuple[np.ndarray, list[list[int]]]:
    """Planted values (copies and neighbours at every distance) and up to seven variants per
    row: near other values, equal to a value, equal to another row's variant, or random."""
    rng = np.random.default_rng(seed)
    values = planted(seed, n, k)
    variants: list[list[int]] = []
    shared = int(rng.integers(0, 2**64, dtype=np.uint64))
    for _ in range(n):
        extra: list[int] = []
        for _ in range(int(rng.integers(0, 8))):
            choice = int(rng.integers(0, 4))
            other = values[rng.integers(0, n)]
            if choice == 0:
                extra.append(int(flip_bits(rng, np.array([other]), int(rng.integers(0, k + 3)))[0]))
            elif choice == 1:
                extra.append(int(other))
            elif choice == 2:
                extra.append(shared)
            else:
                extra.append(int(rng.integers(0, 2**64, dtype=np.uint64)))
        variants.append(extra)
    return values, variants


@needs_kernel
@pytest.mark.parametrize("k", [0, 1, 3, 8, 12])
@pytest.mark.parametrize("n", [1, 40, 700])
def test_variants_in_the_compiled_pass_give_brute_force_pairs(k: int, n: int) -> None:
    values, variants = with_variants(k * 1000 + n, n, k)
    want = brute_near_pairs(values, k, variants)
    for engine in (Engine.COMPILED, Engine.NUMPY):
        np.testing.assert_array_equal(near_pairs(values, k, variants, engine=engine), want)


@needs_kernel
def test_variants_at_tens_of_thousands_match_the_numpy_index() -> None:
    """Above the size where AUTO compiles: the same pairs as the numpy index's queries."""
    values, variants = with_variants(5, 25_000, 4)
    auto = near_pairs(values, 4, variants)
    np.testing.assert_array_equal(auto, near_pairs(values, 4, variants, engine=Engine.NUMPY))
    assert auto.size


def test_without_variants_the_pairs_are_those_of_the_values() -> None:
    values = planted(3, 500, 5)
    want = brute_near_pairs(values, 5, [[] for _ in range(values.size)])
    np.testing.assert_array_equal(near_pairs(values, 5, [[]] * values.size), want)
    np.testing.assert_array_equal(near_pairs(values, 5), want)
