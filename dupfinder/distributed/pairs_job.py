"""Every pair within the radius, on a Dask cluster: one shuffle per permuted table.

For each kind and each table, the fingerprints are shuffled on their table key, so every
partition holds all fingerprints sharing its keys; each partition collapses identical
fingerprints and runs the single-machine exact search, keeping the pairs this table is
canonical for (:mod:`.layout`). Each pair is therefore reported by exactly one partition of
one table. Partitions are pure functions of their input, so when a worker dies the
scheduler recomputes what it held and the pairs come out the same.

Output: Parquet under ``OUT/kind=<kind>/`` (``a``, ``b``, ``distance``; ``a == b`` marks a
fingerprint several files share) and ``OUT/manifest.json``, written last.
"""

from __future__ import annotations

import enum
import json
import math
import shutil
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from dupfinder.core.errors import FingerprintStoreError
from dupfinder.core.model import Kind
from dupfinder.distributed.layout import TableLayout, choose_blocks, table_pairs
from dupfinder.distributed.schema import PAIRS_SCHEMA, SCHEMA_VERSION
from dupfinder.distributed.store import damaged, shard_files, store_meta

__all__ = [
    "MANIFEST",
    "ROWS_PER_PARTITION",
    "KindPlan",
    "PairsManifest",
    "ShuffleMethod",
    "find_pairs",
]

MANIFEST = "manifest.json"
#: Fingerprints per partition of a table (about 32 MB of keyed values in pandas).
ROWS_PER_PARTITION = 2_000_000

_PAIRS_META = pd.DataFrame(
    {
        "a": pd.Series([], dtype=np.uint64),
        "b": pd.Series([], dtype=np.uint64),
        "distance": pd.Series([], dtype=np.uint8),
    }
)
_KEYED_META = pd.DataFrame(
    {"value": pd.Series([], dtype=np.uint64), "key": pd.Series([], dtype=np.uint64)}
)


class ShuffleMethod(enum.StrEnum):
    """How Dask moves a table's fingerprints to their partitions."""

    P2P = "p2p"  # peer to peer through the workers' disks: scales to large tables
    TASKS = "tasks"  # as ordinary tasks: no extra machinery, for small jobs


@dataclass(frozen=True, slots=True)
class KindPlan:
    """How one kind's pairs were found."""

    k: int
    fingerprints: int
    blocks: int
    tables: int
    partitions: int
    pairs: int = 0
    shared: int = 0  # fingerprints held by several files


@dataclass(frozen=True, slots=True)
class PairsManifest:
    """What ``OUT/manifest.json`` records: enough to check the pairs fit the fingerprints."""

    kinds: dict[str, KindPlan]
    algorithms: dict[str, str]
    shards: int
    seconds: float
    version: int = SCHEMA_VERSION

    def write(self, folder: Path) -> None:
        data = asdict(self)
        (folder / MANIFEST).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")

    @classmethod
    def read(cls, folder: Path) -> PairsManifest:
        try:
            data = json.loads((folder / MANIFEST).read_text())
            kinds = {kind: KindPlan(**plan) for kind, plan in data["kinds"].items()}
            return cls(kinds, data["algorithms"], data["shards"], data["seconds"], data["version"])
        except FileNotFoundError:
            raise FingerprintStoreError(
                f"{folder}: no {MANIFEST}; the pairs job did not finish there"
            ) from None
        except (KeyError, TypeError, ValueError) as exc:
            raise FingerprintStoreError(f"{folder / MANIFEST}: not a pairs manifest") from exc


def _pieces(paths: list[Path]) -> list[tuple[str, tuple[int, ...]]]:
    """Input partitions: runs of a shard's row groups, up to ROWS_PER_PARTITION rows each."""
    pieces = []
    for path in paths:
        with damaged(path):
            meta = pq.read_metadata(path)
        groups: list[int] = []
        rows = 0
        for g in range(meta.num_row_groups):
            size = meta.row_group(g).num_rows
            if groups and rows + size > ROWS_PER_PARTITION:
                pieces.append((str(path), tuple(groups)))
                groups, rows = [], 0
            groups.append(g)
            rows += size
        if groups:
            pieces.append((str(path), tuple(groups)))
    return pieces


