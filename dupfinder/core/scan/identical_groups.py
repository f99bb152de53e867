"""Byte-identical files in the result: every file in one group, each copy marked.

A set of identical files whose members are already in a near-duplicate group stays there
(its copies left out of that group join it beside their twin), and its members carry the
same ``content_hash``; a set that no group holds becomes a group of its own, shown as
identical. So no file is listed twice, and a group of documents or pictures says which of
its members are exact copies. Every member of an identical set shares one fingerprint: for
documents and pictures the one computed from the content, for other files the first 64 bits
of the content digest (what remembered decisions key on).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns
from dupfinder.core.grouping.keeper import regrouped, suggested
from dupfinder.core.model import FileEntry, Fingerprint, Group, Kind, Member
from dupfinder.core.scan.identical import IdenticalSet

__all__ = ["Copies", "copies_of", "merge"]


@dataclass(frozen=True, slots=True)
class Copies:
    """Files with the same bytes as members (distance 0, ``content_hash`` set) and their kind."""

    kind: Kind
    members: tuple[Member, ...]


def copies_of(
    found: IdenticalSet, files: FileColumns, outcomes: OutcomeColumns, by_suffix: bool = False
) -> Copies:
    """Members for one identical set; its kind is the one a member was fingerprinted as (or,
    ``by_suffix`` when nothing was fingerprinted, the one its files' names say)."""
    rows = list(found.rows)
    fingerprinted = [row for row in rows if outcomes.has_value[row]]
    named = {files.kind(row) for row in rows}
    if fingerprinted:
        source = fingerprinted[0]
        kind = files.kind(source)
        fingerprint = Fingerprint(kind, int(outcomes.values[source]))
        width, height = int(outcomes.widths[source]) or None, int(outcomes.heights[source]) or None
    else:  # other files, or documents and pictures that could not be read as such
        kind = named.pop() if by_suffix and len(named) == 1 else Kind.OTHER
        fingerprint = Fingerprint(kind, int.from_bytes(found.digest[:8], "big"))
        width = height = None
    digest = found.content_hash
    members = []
    for row in rows:
        entry = files.entry(row)
        members.append(
            Member(
                entry.path,
                entry.size,
                entry.mtime_ns,
                0,
                fingerprint,
                width,
                height,
                dev=entry.dev,
                ino=entry.ino,
                ctime_ns=entry.ctime_ns,
                links=entry.links,
                content_hash=digest,
            )
        )
    return Copies(kind, tuple(members))


def merge(
    groups: Sequence[Group], copies: Sequence[Copies], references: Sequence[str] = ()
) -> list[Group]:
    """``groups`` with identical members marked and joined by their copies, then new groups
    (in the order of ``copies``) for the identical sets no group holds, each led by the copy
    the suggested order keeps (a file in one of the scan's ``references`` folders first)."""
    home = {m.path: index for index, group in enumerate(groups) for m in group.members}
    content = {m.path: m.content_hash for c in copies for m in c.members}
    joining: dict[int, list[tuple[str, list[Member]]]] = {}
    alone: list[Group] = []
    for found in copies:
        homes = sorted({home[m.path] for m in found.members if m.path in home})
        if not homes:
            # the copy to keep: the suggested keeper's order (names, age...), as in a group
            alone.append(suggested(Group(found.kind, found.members), references))
            continue
        outside = [m for m in found.members if m.path not in home]
        if outside:
            beside = next(m.path for m in found.members if home.get(m.path) == homes[0])
            joining.setdefault(homes[0], []).append((beside, outside))
    merged = []
    for index, group in enumerate(groups):
        members = list(group.members)
        for twin_path, added in joining.get(index, []):
            at = next(i for i, m in enumerate(members) if m.path == twin_path)
            twin = members[at]
            members[at + 1 : at + 1] = [_placed(twin, m) for m in added]
        merged.append(regrouped(group, _marked(members, content)))
    return merged + alone


def _placed(template: Member, file: Member | FileEntry) -> Member:
    """``template`` (distance, fingerprint...) for another file with the same bytes."""
    return dataclasses.replace(
        template,
        path=file.path,
        size=file.size,
        mtime_ns=file.mtime_ns,
        dev=file.dev,
        ino=file.ino,
        ctime_ns=file.ctime_ns,
        links=file.links,
    )


def _marked(members: list[Member], content: dict[str, str | None]) -> tuple[Member, ...]:
    """Members with ``content_hash`` set where another member has the same bytes."""
    hashes = [content.get(m.path) for m in members]
    shared = Counter(h for h in hashes if h is not None)
    return tuple(
        dataclasses.replace(m, content_hash=h if h is not None and shared[h] >= 2 else None)
        for m, h in zip(members, hashes, strict=True)
    )
