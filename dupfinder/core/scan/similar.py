"""Find files like this one: the near-duplicates of one file, as a scan finds them.

The target is fingerprinted like any scanned file, and so are the files of the folders named
(or, when none are named, the folders of the last scan the library remembers); fingerprints
come from the cache where fresh, so asking again is fast. A single query is cheap, so it
compares more than a scan's index can afford and never less: a document meets the sketch of
*every* document searched (a scan proposes pairs by SimHash radius and by sketch bands, and
both miss some pairs a direct comparison finds: short texts whose SimHashes drift apart), a
picture every picture within the scan's radius, its mirrored and turned versions both ways.
Each candidate is then kept when it passes the kind's second check at the scan's threshold
(``grouping.groups.second_check``): the similarity shown is that check's, the one a scan's
group shows. A song or a video meets every file of its kind with a hash (whole or window)
within the kind's radius of one of its own, and each is aligned with it
(``grouping.media_check``): the similarity is the aligned one, and each match carries the
span that matched and its header's facts. Files with exactly the target's bytes are marked
identical (``content_hash``) and come first; the rest follow most similar first.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from dupfinder.core.errors import DupfinderError
from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns, member
from dupfinder.core.fingerprints.digest import digest_stream
from dupfinder.core.grouping.groups import SecondCheck, drawn_apart_of, second_check
from dupfinder.core.grouping.media_check import match_span, matched, media_check, near_rows
from dupfinder.core.grouping.media_facts import probed
from dupfinder.core.image import check as imagecheck
from dupfinder.core.index.library import Library
from dupfinder.core.media.match import MediaMatch
from dupfinder.core.model import (
    MEDIA_KINDS,
    Group,
    Kind,
    ProgressCallback,
    ScanError,
    ScanOptions,
    no_progress,
)
from dupfinder.core.scan.cache import default_cache_dir
from dupfinder.core.scan.pipeline import fingerprint_files
from dupfinder.core.scan.walk import WalkReport, walk, walk_listed

__all__ = [
    "Match",
    "Measure",
    "NoFolders",
    "SimilarResult",
    "measure",
    "measure_groups",
    "similar",
]


class NoFolders(DupfinderError, ValueError):
    """No folders were named and no earlier scan is remembered to search instead."""


@dataclass(frozen=True, slots=True)
class Match:
    """A file like the target: its fingerprint distance and verified similarity (0..1);
    ``identical`` when it holds exactly the target's bytes (its similarity is then 1)."""

    path: str
    distance: int
    similarity: float
    identical: bool = False


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

    @property
    def problem(self) -> str | None:
        """Why the target itself could not be compared (None: it was, or it is simply
        of a kind compared by its bytes only)."""
        return next((e.error for e in self.errors if e.path == self.target), None)


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
    listed = os.path.abspath(target)
    for entry in walk_listed([listed], named, report, cancel):
        files.append(entry)
    if len(files) == 0:
        return SimilarResult(listed, None, _names(roots), (), tuple(report.errors))
    me = (files.entry(0).dev, files.entry(0).ino)
    for entry in walk(options, report, cancel):
        if (entry.dev, entry.ino) != me:
            files.append(entry)
    target_kind = files.kind(0)
    outcomes, _ = fingerprint_files(files, options, progress, cancel)
    errors = list(report.errors)
    for row, (error, code) in outcomes.errors.items():
        errors.append(ScanError(files.paths[row], error, code or "unreadable"))
    if target_kind in MEDIA_KINDS and not outcomes.known[0]:  # no FFmpeg: say so, not "unsupported"
        from dupfinder.core.media.tools import MISSING_TOOLS_HINT

        errors.append(ScanError(files.paths[0], MISSING_TOOLS_HINT, "unsupported"))
    errors.sort(key=lambda e: e.path)
    kind = files.kind(0)
    if kind in MEDIA_KINDS and outcomes.has_value[0]:
        return _similar_media(files, outcomes, kind, options, _names(roots), tuple(errors))
    check = second_check(kind, options)
    if not outcomes.has_value[0] or check is None:
        return SimilarResult(files.paths[0], None, _names(roots), (), tuple(errors))
    rows = files.rows_of(kind)
    rows = rows[(rows != 0) & outcomes.has_value[rows]]
    distance = _distances(outcomes, 0, rows)
    if kind is not Kind.TEXT:  # documents meet every sketch; pictures those within the radius
        near = np.flatnonzero(distance <= options.threshold(kind))
        rows, distance = rows[near], distance[near]
    similarity = _similarities(outcomes, 0, rows, check, kind, options.image_invariance)
    keep = similarity >= check.threshold
    rows, distance, similarity = rows[keep], distance[keep], similarity[keep]
    same = _same_bytes(files, 0, rows.tolist())
    matches = sorted(
        (
            Match(files.paths[row], int(d), 1.0 if row in same else float(s), row in same)
            for row, d, s in zip(rows.tolist(), distance.tolist(), similarity.tolist(), strict=True)
        ),
        key=lambda m: (not m.identical, -m.similarity, m.distance, m.path),
    )
    group = _group(files, outcomes, kind, matches, rows.tolist(), same)
    return SimilarResult(files.paths[0], kind, _names(roots), tuple(matches), tuple(errors), group)