def _read_keyed(
    piece: tuple[str, tuple[int, ...]], kind: Kind, layout: TableLayout, t: int
) -> pd.DataFrame:
    """One kind's fingerprints of a piece, keyed for table ``t`` (read straight as uint64)."""
    path, groups = piece
    table = pq.ParquetFile(path).read_row_groups(list(groups), columns=["kind", "value"])
    chosen = pc.and_(pc.equal(table.column("kind"), str(kind)), pc.is_valid(table.column("value")))
    values = table.column("value").filter(chosen).to_numpy().astype(np.uint64, copy=False)
    return pd.DataFrame({"value": values, "key": layout.keys(values, t)})


def _partition_pairs(part: pd.DataFrame, layout: TableLayout, t: int) -> pd.DataFrame:
    """The pairs one partition of table ``t`` reports (table 0 also lists shared values)."""
    values, counts = np.unique(part["value"].to_numpy(dtype=np.uint64), return_counts=True)
    i, j, d = table_pairs(values, layout, t)
    a, b, dist = values[i], values[j], d.astype(np.uint8)
    if t == 0:
        shared = values[counts > 1]
        a = np.concatenate((shared, a))
        b = np.concatenate((shared, b))
        dist = np.concatenate((np.zeros(shared.size, np.uint8), dist))
    return pd.DataFrame({"a": a, "b": b, "distance": dist})


def default_partitions(n: int, threads: int) -> int:
    return max(2 * threads, math.ceil(n / ROWS_PER_PARTITION))


def find_pairs(
    fingerprints: Path,
    out_dir: Path,
    thresholds: Mapping[Kind, int],
    *,
    threads: int,
    blocks: int | None = None,
    partitions: int | None = None,
    shuffle: ShuffleMethod | None = None,
) -> PairsManifest:
    """Find the pairs of the stored fingerprints on the current Dask client's cluster.

    ``threads`` (the cluster's worker threads) sets the default number of partitions;
    ``blocks`` forces the table layout, ``shuffle`` the Dask shuffle method (p2p or tasks).
    """
    started = time.monotonic()
    paths = shard_files(fingerprints)
    meta = store_meta(paths)
    if meta.image_invariance:
        raise FingerprintStoreError(
            "fingerprints made with --mirror-rotate carry image variants, which only "
            "'dupfinder groups' without --pairs compares"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / MANIFEST).unlink(missing_ok=True)
    pieces = _pieces(paths)
    plans: dict[str, KindPlan] = {}
    writes: list[Any] = []
    for kind, k in sorted(thresholds.items()):
        n = meta.rows.get(str(kind), 0)
        layout = TableLayout.make(k, blocks or choose_blocks(n, k))
        count = partitions or default_partitions(n, threads)
        plans[str(kind)] = KindPlan(k, n, layout.blocks, layout.tables, count)
        if n == 0:  # nothing to pair: no stale pairs of an earlier run either
            shutil.rmtree(out_dir / f"kind={kind}", ignore_errors=True)
            continue
        found = []
        for t in range(layout.tables):
            keyed = dd.from_map(
                _read_keyed, pieces, kind=kind, layout=layout, t=t, meta=_KEYED_META
            )
            method = None if shuffle is None else str(shuffle)
            shuffled = keyed.shuffle("key", npartitions=count, shuffle_method=method)
            found.append(shuffled.map_partitions(_partition_pairs, layout, t, meta=_PAIRS_META))
        writes.append(
            dd.concat(found).to_parquet(
                str(out_dir / f"kind={kind}"),
                write_index=False,
                schema=PAIRS_SCHEMA,
                overwrite=True,
                compute=False,
            )
        )
    with damaged(fingerprints, "fingerprint the damaged shard again"):  # read by the workers
        dask.compute(*writes)
    for name, plan in list(plans.items()):
        folder = out_dir / f"kind={name}"
        if folder.is_dir():
            pairs = ds.dataset(folder, format="parquet")
            shared = pairs.count_rows(filter=ds.field("a") == ds.field("b"))
            plans[name] = KindPlan(
                **{**asdict(plan), "pairs": pairs.count_rows() - shared, "shared": shared}
            )
    manifest = PairsManifest(
        plans, dict(meta.algorithms), meta.shard[1], round(time.monotonic() - started, 3)
    )
    manifest.write(out_dir)
    return manifest
