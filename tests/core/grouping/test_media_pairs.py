"""Media candidates: every pair of files with some hash of one near some hash of the other,
as brute force finds them; a hash many files share proposes nothing."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from dupfinder.core.grouping.media_check import COMMON_OWNERS, file_pairs


def _brute(hashes: list[tuple[int, ...]], radius: int) -> set[tuple[int, int]]:
    owners: dict[int, set[int]] = {}
    for owner, own in enumerate(hashes):
        for value in own:
            owners.setdefault(value, set()).add(owner)
    usable = [tuple(v for v in own if len(owners[v]) <= COMMON_OWNERS) for own in hashes]
    found = set()
    for a, b in itertools.combinations(range(len(hashes)), 2):
        if any((x ^ y).bit_count() <= radius for x in usable[a] for y in usable[b]):
            found.add((a, b))
    return found


def _flip(value: int, bits: int, rng: random.Random) -> int:
    for bit in rng.sample(range(64), bits):
        value ^= 1 << bit
    return value


@pytest.mark.parametrize("seed", range(4))
def test_pairs_match_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    hashes: list[tuple[int, ...]] = []
    for _ in range(60):
        if hashes and rng.random() < 0.4:  # an edit of an earlier file: some windows near
            base = rng.choice(hashes)
            own = tuple(_flip(v, rng.randrange(0, 14), rng) for v in base[: rng.randrange(1, 6)])
        else:
            own = tuple(rng.getrandbits(64) for _ in range(rng.randrange(1, 8)))
        hashes.append(own)
    for radius in (0, 6, 12):
        found = {tuple(p) for p in file_pairs(hashes, radius).tolist()}
        assert found == _brute(hashes, radius)


def test_a_hash_held_by_many_files_proposes_nothing() -> None:
    silence = 0x5555_5555_5555_5555
    many = [(silence, i * 0x9E37_79B9_7F4A_7C15 % (1 << 64)) for i in range(COMMON_OWNERS + 1)]
    assert file_pairs(many, 0).tolist() == []
    few = many[:COMMON_OWNERS]
    assert len(file_pairs(few, 0)) == COMMON_OWNERS * (COMMON_OWNERS - 1) // 2


def test_no_hashes_no_pairs() -> None:
    assert file_pairs([(), ()], 10).shape == (0, 2)
    assert file_pairs([(1,), (1,)], 0).tolist() == [[0, 1]]
    assert np.asarray(file_pairs([(1, 1)], 0)).size == 0  # a file never pairs with itself
