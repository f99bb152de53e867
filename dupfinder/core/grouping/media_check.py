"""Music and videos: candidates from every window of a file, each confirmed by alignment.

A song's or a video's print holds a 64-bit SimHash of the whole (``value``) and SimHashes of
overlapping windows (``variants``), so a clip or a trimmed copy meets its longer original in
the index through a window even where the wholes differ. Every hash goes into one index;
its rows map back to files, and each pair of files it proposes is confirmed by aligning the
two sequences (``dupfinder.core.media.audio.compare`` / ``video.compare``), which also says
where the match lies in each file. A pair is kept when the aligned similarity reaches the
kind's ``MIN_SIMILARITY`` (or the scan's own figure).

A hash that many files hold (silence, a black frame, a shared intro) proposes nothing: it
tells files apart no better than chance and would propose every pair of them. Rows with the
very same sequence are one node (byte copies, or a file and its remux), so copies cost no
checks.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns
from dupfinder.core.fingerprints.worker import MEDIA_TIME_LIMIT_SECONDS
from dupfinder.core.grouping.cluster import cluster_nodes
from dupfinder.core.grouping.keeper import PART_SECONDS, PART_SHARE, KeeperKey, keeper_key
from dupfinder.core.grouping.media_facts import probed
from dupfinder.core.index.distinct import sorted_unique, unique_pairs
from dupfinder.core.index.pairs import near_pairs
from dupfinder.core.media.match import MediaMatch
from dupfinder.core.model import Grouping, Kind, MatchedSpan, MediaFacts, ScanOptions

__all__ = [
    "COMMON_OWNERS",
    "MediaCheck",
    "MediaPart",
    "PairSearch",
    "Recheck",
    "file_pairs",
    "match_span",
    "matched",
    "media_check",
    "media_part",
    "near_rows",
    "recheck",
]

I64 = npt.NDArray[np.int64]
#: Pairs of distinct hashes within k bits, as ``index.pairs.near_pairs`` finds them.
PairSearch = Callable[[npt.NDArray[np.uint64], int, Sequence[Sequence[int]] | None], np.ndarray]
#: A hash held by more files than this proposes nothing (see the module's note).
COMMON_OWNERS = 24


@dataclass(frozen=True, slots=True)
class MediaCheck:
    """How a media kind's candidates are found and confirmed."""

    kind: Kind
    radius: int
    threshold: float
    compare: Callable[[bytes, bytes], MediaMatch | None]


def media_check(kind: Kind, options: ScanOptions) -> MediaCheck:
    """The check of music (``Kind.AUDIO``) or videos (``Kind.VIDEO``) for a scan's options:
    the scan's own similarity where it sets one, else the kind's ``MIN_SIMILARITY``."""
    if kind is Kind.AUDIO:
        from dupfinder.core.media import audio

        chosen = options.audio_similarity
        radius, default, compare = audio.INDEX_RADIUS, audio.MIN_SIMILARITY, audio.compare
    elif kind is Kind.VIDEO:
        from dupfinder.core.media import video

        chosen = options.video_similarity
        radius, default, compare = video.INDEX_RADIUS, video.MIN_SIMILARITY, video.compare
    else:
        raise ValueError(f"{kind} is not music or video")
    return MediaCheck(kind, radius, default if chosen is None else chosen, compare)


def _nodes(sequences: Sequence[bytes]) -> tuple[I64, I64]:
    """Each row's node (rows with the very same sequence are one) and a row of each node."""
    seen: dict[bytes, int] = {}
    inverse = np.empty(len(sequences), dtype=np.int64)
    first: list[int] = []
    for row, sequence in enumerate(sequences):
        key = hashlib.blake2b(sequence, digest_size=16).digest()
        node = seen.setdefault(key, len(first))
        if node == len(first):
            first.append(row)
        inverse[row] = node
    return inverse, np.asarray(first, dtype=np.int64)


