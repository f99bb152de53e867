"""Mark rules: which member of each group to keep, so that the rest can be acted on.

A rule ranks members (a lower key means "rather keep this one"). Rules are applied in order,
each one breaking the ties of the ones before it, and the suggested keeper's own order
(``dupfinder.core.grouping.keeper``: reference folder, no copy marks, more pixels, higher
quality, older...) breaks any tie left, never the path: with byte-identical copies all as
old, ``oldest`` keeps the original, not the alphabetically first ``(my notes)`` copy. So no
rule keeps a member that is worse than another on every criterion it names. A rule that does
not apply to a group's kind (``resolution`` for documents) leaves that group's keeper alone.
A reference-folder rule (``in:DIR``) also *protects* its files: every member inside a
reference folder is kept, never just the best of them.

A selection is the set of paths to act on; the kept files are the other members of each group.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from dupfinder.core.filesystem import fold_name
from dupfinder.core.model import Group, Kind, Member, ScanResult

__all__ = [
    "RULE_NAMES",
    "KeepRule",
    "Selection",
    "applies",
    "best_member",
    "kept_members",
    "parse_rule",
    "parse_rules",
    "reference_folder",
    "reference_folder_problem",
    "select",
    "select_group",
]

#: Paths to act on (trash, move, link...); every other member of a group is kept.
Selection = frozenset[str]

RuleKey = Callable[[Member], int | tuple[float, ...]]


@dataclass(frozen=True, slots=True)
class KeepRule:
    """One way to prefer a member; ``key`` is smaller for the member to keep."""

    name: str
    key: RuleKey = field(compare=False)
    protects: Callable[[Member], bool] | None = field(default=None, compare=False)
    #: the reference folder of an ``in:DIR`` rule, resolved (symlinks followed)
    folder: str | None = None
    #: the kinds of group the rule can rank (None: every kind)
    kinds: frozenset[Kind] | None = None
    #: a key that depends on the group (``quality``: a clip is ranked against the whole it
    #: is part of); used instead of ``key`` when set
    in_group: Callable[[Group], RuleKey] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.name

    def applies(self, kind: Kind) -> bool:
        """The rule can rank a group of ``kind`` (``resolution`` ranks only pictures)."""
        return self.kinds is None or kind in self.kinds


def _pixels(member: Member) -> int:
    if member.width is None or member.height is None:
        return 0
    return member.width * member.height


def _quality(member: Member) -> tuple[float, ...]:
    """The suggested keeper's quality criteria: for music and videos the whole recording
    before a part of it, lossless, then bitrate, length and (videos) pixels; for pictures
    pixels, lossless, bytes per pixel."""
    from dupfinder.core.grouping.keeper import quality_key  # see best_member

    return quality_key(member)


def _quality_in(group: Group) -> RuleKey:
    """:func:`_quality` against the group's longest recording (a clip is a part of it)."""
    from dupfinder.core.grouping.keeper import longest_of, quality_key

    longest = longest_of(group.members)
    return lambda member: quality_key(member, longest)