def _similar_media(
    files: FileColumns,
    outcomes: OutcomeColumns,
    kind: Kind,
    options: ScanOptions,
    folders: tuple[str, ...],
    errors: tuple[ScanError, ...],
) -> SimilarResult:
    """Files like a song or a video (row 0): candidates by any hash near one of its own,
    each aligned with it; the group carries each file's facts and the span that matched."""
    check = media_check(kind, options)
    rows = files.rows_of(kind)
    rows = near_rows(outcomes, 0, rows[(rows != 0) & outcomes.has_value[rows]], check.radius)
    found = matched(check, outcomes, 0, rows.tolist())
    alike = {row: m for row, m in zip(rows.tolist(), found, strict=True) if m is not None}
    kept = np.asarray(list(alike), dtype=np.intp)
    same = _same_bytes(files, 0, kept.tolist())
    distance = dict(zip(kept.tolist(), _distances(outcomes, 0, kept).tolist(), strict=True))
    matches = sorted(
        (
            Match(
                files.paths[row],
                int(distance[row]),
                1.0 if row in same else alike[row].similarity,
                row in same,
            )
            for row in alike
        ),
        key=lambda m: (not m.identical, -m.similarity, m.distance, m.path),
    )
    group = _group(files, outcomes, kind, matches, kept.tolist(), same)
    if group is not None:
        group = _with_media(group, kind, {files.paths[row]: m for row, m in alike.items()})
    return SimilarResult(files.paths[0], kind, folders, tuple(matches), errors, group)


def _with_media(group: Group, kind: Kind, spans: dict[str, MediaMatch]) -> Group:
    """The target's group with every member's header facts and, for the matches, the span
    that matched the target (the target is ``a`` of each match)."""
    facts = probed([m.path for m in group.members], kind)
    members = tuple(
        dataclasses.replace(
            m,
            media=fact,
            span=match_span(spans[m.path], member_is_a=False) if m.path in spans else None,
        )
        for m, fact in zip(group.members, facts, strict=True)
    )
    return dataclasses.replace(group, members=members)


@dataclass(frozen=True, slots=True)
class Measure:
    """A file measured against another (its group's new keeper): bits, verified similarity,
    and whether it holds exactly the same bytes."""

    path: str
    distance: int
    similarity: float
    identical: bool = False


def measure(
    keeper: str,
    others: Sequence[str],
    options: ScanOptions | None = None,
    cancel: threading.Event | None = None,
) -> tuple[Measure, ...]:
    """``others`` measured against ``keeper`` as a scan measures a group's members against
    its representative (fingerprints from the cache where fresh, the same second check), so
    a group whose keeper a person changed shows each file's similarity to the kept one.
    Files that cannot be fingerprinted (or of a kind compared by bytes only) are measured
    only by their bytes: identical, or left out."""
    return measure_groups([(keeper, others)], options, cancel)[0]


