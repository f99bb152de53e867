"""The marks (files to act on) and the keeper of each group, as plain state.

The keeper is the member a group keeps: the one drawn in bold. It starts as the suggested one
(the group's first member), follows a mark rule (the member the rule keeps), and the user can
make any member the keeper. Protected members (in reference folders) are never marked.
Marked bytes are a running total, so the status bar never sums 100,000 sizes per click.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from dupfinder.core.model import Group, Member

__all__ = ["MarkSet"]


class MarkSet:
    """Marked paths, their total size, and the chosen keeper of each group."""

    def __init__(self) -> None:
        self._marked: set[str] = set()
        self._bytes = 0
        self._size_of: Mapping[str, int] = {}
        self._protected: frozenset[str] = frozenset()
        self._keepers: dict[int, str] = {}  # group position -> path kept
        self._group_of: Mapping[str, int] = {}

    def load(
        self,
        size_of: Mapping[str, int],
        group_of: Mapping[str, int],
        protected: frozenset[str],
        marks: Iterable[str] = (),
        keepers: Iterable[str] = (),
    ) -> None:
        """A new result: marks and keepers (paths) carried over where they still apply."""
        self._size_of = size_of
        self._group_of = group_of
        self._protected = protected
        self._keepers = {}
        for path in keepers:
            g = group_of.get(path)
            if g is not None:
                self._keepers[g] = path
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

    def set_keepers(self, kept: Mapping[int, str]) -> None:
        """Keepers chosen by a rule or by the user (group position -> path)."""
        self._keepers.update(kept)

    def make_keeper(self, g: int, group: Group, path: str) -> set[str]:
        """Keep ``path`` in its group: it is unmarked and, when the group had marks, every
        other member that can be marked is marked instead. Returns the changed paths."""
        self._keepers[g] = path
        others = [m.path for m in group.members if m.path != path]
        had_marks = any(p in self._marked for p in others) or path in self._marked
        wanted = (self._marked - {path}) | (set(others) if had_marks else set())
        return self.replace(wanted)