def _is_inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or in it, comparing names as the system does (without
    regard to case on Windows and macOS)."""
    try:
        return PurePath(fold_name(os.path.abspath(path))).is_relative_to(fold_name(folder))
    except ValueError:
        return False


def reference_folder(folder: str | os.PathLike[str]) -> KeepRule:
    """Keep every member inside ``folder`` (and prefer them over members outside it).

    The folder is resolved: given through a symlink, it still protects the files the scan
    listed under their real paths (both spellings count).
    """
    spelt = os.path.abspath(os.fspath(folder))
    root = os.path.realpath(spelt)

    def inside(member: Member) -> bool:
        return _is_inside(member.path, root) or (spelt != root and _is_inside(member.path, spelt))

    return KeepRule(f"in:{root}", key=lambda m: 0 if inside(m) else 1, protects=inside, folder=root)


def reference_folder_problem(
    rules: Sequence[KeepRule], roots: Sequence[str | os.PathLike[str]], members: Iterable[Member]
) -> str | None:
    """Why an ``in:DIR`` rule would protect nothing (a misspelt or outside folder), or None.

    With scan ``roots`` the folder must be one of them or inside one; without (a saved
    result), it must hold at least one file of the result.
    """
    folders = [rule.folder for rule in rules if rule.folder is not None]
    if not folders:
        return None
    paths = [m.path for m in members]
    real_roots = [os.path.realpath(os.fspath(r)) for r in roots]
    for folder in folders:
        if not os.path.isdir(folder):
            return f"in:{folder}: no such folder"
        if real_roots:
            if not any(_is_inside(folder, root) for root in real_roots):
                return f"in:{folder} is not inside a scanned folder ({', '.join(real_roots)})"
        elif not any(_is_inside(path, folder) for path in paths):
            return f"in:{folder} holds no file of the result, so it would protect nothing"
    return None


_SIMPLE_RULES: dict[str, KeepRule] = {
    rule.name: rule
    for rule in (
        KeepRule("oldest", key=lambda m: m.mtime_ns),
        KeepRule("newest", key=lambda m: -m.mtime_ns),
        KeepRule("largest", key=lambda m: -m.size),
        KeepRule("smallest", key=lambda m: m.size),
        KeepRule(
            "resolution", key=lambda m: -_pixels(m), kinds=frozenset({Kind.IMAGE, Kind.VIDEO})
        ),
        KeepRule(
            "quality",
            key=_quality,
            kinds=frozenset({Kind.IMAGE, Kind.AUDIO, Kind.VIDEO}),
            in_group=_quality_in,
        ),
        KeepRule("shortest-path", key=lambda m: len(m.path)),
    )
}

#: Names accepted by :func:`parse_rule`, besides ``in:DIR``.
RULE_NAMES: tuple[str, ...] = (*_SIMPLE_RULES, "in:DIR")


def parse_rule(text: str) -> KeepRule:
    """Turn ``oldest``, ``newest``, ``largest``, ``smallest``, ``resolution``, ``quality``,
    ``shortest-path`` or ``in:DIR`` into a rule; raises ValueError for anything else."""
    if not isinstance(text, str):
        raise TypeError(f"a rule name must be a string, got {type(text).__name__}")
    name = text.strip()
    if name.startswith("in:"):
        folder = name[3:]
        if not folder:
            raise ValueError("in: needs a folder, e.g. in:/photos/originals")
        return reference_folder(folder)
    rule = _SIMPLE_RULES.get(name.lower())
    if rule is None:
        raise ValueError(f"unknown keep rule {text!r}; choose from {', '.join(RULE_NAMES)}")
    return rule


def parse_rules(texts: Iterable[str]) -> tuple[KeepRule, ...]:
    return tuple(parse_rule(t) for t in texts)


def applies(group: Group, rules: Sequence[KeepRule]) -> bool:
    """Some rule chosen to rank (not only to protect a reference folder) can rank ``group``;
    False when none can, and the group then keeps its keeper."""
    chosen = [rule for rule in rules if rule.protects is None]
    return not chosen or any(rule.applies(group.kind) for rule in chosen)


def best_member(group: Group, rules: Sequence[KeepRule], current: Member | None = None) -> Member:
    """The member the rules rank first: the one to keep (and show as kept).

    Rules that cannot rank the group's kind are left out; when no chosen rule is left, the
    keeper stays ``current`` (default: the suggested keeper, the group's first member).
    Ties go by the suggested keeper's order (with the ``in:DIR`` folders as reference
    folders), then to the member listed first, never by path."""
    # here, not at the top: parsing ``--keep`` for ``--help`` must not load the grouping
    from dupfinder.core.grouping.keeper import longest_of, member_key

    if not applies(group, rules):
        return current if current is not None else group.members[0]
    ranking = [
        rule.in_group(group) if rule.in_group else rule.key
        for rule in rules
        if rule.applies(group.kind)
    ]
    folders = [rule.folder for rule in rules if rule.folder is not None]
    position = {id(m): i for i, m in enumerate(group.members)}
    longest = longest_of(group.members)
    return min(
        group.members,
        key=lambda m: (
            tuple(key(m) for key in ranking),
            member_key(m, folders, longest)[:-1],  # all but the path
            position[id(m)],
        ),
    )


def kept_members(
    group: Group, rules: Sequence[KeepRule], current: Member | None = None
) -> tuple[Member, ...]:
    """The members the rules keep: the best ranked one plus every protected one, in group order."""
    best = best_member(group, rules, current)
    protected = {m.path for m in group.members if any(r.protects and r.protects(m) for r in rules)}
    return tuple(m for m in group.members if m is best or m.path in protected)


def select_group(
    group: Group, rules: Sequence[KeepRule], current: Member | None = None
) -> Selection:
    """Paths of one group to act on: every member the rules do not keep."""
    keep = {m.path for m in kept_members(group, rules, current)}
    return frozenset(m.path for m in group.members if m.path not in keep)


def select(result: ScanResult, rules: Sequence[KeepRule]) -> Selection:
    """Paths to act on across the result; at least one member of every group is kept."""
    selection: set[str] = set()
    for group in result.groups:
        selection |= select_group(group, rules)
    return frozenset(selection)
