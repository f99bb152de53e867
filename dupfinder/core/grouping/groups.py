"""A scan's groups from its fingerprinted files: index each kind, verify, cluster.

Two halves, so the heavy one can run in another process: ``group_rows`` works on the
columns and returns numbers only (each group's rows, distances and similarities), and
``groups_from`` makes the ``Group`` objects a result shows from those numbers. The first is
most of the time (keeper keys, clustering, the second check of every pair) and all of it
Python holding the interpreter lock; a window that groups beside its event loop gives it
to a worker process (``dupfinder.core.scan.isolated``) and keeps only the second half.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns, member
from dupfinder.core.grouping import checked, verify
from dupfinder.core.grouping.assign import nearest_representatives, with_orphans
from dupfinder.core.grouping.checked import CheckMemory
from dupfinder.core.grouping.cluster import cluster_nodes
from dupfinder.core.grouping.drawings import PictureCheck, other_drawings_removed, size_of
from dupfinder.core.grouping.keeper import (
    BYTES_PER_PIXEL,
    MTIME,
    KeeperKey,
    keeper_key,
    member_key,
    pixels,
    reasons,
    suggested,
)
from dupfinder.core.grouping.media_check import MediaPart, media_part
from dupfinder.core.grouping.parting import Parting
from dupfinder.core.grouping.rejoin import rejoined
from dupfinder.core.grouping.verify import Similarity
from dupfinder.core.image import check as imagecheck
from dupfinder.core.index.pairs import near_pairs
from dupfinder.core.model import (
    MEDIA_KINDS,
    TONE_CODES,
    Edit,
    EditCode,
    Group,
    Grouping,
    KeepReason,
    Kind,
    MatchedSpan,
    MediaFacts,
    Member,
    Phase,
    Progress,
    ProgressCallback,
    ScanOptions,
    Side,
    no_progress,
)
from dupfinder.core.text import sketch

__all__ = [
    "CheckMemory",
    "KindGroups",
    "PairFinder",
    "SecondCheck",
    "drawn_apart_of",
    "group_order",
    "group_rows",
    "groups_from",
    "picture_check",
    "second_check",
    "shapes_apart_of",
]

#: Near pairs of one kind: (kind, fingerprints, radius, image variants or None) to (P, 2)
#: indices into ``np.unique`` of those fingerprints, as ``pairs.near_pairs`` finds them. The
#: scan finds them itself; a caller holding pairs computed elsewhere (a cluster) passes them.
PairFinder = Callable[[Kind, np.ndarray, int, Sequence[Sequence[int]] | None], np.ndarray]


@dataclass(frozen=True, slots=True)
class SecondCheck:
    """How a kind's proposed pairs are verified: each row's sketch read as ``width`` bytes,
    the first ``key_bytes`` of it (with a digest of the rest) telling copies apart, the
    similarity measure and its threshold."""

    width: int
    key_bytes: int
    measure: Similarity
    threshold: float
    #: The measure that stops early on pairs that cannot pass (a scan's check; the exact
    #: ``measure`` answers everything else: a group's similarities, ``core.similar``).
    early: checked.EarlyStop | None = None
    #: The compiled files the measure runs (they name its remembered outcomes with its source).
    compiled: tuple[str, ...] = ()


def second_check(kind: Kind, options: ScanOptions) -> SecondCheck | None:
    """The second check of a kind (None: a kind compared byte for byte only).

    One definition for a scan's groups and for files like one (``core.similar``), so both
    accept the same pairs and show the same similarity."""
    if kind is Kind.TEXT:
        return SecondCheck(
            sketch.BINS, sketch.BINS, sketch.pair_similarity, options.text_similarity
        )
    if kind is Kind.IMAGE:
        return picture_check(options)
    return None


def picture_check(options: ScanOptions) -> SecondCheck:
    """How the scan verifies picture pairs: turned and mirrored copies too where it looks
    for them."""
    measure = (
        imagecheck.invariant_pair_similarity
        if options.image_invariance
        else imagecheck.pair_similarity
    )
    return SecondCheck(
        imagecheck.DESCRIPTOR_BYTES,
        imagecheck.BASE_BYTES,
        measure,
        options.image_similarity,
        checked.EarlyStop(
            measure,
            imagecheck.STOPPED,
            None if options.image_invariance else imagecheck.pair_similarity_of,
        ),
        imagecheck.compiled_files(),
    )


@dataclass(frozen=True, slots=True)
class KindGroups:
    """One kind's groups as columns: group ``g`` is ``rows[starts[g]:starts[g + 1]]``, its
    representative first; ``distances`` (bits) and ``similarities`` are each member's
    against the representative; ``references`` are the scan's reference folders (real
    paths), which the reasons for each keeper name. Plain arrays, so they cross a process
    boundary cheaply; music and videos add per member the span that matched the keeper and
    the header's facts (their groups are few)."""

    kind: Kind
    rows: npt.NDArray[np.int64]
    starts: npt.NDArray[np.int64]
    distances: npt.NDArray[np.int64]
    similarities: npt.NDArray[np.float64]
    references: tuple[str, ...] = ()
    spans: tuple[MatchedSpan | None, ...] = ()
    facts: tuple[MediaFacts | None, ...] = ()


class _KeeperKeys(Sequence[KeeperKey]):
    """The keeper key (``dupfinder.core.grouping.keeper``) of each compared file, computed only for
    the rows clustering asks about; the last one is remembered (clustering often asks for a
    row's key twice in a row), and no more, so that a million files hold no million keys."""

    def __init__(
        self,
        files: FileColumns,
        outcomes: OutcomeColumns,
        rows: npt.NDArray[np.intp],
        references: tuple[str, ...],
    ) -> None:
        self._files = files
        self._outcomes = outcomes
        self._rows = rows
        self._references = references
        self._last: tuple[int, KeeperKey | None] = (-1, None)

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, local: int) -> KeeperKey:  # type: ignore[override]
        last, known = self._last
        if last != local or known is None:
            row = int(self._rows[local])  # an array, not a list: 40 bytes a file fewer
            key = self._files.key(row)
            known = keeper_key(
                key.path, key.size, key.mtime_ns, self._outcomes.pixels(row), self._references
            )
            self._last = (local, known)
        return known


