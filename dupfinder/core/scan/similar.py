"""Find files like this one: the near-duplicates of one document or picture.

The target is fingerprinted like any scanned file, and so are the files of the folders named
(or, when none are named, the folders of the last scan the library remembers); fingerprints
come from the cache where fresh, so asking again is fast. Each file of the target's kind
whose fingerprint is within the kind's radius is a candidate, and a match when it passes the
kind's second check (the MinHash sketch of documents' 3-word runs, the thumbnails of
pictures) as in a scan's groups: the similarity shown is that check's.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dupfinder.core.errors import DupfinderError
from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns, member
from dupfinder.core.grouping.groups import second_check
from dupfinder.core.index.library import Library
from dupfinder.core.model import Group, Kind, ProgressCallback, ScanError, ScanOptions, no_progress
from dupfinder.core.scan.cache import default_cache_dir
from dupfinder.core.scan.pipeline import fingerprint_files
from dupfinder.core.scan.walk import WalkReport, walk, walk_listed

__all__ = ["Match", "NoFolders", "SimilarResult", "similar"]


class NoFolders(DupfinderError, ValueError):
    """No folders were named and no earlier scan is remembered to search instead."""


@dataclass(frozen=True, slots=True)
class Match:
    """A file like the target: its fingerprint distance and verified similarity (0..1)."""

    path: str
    distance: int
    similarity: float


@dataclass(frozen=True, slots=True)
class SimilarResult:
    """The target, its kind (None when it could not be fingerprinted), the folders searched,
    the matches (most similar first) and the files that could not be read.

    ``group`` holds the target then its matches as a scan's group does (identity, size,
    dimensions, similarity to the target), ready for a results list or an action plan;
    None when nothing matched."""

    target: str
    kind: Kind | None
    folders: tuple[str, ...]
    matches: tuple[Match, ...]
    errors: tuple[ScanError, ...]
    group: Group | None = None


def similar(
    target: str | Path,
    folders: Sequence[str | Path] = (),
    options: ScanOptions | None = None,
    progress: ProgressCallback = no_progress,
    cancel: threading.Event | None = None,
) -> SimilarResult:
    """The files of ``folders`` (default: the last scan's folders) like ``target``.

    ``options`` supplies thresholds, filters and the cache (its ``roots`` are ignored).
    Raises :class:`NoFolders` when there is nothing to search.
    """
    base = options if options is not None else ScanOptions(roots=())
    roots = tuple(Path(f) for f in folders)
    if not roots:
        roots = Library(base.cache_dir or default_cache_dir()).roots
    if not roots:
        raise NoFolders("name the folders to search (no earlier scan is remembered)")
    options = dataclasses.replace(base, roots=roots)
    report = WalkReport()
    files = FileColumns()
    # The filters choose what is searched, not the file a person asked about.
    named = dataclasses.replace(
        options, include=(), exclude=(), min_size=0, max_size=None, include_hidden=True
    )
    for entry in walk_listed([str(target)], named, report, cancel):
        files.append(entry)
    if len(files) == 0:
        return SimilarResult(str(target), None, _names(roots), (), tuple(report.errors))
    me = (files.entry(0).dev, files.entry(0).ino)
    for entry in walk(options, report, cancel):
        if (entry.dev, entry.ino) != me:
            files.append(entry)
    outcomes, _ = fingerprint_files(files, options, progress, cancel)
    errors = list(report.errors)
    for row, (error, code) in outcomes.errors.items():
        errors.append(ScanError(files.paths[row], error, code or "unreadable"))
    kind = files.kind(0)
    if not outcomes.has_value[0]:
        return SimilarResult(files.paths[0], None, _names(roots), (), tuple(errors))
    rows = files.rows_of(kind)
    rows = rows[(rows != 0) & outcomes.has_value[rows]]
    values = outcomes.values[rows]
    mine = [int(outcomes.values[0]), *outcomes.variants.get(0, ())]
    distance = np.min(
        [np.bitwise_count(values ^ np.uint64(v)) for v in mine], axis=0, initial=64
    ).astype(np.int64)
    near = np.flatnonzero(distance <= options.threshold(kind))
    rows, distance = rows[near], distance[near]
    check = second_check(kind, options)
    if check is None:  # not reached: only documents and pictures are fingerprinted
        raise ValueError(f"no similarity measure for {kind}")
    theirs = outcomes.padded_sketches(rows, check.width)
    own = outcomes.padded_sketches(np.array([0]), check.width)[0]
    similarity = np.asarray(
        check.measure(theirs, np.broadcast_to(own, theirs.shape)), dtype=np.float64
    )
    keep = similarity >= check.threshold
    rows, distance, similarity = rows[keep], distance[keep], similarity[keep]
    matches = sorted(
        (
            Match(files.paths[row], int(d), float(s))
            for row, d, s in zip(rows.tolist(), distance.tolist(), similarity.tolist(), strict=True)
        ),
        key=lambda m: (-m.similarity, m.distance, m.path),
    )
    errors.sort(key=lambda e: e.path)
    group = _group(files, outcomes, kind, matches, rows.tolist())
    return SimilarResult(files.paths[0], kind, _names(roots), tuple(matches), tuple(errors), group)


def _group(
    files: FileColumns,
    outcomes: OutcomeColumns,
    kind: Kind,
    matches: Sequence[Match],
    rows: Sequence[int],
) -> Group | None:
    """The target (row 0) and its matches (found in ``rows``) as a group, in the matches'
    order."""
    if not matches:
        return None
    row_of = {files.paths[row]: row for row in rows}
    found = [
        member(files, outcomes, row_of[m.path], kind, m.distance, m.similarity) for m in matches
    ]
    return Group(kind, (member(files, outcomes, 0, kind, 0, 1.0), *found))


def _names(roots: Sequence[Path]) -> tuple[str, ...]:
    return tuple(str(r) for r in roots)
