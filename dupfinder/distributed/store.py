"""Fingerprint files on disk: one Parquet file per shard, written whole or not at all.

A shard is written to a ``.partial`` file and renamed when complete, so a machine that dies
mid-way leaves nothing a reader would take for a finished shard; running the shard again
replaces it. Readers check that every shard of the set is there and that all were made with
the same fingerprint algorithms; a shard cut short or with damaged pages is a
``FingerprintStoreError`` naming it (``damaged``), never a pyarrow traceback.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from dupfinder.core.errors import FingerprintStoreError
from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns
from dupfinder.core.fingerprints.worker import FingerprintOutcome
from dupfinder.core.model import FileEntry, Kind, ScanError
from dupfinder.distributed.schema import FINGERPRINT_SCHEMA, SCHEMA_VERSION, StoreMeta

__all__ = [
    "ShardWriter",
    "Stored",
    "damaged",
    "load",
    "load_selected",
    "shard_files",
    "store_meta",
]

_SUFFIX = ".parquet"


def shard_name(index: int, count: int) -> str:
    return f"fingerprints-{index:05d}-of-{count:05d}{_SUFFIX}"


def _path_columns(paths: Sequence[str]) -> tuple[list[str], list[bytes | None]]:
    """UTF-8 text for every path; the exact bytes too for a name that is not UTF-8."""
    text: list[str] = []
    raw: list[bytes | None] = []
    for path in paths:
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            exact = os.fsencode(path)
            text.append(exact.decode("utf-8", "replace"))
            raw.append(exact)
        else:
            text.append(path)
            raw.append(None)
    return text, raw


def _sketches(files: FileColumns, outcomes: OutcomeColumns) -> list[bytes | None]:
    """Each document's sketch and picture's descriptor (as the scan verifies with them);
    None for other rows."""
    found: list[bytes | None] = [None] * len(files)
    for kind in (Kind.TEXT, Kind.IMAGE):
        rows = files.rows_of(kind)
        for row in rows[outcomes.has_value[rows]].tolist():
            found[row] = outcomes.sketch(row)
    return found


class ShardWriter:
    """Appends fingerprinted files to one shard; ``close`` publishes it under its final name."""

    def __init__(self, folder: Path, meta: StoreMeta) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / shard_name(*meta.shard)
        self._partial = self.path.with_name(self.path.name + ".partial")
        self._meta = meta
        self._rows = dict.fromkeys(meta.algorithms, 0)
        # the metadata (with the row counts) is added when the shard is complete
        self._writer = pq.ParquetWriter(self._partial, FINGERPRINT_SCHEMA)

    def write(self, files: FileColumns, outcomes: OutcomeColumns) -> None:
        n = len(files)
        entries = [files.entry(row) for row in range(n)]
        for kind in files.kinds_present():
            count = int(outcomes.has_value[files.rows_of(kind)].sum())
            if count:
                self._rows[str(kind)] = self._rows.get(str(kind), 0) + count
        problems = [outcomes.errors.get(row) for row in range(n)]
        self._append(
            files.paths,
            {
                "kind": [str(e.kind) for e in entries],
                "size": [e.size for e in entries],
                "mtime_ns": [e.mtime_ns for e in entries],
                "ctime_ns": [e.ctime_ns for e in entries],
                "dev": [e.dev for e in entries],
                "ino": [e.ino for e in entries],
                "links": [e.links for e in entries],
                "value": pa.array(outcomes.values, mask=~outcomes.has_value),
                "width": pa.array(outcomes.widths, mask=outcomes.widths == 0),
                "height": pa.array(outcomes.heights, mask=outcomes.heights == 0),
                "variants": [outcomes.variants.get(row) for row in range(n)],
                "sketch": _sketches(files, outcomes),
                "error": [p[0] if p else None for p in problems],
                "code": [(p[1] or "unreadable") if p else None for p in problems],
            },
        )

    def write_errors(self, errors: Iterable[ScanError]) -> None:
        """Problems found before fingerprinting (unreadable folders): rows without a kind."""
        found = list(errors)
        if found:
            zeros = [0] * len(found)
            self._append(
                [e.path for e in found],
                {
                    **{c: zeros for c in ("size", "mtime_ns", "ctime_ns", "dev", "ino")},
                    "links": [1] * len(found),
                    "error": [e.error for e in found],
                    "code": [e.code for e in found],
                },
            )

    def _append(self, paths: Sequence[str], columns: dict[str, Any]) -> None:
        text, raw = _path_columns(paths)
        columns = {"path": text, "path_bytes": raw, **columns}
        arrays = [
            columns[f.name] if f.name in columns else pa.nulls(len(text), f.type)
            for f in FINGERPRINT_SCHEMA
        ]
        self._writer.write_table(pa.Table.from_arrays(arrays, schema=FINGERPRINT_SCHEMA))

    def close(self) -> Path:
        """Finish the shard and give it its final name."""
        meta = StoreMeta(
            self._meta.algorithms, self._meta.image_invariance, self._meta.shard, self._rows
        )
        self._writer.add_key_value_metadata(meta.to_metadata())
        self._writer.close()
        os.replace(self._partial, self.path)
        return self.path

    def abort(self) -> None:
        self._writer.close()
        self._partial.unlink(missing_ok=True)


# ----------------------------------------------------------------------------- reading


@contextlib.contextmanager
def damaged(
    what: str | os.PathLike[str], again: str = "fingerprint that shard again"
) -> Iterator[None]:
    """Turn what pyarrow raises on a file cut short or damaged into a FingerprintStoreError
    that names ``what`` (a shard, or the folder of a set) and says what to do ``again``."""
    try:
        yield
    except FingerprintStoreError:
        raise
    except (pa.ArrowException, OSError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise FingerprintStoreError(
            f"{os.fspath(what)}: damaged or cut short ({reason}); {again}"
        ) from exc


def shard_files(location: Path) -> list[Path]:
    """The finished shards in a folder (or the one file named)."""
    if location.is_file():
        return [location]
    if not location.is_dir():
        raise FingerprintStoreError(f"{location}: no such folder of fingerprints")
    found = sorted(p for p in location.iterdir() if p.name.endswith(_SUFFIX) and p.is_file())
    if not found:
        raise FingerprintStoreError(f"{location}: no fingerprint files (*{_SUFFIX}) in it")
    return found


def store_meta(paths: Sequence[Path]) -> StoreMeta:
    """The set's metadata, after checking the shards belong together and are all there."""
    metas = []
    for p in paths:
        with damaged(p):
            metas.append(StoreMeta.from_metadata(pq.read_metadata(p).metadata, str(p)))
    first = metas[0]
    for path, meta in zip(paths, metas, strict=True):
        for kind, algorithm in meta.algorithms.items():
            other = first.algorithms.get(kind, algorithm)
            if other != algorithm:
                raise FingerprintStoreError(
                    f"{path}: {kind} fingerprints made by {algorithm}, others by {other}; "
                    "fingerprint every shard with the same dupfinder version"
                )
        if meta.image_invariance != first.image_invariance:
            raise FingerprintStoreError(f"{path}: made with another --mirror-rotate setting")
    counts = {m.shard[1] for m in metas}
    if len(counts) != 1:
        raise FingerprintStoreError(f"shards of different sets mixed: counts {sorted(counts)}")
    count = counts.pop()
    missing = sorted(set(range(count)) - {m.shard[0] for m in metas})
    if missing:
        listed = ", ".join(f"{i}/{count}" for i in missing[:10])
        raise FingerprintStoreError(f"{len(missing)} shard(s) missing: {listed}")
    algorithms: dict[str, str] = {}
    rows: dict[str, int] = {}
    for meta in metas:
        algorithms.update(meta.algorithms)
        for kind, n in meta.rows.items():
            rows[kind] = rows.get(kind, 0) + n
    return StoreMeta(algorithms, first.image_invariance, (0, count), rows, SCHEMA_VERSION)


