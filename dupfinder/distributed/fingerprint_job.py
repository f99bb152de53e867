"""Fingerprint one shard of a file list (or of folders) into Parquet.

Several machines share one list: each runs with its own ``--shard i/n`` and takes the files
whose path hashes to ``i`` (CRC-32 of the path as listed, so every machine agrees without
talking to the others). The fingerprints are the scan's own: the same walk filters, the same
cache, the same worker pool, in chunks so memory stays flat however long the list.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from dupfinder.core.fingerprints.columns import FileColumns
from dupfinder.core.fingerprints.worker import algorithm_id
from dupfinder.core.model import (
    FileEntry,
    Kind,
    ProgressCallback,
    ScanOptions,
    no_progress,
)
from dupfinder.core.scan.pipeline import fingerprint_files
from dupfinder.core.scan.walk import WalkReport, walk, walk_listed
from dupfinder.distributed.schema import StoreMeta
from dupfinder.distributed.store import ShardWriter

__all__ = [
    "CHUNK_FILES",
    "STORED_KINDS",
    "Shard",
    "ShardReport",
    "fingerprint_shard",
    "stored_options",
]

#: The kinds a shard stores: documents and pictures. Music and videos are left to a scan on
#: one machine (their prints are a sequence per file, which the shards do not hold).
STORED_KINDS = frozenset({Kind.TEXT, Kind.IMAGE})

#: Files fingerprinted and written per step (a Parquet row group each).
CHUNK_FILES = 20_000


@dataclass(frozen=True, slots=True)
class Shard:
    """Share ``index`` of ``count`` (0 <= index < count)."""

    index: int = 0
    count: int = 1

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.count:
            raise ValueError(f"shard must be i/n with 0 <= i < n, got {self.index}/{self.count}")

    @classmethod
    def parse(cls, text: str) -> Shard:
        index, _, count = text.partition("/")
        try:
            return cls(int(index), int(count))
        except ValueError:
            raise ValueError(f"shard must look like 3/8 (i/n, 0 <= i < n), got {text!r}") from None

    def holds(self, path: str) -> bool:
        """Whether this shard takes ``path`` (as listed): the same answer on every machine."""
        if self.count == 1:
            return True
        key = path.encode("utf-8", "surrogateescape")
        return zlib.crc32(key) % self.count == self.index


@dataclass(frozen=True, slots=True)
class ShardReport:
    path: Path
    files: int
    fingerprinted: int
    errors: int
    cancelled: bool = False


def _entries(
    options: ScanOptions,
    shard: Shard,
    listed: Iterable[str] | None,
    report: WalkReport,
    cancel: threading.Event,
) -> Iterator[FileEntry]:
    if listed is not None:
        yield from walk_listed((p for p in listed if shard.holds(p)), options, report, cancel)
        return
    for entry in walk(options, report, cancel):
        if shard.holds(entry.path):
            yield entry


def stored_options(options: ScanOptions) -> ScanOptions:
    """The scan options a shard is made with: documents and pictures only, as a scan without
    its byte-identical pass lists them (other files have no fingerprint to store; music and
    videos are not stored, see ``STORED_KINDS``)."""
    if not options.kinds & STORED_KINDS:
        raise ValueError("only documents and pictures have fingerprints (--kind text or image)")
    return replace(options, identical=False, kinds=options.kinds & STORED_KINDS)


def fingerprint_shard(
    options: ScanOptions,
    out_dir: Path,
    shard: Shard = Shard(),
    listed: Iterable[str] | None = None,
    progress: ProgressCallback = no_progress,
    cancel: threading.Event | None = None,
) -> ShardReport:
    """Fingerprint this shard's files (of ``listed`` paths, or under ``options.roots``)."""
    options = stored_options(options)
    cancel = cancel if cancel is not None else threading.Event()
    meta = StoreMeta(
        algorithms={
            str(kind): algorithm_id(kind, image_invariance=options.image_invariance)
            for kind in sorted(options.kinds & STORED_KINDS)
        },
        image_invariance=options.image_invariance,
        shard=(shard.index, shard.count),
    )
    writer = ShardWriter(out_dir, meta)
    report = WalkReport()
    total = fingerprinted = problems = 0
    try:
        chunk = FileColumns()
        entries = _entries(options, shard, listed, report, cancel)
        while True:
            for entry in entries:
                chunk.append(entry)
                if len(chunk) >= CHUNK_FILES:
                    break
            if not len(chunk) or cancel.is_set():
                break
            outcomes, _ = fingerprint_files(chunk, options, progress, cancel)
            if cancel.is_set():
                break
            writer.write(chunk, outcomes)
            total += len(chunk)
            fingerprinted += outcomes.fingerprinted()
            problems += len(outcomes.errors)
            chunk = FileColumns()
        if cancel.is_set():
            writer.abort()
            return ShardReport(writer.path, total, fingerprinted, problems, cancelled=True)
        writer.write_errors(report.errors)
        return ShardReport(
            writer.close(), total, fingerprinted, problems + len(report.errors), cancelled=False
        )
    except BaseException:
        writer.abort()
        raise
