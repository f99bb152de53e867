"""Stores on disk are untrusted input: damage in one costs only its own use.

The library of remembered pairs (``library-v1.npz``) with one flipped bit (a pair index out
of range, values out of order, a pair farther apart than its radius) must not fail every
later cached scan: the damaged part is discarded with a warning and searched afresh, and the
next save replaces it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from index_oracle import flip_bits, planted

from dupfinder.core.index import compiled as index_kernel
from dupfinder.core.index.library import Library
from dupfinder.core.index.reference import all_pairs
from dupfinder.core.model import Kind

needs_kernel = pytest.mark.skipif(not index_kernel.available(), reason="numba is not installed")

K = 8
N = 200_000


def rescanned(x: np.ndarray) -> np.ndarray:
    """The values of a rescan: a few files gone, a few new ones near kept ones."""
    rng = np.random.default_rng(3)
    kept = np.delete(x, rng.choice(x.size, 20, replace=False))
    return np.concatenate([kept, flip_bits(rng, kept[:40], K // 2)])


def damage(path: Path, change: Callable[[dict[str, np.ndarray]], None]) -> None:
    """Rewrite the library file with one array changed, as a flipped bit would leave it."""
    with np.load(path) as saved:
        arrays = {name: saved[name] for name in saved.files}
    change(arrays)
    with path.open("wb") as out:
        np.savez(out, allow_pickle=False, **arrays)


def out_of_range(arrays: dict[str, np.ndarray]) -> None:
    pairs = arrays[f"text-{K}-pairs"].copy()
    pairs.reshape(-1)[1] = arrays[f"text-{K}-values"].size + (1 << 20)
    arrays[f"text-{K}-pairs"] = pairs


def negative(arrays: dict[str, np.ndarray]) -> None:
    pairs = arrays[f"text-{K}-pairs"].copy()
    pairs.reshape(-1)[0] = -3
    arrays[f"text-{K}-pairs"] = pairs


def unsorted(arrays: dict[str, np.ndarray]) -> None:
    values = arrays[f"text-{K}-values"].copy()
    values[0], values[-1] = values[-1], values[0]
    arrays[f"text-{K}-values"] = values


def too_far(arrays: dict[str, np.ndarray]) -> None:
    pairs = arrays[f"text-{K}-pairs"].copy()
    values = arrays[f"text-{K}-values"]
    i = int(pairs[0, 0])
    far = next(j for j in range(values.size) if bin(int(values[i]) ^ int(values[j])).count("1") > K)
    pairs[0] = sorted((i, far))
    arrays[f"text-{K}-pairs"] = pairs


@needs_kernel
@pytest.mark.parametrize("change", [out_of_range, negative, unsorted, too_far])
def test_a_damaged_library_costs_only_its_own_use(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    change: Callable[[dict[str, np.ndarray]], None],
) -> None:
    x = planted(2, N, K)
    Library(tmp_path).pairs(Kind.TEXT, x, K)
    damage(tmp_path / "library-v1.npz", change)
    y = rescanned(x)
    with caplog.at_level(logging.WARNING, logger="dupfinder.core.index.library"):
        library = Library(tmp_path)
        got = library.pairs(Kind.TEXT, y, K)
    np.testing.assert_array_equal(got, all_pairs(np.unique(y), K))
    assert "discarded" in caplog.text
    # the next scan finds a sound library again, and uses it
    again = Library(tmp_path)
    np.testing.assert_array_equal(again.pairs(Kind.TEXT, y, K), all_pairs(np.unique(y), K))
    assert again.last_mode == "incremental"


@needs_kernel
def test_a_sound_library_is_still_used(tmp_path: Path) -> None:
    x = planted(2, N, K)
    Library(tmp_path).pairs(Kind.TEXT, x, K)
    y = rescanned(x)
    library = Library(tmp_path)
    np.testing.assert_array_equal(library.pairs(Kind.TEXT, y, K), all_pairs(np.unique(y), K))
    assert library.last_mode == "incremental"