def _gathered(
    outcomes: OutcomeColumns, rows: npt.NDArray[np.intp], width: int, local: npt.NDArray[np.int64]
) -> npt.NDArray[np.uint8]:
    """The sketches of ``rows[local]``, each ``width`` bytes (see ``padded_sketches``)."""
    return outcomes.padded_sketches(rows[local], width)


def _differences(
    gather: Callable[[npt.NDArray[np.int64]], npt.NDArray[np.uint8]],
    outcomes: OutcomeColumns,
    rows: npt.NDArray[np.intp],
    a: int,
    b: int,
) -> frozenset[EditCode]:
    """The edits named between the pictures of local rows ``a`` and ``b``, either way round
    (a tone or a transparency named one way is named the other way too, as its opposite),
    as ``centres.better_centres`` asks: what a batch of copies made in one go would share."""
    descriptors = imagecheck.padded(gather(np.array([a, b], dtype=np.int64)))
    sizes = [(int(outcomes.widths[rows[r]]), int(outcomes.heights[rows[r]])) for r in (a, b)]
    other = descriptors[::-1].copy()  # both ways round in one comparison
    named = imagecheck.edits_of(
        imagecheck.compare(descriptors, other), descriptors, other, sizes, sizes[::-1]
    )
    codes = frozenset(edit.code for edits in named for edit in edits)
    if all(imagecheck.header(row).colour for row in descriptors):
        # two files in colour, one of them with no colour to see: as often a drawing's small
        # coloured detail (a drive's lamp, a badge) as a batch of copies made grey
        codes -= {EditCode.GREYSCALE, EditCode.COLOURED}
    return codes


def _compared_rows(
    gather: Callable[[npt.NDArray[np.int64]], npt.NDArray[np.uint8]],
    measure: Similarity,
    shapes: npt.NDArray[np.float64] | None,
    turned: bool,
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64]:
    """The check's similarity of the pictures of local rows ``a[i]`` and ``b[i]``; 0 for two
    of other shapes (``shapes``: each local row's ``imagecheck.content_shapes``)."""
    if len(a) == 0:
        return np.zeros(0, dtype=np.float64)
    out = np.asarray(measure(gather(a), gather(b)), dtype=np.float64)
    if shapes is not None:
        out = np.where(imagecheck.shapes_apart(shapes[a], shapes[b], turned), 0.0, out)
    return out


def shapes_apart_of(
    descriptors: Sequence[npt.NDArray[np.uint8]], sizes: Sequence[tuple[int, int]], turned: bool
) -> bool:
    """Whether two pictures (their descriptor rows and upright stored sizes) are of other
    shapes, so never one picture, as a scan rules (``imagecheck.shapes_apart``): what an
    action proves again before it acts."""
    shapes = [
        imagecheck.content_shapes(np.asarray(row).reshape(1, -1)[:, : imagecheck.HEADER_BYTES],
                                  [width], [height])[0]
        for row, (width, height) in zip(descriptors, sizes, strict=True)
    ]  # fmt: skip
    return bool(imagecheck.shapes_apart(shapes[0], shapes[1], turned))


def drawn_apart_of(
    descriptors: Sequence[npt.NDArray[np.uint8]],
    sizes: Sequence[tuple[int, int]],
    similarity: float,
) -> bool:
    """Whether a picture and a kept one (their descriptor rows and upright stored sizes, the
    kept one second) are two small drawings of one size, as a scan rules once it has named
    the edits (``imagecheck.drawn_apart``): what files like one leave out and what an action
    proves again before it acts. The edits are named only where the sizes and the similarity
    leave the question open."""
    other_size, kept_size = sizes
    if not imagecheck.drawn_apart(similarity, (), kept_size, other_size):
        return False
    other, kept = (np.asarray(row, dtype=np.uint8).reshape(1, -1) for row in descriptors)
    found = imagecheck.edits(kept, other, kept_size, other_size)
    return imagecheck.drawn_apart(similarity, found, kept_size, other_size)