def file_pairs(
    hashes: Sequence[Sequence[int]], radius: int, finder: PairSearch = near_pairs
) -> I64:
    """(P, 2) pairs i < j of owners (indices into ``hashes``) with some hash of one within
    ``radius`` bits of some hash of the other; hashes held by more than ``COMMON_OWNERS``
    owners left out."""
    counts = np.fromiter((len(h) for h in hashes), dtype=np.int64, count=len(hashes))
    if counts.sum() == 0:
        return np.zeros((0, 2), dtype=np.int64)
    values = np.fromiter(itertools.chain.from_iterable(hashes), dtype=np.uint64)
    owners = np.repeat(np.arange(len(hashes), dtype=np.int64), counts)
    unique, which = np.unique(values, return_inverse=True)
    which = which.reshape(-1).astype(np.int64)
    # one (hash, owner) entry each, sorted by hash
    held = sorted_unique(which * len(hashes) + owners)
    held_value, held_owner = held // len(hashes), held % len(hashes)
    per_value = np.bincount(held_value, minlength=len(unique))
    kept_values = np.flatnonzero((per_value > 0) & (per_value <= COMMON_OWNERS))
    if len(kept_values) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    kept = np.isin(held_value, kept_values)
    held_value, held_owner = held_value[kept], held_owner[kept]
    # renumber the kept hashes 0..U-1, each with its owners as a run of ``held_owner``
    local = np.searchsorted(kept_values, held_value)
    starts = np.searchsorted(local, np.arange(len(kept_values)))
    sizes = np.bincount(local, minlength=len(kept_values))
    value_pairs = np.asarray(finder(unique[kept_values], radius, None), dtype=np.int64)
    value_pairs = value_pairs.reshape(-1, 2)
    found: list[I64] = []
    single = (sizes[value_pairs[:, 0]] == 1) & (sizes[value_pairs[:, 1]] == 1)
    found.append(held_owner[starts[value_pairs[single]]].reshape(-1, 2))
    extra: list[tuple[int, int]] = []
    for a, b in value_pairs[~single].tolist():
        first = held_owner[starts[a] : starts[a] + sizes[a]].tolist()
        second = held_owner[starts[b] : starts[b] + sizes[b]].tolist()
        extra.extend((x, y) for x in first for y in second)
    for value in np.flatnonzero(sizes > 1).tolist():
        same = held_owner[starts[value] : starts[value] + sizes[value]].tolist()
        extra.extend(itertools.combinations(same, 2))
    if extra:
        found.append(np.asarray(extra, dtype=np.int64))
    pairs = np.sort(np.concatenate(found), axis=1)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    if len(pairs) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    return unique_pairs(pairs, len(hashes))


def match_span(found: MediaMatch, member_is_a: bool) -> MatchedSpan:
    """The span of a member (``a`` or ``b`` of ``found``) and of its keeper (the other)."""
    if member_is_a:
        return MatchedSpan(found.a_start_s, found.a_end_s, found.b_start_s, found.b_end_s)
    return MatchedSpan(found.b_start_s, found.b_end_s, found.a_start_s, found.a_end_s)


@dataclass(frozen=True, slots=True)
class MediaPart:
    """One media kind's groups as lists: group ``g`` is ``rows[starts[g]:starts[g + 1]]``,
    its keeper first, with each member's verified similarity to the keeper, the span that
    matched (None for the keeper and its copies of the same sequence) and the header's facts;
    ``pairs`` counts the verified pairs."""

    rows: list[int]
    starts: list[int]
    similarities: list[float]
    spans: list[MatchedSpan | None]
    facts: list[MediaFacts | None]
    pairs: int


def _full(facts: MediaFacts | None, keeper: MediaFacts | None) -> MatchedSpan | None:
    """A copy with the keeper's very sequence matches it from end to end."""
    if facts is None or keeper is None or not facts.duration_s or not keeper.duration_s:
        return None
    return MatchedSpan(0.0, facts.duration_s, 0.0, keeper.duration_s)


