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

import itertools
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from dupfinder.core.grouping.keeper import regrouped
from dupfinder.core.image import check as imagecheck
from dupfinder.core.model import Group, Member

__all__ = ["Descriptors", "other_drawings_removed", "size_of"]

#: The descriptor rows, (N, DESCRIPTOR_BYTES), of the pictures at these paths.
Descriptors = Callable[[Sequence[str]], npt.NDArray[np.uint8]]
#: Similarities of the pairs (a[i], b[i]) of descriptor rows (the scan's own measure).
Measure = Callable[[npt.NDArray[np.uint8], npt.NDArray[np.uint8]], npt.ArrayLike]


def size_of(member: Member) -> tuple[int, int]:
    """A picture member's upright stored size ((0, 0) where it is not known)."""
    return (member.width or 0, member.height or 0)


def other_drawings_removed(
    groups: Sequence[Group],
    pictures: Sequence[int],
    descriptors: Descriptors,
    measure: Measure,
) -> list[Group]:
    """``groups`` with the members of the picture groups ``pictures`` (indices) that are
    other drawings than a member more like the kept picture removed (``_leaving``); a group
    left with its keeper alone is gone, one that lost members has its keeper's reasons
    named again."""
    out: list[Group | None] = list(groups)
    for index in pictures:
        group = groups[index]
        leaving = _leaving(group, descriptors, measure)
        if leaving:
            kept = [m for i, m in enumerate(group.members) if i not in leaving]
            out[index] = regrouped(group, kept) if len(kept) > 1 else None
    return [group for group in out if group is not None]


def _leaving(group: Group, descriptors: Descriptors, measure: Measure) -> set[int]:
    """Positions of the members that leave ``group``: of every two members of the kept
    picture's size, where it is small (``imagecheck.DRAWN_SIDE``), that are two drawings,
    the one less like the kept picture (which never leaves). Byte-identical copies are one
    member. Members of other sizes are not held to it: an icon's own 64-pixel drawing and a
    256-pixel one's resize to 64 pixels are two renderings of one picture."""
    members = group.members
    size = size_of(members[0])
    if min(size) < 1 or max(size) > imagecheck.DRAWN_SIDE:
        return set()
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
    similarity = np.asarray(measure(first, second), dtype=np.float64).reshape(-1)
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


def _less_like_the_keeper(members: Sequence[Member], i: int, j: int) -> int:
    """Of members ``i`` < ``j``, the one to part from the kept picture (position 0): never
    the kept picture; else the less similar to it, the later one on a tie."""
    if i == 0:
        return j
    return i if members[i].similarity < members[j].similarity else j