def _shapes(outcomes: OutcomeColumns, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
    """``imagecheck.content_shapes`` of each picture of ``rows`` (its header and stored size),
    read a chunk at a time (the headers' bytes only: no digest of the rest)."""
    parts = [np.zeros(0, dtype=np.float64)]
    for lo in range(0, len(rows), _SHAPES_AT_ONCE):
        at = np.arange(lo, min(lo + _SHAPES_AT_ONCE, len(rows)))
        heads = outcomes.sketch_keys(rows[at], imagecheck.HEADER_BYTES, digest=False)
        parts.append(
            imagecheck.content_shapes(heads, outcomes.widths[rows[at]], outcomes.heights[rows[at]])
        )
    return np.concatenate(parts)


#: Pictures whose headers are read at once for their shapes.
_SHAPES_AT_ONCE = 1 << 16


def _alike_in_shape(
    found: verify.Candidates, shapes: npt.NDArray[np.float64], turned: bool
) -> verify.Candidates:
    """``found`` without the node pairs whose pictures are of other shapes (``shapes``: each
    row's; a node's rows are one picture)."""
    if len(found.pairs) == 0:
        return found
    of_node = shapes[found.first]
    apart = imagecheck.shapes_apart(of_node[found.pairs[:, 0]], of_node[found.pairs[:, 1]], turned)
    if not apart.any():
        return found
    return dataclasses.replace(found, pairs=found.pairs[~apart])


def _coloured(
    gather: Callable[[npt.NDArray[np.int64]], npt.NDArray[np.uint8]],
    first: npt.NDArray[np.int64],
    nodes: npt.NDArray[np.int64],
) -> npt.NDArray[np.bool_]:
    """Which picture ``nodes`` hold colours the check compares (``imagecheck.holds_colour``);
    ``first``: each node's first row."""
    return imagecheck.holds_colour(gather(first[nodes]))


def _closest_turns(
    distance: npt.NDArray[np.int64],
    values: npt.NDArray[np.uint64],
    variants: Sequence[Sequence[int]],
    local: npt.NDArray[np.int64],
) -> npt.NDArray[np.int64]:
    """Each member's distance from the representative over their mirrored and turned
    versions too, as the mirror and rotation invariant search matched them (a copy turned by
    a quarter turn is some 25 bits from the original itself, and 0 to 4 from it turned)."""
    rep = int(values[local[0]])
    turned_rep = [int(v) for v in variants[local[0]]]
    out = distance.copy()
    for position, index in enumerate(local.tolist()):
        value = int(values[index])
        for turned in variants[index]:
            out[position] = min(out[position], (int(turned) ^ rep).bit_count())
        for turned in turned_rep:
            out[position] = min(out[position], (value ^ turned).bit_count())
    return out


#: Kinds whose checked pairs are remembered: a picture pair's check (thumbnails compared
#: block by block) costs 10-100 times what looking it up does; a document pair's (two
#: sketches of 128 bytes) costs about the same, and a million short documents can propose
#: tens of millions of pairs that would only make the library large.
_REMEMBERED = frozenset({Kind.IMAGE})


def _member_similarities(
    outcome: checked.CheckedPairs,
    inverse: npt.NDArray[np.int64],
    local: npt.NDArray[np.int64],
    gather: Callable[[npt.NDArray[np.int64]], npt.NDArray[np.uint8]],
    check: SecondCheck,
) -> npt.NDArray[np.float64]:
    """Each member's similarity with the representative: the checked pair's where the two
    were checked (a symmetric measure gives it either way round), else compared now."""
    nodes = inverse[local]
    known = np.zeros(len(local), dtype=np.bool_)
    similarity = np.zeros(len(local), dtype=np.float64)
    if check.measure is not imagecheck.invariant_pair_similarity:  # the one asymmetric measure
        known, similarity = outcome.similarity_of(np.full_like(nodes, nodes[0]), nodes)
    missing = np.flatnonzero(~known)
    if len(missing):
        sketches = gather(local[missing])
        rep = np.broadcast_to(gather(local[:1])[0], sketches.shape)
        similarity[missing] = np.asarray(check.measure(sketches, rep), dtype=np.float64)
    return similarity


def compared_rows(outcomes: OutcomeColumns) -> int:
    """How many files grouping compares (those with a fingerprint)."""
    return int(np.count_nonzero(outcomes.has_value))


def group_rows(
    files: FileColumns,
    outcomes: OutcomeColumns,
    options: ScanOptions,
    pair_finder: PairFinder | None = None,
    memory: CheckMemory | None = None,
    progress: ProgressCallback = no_progress,
) -> tuple[list[KindGroups], int]:
    """Index each kind on its own, verify the pairs it proposes, and cluster them: the
    groups of every kind as columns, and how many verified pairs linked them. Progress
    counts the files compared, a third of a kind's files at each of its steps. ``memory``
    (the scan's library) answers the pairs an earlier scan checked and remembers the rest
    (``grouping.checked``)."""
    parts: list[KindGroups] = []
    total_pairs = 0
    references = tuple(os.path.realpath(folder) for folder in options.references)
    kinds = sorted(files.kinds_present())
    rows_by_kind = [files.rows_of(kind) for kind in kinds]
    rows_by_kind = [rows[outcomes.has_value[rows]] for rows in rows_by_kind]
    total = sum(len(rows) for rows in rows_by_kind)
    done = 0
    for kind, rows in zip(kinds, rows_by_kind, strict=True):
        progress(Progress(Phase.COMPARING, done, total))
        start, done = done, done + len(rows)
        if len(rows) < 2:
            continue
        if kind in MEDIA_KINDS:
            finder = near_pairs if pair_finder is None else functools.partial(pair_finder, kind)
            found_media = media_part(kind, files, outcomes, rows, options, finder)
            total_pairs += found_media.pairs
            if len(found_media.rows):
                parts.append(_media_groups(kind, outcomes, found_media, references))
            continue
        values = outcomes.values[rows]
        variants = None
        if kind is Kind.IMAGE:  # crops always; mirrored and turned ones when invariant
            variants = [outcomes.variants.get(row, ()) for row in rows.tolist()]
        check = second_check(kind, options)
        key_bytes = check.key_bytes if check else 0
        keys = outcomes.key_reader(rows, key_bytes)
        finder = near_pairs if pair_finder is None else functools.partial(pair_finder, kind)
        found = verify.candidates(
            values,
            keys,
            options.threshold(kind),
            variants,
            finder,
            bands=kind is Kind.TEXT,
        )
        # a kind is three steps (pairs, their check, groups): each moves the count a third
        # of the way, so a long one (pictures turned and mirrored) never reads "0 of N"
        progress(Progress(Phase.COMPARING, start + len(rows) // 3, total))
        shapes = None
        if kind is Kind.IMAGE:  # pictures of other shapes are never one picture
            shapes = _shapes(outcomes, rows)
            found = _alike_in_shape(found, shapes, options.image_invariance)
        pairs = found.pairs
        gather = functools.partial(_gathered, outcomes, rows, check.width if check else 0)
        outcome: checked.CheckedPairs | None = None
        if check is not None:
            outcome = checked.checked_pairs(
                found,
                gather,
                check.threshold,
                check.measure,
                checked.content_keys(
                    values[found.first], outcomes.key_reader(rows[found.first], key_bytes)
                ),
                memory if kind in _REMEMBERED else None,
                checked.check_name(kind.value, check.measure, check.compiled),
                check.early,
            )
            pairs = outcome.pairs
            progress(Progress(Phase.COMPARING, start + 2 * len(rows) // 3, total))
        total_pairs += len(pairs)
        keeper_keys = _KeeperKeys(files, outcomes, rows, references)
        members: list[npt.NDArray[np.int64]] = []
        distances: list[npt.NDArray[np.int64]] = []
        similarities: list[npt.NDArray[np.float64]] = []
        found_groups = cluster_nodes(found.inverse, pairs, keeper_keys, options.grouping(kind))
        stars = options.grouping(kind) is Grouping.STAR
        if kind is Kind.IMAGE and stars and outcome is not None and check is not None:
            compare = functools.partial(
                _compared_rows, gather, check.measure, shapes, options.image_invariance
            )
            parting = Parting(
                found.inverse,
                outcome.similarity_of,
                check.threshold,
                keeper_keys,
                functools.partial(_coloured, gather, found.first),
                functools.partial(_differences, gather, outcomes, rows),
            )
            found_groups = parting.parted(found_groups)
            # a copy taken by a look-alike's star goes to the picture it is most like
            found_groups = nearest_representatives(
                found_groups,
                found.inverse,
                outcome.pairs,
                outcome.similarities,
                outcome.similarity_of,
                keeper_keys,
            )
            # one picture's copies left in two stars: joined where nothing would part them
            found_groups = rejoined(
                found_groups,
                found.inverse,
                outcome.pairs,
                outcome.similarities,
                outcome.similarity_of,
                compare,
                check.threshold,
                keeper_keys,
                parting.whole,
                parting.colours_apart,
            )
            found_groups = with_orphans(
                found_groups,
                found.inverse,
                found.first,
                outcome.pairs,
                outcome.similarity_of,
                compare,
                check.threshold,
                keeper_keys,
            )
        for local_rows in found_groups:
            local = np.asarray(local_rows, dtype=np.int64)
            distance = np.bitwise_count(values[local] ^ values[local[0]]).astype(np.int64)
            if variants is not None:
                distance = _closest_turns(distance, values, variants, local)
            if check is not None and outcome is not None:
                similarity = _member_similarities(outcome, found.inverse, local, gather, check)
            else:
                similarity = 1.0 - distance / 64
            similarity[0] = 1.0
            members.append(local)
            distances.append(distance)
            similarities.append(similarity)
        if members:
            sizes = np.fromiter((len(m) for m in members), dtype=np.int64, count=len(members))
            parts.append(
                KindGroups(
                    kind,
                    rows[np.concatenate(members)].astype(np.int64),
                    np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
                    np.concatenate(distances),
                    np.concatenate(similarities).astype(np.float64),
                    references,
                )
            )
    progress(Progress(Phase.COMPARING, total, total))
    return parts, total_pairs


def _media_groups(
    kind: Kind, outcomes: OutcomeColumns, found: MediaPart, references: tuple[str, ...]
) -> KindGroups:
    """A media kind's groups as columns; the bits apart are those of the whole prints (the
    similarity is the aligned one)."""
    rows = np.asarray(found.rows, dtype=np.int64)
    starts = np.asarray(found.starts, dtype=np.int64)
    keepers = np.repeat(rows[starts[:-1]], np.diff(starts))
    distances = np.bitwise_count(outcomes.values[rows] ^ outcomes.values[keepers])
    return KindGroups(
        kind,
        rows,
        starts,
        distances.astype(np.int64),
        np.asarray(found.similarities, dtype=np.float64),
        references,
        tuple(found.spans),
        tuple(found.facts),
    )


def groups_from(
    files: FileColumns,
    outcomes: OutcomeColumns,
    parts: Sequence[KindGroups],
    pictures_check: SecondCheck,
    memory: CheckMemory | None = None,
) -> list[Group]:
    """The groups a result shows: members in order of similarity, largest groups first,
    each with the reasons its keeper is kept. ``pictures_check``: the scan's check of picture
    pairs (measure and threshold), which every member must pass against a keeper that takes
    another's place: the few that do not leave the group, or with more the group keeps the
    keeper it was checked around. ``memory``: the
    scan's library, which remembers how each member compared with its kept picture."""
    groups: list[Group] = []
    pictures: list[tuple[int, dict[str, int]]] = []  # picture groups: index, rows by path
    references: dict[int, tuple[str, ...]] = {}  # picture groups' reference folders
    for part in parts:
        rows = part.rows.tolist()
        distances = part.distances.tolist()
        similarities = part.similarities.tolist()
        starts = part.starts.tolist()
        for start, stop in itertools.pairwise(starts):
            representative, *rest = (
                _with_media(
                    member(files, outcomes, rows[i], part.kind, distances[i], similarities[i]),
                    part,
                    i,
                )
                for i in range(start, stop)
            )
            rest.sort(key=lambda m: (-m.similarity, m.distance, m.path))
            groups.append(suggested(Group(part.kind, (representative, *rest)), part.references))
            if part.kind is Kind.IMAGE:
                by_path = {files.paths[rows[i]]: rows[i] for i in range(start, stop)}
                pictures.append((len(groups) - 1, by_path))
                references[len(groups) - 1] = part.references
    for index, named in _with_edits(groups, outcomes, pictures, memory=memory):
        groups[index] = named
    _swapped_keepers(groups, pictures, references, outcomes, pictures_check, memory)
    by_path = dict(item for _, rows in pictures for item in rows.items())
    drawings = PictureCheck(
        functools.partial(_descriptors_at, outcomes, by_path),
        pictures_check.measure,
        pictures_check.threshold,
    )
    groups = other_drawings_removed(groups, [index for index, _ in pictures], drawings, references)
    groups.sort(key=group_order)
    return groups


def _swapped_keepers(
    groups: list[Group],
    pictures: Sequence[tuple[int, dict[str, int]]],
    references: dict[int, tuple[str, ...]],
    outcomes: OutcomeColumns,
    pictures_check: SecondCheck,
    memory: CheckMemory | None,
) -> None:
    """Keepers giving way to their originals (``_original_kept``) in the picture groups
    ``pictures`` of ``groups``, in place, at most once a group: each group that took a new
    keeper has its members' figures and edits named against it. Of several candidates, the
    one no other is the original of (``_sources``) is tried first, then the first by the
    keeper's edits (a second round over every member, the new keeper's own original in its
    place, kept 10 more originals of the picture benchmark's 238 and cost 1.4-2.3 points of
    recall more)."""
    found = {index: _candidates(groups[index], references[index]) for index, _ in pictures}
    sourced = _sources(
        {index: found[index] for index, _ in pictures if found[index]},
        dict(pictures),
        references,
        outcomes,
        pictures_check,
    )
    # the one no other candidate is the original of, then (when it does not reach enough
    # members) the first candidate, as the keeper's edits rank them
    tries = {
        index: [source] if source is found[index][0] else [source, found[index][0]]
        for index, source in sourced.items()
    }
    waiting = [(index, by_path) for index, by_path in pictures if index in tries]
    reached: list[tuple[int, dict[str, int]]] = []
    figures: dict[tuple[int, int], float] = {}
    for attempt in range(2):
        done = _reached(groups, waiting, tries, attempt, references, outcomes, pictures_check)
        reached.extend(done.took)
        figures.update(done.figures)
        waiting = [item for item in done.refused if len(tries[item[0]]) > attempt + 1]
    for index, named in _with_edits(groups, outcomes, reached, figures, memory):
        groups[index] = named


def _reached(
    groups: list[Group],
    waiting: Sequence[tuple[int, dict[str, int]]],
    tries: dict[int, list[Member]],
    attempt: int,
    references: dict[int, tuple[str, ...]],
    outcomes: OutcomeColumns,
    pictures_check: SecondCheck,
) -> _Attempt:
    """The groups ``waiting`` (index, rows by path) with their ``attempt``-th candidate of
    ``tries`` kept, in place in ``groups``, where it reaches enough members.

    The members were checked around the old keeper: one that the new keeper does not
    reach (another colour of a grey drawing, a copy made by two edits) would be called its
    duplicate, so such members leave the group when they are few (``_UNREACHED_SHARE``);
    more, and the group keeps the keeper it was checked around."""
    if not waiting:
        return _Attempt([], {}, [])
    checked_around = {index: groups[index] for index, _ in waiting}
    for index, _ in waiting:
        groups[index] = _kept_instead(groups[index], tries[index][attempt], references[index])
    places, kept_rows, other_rows = _keeper_pairs(groups, waiting)
    width = imagecheck.DESCRIPTOR_BYTES
    members = outcomes.padded_sketches(np.asarray(other_rows, dtype=np.intp), width)
    keepers = outcomes.padded_sketches(np.asarray(kept_rows, dtype=np.intp), width)
    parts = checked.in_threads(
        lambda part: pictures_check.measure(members[part], keepers[part]),
        len(members),
        _NAMING_PAIRS_A_THREAD,
    )
    similar = np.concatenate(parts).tolist()
    figures = dict(zip(places, similar, strict=True))
    took: list[tuple[int, dict[str, int]]] = []
    refused: list[tuple[int, dict[str, int]]] = []
    for index, by_path in waiting:
        count = len(groups[index].members)
        unreached = {
            p for p in range(1, count) if figures.get((index, p), 1.0) < pictures_check.threshold
        }
        if unreached and (
            len(unreached) * _UNREACHED_SHARE > count - 1 or count - len(unreached) < 2
        ):
            groups[index] = checked_around[index]
            refused.append((index, by_path))
            continue
        if unreached:  # those few leave the group: nothing calls them the keeper's copies
            groups[index] = _without(groups[index], index, unreached, figures)
        took.append((index, by_path))
    kept = {index for index, _ in took}
    return _Attempt(took, {k: v for k, v in figures.items() if k[0] in kept}, refused)


@dataclass(frozen=True, slots=True)
class _Attempt:
    """What one try of new keepers (``_reached``) left: the groups that took theirs (index,
    rows by path), each of their members' similarity with it (by group index and
    position), and the groups that kept the keeper they were checked around."""

    took: list[tuple[int, dict[str, int]]]
    figures: dict[tuple[int, int], float]
    refused: list[tuple[int, dict[str, int]]]


#: A member's edits against the suggested keeper that say the keeper is an edited copy of it:
#: the keeper has a border it lacks, is the grey one, is a crop of it, or is flattened (a
#: JPEG of a transparent icon cannot give its transparency back).
_ORIGINAL_SIGNS = frozenset(
    {
        EditCode.BORDER_REMOVED,
        EditCode.COLOURED,
        EditCode.UNCROPPED,
        EditCode.TRANSPARENCY_ADDED,
    }
)
#: The original takes its keeper's place without the members it does not reach (checked
#: around the keeper only: a JPEG of an icon passes against every copy over white, a
#: half-size copy against copies made by two edits that fail against the full drawing)
#: when they are at most one in this many of the members; more, and the group keeps the
#: keeper it was checked around. Keeping the worse picture (a smaller, grey, flattened or
#: lossy copy, the original offered for deletion) is worse than a copy left unreported: on
#: the picture benchmark a copy was kept in 126 of the 238 groups that hold the kept
#: picture's original, now 32 (with the candidates of ``_original_kept``, compared with
#: each other by ``_sources``); the members left
#: out cost 1.4-3 points of recall. (Only a flattened keeper gave way so before.)
_UNREACHED_SHARE = 3
#: A member with fewer than the keeper's pixels over this is a reduced copy (a wallpaper's
#: 400 x 250 preview of its 3840 x 2160 picture shows more of the scene, in 1/80 of the
#: pixels): never the original kept instead of it.
_ORIGINAL_SHRINK = 2

#: Pairs a thread compares at the least when members are named or measured against a new
#: keeper: a comparison is some 100 us, a thread's start some 100 us.
_NAMING_PAIRS_A_THREAD = 64


def _original_kept(group: Group, references: Sequence[str]) -> Group:
    """``group`` with the picture its suggested keeper was edited from kept instead (the
    same group where there is none).

    The suggested order cannot see a border, a crop or lost colours (a padded copy has more
    pixels), so a member whose edits against the keeper say it is the original takes its
    place: never over a keeper in a reference folder, nor one ranked before it on reference
    folders and copy marks, nor when it has less than half the keeper's pixels (a preview
    that shows more of the scene is still a reduced copy). Nor can it see a caption or a
    logo, whose own bytes make the marked copy the larger file: of two pictures a mark
    apart, the older is the original (``_is_original``). The members' figures and edits are
    the old keeper's until ``_with_edits`` names them again."""
    found = _candidates(group, references)
    return _kept_instead(group, found[0], references) if found else group


def _candidates(group: Group, references: Sequence[str]) -> list[Member]:
    """The members ``_original_kept`` may keep instead of ``group``'s keeper, the one it
    keeps first."""
    if KeepReason.REFERENCE in group.reasons:
        return []
    keeper = group.members[0]
    ranked = member_key(keeper, references)
    originals = [m for m in group.members[1:] if _replaces(m, keeper, ranked, references)]
    # of several (every transparent copy of a flattened keeper, every uncropped copy of a
    # crop), one that is no edited copy itself (a padded one has the most pixels, a grey one
    # those of its colour original), then one of the keeper's tones: the one whose tones
    # differ was toned itself, unless the keeper was (then all differ alike)
    return sorted(
        originals,
        key=lambda m: (
            _named(m, _COPY_SIGNS),
            _named(m, TONE_CODES),
            member_key(m, references),
        ),
    )


#: Rounds of ``_sources`` at most: each one compares a group's chosen candidate with the
#: others and moves to the first of them it was made from.
_SOURCE_ROUNDS = 3
#: Candidates after the chosen one that ``_sources`` compares with it (the original is
#: among the first few by the centre's edits; a copy's centre may have some 30).
_COMPARED = 5


def _sources(
    candidates: dict[int, list[Member]],
    rows: dict[int, dict[str, int]],
    references: dict[int, tuple[str, ...]],
    outcomes: OutcomeColumns,
    pictures_check: SecondCheck,
) -> dict[int, Member]:
    """Of each group's ``candidates`` (by group index, the first preferred), one that no
    other candidate is the original of. Each was named against the old keeper only, where
    an original and its padded copy both read as "uncropped", and a toned keeper's own tone
    copy reads as no change while the original reads as toned: compared with each other
    directly, both ways round, the padded copy is the original with a border added, the
    tone copy the original toned. A candidate gives way only to one that is its original
    one way round and not the other (a more saturated copy reads as coloured against its
    original, and the original as older). ``rows``: each group's rows by path."""
    chosen = {index: found[0] for index, found in candidates.items()}
    left = {
        index: found[1 : 1 + _COMPARED] for index, found in candidates.items() if len(found) > 1
    }
    for _ in range(_SOURCE_ROUNDS):
        pairs = [(index, other) for index, others in left.items() for other in others]
        if not pairs:
            break
        # each pair both ways round, in one batch: the candidate against the chosen one,
        # then the chosen one against it
        told = _is_source_of(
            [(i, m, chosen[i]) for i, m in pairs] + [(i, chosen[i], m) for i, m in pairs],
            rows,
            references,
            outcomes,
            pictures_check.threshold,
        )
        moved: dict[int, Member] = {}
        half = len(pairs)
        for (index, m), source, copy in zip(pairs, told[:half], told[half:], strict=True):
            if index not in moved and source and not copy:
                moved[index] = m
        left = {
            index: [m for m in left[index] if m is not source]
            for index, source in moved.items()
            if len(left[index]) > 1
        }
        chosen.update(moved)
    return chosen


def _is_source_of(
    pairs: Sequence[tuple[int, Member, Member]],
    rows: dict[int, dict[str, int]],
    references: dict[int, tuple[str, ...]],
    outcomes: OutcomeColumns,
    threshold: float,
) -> list[bool]:
    """For each (group index, member, keeper): whether the member passes against the keeper
    (the upright pair, whose edits are named), no edit against it calls the member a copy
    (smaller, padded, a crop, lost colours: two drawings of one icon at sizes near each
    other read as a border removed) and its edits say it is the keeper's original
    (``_replaces``)."""
    width = imagecheck.DESCRIPTOR_BYTES
    kept = outcomes.padded_sketches(
        np.asarray([rows[i][k.path] for i, _, k in pairs], dtype=np.intp), width
    )
    other = outcomes.padded_sketches(
        np.asarray([rows[i][m.path] for i, m, _ in pairs], dtype=np.intp), width
    )
    found = _comparisons(kept, other)
    named = imagecheck.edits_of(
        found, kept, other, [size_of(k) for _, _, k in pairs], [size_of(m) for _, m, _ in pairs]
    )
    return [
        similarity >= threshold
        and not any(edit.code in _COPY_SIGNS for edit in edits)
        and _replaces(
            dataclasses.replace(m, edits=edits),
            keeper,
            member_key(keeper, references[index]),
            references[index],
        )
        for (index, m, keeper), similarity, edits in zip(
            pairs, found.similarity.tolist(), named, strict=True
        )
    ]


def _kept_instead(group: Group, keeper: Member, references: Sequence[str]) -> Group:
    """``group`` with ``keeper`` (a member that is its keeper's original) kept."""
    members = (keeper, *(m for m in group.members if m is not keeper))
    members = tuple(dataclasses.replace(m, edits=()) for m in members)
    found = reasons(members[0], members, references)
    return dataclasses.replace(
        group, members=members, reasons=(KeepReason.ORIGINAL_PICTURE, *found)
    )


def _replaces(member: Member, keeper: Member, ranked: KeeperKey, references: Sequence[str]) -> bool:
    """Whether ``member``, its edits named against ``keeper`` (whose key is ``ranked``), is
    the keeper's original and may be kept instead: not after it on reference folders and
    copy marks, nor with less than ``1 / _ORIGINAL_SHRINK`` of its pixels."""
    return (
        (
            _is_original(member, keeper)
            or _first_by_order(member, ranked, references, pixels(keeper))
        )
        and member_key(member, references)[:2] <= ranked[:2]
        and pixels(member) >= pixels(keeper) / _ORIGINAL_SHRINK
    )


#: A member's edits against the keeper that say the member is itself an edited copy: a
#: border it has that the keeper lacks, lost colours, a crop of the keeper, fewer pixels.
_COPY_SIGNS = frozenset(
    {
        EditCode.PADDED,
        EditCode.GREYSCALE,
        EditCode.TINTED,
        EditCode.CROPPED,
        EditCode.SMALLER,
    }
)


def _named(member: Member, codes: frozenset[EditCode]) -> int:
    """How many of ``codes`` ``member``'s edits against its keeper name."""
    return sum(1 for edit in member.edits if edit.code in codes)


#: Edits that leave which of two pictures is the original to ``_is_original`` alone.
_TOLD_BY_EDITS = _ORIGINAL_SIGNS | {EditCode.MARKED, EditCode.TRANSPARENCY_REMOVED}


#: A member with this many times the keeper's pixels or more is not called a copy by its
#: framing alone: told across scales, a resize's soft edges read as more margin, so the
#: original reads as a crop (or a padding) of its own resize, and a crop has fewer pixels.
_SCALED_FRAMING = 2
_FRAMING = frozenset({EditCode.CROPPED, EditCode.PADDED})


def _first_by_order(
    member: Member, keeper_key: KeeperKey, references: Sequence[str], kept_pixels: int
) -> bool:
    """Whether ``member`` comes before the keeper in the order that suggests keepers (more
    pixels at the same framing, a lossless format, older) and no edit says it is a copy.
    The keeper is its star's centre, the picture linked to every member; the original
    may not be (a copy made by two edits passes against a copy made by one of them
    only), and a smaller, lossy or newer copy was kept. A lossy copy's bytes per pixel
    are left out: a brightened JPEG saved at a higher quality has more than its original.
    ``kept_pixels``: the keeper's; with ``_SCALED_FRAMING`` times them or more, the member's
    framing (a crop, a border, a mark in a margin) does not call it a copy."""
    codes = {edit.code for edit in member.edits}
    signs = _COPY_SIGNS | _TOLD_BY_EDITS
    if EditCode.LARGER in codes and pixels(member) >= _SCALED_FRAMING * kept_pixels:
        signs = signs - _FRAMING  # framing told across scales: the resize's soft edges
    if codes & signs or (_margin_marked(member.edits) and not signs.isdisjoint(_FRAMING)):
        return False
    return _by_order(member_key(member, references)) < _by_order(keeper_key)


def _by_order(key: KeeperKey) -> tuple[object, ...]:
    """The keep order's criteria up to a picture's format, then its age."""
    return (*key[:BYTES_PER_PIXEL], key[MTIME])


def _is_original(member: Member, keeper: Member) -> bool:
    """Whether ``member``'s edits against ``keeper`` say that the keeper was made from it.
    Of two pictures a mark apart (text or a logo added on one of them; ``_margin_marked``
    where it sits in a plain border) the older is the original, when it has the keeper's
    pixels: the framing a caption in a margin moves (the plain border it fills) is the
    mark's, not a crop's. A member that lost the keeper's transparency is the keeper
    flattened (its border, blurred by a JPEG, may read as more around the edges), and a
    member that has transparency the keeper lacks is what the keeper was flattened from."""
    codes = {edit.code for edit in member.edits}
    if EditCode.TRANSPARENCY_REMOVED in codes:
        return False
    if EditCode.MARKED in codes or _margin_marked(member.edits):
        return member.mtime_ns < keeper.mtime_ns and pixels(member) >= pixels(keeper)
    if codes & _ORIGINAL_SIGNS == {EditCode.BORDER_REMOVED}:
        # a border the keeper has and the member lacks, alone, is a padding of the keeper
        # or a cut of the member into its plain margin: the older is the original
        return member.mtime_ns <= keeper.mtime_ns
    return bool(codes & _ORIGINAL_SIGNS)


def _without(
    group: Group, index: int, positions: set[int], figures: dict[tuple[int, int], float]
) -> Group:
    """``group`` without its members at ``positions``; ``figures`` (the members'
    similarities with the keeper by group index and position) renumbered in place for the
    positions left."""
    kept = [p for p in range(len(group.members)) if p not in positions]
    values = {
        p: figures.pop((index, p)) for p in range(len(group.members)) if (index, p) in figures
    }
    for new, old in enumerate(kept):
        if old in values:
            figures[(index, new)] = values[old]
    return dataclasses.replace(group, members=tuple(group.members[p] for p in kept))


def _margin_marked(edits: Sequence[Edit]) -> bool:
    """Whether one picture reaches into the other's plain border: the member is a crop of
    the keeper with more border on those very sides, or shows more around the keeper with
    less border there, as a caption put in an icon's empty corner leaves them (the edits do
    not say which of the two was written on)."""

    def sides(*codes: EditCode) -> set[Side]:
        return {side for e in edits if e.code in codes for side in e.sides}

    return bool(
        sides(EditCode.CROPPED) & sides(EditCode.PADDED)
        or sides(EditCode.UNCROPPED) & sides(EditCode.BORDER_REMOVED)
    )


def _descriptors_at(
    outcomes: OutcomeColumns, rows: dict[str, int], paths: Sequence[str]
) -> npt.NDArray[np.uint8]:
    """The descriptors of the pictures at ``paths`` (``rows``: each picture's row)."""
    at = np.asarray([rows[path] for path in paths], dtype=np.intp)
    return outcomes.padded_sketches(at, imagecheck.DESCRIPTOR_BYTES)


def _keeper_pairs(
    groups: Sequence[Group], pictures: Sequence[tuple[int, dict[str, int]]]
) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Every member of the picture groups ``pictures`` against its kept one, but the kept
    one's byte-identical copies: (group index, member position), the kept rows, the members'
    rows."""
    places: list[tuple[int, int]] = []
    kept_rows: list[int] = []
    other_rows: list[int] = []
    for index, by_path in pictures:
        group = groups[index]
        kept = by_path[group.members[0].path]
        for position, m in enumerate(group.members[1:], start=1):
            if not group.same_bytes_as_keeper(m):
                places.append((index, position))
                kept_rows.append(kept)
                other_rows.append(by_path[m.path])
    return places, kept_rows, other_rows


@functools.cache
def _edits_memory(again: bool) -> str:
    """The name the comparisons of members with their kept picture are remembered under
    (``_compared``): those of the suggested keepers, or (``again``) of keepers that took
    another's place; it changes with the check's source, as the check's own name does."""
    kind = "image-edits-again" if again else "image-edits"
    return checked.check_name(kind, imagecheck.pair_similarity, imagecheck.compiled_files())


def _comparisons(
    kept: npt.NDArray[np.uint8], other: npt.NDArray[np.uint8]
) -> imagecheck.Comparison:
    """``imagecheck.compare`` of the pairs of rows, on every core when there are enough (a
    scan names thousands of members one after another, after its pool has finished)."""
    parts = checked.in_threads(
        lambda part: imagecheck.compare(kept[part], other[part]),
        len(kept),
        _NAMING_PAIRS_A_THREAD,
    )
    if len(parts) == 1:
        return parts[0]
    return imagecheck.Comparison(
        **{
            name: np.concatenate([getattr(part, name) for part in parts])
            for name in imagecheck.Comparison.__dataclass_fields__
        }
    )


def _compared(
    kept: npt.NDArray[np.uint8],
    other: npt.NDArray[np.uint8],
    memory: CheckMemory | None,
    name: str,
) -> imagecheck.Comparison:
    """``imagecheck.compare`` of each kept picture's descriptor with a member's, the pairs
    an earlier scan compared taken from ``memory`` (by the two descriptors' content, in
    order): a rescan names every member's edits without comparing one pair again."""
    if memory is None or not len(kept):
        return _comparisons(kept, other)
    blank = np.zeros(len(kept), dtype=np.uint64)
    keys = np.stack((checked.content_keys(blank, kept), checked.content_keys(blank, other)), 1)
    known, rows = memory.recall(name, keys)
    fields = imagecheck.Comparison.__dataclass_fields__
    if rows.ndim != 2 or rows.shape[1] != len(fields):
        known = np.zeros(len(kept), dtype=np.bool_)
        rows = np.zeros((len(kept), len(fields)), dtype=np.float64)
    todo = np.flatnonzero(~known)
    if len(todo):
        fresh = _comparisons(kept[todo], other[todo])
        rows[todo] = np.stack([np.asarray(getattr(fresh, f), np.float64) for f in fields], 1)
    memory.keep(name, keys, rows)
    columns = dict(zip(fields, rows.T, strict=True))
    columns["b_in_a"] = columns["b_in_a"] > 0.5
    return imagecheck.Comparison(**columns)


def _with_edits(
    groups: Sequence[Group],
    outcomes: OutcomeColumns,
    pictures: Sequence[tuple[int, dict[str, int]]],
    figures: dict[tuple[int, int], float] | None = None,
    memory: CheckMemory | None = None,
) -> list[tuple[int, Group]]:
    """Picture groups (``pictures``: their index in ``groups`` and their rows by path) with
    each member's edits against the kept one named (``image.check.edits_of``), every pair
    compared in one call; byte-identical copies of the keeper have none. ``figures``: a
    keeper that took another's place, with each member's similarity with it (by group index
    and position, as the scan's check measured it), so each member's distance and
    similarity are against it too, and the members put in their order. ``memory``: the
    comparisons an earlier scan made of the same pictures (see ``_compared``)."""
    places, kept_rows, other_rows = _keeper_pairs(groups, pictures)
    if not places and figures is None:
        return []
    named: list[tuple[Edit, ...]] = []
    if places:
        width = imagecheck.DESCRIPTOR_BYTES
        kept = outcomes.padded_sketches(np.asarray(kept_rows, dtype=np.intp), width)
        other = outcomes.padded_sketches(np.asarray(other_rows, dtype=np.intp), width)
        named = imagecheck.edits_of(
            _compared(kept, other, memory, _edits_memory(again=figures is not None)),
            kept,
            other,
            [size_of(groups[i].members[0]) for i, _ in places],
            [size_of(groups[i].members[p]) for i, p in places],
        )
    members = {index: list(groups[index].members) for index, _ in pictures}
    for (index, position), edits in zip(places, named, strict=True):
        members[index][position] = dataclasses.replace(members[index][position], edits=edits)
    if figures is not None:
        for index, by_path in pictures:
            members[index] = _refigured(members[index], index, figures, outcomes, by_path)
    return [
        (index, dataclasses.replace(groups[index], members=tuple(members[index])))
        for index, _ in pictures
    ]


def _refigured(
    members: list[Member],
    index: int,
    similar: dict[tuple[int, int], float],
    outcomes: OutcomeColumns,
    by_path: dict[str, int],
) -> list[Member]:
    """A group's ``members`` with their bits apart from and similarity with the new keeper
    (``similar``: by group index and position; its byte-identical copies are 1.0), the
    others in order of similarity."""
    rows = np.asarray([by_path[m.path] for m in members], dtype=np.intp)
    local = np.arange(len(rows), dtype=np.int64)
    values = outcomes.values[rows]
    distance = np.bitwise_count(values ^ values[0]).astype(np.int64)
    variants = [outcomes.variants.get(int(row), ()) for row in rows]
    distance = _closest_turns(distance, values, variants, local)
    keeper, *rest = (
        dataclasses.replace(m, distance=int(distance[p]), similarity=similar.get((index, p), 1.0))
        for p, m in enumerate(members)
    )
    rest.sort(key=lambda m: (-m.similarity, m.distance, m.path))
    return [dataclasses.replace(keeper, distance=0, similarity=1.0), *rest]


def _with_media(found: Member, part: KindGroups, index: int) -> Member:
    """A music or video member with its header's facts and the span that matched."""
    if not part.facts and not part.spans:
        return found
    return dataclasses.replace(found, media=part.facts[index], span=part.spans[index])


def group_order(group: Group) -> tuple[int, str]:
    """Largest groups first, then by the representative's path."""
    return (-len(group.members), group.representative.path)
