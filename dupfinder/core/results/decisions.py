"""Remembered "not a duplicate" decisions, keyed by content fingerprints rather than paths.

A fingerprint (``kind:hex``) follows the content, so renaming or moving a file keeps its
decisions. Three kinds of decision:

- **pair**: these two contents are not duplicates of each other;
- **member**: this content is not a duplicate of any of these others (one file taken out of
  its group; the rest of the group stays);
- **group** (written by older versions and ``dupfinder ignore --group``): this whole set of
  contents is fine as it is; hide the group until a member with a fingerprint outside the set
  appears, then show the group again with every member.

How ``apply_decisions`` treats a group: every two members of a group are taken as linked (that
is what the user saw), an ignored pair removes the links between members with those two
fingerprints, and the group is split into the connected parts that are left; parts of one
file vanish. So ignoring A–B in {A, B} hides the group, in {A, B, C} keeps it whole (C still
matches both), and ignoring every link of A drops A alone. Then a part is hidden when all its
fingerprints belong to one ignored group.

Decisions are user data, kept in ``decisions.json`` in the user data directory (clearing the
fingerprint cache must not forget them), written atomically.
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from platformdirs import user_data_dir

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.model import Fingerprint, Group, Member, ScanResult
from dupfinder.core.results.reader import read_result_text

__all__ = [
    "Decision",
    "DecisionKind",
    "DecisionStore",
    "Decisions",
    "apply_decisions",
    "default_decisions_path",
    "fingerprint_key",
]

STORE_VERSION = 2
#: Versions this module reads (1 had no member decisions).
READABLE_VERSIONS = frozenset({1, 2})


class DecisionKind(enum.StrEnum):
    PAIR = "pair"
    MEMBER = "member"
    GROUP = "group"


def default_decisions_path() -> Path:
    return Path(user_data_dir("dupfinder", appauthor=False)) / "decisions.json"


def fingerprint_key(fingerprint: Fingerprint) -> str:
    """``kind:hex``, the stable text a decision is keyed by."""
    return str(fingerprint)


@dataclass(frozen=True, slots=True)
class Decision:
    """One remembered decision; ``paths`` only say what the user looked at, for listing
    (the first is the file taken out, for a member decision). ``against`` holds the other
    contents of a member decision."""

    kind: DecisionKind
    fingerprints: frozenset[str]
    time: str = ""
    paths: tuple[str, ...] = ()
    against: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", DecisionKind(self.kind))

    def to_dict(self) -> dict[str, Any]:
        raw: dict[str, Any] = {
            "type": str(self.kind),
            "fingerprints": sorted(self.fingerprints),
            "time": self.time,
            "paths": list(self.paths),
        }
        if self.against:
            raw["against"] = sorted(self.against)
        return raw

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Decision:
        try:
            kind = DecisionKind(raw["type"])
        except ValueError:
            raise ValueError(f"unknown decision type {raw['type']!r}") from None
        prints = _keys(raw["fingerprints"])
        against = _keys(raw.get("against", ()))
        return cls(kind, prints, str(raw.get("time", "")), tuple(raw.get("paths", ())), against)

    def pairs(self) -> frozenset[frozenset[str]]:
        """The links this decision breaks (none for a group decision, which hides)."""
        if self.kind is DecisionKind.PAIR:
            return frozenset({self.fingerprints})
        if self.kind is DecisionKind.MEMBER:
            return frozenset(
                frozenset((own, other))
                for own in self.fingerprints
                for other in self.against
                if other != own
            )
        return frozenset()


def _keys(values: Iterable[Any]) -> frozenset[str]:
    """Fingerprint texts, each checked (``kind:hex``)."""
    keys = frozenset(str(f) for f in values)
    for key in keys:
        kind_text, _, hex_text = key.partition(":")
        Fingerprint.from_hex(kind_text, hex_text)
    return keys


@dataclass(frozen=True, slots=True)
class Decisions:
    """All decisions, as values: what ``apply_decisions`` needs."""

    entries: tuple[Decision, ...] = ()
    _pairs: frozenset[frozenset[str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pairs = frozenset(pair for d in self.entries for pair in d.pairs())
        object.__setattr__(self, "_pairs", pairs)

    def ignores_pair(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self._pairs

    def ignored_groups(self) -> tuple[frozenset[str], ...]:
        return tuple(d.fingerprints for d in self.entries if d.kind is DecisionKind.GROUP)

    def __len__(self) -> int:
        return len(self.entries)


def _now() -> str:
    from datetime import datetime  # only when a decision is written, not at every scan

    return datetime.now().astimezone().isoformat(timespec="seconds")


class DecisionStore:
    """The decisions file: load, add, list, clear. Each change rewrites it atomically."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_decisions_path()

    def load(self) -> Decisions:
        """Every stored decision; a missing file is no decision, a damaged one is an error."""
        try:
            data = json.loads(read_result_text(self.path))  # a regular file, bounded
        except FileNotFoundError:
            return Decisions()
        except (OSError, ValueError) as exc:
            raise ResultFormatError(f"{self.path}: unreadable decisions file ({exc})") from exc
        if not isinstance(data, dict) or data.get("version") not in READABLE_VERSIONS:
            raise ResultFormatError(f"{self.path}: not a dupfinder decisions file")
        try:
            return Decisions(tuple(Decision.from_dict(raw) for raw in data["decisions"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ResultFormatError(f"{self.path}: malformed decision ({exc})") from exc

    def _save(self, decisions: Decisions) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"version": STORE_VERSION, "decisions": [d.to_dict() for d in decisions.entries]}
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        with tmp.open("w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False, indent=1)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)

    def _add(self, decision: Decision) -> Decision:
        current = self.load()
        if any(
            (d.kind, d.fingerprints, d.against)
            == (decision.kind, decision.fingerprints, decision.against)
            for d in current.entries
        ):
            return decision
        self._save(Decisions((*current.entries, decision)))
        return decision

    def ignore_pair(self, a: Member, b: Member) -> Decision:
        """Remember that these two contents are not duplicates."""
        if a.fingerprint.kind is not b.fingerprint.kind:
            raise ValueError("a text and an image are never in one group")
        prints = frozenset((fingerprint_key(a.fingerprint), fingerprint_key(b.fingerprint)))
        return self._add(Decision(DecisionKind.PAIR, prints, _now(), (a.path, b.path)))

    def ignore_member(self, member: Member, group: Group) -> Decision:
        """Take ``member`` out of ``group``: its content is a duplicate of none of the others."""
        own = fingerprint_key(member.fingerprint)
        others = frozenset(fingerprint_key(m.fingerprint) for m in group.members) - {own}
        if not others:
            raise ValueError("every file of this group has the same content fingerprint")
        paths = (member.path, *(m.path for m in group.members if m.path != member.path))
        return self._add(Decision(DecisionKind.MEMBER, frozenset({own}), _now(), paths, others))

    def ignore_group(self, group: Group) -> Decision:
        """Hide this group until a member with a new fingerprint joins it."""
        prints = frozenset(fingerprint_key(m.fingerprint) for m in group.members)
        paths = tuple(m.path for m in group.members)
        return self._add(Decision(DecisionKind.GROUP, prints, _now(), paths))

    def list(self) -> tuple[Decision, ...]:
        return self.load().entries

    def remove(self, index: int) -> Decision:
        """Forget one decision by its position in ``list()``."""
        entries = list(self.load().entries)
        if not 0 <= index < len(entries):
            raise ValueError(f"no decision number {index}")
        removed = entries.pop(index)
        self._save(Decisions(tuple(entries)))
        return removed

    def clear(self) -> int:
        """Forget every decision; returns how many there were."""
        count = len(self.load())
        self._save(Decisions())
        return count


def _parts(members: Sequence[Member], decisions: Decisions) -> list[list[int]]:
    """Connected parts of the complete graph over members, minus ignored pairs."""
    keys = [fingerprint_key(m.fingerprint) for m in members]
    parent = list(range(len(members)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(members)):
        for j in range(i + 1, len(members)):
            if not decisions.ignores_pair(keys[i], keys[j]):
                parent[find(j)] = find(i)
    parts: dict[int, list[int]] = {}
    for i in range(len(members)):
        parts.setdefault(find(i), []).append(i)
    return [p for p in parts.values() if len(p) >= 2]


def _regroup(group: Group, indexes: Iterable[int]) -> Group:
    """A part of a group; its first member is the representative, distances measured to it."""
    members = [group.members[i] for i in indexes]
    head = members[0].fingerprint
    return Group(
        group.kind,
        tuple(replace(m, distance=m.fingerprint.distance(head)) for m in members),
    )


def _hidden(group: Group, ignored: tuple[frozenset[str], ...]) -> bool:
    keys = {fingerprint_key(m.fingerprint) for m in group.members}
    return any(keys <= prints for prints in ignored)


def apply_decisions(result: ScanResult, decisions: Decisions) -> ScanResult:
    """The result the user should see: ignored pairs split groups, ignored groups hidden."""
    if not decisions.entries:
        return result
    ignored = decisions.ignored_groups()
    groups: list[Group] = []
    for group in result.groups:
        parts = _parts(group.members, decisions)
        whole = len(parts) == 1 and len(parts[0]) == len(group.members)
        for part in parts:
            candidate = group if whole else _regroup(group, part)
            if not _hidden(candidate, ignored):
                groups.append(candidate)
    return replace(result, groups=tuple(groups))