def media_part(
    kind: Kind,
    files: FileColumns,
    outcomes: OutcomeColumns,
    rows: npt.NDArray[np.intp],
    options: ScanOptions,
    finder: PairSearch = near_pairs,
) -> MediaPart:
    """The groups of the fingerprinted ``rows`` of one media kind (see ``MediaPart``)."""
    check = media_check(kind, options)
    row_list = [int(row) for row in rows.tolist()]
    sequences = [outcomes.sketch(row) or b"" for row in row_list]
    inverse, first = _nodes(sequences)
    node_rows = [row_list[local] for local in first.tolist()]
    hashes = [(int(outcomes.values[row]), *outcomes.variants.get(row, ())) for row in node_rows]
    hashes = [tuple(dict.fromkeys(h)) for h in hashes]  # each hash once per file
    candidates = file_pairs(hashes, check.radius, finder)
    matches: dict[tuple[int, int], MediaMatch] = {}
    for a, b in candidates.tolist():
        found = check.compare(sequences[int(first[a])], sequences[int(first[b])])
        if found is not None and found.similarity >= check.threshold:
            matches[(a, b)] = found
    node_pairs = np.asarray(sorted(matches), dtype=np.int64).reshape(-1, 2)
    counts = np.bincount(inverse, minlength=len(first))
    # headers only of the files that may group: in a verified pair, or copies of one sequence
    grouped = np.zeros(len(first), dtype=np.bool_)
    grouped[node_pairs.reshape(-1)] = True
    grouped |= counts > 1
    wanted = [local for local in range(len(row_list)) if grouped[inverse[local]]]
    facts: list[MediaFacts | None] = [None] * len(row_list)
    for local, found_facts in zip(
        wanted, probed([files.paths[row_list[local]] for local in wanted], kind), strict=True
    ):
        facts[local] = found_facts
    references = tuple(os.path.realpath(folder) for folder in options.references)
    longest = _longest_partner(inverse, node_pairs, facts)
    keys = _MediaKeys(files, outcomes, row_list, facts, longest, references, grouped[inverse])
    part = MediaPart([], [0], [], [], [], len(node_pairs) + int((counts - 1).sum()))
    grouping = options.grouping(kind)
    for local_rows in cluster_nodes(inverse, node_pairs, keys, grouping):
        keeper = local_rows[0]
        keeper_node = int(inverse[keeper])
        for local in local_rows:
            node = int(inverse[local])
            similarity, span = 1.0, None
            if local != keeper and node == keeper_node:
                span = _full(facts[local], facts[keeper])
            elif local != keeper:
                lo, hi = min(node, keeper_node), max(node, keeper_node)
                found = matches.get((lo, hi))
                if found is None and grouping is Grouping.CONNECTED:
                    found = check.compare(sequences[int(first[lo])], sequences[int(first[hi])])
                similarity = found.similarity if found is not None else 0.0
                span = match_span(found, node == lo) if found is not None else None
            part.rows.append(row_list[local])
            part.similarities.append(min(1.0, max(0.0, similarity)))
            part.spans.append(span)
            part.facts.append(facts[local])
        part.starts.append(len(part.rows))
    return part


def _longest_partner(
    inverse: I64, node_pairs: I64, facts: list[MediaFacts | None]
) -> list[float | None]:
    """For each row, the longest length among itself, its copies and the files it was
    verified with: a clip is then a part of its original in the keeper's order."""
    node_longest: dict[int, float] = {}
    for local, found in enumerate(facts):
        if found is not None and found.duration_s:
            node = int(inverse[local])
            node_longest[node] = max(node_longest.get(node, 0.0), found.duration_s)
    best = dict(node_longest)
    for a, b in node_pairs.tolist():
        for one, other in ((a, b), (b, a)):
            if other in node_longest:
                best[one] = max(best.get(one, 0.0), node_longest[other])
    return [best.get(int(node)) for node in inverse.tolist()]


