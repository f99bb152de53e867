"""Two small drawings of one size are never one picture (``image.check.drawn_apart``).

The check compares pictures by blocks of a 32-pixel thumbnail, so two icons of one theme
that differ in a few of their own pixels (a battery's level, a face's mouth, a speaker's
waves) pass as alike, and the alignment it finds reads the moved part as a crop or a
border. What tells them apart is that no edit a person makes explains the difference. Once
a group's members and their edits are known, every two of its members of the kept
picture's small size are held to that rule, the kept picture among them, and of two
drawings the one less like the kept picture leaves. Pairs, not only the kept picture's:
a look-alike may pass against a grey copy of the kept picture ("greyscale" names that
difference) while the kept picture in colour beside it tells the two drawings apart.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dupfinder.core.grouping.keeper import regrouped, suggested
from dupfinder.core.image import check as imagecheck
from dupfinder.core.model import Group, Member

__all__ = ["Descriptors", "PictureCheck", "other_drawings_removed", "size_of"]

#: The descriptor rows, (N, DESCRIPTOR_BYTES), of the pictures at these paths.
Descriptors = Callable[[Sequence[str]], npt.NDArray[np.uint8]]
#: Similarities of the pairs (a[i], b[i]) of descriptor rows (the scan's own measure).
Measure = Callable[[npt.NDArray[np.uint8], npt.NDArray[np.uint8]], npt.ArrayLike]


def size_of(member: Member) -> tuple[int, int]:
    """A picture member's upright stored size ((0, 0) where it is not known)."""
    return (member.width or 0, member.height or 0)


@dataclass(frozen=True, slots=True)
class PictureCheck:
    """What the rule needs of a scan: each picture's descriptor by path, the check's
    measure (invariant where the scan is) and its threshold."""

    descriptors: Descriptors
    measure: Measure
    threshold: float


def other_drawings_removed(
    groups: Sequence[Group],
    pictures: Sequence[int],
    check: PictureCheck,
    references: Mapping[int, tuple[str, ...]] | None = None,
) -> list[Group]:
    """``groups`` with the members of the picture groups ``pictures`` (indices) that are
    other drawings than a member more like the kept picture removed (``_leaving``). A group
    left with its keeper alone is gone, one that lost members has its keeper's reasons named
    again. The members that left take with them the members more like them than like the
    kept picture (their own other sizes, their own copies), and each such set that passes
    the check against the one that left is a group of its own (``_formed``), after the
    others (``references``: each group's reference folders, for its keeper)."""
    out: list[Group | None] = list(groups)
    formed: list[Group] = []
    for index in pictures:
        group = groups[index]
        leaving = _leaving(group, check.descriptors, check.measure)
        if not leaving:
            continue
        sets = _own_copies(group.members, sorted(leaving), check)
        gone = {position for found in sets for position, _ in found}
        kept = [m for i, m in enumerate(group.members) if i not in gone | leaving]
        out[index] = regrouped(group, kept) if len(kept) > 1 else None
        folders = (references or {}).get(index, ())
        formed.extend(_formed(group, found, check, folders) for found in sets)
    return [group for group in out if group is not None] + formed


def _own_copies(
    members: Sequence[Member], leaving: Sequence[int], check: PictureCheck
) -> list[list[tuple[int, float]]]:
    """For the members at positions ``leaving``, in order, the sets of two or more each
    forms with the members that pass against it and are more like it than like the kept
    picture (another that left, a copy of it at another size, a grey copy of it that the
    kept picture passed as "greyscale"; one of the leaver's own size must be as alike as a
    re-render): (position, similarity to the leaver), the leaver first."""
    free = range(1, len(members))
    taken: set[int] = set()
    sets: list[list[tuple[int, float]]] = []
    for leader in leaving:
        if leader in taken:
            continue
        others = [p for p in free if p != leader and p not in taken]
        if not others:
            continue
        rows = check.descriptors([members[p].path for p in (leader, *others)])
        found = np.asarray(
            check.measure(rows[1:], np.broadcast_to(rows[0], rows[1:].shape)), dtype=np.float64
        ).reshape(-1)
        own = size_of(members[leader])
        joined = [
            (p, float(similarity))
            for p, similarity in zip(others, found.tolist(), strict=True)
            if similarity >= check.threshold
            and (p in leaving or similarity > members[p].similarity)
            and (size_of(members[p]) != own or similarity >= imagecheck.EXPLAINED)
        ]
        if joined:
            sets.append([(leader, 1.0), *joined])
            taken.update(p for p, _ in sets[-1])
    return sets


