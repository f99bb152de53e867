"""Scan results from stored fingerprints: groups formed exactly as ``dupfinder scan`` forms them.

Two ways in. :func:`result_from_fingerprints` reads every file and pairs them on this
machine (the single-machine answer). :func:`result_from_pairs` takes pairs found on a
cluster and reads back only the files whose fingerprint is in a pair or shared by several
files: the others cannot be in a group. Both hand the files to the scan's own grouping, so
representatives, distances, group order and the JSON are the scan's.

Bound: the grouping runs in one process; it holds the pairs (24 bytes each) and the grouped
files (a few hundred bytes each), not the whole archive.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow.dataset as ds

from dupfinder.core.errors import FingerprintStoreError
from dupfinder.core.index.distinct import sorted_unique
from dupfinder.core.model import Kind, ScanError, ScanOptions, ScanResult, ScanStats
from dupfinder.core.scan.pipeline import PairFinder, group_files
from dupfinder.distributed.pairs_job import PairsManifest
from dupfinder.distributed.store import (
    Stored,
    damaged,
    load,
    load_selected,
    shard_files,
    store_meta,
)

__all__ = ["read_pairs", "result_from_fingerprints", "result_from_pairs"]


def read_pairs(folder: Path, kind: Kind) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, distance) of one kind, as written by the pairs job (``a == b``: shared)."""
    where = folder / f"kind={kind}"
    if not where.is_dir():
        empty = np.empty(0, np.uint64)
        return empty, empty.copy(), np.empty(0, np.uint8)
    with damaged(where, "find the pairs again ('dupfinder pairs')"):
        table = ds.dataset(where, format="parquet").to_table(columns=["a", "b", "distance"])
    return (
        table.column("a").to_numpy(),
        table.column("b").to_numpy(),
        table.column("distance").to_numpy(),
    )


def _result(
    stored: Stored, options: ScanOptions, started: float, finder: PairFinder | None
) -> ScanResult:
    groups, pairs = group_files(stored.files, stored.outcomes, options, finder)
    errors = list(stored.errors)
    for row, (error, code) in stored.outcomes.errors.items():
        errors.append(ScanError(stored.files.paths[row], error, code or "unreadable"))
    errors.sort(key=lambda e: e.path)
    stats = ScanStats(
        files_seen=stored.rows_read - len(stored.errors),
        files_fingerprinted=sum(stored.meta.rows.values()),
        pairs=pairs,
        seconds=time.monotonic() - started,
    )
    return ScanResult(tuple(groups), tuple(errors), stats)


def result_from_fingerprints(fingerprints: Path, options: ScanOptions) -> ScanResult:
    """Group every stored file on this machine, as a scan of the same files would."""
    started = time.monotonic()
    stored = load(fingerprints)
    options = replace(options, image_invariance=stored.meta.image_invariance)
    return _result(stored, options, started, None)


def result_from_pairs(fingerprints: Path, pairs: Path, options: ScanOptions) -> ScanResult:
    """Group the stored files with pairs found by the pairs job (radius from its manifest)."""
    started = time.monotonic()
    manifest = PairsManifest.read(pairs)
    meta = store_meta(shard_files(fingerprints))
    for kind, algorithm in manifest.algorithms.items():
        if meta.algorithms.get(kind, algorithm) != algorithm:
            raise FingerprintStoreError(f"{pairs}: pairs of other {kind} fingerprints")
    kinds = frozenset(Kind(kind) for kind in manifest.kinds) & options.kinds
    if not kinds:
        raise FingerprintStoreError(f"{pairs}: no pairs of the kinds asked for")
    found = {kind: read_pairs(pairs, kind) for kind in kinds}
    wanted = {kind: sorted_unique(np.concatenate(found[kind][:2])) for kind in kinds}
    stored = load_selected(fingerprints, wanted)
    for kind, values in wanted.items():
        rows = stored.files.rows_of(kind)
        present = sorted_unique(stored.outcomes.values[rows[stored.outcomes.has_value[rows]]])
        if present.size != values.size:
            raise FingerprintStoreError(
                f"{pairs}: {values.size - present.size} paired {kind} fingerprints are not "
                f"in {fingerprints}; were the pairs made from other fingerprints?"
            )
    thresholds = {kind: manifest.kinds[str(kind)].k for kind in kinds}
    options = replace(
        options,
        kinds=kinds,
        text_threshold=thresholds.get(Kind.TEXT, options.text_threshold),
        image_threshold=thresholds.get(Kind.IMAGE, options.image_threshold),
    )

    def positions(unique: np.ndarray, wanted: np.ndarray) -> np.ndarray:
        at = np.searchsorted(unique, wanted)
        if at.size and (int(at.max()) >= unique.size or not np.array_equal(unique[at], wanted)):
            raise FingerprintStoreError(f"{pairs}: pairs of fingerprints not in {fingerprints}")
        return at.astype(np.int64)

    def finder(kind: Kind, values: np.ndarray, k: int, variants: object) -> np.ndarray:
        a, b, _ = found[kind]
        distinct = a != b
        unique = sorted_unique(values)
        return np.stack((positions(unique, a[distinct]), positions(unique, b[distinct])), axis=1)

    return _result(stored, options, started, finder)
