"""The marks (files to act on) and the keeper of each group, as plain state.

The keeper is the member a group keeps: the one drawn in bold. It starts as the suggested one
(the group's first member), follows a mark rule (the member the rule keeps), and the user can
make any member the keeper; :meth:`MarkSet.suggest` brings the suggested one back. Each
chosen keeper remembers who chose it (:class:`Chosen`), so the list can say why it is kept.
Protected members (in reference folders) are never marked. Marked bytes are a running
total, so the status bar never sums 100,000 sizes per click.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dupfinder.core.model import Group, Member
from dupfinder.core.scan.similar import Measure

__all__ = ["Chosen", "MarkSet"]


@dataclass(frozen=True, slots=True)
class Chosen:
    """Who chose a group's keeper: a keep rule (its name), or the person (``rule`` None)."""

    rule: str | None = None


class MarkSet:
    """Marked paths, their total size, and the chosen keeper of each group."""

    def __init__(self) -> None:
        self._marked: set[str] = set()
        self._bytes = 0
        self._size_of: Mapping[str, int] = {}
        self._protected: frozenset[str] = frozenset()
        self._keepers: dict[int, str] = {}  # group position -> path kept
        self._chosen: dict[int, Chosen] = {}  # group position -> who chose its keeper
        # group position -> each member measured against a keeper other than the suggested
        # one (the scan measured against the suggested one), by path
        self._measured: dict[int, dict[str, Measure]] = {}
        self._group_of: Mapping[str, int] = {}

    def load(
        self,
        size_of: Mapping[str, int],
        group_of: Mapping[str, int],
        protected: frozenset[str],
        marks: Iterable[str] = (),
        keepers: Iterable[str] = (),
        chosen: Mapping[str, Chosen] | None = None,
    ) -> None:
        """A new result: marks and keepers (paths) carried over where they still apply;
        ``chosen`` says who chose each kept path (default: the person)."""
        self._size_of = size_of
        self._group_of = group_of
        self._protected = protected
        self._keepers = {}
        self._chosen = {}
        self._measured = {}
        for path in keepers:
            g = group_of.get(path)
            if g is not None:
                self._keepers[g] = path
                self._chosen[g] = (chosen or {}).get(path, Chosen())
        self.replace(marks)

    # --- reading ---------------------------------------------------------------------------

    def paths(self) -> frozenset[str]:
        return frozenset(self._marked)

    def __contains__(self, path: object) -> bool:
        return path in self._marked

    def __len__(self) -> int:
        return len(self._marked)

    @property
    def bytes(self) -> int:
        return self._bytes

    def protected(self, path: str) -> bool:
        return path in self._protected

    def keeper(self, g: int, group: Group) -> Member:
        """The member group ``g`` keeps (bold in the list, left in the comparison)."""
        path = self._keepers.get(g)
        if path is not None:
            for member in group.members:
                if member.path == path:
                    return member
        return group.members[0]

    def keeper_paths(self) -> tuple[str, ...]:
        return tuple(self._keepers.values())

    def measured(self, g: int, path: str) -> Measure | None:
        """``path`` measured against group ``g``'s keeper, when that is not the suggested
        one and the measuring is done (None otherwise)."""
        return self._measured.get(g, {}).get(path)

    def measuring(self, g: int) -> bool:
        """Group ``g`` keeps another file than the suggested one and is not measured yet."""
        return g in self._keepers and g not in self._measured

    def unmeasured(self, groups: Sequence[Group]) -> list[int]:
        """Positions of groups that keep another file than the suggested one and have not
        been measured against it."""
        return [
            g
            for g, path in self._keepers.items()
            if g not in self._measured and path != groups[g].members[0].path
        ]

    def set_measured(self, g: int, keeper: str, measures: Iterable[Measure]) -> bool:
        """Measures against ``keeper`` for group ``g``; False (and kept nowhere) when the
        group keeps another file by now."""
        if self._keepers.get(g) != keeper:
            return False
        self._measured[g] = {m.path: m for m in measures}
        return True

    def chosen(self, g: int) -> Chosen | None:
        """Who chose group ``g``'s keeper; None while it keeps the suggested one."""
        return self._chosen.get(g)

    def chosen_by_path(self) -> dict[str, Chosen]:
        """Who chose each kept path (to carry over with :meth:`keeper_paths`)."""
        return {self._keepers[g]: chosen for g, chosen in self._chosen.items()}

    # --- changing --------------------------------------------------------------------------

    def replace(self, paths: Iterable[str]) -> set[str]:
        """Mark exactly ``paths`` (those in the result and not protected); returns the change."""
        wanted = (set(paths) & self._size_of.keys()) - self._protected
        changed = wanted ^ self._marked
        self._marked = wanted
        self._bytes = sum(map(self._size_of.__getitem__, wanted))
        return changed

    def set_mark(self, path: str, marked: bool) -> bool:
        """Mark or unmark one path; False when it cannot change (protected or unknown)."""
        if path in self._protected or path not in self._size_of:
            return False
        if marked and path not in self._marked:
            self._marked.add(path)
            self._bytes += self._size_of[path]
        elif not marked and path in self._marked:
            self._marked.discard(path)
            self._bytes -= self._size_of[path]
        return True

    def toggle(self, path: str) -> bool:
        return self.set_mark(path, path not in self._marked)

    def within(self, groups: Sequence[Group], paths: Iterable[str]) -> set[str]:
        """Replace the marks inside ``groups`` by ``paths`` (marks elsewhere stay)."""
        inside = {m.path for g in groups for m in g.members}
        return self.replace((self._marked - inside) | (set(paths) & inside))

    def set_keepers(self, kept: Mapping[int, str], rule: str | None = None) -> None:
        """Keepers chosen by a rule (its name) or by the user (group position -> path)."""
        for g, path in kept.items():
            if self._keepers.get(g) != path:
                self._measured.pop(g, None)
        self._keepers.update(kept)
        self._chosen.update((g, Chosen(rule)) for g in kept)

    def suggest(self, positions: Iterable[int]) -> set[int]:
        """Groups at ``positions`` keep their suggested file again; returns those whose
        keeper changed."""
        changed = set()
        for g in positions:
            if self._keepers.pop(g, None) is not None:
                changed.add(g)
            self._chosen.pop(g, None)
            self._measured.pop(g, None)
        return changed

    def make_keeper(self, g: int, group: Group, path: str) -> set[str]:
        """Keep ``path`` in its group: it is unmarked and, when the group had marks, every
        other member that can be marked is marked instead. Returns the changed paths."""
        if self._keepers.get(g) != path:
            self._measured.pop(g, None)
        self._keepers[g] = path
        self._chosen[g] = Chosen()
        others = [m.path for m in group.members if m.path != path]
        had_marks = any(p in self._marked for p in others) or path in self._marked
        wanted = (self._marked - {path}) | (set(others) if had_marks else set())
        return self.replace(wanted)
