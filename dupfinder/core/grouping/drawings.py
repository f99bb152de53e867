"""Two small drawings of one size are never one picture (``image.check.drawn_apart``).

The check compares pictures by blocks of a 32-pixel thumbnail, so two icons of one theme
that differ in a few of their own pixels (a battery's level, a face's mouth, a speaker's
waves) pass as alike, and the alignment it finds reads the moved part as a crop or a
border. What tells them apart is that no edit a person makes explains the difference: their
members leave the group once each member's edits against the kept picture are named.
"""

from __future__ import annotations

from collections.abc import Iterable

from dupfinder.core.grouping.keeper import regrouped
from dupfinder.core.image import check as imagecheck
from dupfinder.core.model import Group, Member

__all__ = ["other_drawings_removed", "size_of"]


def size_of(member: Member) -> tuple[int, int]:
    """A picture member's upright stored size ((0, 0) where it is not known)."""
    return (member.width or 0, member.height or 0)


def other_drawings_removed(groups: list[Group], pictures: Iterable[int]) -> list[Group]:
    """``groups`` with every member of the picture groups ``pictures`` (indices) that is
    another drawing than its kept picture removed; a group left with its keeper alone is
    gone, one that lost members has its keeper's reasons named again."""
    removed: set[int] = set()
    for index in pictures:
        group = groups[index]
        keeper = group.members[0]
        size = size_of(keeper)
        kept = [
            m
            for m in group.members[1:]
            if not imagecheck.drawn_apart(m.similarity, m.edits, size, size_of(m))
        ]
        if len(kept) + 1 == len(group.members):
            continue
        if kept:
            groups[index] = regrouped(group, [keeper, *kept])
        else:
            removed.add(index)
    return [group for index, group in enumerate(groups) if index not in removed]