class _MediaKeys(Sequence[KeeperKey]):
    """The keeper key of each row, with its header's facts (only rows that may group have
    them; the others are never compared by key)."""

    def __init__(
        self,
        files: FileColumns,
        outcomes: OutcomeColumns,
        rows: list[int],
        facts: list[MediaFacts | None],
        longest: list[float | None],
        references: tuple[str, ...],
        grouped: npt.NDArray[np.bool_],
    ) -> None:
        self._files = files
        self._outcomes = outcomes
        self._rows = rows
        self._facts = facts
        self._longest = longest
        self._references = references
        self._grouped = grouped

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, local: int) -> KeeperKey:  # type: ignore[override]
        row = self._rows[local]
        key = self._files.key(row)
        facts = self._facts[local] if self._grouped[local] else None
        return keeper_key(
            key.path,
            key.size,
            key.mtime_ns,
            self._outcomes.pixels(row),
            self._references,
            facts or MediaFacts(),
            self._longest[local],
        )


def near_rows(
    outcomes: OutcomeColumns, row: int, rows: npt.NDArray[np.intp], radius: int
) -> npt.NDArray[np.intp]:
    """The rows among ``rows`` with some hash (whole or window) within ``radius`` bits of
    some hash of ``row``: one file's candidates, without the index (one query compares its
    few hashes with every file's)."""
    mine = np.asarray([int(outcomes.values[row]), *outcomes.variants.get(row, ())], dtype=np.uint64)
    near = np.zeros(len(rows), dtype=np.bool_)
    for position, other in enumerate(rows.tolist()):
        theirs = np.asarray(
            [int(outcomes.values[other]), *outcomes.variants.get(other, ())], dtype=np.uint64
        )
        distances = np.bitwise_count(theirs[:, None] ^ mine[None, :])
        near[position] = int(distances.min()) <= radius
    return rows[near]


def matched(
    check: MediaCheck, outcomes: OutcomeColumns, row: int, rows: Sequence[int]
) -> list[MediaMatch | None]:
    """``row``'s sequence aligned with each of ``rows``' (``a`` is ``row``'s side); None
    where they do not align or do not reach the check's threshold."""
    own = outcomes.sketch(row) or b""
    found: list[MediaMatch | None] = []
    for other in rows:
        result = check.compare(own, outcomes.sketch(other) or b"")
        found.append(
            result if result is not None and result.similarity >= check.threshold else None
        )
    return found


@dataclass(frozen=True, slots=True)
class Recheck:
    """Two files printed again and aligned right before an action: the aligned similarity,
    and whether all of the first (the file to act on) lies in the match, give or take what
    the keeper's order calls no cut (``PART_SECONDS``, ``PART_SHARE``)."""

    similarity: float
    whole: bool
    matched_s: float
    duration_s: float


def recheck(kind: Kind, target: str, kept: str, options: ScanOptions) -> Recheck:
    """``target`` against ``kept`` as the scan checked them; raises ``FileProblem`` when
    either cannot be read. A clip of the kept file is similar but not whole: removing the
    longer one would lose the rest."""
    check = media_check(kind, options)
    if kind is Kind.AUDIO:
        from dupfinder.core.media.audio import audio_print as printed
    else:
        from dupfinder.core.media.video import video_print as printed  # type: ignore[assignment]
    limit = MEDIA_TIME_LIMIT_SECONDS
    mine, theirs = printed(target, time_limit_s=limit), printed(kept, time_limit_s=limit)
    found = check.compare(mine.sequence, theirs.sequence)
    if found is None:
        return Recheck(0.0, False, 0.0, mine.duration_s)
    matched = max(0.0, found.a_end_s - found.a_start_s)
    missing = mine.duration_s - matched
    whole = missing <= max(PART_SECONDS, PART_SHARE * mine.duration_s)
    return Recheck(found.similarity, whole, matched, mine.duration_s)