def measure_groups(
    groups: Sequence[tuple[str, Sequence[str]]],
    options: ScanOptions | None = None,
    cancel: threading.Event | None = None,
) -> list[tuple[Measure, ...]]:
    """:func:`measure` for several (keeper, others) at once: every file is listed and
    fingerprinted once, however many groups it is in."""
    base = options if options is not None else ScanOptions(roots=())
    named = dataclasses.replace(
        base, roots=(), include=(), exclude=(), min_size=0, max_size=None, include_hidden=True
    )
    wanted = dict.fromkeys(
        os.path.abspath(path) for keeper, others in groups for path in (keeper, *others)
    )
    files = FileColumns()
    for entry in walk_listed(wanted, named, WalkReport(), cancel):
        files.append(entry)
    row_of = {path: row for row, path in enumerate(files.paths)}
    outcomes, _ = fingerprint_files(files, named, no_progress, cancel)
    found: list[tuple[Measure, ...]] = []
    for keeper, others in groups:
        own = row_of.get(os.path.abspath(keeper))
        theirs = [row_of.get(os.path.abspath(path)) for path in others]
        listed = [row for row in theirs if row is not None and row != own]
        if own is None or not listed:
            found.append(())
            continue
        found.append(_measured(files, outcomes, own, np.array(listed, dtype=np.intp), named))
    return found


def _measured(
    files: FileColumns,
    outcomes: OutcomeColumns,
    own: int,
    rows: npt.NDArray[np.intp],
    options: ScanOptions,
) -> tuple[Measure, ...]:
    same = _same_bytes(files, own, rows.tolist())
    kind = files.kind(own)
    if kind in MEDIA_KINDS and outcomes.has_value[own]:
        return _measured_media(files, outcomes, own, rows, options, same)
    check = second_check(kind, options)
    if check is None or not outcomes.has_value[own]:
        return tuple(Measure(files.paths[row], 0, 1.0, True) for row in same)
    rows = rows[(files.kinds[rows] == files.kinds[own]) & outcomes.has_value[rows]]
    distance = _distances(outcomes, own, rows)
    similarity = _similarities(outcomes, own, rows, check, kind, options.image_invariance)
    return tuple(
        Measure(files.paths[row], 0, 1.0, True)
        if row in same
        else Measure(files.paths[row], int(d), float(s))
        for row, d, s in zip(rows.tolist(), distance.tolist(), similarity.tolist(), strict=True)
    )


def _measured_media(
    files: FileColumns,
    outcomes: OutcomeColumns,
    own: int,
    rows: npt.NDArray[np.intp],
    options: ScanOptions,
    same: dict[int, str],
) -> tuple[Measure, ...]:
    """Songs or videos aligned with a new keeper: the aligned similarity (0 where they no
    longer align at the scan's threshold)."""
    rows = rows[(files.kinds[rows] == files.kinds[own]) & outcomes.has_value[rows]]
    distance = _distances(outcomes, own, rows)
    found = matched(media_check(files.kind(own), options), outcomes, own, rows.tolist())
    return tuple(
        Measure(files.paths[row], 0, 1.0, True)
        if row in same
        else Measure(files.paths[row], int(d), 0.0 if m is None else m.similarity)
        for row, d, m in zip(rows.tolist(), distance.tolist(), found, strict=True)
    )


#: Candidates whose sketches are compared at once: bounds the temporary arrays (a few MB).
_CHUNK = 1 << 14


def _distances(
    outcomes: OutcomeColumns, row: int, rows: npt.NDArray[np.intp]
) -> npt.NDArray[np.int64]:
    """Bits between ``row``'s fingerprint and each of ``rows``', over the mirrored and turned
    versions of either side too (as the invariant search matches them)."""
    values = outcomes.values[rows]
    mine = [int(outcomes.values[row]), *outcomes.variants.get(row, ())]
    distance: npt.NDArray[np.int64] = np.min(
        [np.bitwise_count(values ^ np.uint64(v)) for v in mine], axis=0, initial=64
    ).astype(np.int64)
    own = int(outcomes.values[row])
    for position, other in enumerate(rows.tolist()):
        for turned in outcomes.variants.get(other, ()):
            distance[position] = min(int(distance[position]), (int(turned) ^ own).bit_count())
    return distance


