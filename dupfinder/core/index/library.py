"""A library that remembers: the near pairs of the last scan, so a rescan compares only what changed.

For each kind and radius the library keeps the distinct fingerprints of the last scan and the
pairs within the radius among them (a pure function of that set of values). A rescan's pairs
are then the remembered pairs among the values still present, plus the pairs of each new
value with the kept ones and among the new values. New values are looked up in a probe
index of the kept ones (``index_kernel.ProbeIndex``: one table per block, built by counting
sort, probed with the keys within k // blocks flips), or, when many are new, streamed
against them table by table (``index_kernel.cross_pairs``). Removed or changed files simply drop
out: their old values are not in the new set. The full batch search runs instead when it is
cheaper (many new values, no compiled kernel, or nothing remembered), and its result is
remembered for next time.

Picture variants (the hashes of a picture's crops, and its mirrored and rotated forms where
the scan looks for them) add pairs that are not a function of the values alone; such a search
is remembered whole, by a digest of every value and variant in order: a rescan that finds
them all the same takes its pairs as they were, any change searches again.

The library also remembers the outcome of the second check of each pair the last scan
proposed (``recall``, ``keep``; see ``grouping.checked``), keyed by the content of the two
files, so a rescan checks only the pairs it has not seen.

The library lives in its own versioned file in the cache folder (``library-v1.npz``), written
atomically; an unreadable or older file is ignored and replaced.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import math
import os
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dupfinder.core.index import compiled as index_kernel
from dupfinder.core.index import cost
from dupfinder.core.index.distinct import sorted_unique
from dupfinder.core.index.layout import I64Array, U64Array
from dupfinder.core.index.pairs import near_pairs
from dupfinder.core.index.reference import (
    all_pairs,
    choose_blocks,
    compiled_kernel,
    pairs_cost,
)
from dupfinder.core.jit.engine import Engine
from dupfinder.core.model import Kind

__all__ = ["LIBRARY_VERSION", "Library", "Remembered"]

_log = logging.getLogger(__name__)

LIBRARY_VERSION = 1

#: Fewest distinct values searched incrementally: below, a batch search takes milliseconds.
_INCREMENTAL_MIN = 20_000


@dataclass(frozen=True, slots=True)
class Remembered:
    """The distinct fingerprints of one kind (sorted) and the pairs within ``k`` among them."""

    values: U64Array
    pairs: I64Array  # (P, 2) indices into values, i < j


def _cross_blocks(new: int, known: int, k: int) -> tuple[int, float]:
    """Blocks and estimated nanoseconds of pairing ``new`` values with ``known`` ones."""
    best = (k + 1, math.inf)
    for m in range(k + 1, 65):
        tables = math.comb(m, k)
        if tables > 2000:
            break
        prefix = 64.0 * (m - k) / m
        # known values that pass the bitmap of new keys pay a binary search
        filter_bits = min(22.0, new.bit_length() + 6.0, prefix)
        passing = min(1.0, new / 2.0**filter_bits)
        per_table = (
            known * (cost.CROSS_STREAM + passing * cost.CROSS_SEARCH)
            + new * known / 2.0**prefix * cost.CROSS_CANDIDATE
            + new * cost.CROSS_NEW
        )
        if tables * per_table < best[1]:
            best = (m, tables * per_table)
    return best


#: Names in the library file of the checked pairs' arrays: "check:NAME.codes" and ".similarity".
_CHECK = "check:"
#: Names of a search with variants: "variants:NAME.digest" and "variants:NAME.pairs".
_VARIANTS = "variants:"
_MIX = np.uint64(0x9E3779B97F4A7C15)


def _safe(name: str) -> str:
    """A check's name as a member of the library's zip file (no folders)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _pair_codes(keys: np.ndarray) -> U64Array:
    """One 64-bit code per pair of content keys (a mix of the two)."""
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1, 2)
    with np.errstate(over="ignore"):
        code = keys[:, 0] * _MIX
        code ^= code >> np.uint64(29)
        code ^= keys[:, 1]
        code *= _MIX
        code ^= code >> np.uint64(32)
    return code


def _sound(name: str, entry: Remembered, path: Path) -> bool:
    """Whether a remembered set read from the file can be used: distinct values in order,
    pairs of indices i < j into them, each pair within the radius its name gives. A damaged
    one (a flipped bit) is discarded with a warning and searched afresh; the file is then
    written anew, so the damage costs one search, never a failing scan."""
    values, pairs = entry.values, entry.pairs
    k = int(name.rpartition("-")[2]) if name.rpartition("-")[2].isdigit() else -1
    problem = None
    if values.dtype != np.uint64 or values.ndim != 1 or not np.issubdtype(pairs.dtype, np.integer):
        problem = "arrays of the wrong type"
    elif values.size > 1 and not bool(np.all(values[1:] > values[:-1])):
        problem = "values out of order"
    elif pairs.size and (
        int(pairs.min()) < 0
        or int(pairs.max()) >= values.size
        or not bool(np.all(pairs[:, 0] < pairs[:, 1]))
    ):
        problem = "pair indices out of range"
    elif pairs.size and int(np.bitwise_count(values[pairs[:, 0]] ^ values[pairs[:, 1]]).max()) > k:
        problem = "pairs farther apart than the radius"
    if problem is not None:
        _log.warning("library %s: %s discarded (%s); searched again", path, name, problem)
    return problem is None


