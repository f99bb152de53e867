"""Sketches of different lengths held per row: padded on demand, keyed compactly, and
verified a chunk of pairs at a time."""

from __future__ import annotations

import numpy as np
import pytest

from dupfinder.core.fingerprints.columns import OutcomeColumns
from dupfinder.core.fingerprints.worker import FingerprintOutcome
from dupfinder.core.grouping import verify

BASE, WHOLE = 4, 10


def columns(sketches: list[bytes | None]) -> OutcomeColumns:
    out = OutcomeColumns(len(sketches))
    for row, data in enumerate(sketches):
        out.put(row, FingerprintOutcome(row, value=row, sketch=data))
    return out


def test_short_sketches_are_padded_and_kept_as_made() -> None:
    made = [b"\x01" * BASE, b"\x02" * WHOLE, None, b"\x03" * BASE]
    held = columns(made)
    assert [held.sketch(row) for row in range(4)] == made
    padded = held.padded_sketches(np.array([3, 1, 2]), WHOLE)
    assert padded.tolist() == [[3] * BASE + [0] * 6, [2] * WHOLE, [0] * WHOLE]


def test_keys_are_equal_exactly_when_sketches_are() -> None:
    rest_a, rest_b = b"\x05" * (WHOLE - BASE), b"\x06" * (WHOLE - BASE)
    made: list[bytes | None] = [
        b"\x01" * BASE + rest_a,
        b"\x01" * BASE + rest_b,
        b"\x01" * BASE + rest_a,
        b"\x01" * BASE,
    ]
    keys = columns(made).sketch_keys(np.arange(4), BASE)
    assert keys.shape == (4, BASE + 16)  # the prefix, then a digest of the rest
    same = [[bool((keys[i] == keys[j]).all()) for j in range(4)] for i in range(4)]
    assert same == [[made[i] == made[j] for j in range(4)] for i in range(4)]
    assert columns([b"\x01" * BASE] * 2).sketch_keys(np.arange(2), BASE).shape == (2, BASE)


def test_keys_read_a_few_rows_at_a_time_are_those_of_all_rows() -> None:
    made: list[bytes | None] = [b"\x01" * BASE, b"\x02" * WHOLE, None, b"\x01" * BASE] * 3
    held = columns(made)
    rows = np.array([9, 3, 0, 1, 7, 2], dtype=np.intp)
    read = held.key_reader(rows, BASE)
    whole = held.sketch_keys(rows, BASE)
    # a call that asks only for short sketches still carries the digest's room
    assert read(np.array([1, 2])).tolist() == whole[[1, 2]].tolist()
    assert read(np.arange(len(rows))).tolist() == whole.tolist()
    assert held.key_reader(np.array([0, 3]), BASE)(np.arange(2)).shape == (2, BASE)


def test_verification_gathers_a_bounded_chunk_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 50
    found = verify.Candidates(
        inverse=np.arange(n), first=np.arange(n), pairs=np.array([(0, j) for j in range(1, n)])
    )
    table = np.arange(n * WHOLE, dtype=np.int64).reshape(n, WHOLE).astype(np.uint8)
    asked: list[int] = []

    def gather(rows: np.ndarray) -> np.ndarray:
        asked.append(len(rows))
        return table[rows]

    monkeypatch.setattr(verify, "_CHUNK_BYTES", 7 * WHOLE)
    pairs, sims = verify.verified(found, gather, 0.0, lambda a, b: np.ones(len(a)))
    assert len(pairs) == n - 1
    assert (sims == 1).all()
    assert max(asked) <= 7  # never every row at once
    same, _ = verify.verified(found, table, 0.0, lambda a, b: np.ones(len(a)))
    assert same.tolist() == pairs.tolist()  # an array works as before
