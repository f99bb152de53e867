"""Oracles for the index tests: brute force with its own bit count, and planted data.

The oracle compares every pair with its own (SWAR) bit count, sharing no code with the
index. Data plant neighbours at every distance 0..k+2 around random bases, so pairs sit
right at, inside and just outside the radius; low-entropy data make long runs of equal keys.
"""

from __future__ import annotations

import numpy as np

# ----------------------------------------------------------------------------- oracle


def swar_popcount(v: np.ndarray) -> np.ndarray:
    """Bit count by the classic shift-and-add steps (independent of the index's popcount)."""
    v = v.astype(np.uint64)
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((v * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


def brute_pairs(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j), i < j, within k and its distance, sorted; chunked to bound memory."""
    n = x.size
    step = max(1, 2_000_000 // max(n, 1))
    rows, cols, dists = [], [], []
    for lo in range(0, n, step):
        d = swar_popcount(x[lo : lo + step, None] ^ x[None, :])
        i, j = np.nonzero(d <= k)
        keep = j > i + lo
        rows.append(i[keep] + lo)
        cols.append(j[keep])
        dists.append(d[i[keep], j[keep]])
    if not rows:
        return np.empty((0, 2), np.int64), np.empty(0, np.int64)
    pairs = np.stack((np.concatenate(rows), np.concatenate(cols)), axis=1).astype(np.int64)
    return pairs, np.concatenate(dists).astype(np.int64)


def brute_query(x: np.ndarray, q: np.ndarray, k: int) -> tuple[np.ndarray, ...]:
    d = swar_popcount(q[:, None] ^ x[None, :]) if x.size and q.size else np.empty((q.size, 0))
    r, i = np.nonzero(d <= k)
    return r.astype(np.int64), i.astype(np.int64), d[r, i].astype(np.int64)


# ----------------------------------------------------------------------------- data


def flip_bits(rng: np.random.Generator, values: np.ndarray, d: int) -> np.ndarray:
    """Each value with exactly d distinct random bits flipped."""
    if d == 0 or values.size == 0:
        return values.copy()
    bits = np.argsort(rng.random((values.size, 64)), axis=1)[:, :d].astype(np.uint64)
    masks = np.bitwise_or.reduce(np.uint64(1) << bits, axis=1)
    return values ^ masks


def planted(seed: int, n: int, k: int, *, low_entropy: bool = False) -> np.ndarray:
    """n fingerprints: random bases, neighbours at every distance 0..k+2, and copies."""
    rng = np.random.default_rng(seed)
    n_base = max(1, n // 3)
    bases = rng.integers(0, 2**64, n_base, dtype=np.uint64)
    if low_entropy:  # few random bits: long runs of equal keys in every table
        bases &= np.uint64(0x0000_00F0_0F00_00FF)
    parts = [bases]
    while sum(p.size for p in parts) < n:
        d = int(rng.integers(0, k + 3))
        src = bases[rng.integers(0, n_base, max(1, n // (k + 3)))]
        parts.append(flip_bits(rng, src, d))
    out = np.concatenate(parts)[:n]
    rng.shuffle(out)
    return out