def _variants_digest(values: np.ndarray, variants: Sequence[Sequence[int]], k: int) -> bytes:
    """What a search with variants is a function of: the radius, every value and each
    value's variants, in order."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(k.to_bytes(2, "little"))
    digest.update(np.ascontiguousarray(values, dtype=np.uint64).tobytes())
    counts = np.fromiter((len(v) for v in variants), dtype=np.int64, count=len(variants))
    digest.update(counts.tobytes())
    flat = itertools.chain.from_iterable(variants)
    digest.update(np.fromiter(flat, dtype=np.uint64, count=int(counts.sum())).tobytes())
    return digest.digest()


class Library:
    """Remembered pairs per (kind, radius), in ``directory/library-v1.npz``.

    ``pairs`` has the signature of ``scan.PairFinder``, so a scan can use it in place of
    the batch search; it saves what it found.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.path = Path(directory) / f"library-v{LIBRARY_VERSION}.npz"
        #: The folders of the last scan (what "find similar files" searches by default).
        self.roots: tuple[Path, ...] = ()
        #: Checked pairs by check: sorted pair codes and their similarities (``recall``).
        self._checks: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        #: Searches with variants by (kind, radius): the digest of their input, their pairs.
        self._searches: dict[str, tuple[bytes, I64Array]] = {}
        self._entries: dict[str, Remembered] = self._load()
        #: How the last call found its pairs: "batch", "incremental" or "remembered" (a search
        #: with variants whose input was the last one's), for tests and stats.
        self.last_mode = ""

    @staticmethod
    def _name(kind: Kind, k: int) -> str:
        return f"{kind.value}-{k}"

    def _load(self) -> dict[str, Remembered]:
        try:
            with np.load(self.path) as saved:
                if int(saved["version"]) != LIBRARY_VERSION:
                    return {}
                names = [n[: -len("-values")] for n in saved.files if n.endswith("-values")]
                if "roots" in saved.files:
                    self.roots = tuple(Path(str(r)) for r in saved["roots"].tolist())
                for name in saved.files:
                    if name.startswith(_CHECK) and name.endswith(".codes"):
                        check = name[len(_CHECK) : -len(".codes")]
                        self._checks[check] = (saved[name], saved[f"{_CHECK}{check}.similarity"])
                    if name.startswith(_VARIANTS) and name.endswith(".digest"):
                        search = name[len(_VARIANTS) : -len(".digest")]
                        pairs = saved[f"{_VARIANTS}{search}.pairs"].reshape(-1, 2)
                        if np.issubdtype(pairs.dtype, np.integer):
                            self._searches[search] = (saved[name].tobytes(), pairs)
                found = {
                    n: Remembered(saved[f"{n}-values"], saved[f"{n}-pairs"].reshape(-1, 2))
                    for n in names
                }
                return {n: e for n, e in found.items() if _sound(n, e, self.path)}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            _log.warning("library %s unreadable (%s); it will be rebuilt", self.path, exc)
            return {}

    def _save(self) -> None:
        arrays: dict[str, np.ndarray] = {
            "version": np.array(LIBRARY_VERSION),
            "roots": np.array([str(r) for r in self.roots], dtype=np.str_),
        }
        for name, entry in self._entries.items():
            arrays[f"{name}-values"] = entry.values
            arrays[f"{name}-pairs"] = entry.pairs
        for check, (codes, similarity) in self._checks.items():
            arrays[f"{_CHECK}{check}.codes"] = codes
            arrays[f"{_CHECK}{check}.similarity"] = similarity
        for search, (digest, pairs) in self._searches.items():
            arrays[f"{_VARIANTS}{search}.digest"] = np.frombuffer(digest, dtype=np.uint8)
            arrays[f"{_VARIANTS}{search}.pairs"] = pairs
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".library-", suffix=".npz")
            with os.fdopen(fd, "wb") as out:
                np.savez(out, allow_pickle=False, **arrays)
            os.replace(temp, self.path)
        except OSError as exc:
            _log.warning("library %s not saved (%s)", self.path, exc)

    def remember_roots(self, roots: Sequence[str | os.PathLike[str]]) -> None:
        """Record the folders of a scan (saved at once)."""
        self.roots = tuple(Path(r).absolute() for r in roots)
        self._save()

    def recall(self, name: str, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For (P, 2) content keys of checked pairs (``grouping.checked``): which ones the
        last scan checked under ``name``, and their similarity (0 where not); a row of
        figures per pair where rows were kept (a comparison's every number)."""
        codes = _pair_codes(keys)
        known = np.zeros(len(codes), dtype=np.bool_)
        saved = self._checks.get(_safe(name))
        figures = () if saved is None else saved[1].shape[1:]
        similarity = np.zeros((len(codes), *figures), dtype=np.float64)
        if saved is not None and len(saved[0]) and len(codes):
            at = np.minimum(np.searchsorted(saved[0], codes), len(saved[0]) - 1)
            known = saved[0][at] == codes
            similarity[known] = saved[1][at[known]]
        return known, similarity

    def keep(self, name: str, keys: np.ndarray, similarities: np.ndarray) -> None:
        """Remember the similarities (or rows of figures) of this scan's checked pairs under
        ``name`` (those of pairs no longer proposed are forgotten: the memory grows with the
        pairs, no more)."""
        codes = _pair_codes(keys)
        order = np.argsort(codes, kind="stable")
        kept = (codes[order], similarities[order].astype(np.float64))
        last = self._checks.get(_safe(name))
        if last is not None and all(np.array_equal(a, b) for a, b in zip(last, kept, strict=True)):
            return  # an unchanged rescan: the file already holds exactly this
        self._checks[_safe(name)] = kept
        self._save()

    def remembered(self, kind: Kind, k: int) -> Remembered | None:
        return self._entries.get(self._name(kind, k))

    def pairs(
        self,
        kind: Kind,
        values: np.ndarray,
        k: int,
        variants: Sequence[Sequence[int]] | None = None,
    ) -> I64Array:
        """(P, 2) pairs i < j of indices into ``np.unique(values)`` within ``k`` bits."""
        if variants and any(variants):
            return self._with_variants(kind, values, k, variants)
        unique = sorted_unique(np.asarray(values, dtype=np.uint64))
        found = self._incremental(kind, unique, k)
        if found is None:
            self.last_mode = "batch"
            found = all_pairs(unique, k)
        else:
            self.last_mode = "incremental"
        self._entries[self._name(kind, k)] = Remembered(unique, found)
        self._save()
        return found

    def _with_variants(
        self, kind: Kind, values: np.ndarray, k: int, variants: Sequence[Sequence[int]]
    ) -> I64Array:
        """The pairs of a search with variants: the last one's when its input was the same
        (and its pairs index the values that are there), else searched and remembered."""
        name = self._name(kind, k)
        digest = _variants_digest(values, variants, k)
        last = self._searches.get(name)
        if last is not None and last[0] == digest:
            distinct = sorted_unique(np.asarray(values, dtype=np.uint64)).size
            pairs = last[1]
            if not pairs.size or (
                int(pairs.min()) >= 0
                and int(pairs.max()) < distinct
                and bool(np.all(pairs[:, 0] < pairs[:, 1]))
            ):
                self.last_mode = "remembered"
                return pairs.astype(np.int64, copy=False)
        self.last_mode = "batch"
        found = near_pairs(values, k, variants)
        self._searches[name] = (digest, found)
        self._save()
        return found

    def _incremental(self, kind: Kind, unique: U64Array, k: int) -> I64Array | None:
        """The pairs of ``unique`` from the remembered ones, or None when a batch is cheaper."""
        old = self.remembered(kind, k)
        if old is None or unique.size < max(2, _INCREMENTAL_MIN):
            return None
        kernel = compiled_kernel(Engine.COMPILED, unique.size) if index_kernel.available() else None
        if kernel is None:
            return None
        at = np.minimum(np.searchsorted(old.values, unique), max(old.values.size - 1, 0))
        kept = old.values[at] == unique if old.values.size else np.zeros(unique.size, bool)
        new_rows = np.flatnonzero(~kept)
        kept_rows = np.flatnonzero(kept)
        if k == 0:
            return np.empty((0, 2), np.int64)
        blocks, cross_cost = _cross_blocks(new_rows.size, kept_rows.size, k)
        plan = index_kernel.probe_plan(kept_rows.size, new_rows.size, k)
        batch_blocks = choose_blocks(unique.size, k, engine=Engine.COMPILED)
        if min(cross_cost, plan.cost_ns) > pairs_cost(unique.size, k, batch_blocks, compiled=True):
            return None
        # remembered pairs whose two values are still present, renumbered
        new_index = np.full(old.values.size, -1, np.int64)
        new_index[at[kept]] = np.flatnonzero(kept)
        mapped = new_index[old.pairs] if old.pairs.size else np.empty((0, 2), np.int64)
        mapped = mapped[(mapped >= 0).all(axis=1)] if mapped.size else mapped.reshape(0, 2)
        parts = [mapped.reshape(-1, 2)]
        if new_rows.size:
            if plan.cost_ns < cross_cost:
                index = kernel.ProbeIndex(unique[kept_rows], k, plan)
                ia, ib, _ = index.query(unique[new_rows])
            else:
                ia, ib, _ = kernel.cross_pairs(unique[new_rows], unique[kept_rows], k, blocks)
            a, b = new_rows[ia], kept_rows[ib]
            parts.append(np.stack((np.minimum(a, b), np.maximum(a, b)), axis=1))
            among = all_pairs(unique[new_rows], k)
            parts.append(new_rows[among].reshape(-1, 2))
        found = np.concatenate(parts).astype(np.int64)
        order = np.lexsort((found[:, 1], found[:, 0]))
        return found[order]