def _formed(
    group: Group,
    found: Sequence[tuple[int, float]],
    check: PictureCheck,
    references: tuple[str, ...],
) -> Group:
    """A group of the members ``found`` (position, similarity to the first) of ``group``
    around the first, with each member's distance, similarity and edits against it."""
    leader = group.members[found[0][0]]
    rest = [(group.members[p], similarity) for p, similarity in found[1:]]
    rows = check.descriptors([leader.path, *(m.path for m, _ in rest)])
    kept, others = np.broadcast_to(rows[0], rows[1:].shape), rows[1:]
    named = imagecheck.edits_of(
        imagecheck.compare(kept, others),
        kept,
        others,
        [size_of(leader)] * len(rest),
        [size_of(m) for m, _ in rest],
    )
    members = [
        dataclasses.replace(
            m,
            distance=leader.fingerprint.distance(m.fingerprint),
            similarity=similarity,
            edits=edits,
        )
        for (m, similarity), edits in zip(rest, named, strict=True)
    ]
    members.sort(key=lambda m: (-m.similarity, m.distance, m.path))
    first = dataclasses.replace(leader, distance=0, similarity=1.0, edits=())
    return suggested(Group(group.kind, (first, *members)), references)


def _leaving(group: Group, descriptors: Descriptors, measure: Measure) -> set[int]:
    """Positions of the members that leave ``group``: of every two members of the kept
    picture's size, where it is small (``imagecheck.DRAWN_SIDE``), that are two drawings,
    the one less like the kept picture (which never leaves). Byte-identical copies are one
    member. Members of other sizes are not held to it, nor is a group that holds a larger
    picture than the kept one: an icon's own 64-pixel drawing and a 128-pixel one's resize to
    64 pixels are two renderings of one picture, whichever of them is kept."""
    members = group.members
    size = size_of(members[0])
    if min(size) < 1 or max(size) > imagecheck.DRAWN_SIDE:
        return set()
    if any(_pixels(m) > size[0] * size[1] for m in members):
        return set()  # a larger picture: the small ones may be its renderings
    alike = [position for position, m in enumerate(members) if size_of(m) == size]
    pairs = [
        (i, j)
        for i, j in itertools.combinations(alike, 2)
        if members[i].content_hash is None or members[i].content_hash != members[j].content_hash
    ]
    if not pairs:
        return set()
    rows = descriptors([members[p].path for pair in pairs for p in pair]).reshape(len(pairs), 2, -1)
    first, second = rows[:, 0], rows[:, 1]
    # against the kept picture the scan has measured each member already
    similarity = np.array([members[j].similarity if i == 0 else np.nan for i, j in pairs])
    among = np.flatnonzero(np.isnan(similarity))
    if len(among):
        similarity[among] = np.asarray(
            measure(first[among], second[among]), dtype=np.float64
        ).reshape(-1)
    open_ = [k for k in range(len(pairs)) if similarity[k] < imagecheck.EXPLAINED]
    if not open_:
        return set()
    sizes = [size] * len(open_)
    named = imagecheck.edits_of(
        imagecheck.compare(first[open_], second[open_]), first[open_], second[open_], sizes, sizes
    )
    leaving: set[int] = set()
    for k, found in zip(open_, named, strict=True):
        i, j = pairs[k]
        if i in leaving or j in leaving:
            continue
        if imagecheck.drawn_apart(float(similarity[k]), found, size, size):
            leaving.add(_less_like_the_keeper(members, i, j))
    return leaving


def _pixels(member: Member) -> int:
    width, height = size_of(member)
    return width * height


def _less_like_the_keeper(members: Sequence[Member], i: int, j: int) -> int:
    """Of members ``i`` < ``j``, the one to part from the kept picture (position 0): never
    the kept picture; else the less similar to it, the later one on a tie."""
    if i == 0:
        return j
    return i if members[i].similarity < members[j].similarity else j