@dataclass(slots=True)
class Stored:
    """Fingerprinted files read back, in the scan's own column form."""

    files: FileColumns
    outcomes: OutcomeColumns
    errors: list[ScanError]
    meta: StoreMeta
    rows_read: int  # every file row of the set, selected or not


def load(location: Path) -> Stored:
    """Every file of a fingerprint set."""
    paths = shard_files(location)
    meta = store_meta(paths)
    with damaged(location, "fingerprint the damaged shard again"):
        table = ds.dataset(paths, format="parquet").to_table()
    return _stored(table, meta, table.num_rows)


def load_selected(location: Path, wanted: dict[Kind, np.ndarray]) -> Stored:
    """Only the files whose fingerprint is in ``wanted`` (per kind), plus every error row:
    what grouping needs when the pairs were found elsewhere."""
    paths = shard_files(location)
    meta = store_meta(paths)
    with damaged(location, "fingerprint the damaged shard again"):
        dataset = ds.dataset(paths, format="parquet")
    keep = pc.field("value").is_null()
    for kind, values in wanted.items():
        chosen = pa.array(np.asarray(values, dtype=np.uint64))
        keep = keep | ((pc.field("kind") == str(kind)) & pc.field("value").isin(chosen))
    with damaged(location, "fingerprint the damaged shard again"):
        table = dataset.to_table(filter=keep)
        rows = dataset.count_rows()
    return _stored(table, meta, rows)


def _stored(table: pa.Table, meta: StoreMeta, rows_read: int) -> Stored:
    cols = {name: table.column(name).to_pylist() for name in table.column_names}
    n = table.num_rows
    files = FileColumns()
    outcomes = OutcomeColumns(sum(1 for kind in cols["kind"] if kind is not None))
    errors: list[ScanError] = []
    for i in range(n):
        raw = cols["path_bytes"][i]
        path = os.fsdecode(raw) if raw is not None else cols["path"][i]
        kind = cols["kind"][i]
        if kind is None:
            errors.append(ScanError(path, cols["error"][i], cols["code"][i] or "unreadable"))
            continue
        row = len(files)
        files.append(
            FileEntry(
                path,
                cols["size"][i],
                cols["mtime_ns"][i],
                Kind(kind),
                dev=cols["dev"][i],
                ino=cols["ino"][i],
                ctime_ns=cols["ctime_ns"][i],
                links=cols["links"][i],
            )
        )
        outcomes.put(
            row,
            FingerprintOutcome(
                row,
                value=cols["value"][i],
                width=cols["width"][i],
                height=cols["height"][i],
                variants=tuple(cols["variants"][i] or ()),
                sketch=cols["sketch"][i],
                error=cols["error"][i],
                code=cols["code"][i],
            ),
        )
    return Stored(files, outcomes, errors, meta, rows_read)
