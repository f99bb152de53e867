"""The MinHash sketch estimates how much of two shingle sets is shared, and stays pinned."""

from __future__ import annotations

import numpy as np
import pytest

from dupfinder.core.text import simhash as textsim
from dupfinder.core.text import sketch


def _sets(shared: int, only_a: int, only_b: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    pool = np.unique(
        rng.integers(0, 2**64 - 1, size=shared + only_a + only_b + 100, dtype=np.uint64)
    )
    rng.shuffle(pool)
    common = pool[:shared]
    a = np.unique(np.concatenate([common, pool[shared : shared + only_a]]))
    b = np.unique(np.concatenate([common, pool[shared + only_a : shared + only_a + only_b]]))
    return a, b


@pytest.mark.parametrize("jaccard", [0.0, 0.2, 0.5, 0.8, 1.0])
def test_estimate_is_close_to_the_true_jaccard(jaccard: float) -> None:
    errors = []
    for seed in range(40):
        union = 2000
        shared = int(union * jaccard)
        a, b = _sets(shared, (union - shared) // 2, union - shared - (union - shared) // 2, seed)
        true = shared / union
        errors.append(sketch.similarity(sketch.sketch(a), sketch.sketch(b)) - true)
    # unbiased (chance agreement of 8-bit values removed) and about sqrt(J(1-J)/BINS) wide
    assert abs(np.mean(errors)) < 0.02
    assert np.std(errors) <= np.sqrt(jaccard * (1 - jaccard) / sketch.BINS) * 1.5 + 0.01


def test_short_documents_use_only_their_filled_bins() -> None:
    a, b = _sets(30, 0, 0, 1)
    assert sketch.similarity(sketch.sketch(a), sketch.sketch(b)) == 1.0
    c, d = _sets(0, 30, 30, 2)
    assert sketch.similarity(sketch.sketch(c), sketch.sketch(d)) < 0.1
    empty = sketch.sketch(np.zeros(0, dtype=np.uint64))
    assert not empty.any()
    assert sketch.similarity(empty, empty) == 0.0


def test_pairwise_matches_single_and_checks_shapes() -> None:
    a, b = _sets(500, 300, 200, 3)
    sa, sb = sketch.sketch(a), sketch.sketch(b)
    many = sketch.pair_similarity(np.stack([sa, sb]), np.stack([sb, sb]))
    assert many[0] == sketch.similarity(sa, sb)
    assert many[1] == 1.0
    with pytest.raises(ValueError, match="shapes"):
        sketch.pair_similarity(sa, sa[:64])
    with pytest.raises(ValueError, match="power of two"):
        sketch.sketch(a, bins=100)


def test_text_fingerprint_is_simhash_plus_a_pinned_sketch() -> None:
    text = " ".join(f"word{i % 97} token{i % 31}" for i in range(400))
    value, raw = textsim.text_fingerprint(text)
    assert value == textsim.simhash(text)
    assert len(raw) == sketch.BINS
    # golden bytes: a numpy or Python upgrade must not silently change cached sketches
    assert raw[:16].hex() == GOLDEN_PREFIX
    assert sketch.SKETCH_VERSION == "oph128x8"


GOLDEN_PREFIX = "2dd2488f72b10cc16a6b07506a8816ee"