def _similarities(
    outcomes: OutcomeColumns,
    row: int,
    rows: npt.NDArray[np.intp],
    check: SecondCheck,
    kind: Kind,
    turned: bool,
) -> npt.NDArray[np.float64]:
    """The second check of ``row`` against each of ``rows``, a chunk at a time; 0 for a
    picture of another shape (``grouping.groups.shapes_apart_of``, as a scan rules)."""
    own = outcomes.padded_sketches(np.array([row]), check.width)[0]
    parts = [np.zeros(0, dtype=np.float64)]
    for start in range(0, len(rows), _CHUNK):
        chunk = rows[start : start + _CHUNK]
        theirs = outcomes.padded_sketches(chunk, check.width)
        found = np.asarray(
            check.measure(theirs, np.broadcast_to(own, theirs.shape)), dtype=np.float64
        )
        if kind is Kind.IMAGE:
            shapes = imagecheck.content_shapes(
                np.vstack(
                    [own[None, : imagecheck.HEADER_BYTES], theirs[:, : imagecheck.HEADER_BYTES]]
                ),
                outcomes.widths[np.concatenate(([row], chunk))],
                outcomes.heights[np.concatenate(([row], chunk))],
            )
            found[imagecheck.shapes_apart(shapes[0], shapes[1:], turned)] = 0.0
            found[_drawings_apart(outcomes, row, own, chunk, theirs, found, check.threshold)] = 0.0
        parts.append(found)
    return np.concatenate(parts)


def _drawings_apart(
    outcomes: OutcomeColumns,
    row: int,
    own: npt.NDArray[np.uint8],
    rows: npt.NDArray[np.intp],
    theirs: npt.NDArray[np.uint8],
    similarity: npt.NDArray[np.float64],
    least: float,
) -> npt.NDArray[np.bool_]:
    """Which pictures of ``rows`` (their descriptors ``theirs`` and ``similarity`` to
    ``row``'s, ``own``) that reach ``least`` are other small drawings of its size, as a scan
    rules (``grouping.groups.drawn_apart_of``)."""

    def size(at: int) -> tuple[int, int]:
        return (int(outcomes.widths[at]), int(outcomes.heights[at]))

    apart = np.zeros(len(rows), dtype=np.bool_)
    for i in np.flatnonzero(similarity >= least).tolist():
        apart[i] = drawn_apart_of(
            (theirs[i], own), (size(int(rows[i])), size(row)), float(similarity[i])
        )
    return apart


def _digest(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return digest_stream(handle)
    except OSError:
        return None


def _same_bytes(files: FileColumns, row: int, rows: Sequence[int]) -> dict[int, str]:
    """The rows among ``rows`` with exactly ``row``'s bytes, with that content's digest (read
    only for files of the same size)."""
    size = files.sizes[row]
    alike = [other for other in rows if files.sizes[other] == size]
    if not alike:
        return {}
    mine = _digest(files.paths[row])
    if mine is None:
        return {}
    return {other: mine.hex() for other in alike if _digest(files.paths[other]) == mine}


def _group(
    files: FileColumns,
    outcomes: OutcomeColumns,
    kind: Kind,
    matches: Sequence[Match],
    rows: Sequence[int],
    same: dict[int, str],
) -> Group | None:
    """The target (row 0) and its matches (found in ``rows``) as a group, in the matches'
    order; members with the target's bytes carry its digest, as in a scan's groups."""
    if not matches:
        return None
    row_of = {files.paths[row]: row for row in rows}
    digest = next(iter(same.values()), None)
    found = [
        dataclasses.replace(
            member(files, outcomes, row_of[m.path], kind, m.distance, m.similarity),
            content_hash=same.get(row_of[m.path]),
        )
        for m in matches
    ]
    target = dataclasses.replace(member(files, outcomes, 0, kind, 0, 1.0), content_hash=digest)
    return Group(kind, (target, *found))


def _names(roots: Sequence[Path]) -> tuple[str, ...]:
    return tuple(str(r) for r in roots)
