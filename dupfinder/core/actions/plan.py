"""Plan what to do with duplicates (trash, move, replace with links, delete): a pure step.

``make_plan`` says which files are acted on, which are kept and how many bytes that frees,
without touching the disk, and refuses (``ActionError``) to act on every member of a group
unless forced. Moves keep each file's path relative to the deepest folder holding every
planned file (or every scan root when given); two planned files never share a destination.
``compare_link_contents`` is the one step that reads files: a link makes two names share one
content, so before anyone confirms a link action the plan names every file whose bytes differ
from the file it would link to. Carrying a plan out is ``dupfinder.core.actions.apply``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from dupfinder.core.actions.fileops import same_bytes
from dupfinder.core.errors import ActionError
from dupfinder.core.model import ActionKind, Group, Member, ScanResult
from dupfinder.core.wording import format_size

__all__ = [
    "Action",
    "ActionKind",
    "GroupPlan",
    "Plan",
    "PlannedFile",
    "compare_link_contents",
    "make_plan",
]


@dataclass(frozen=True, slots=True)
class Action:
    """What to do with the selected files; ``folder`` is the destination of a move."""

    kind: ActionKind = ActionKind.TRASH
    folder: str | None = None

    def __post_init__(self) -> None:
        if (self.kind is ActionKind.MOVE) != (self.folder is not None):
            raise ValueError("a folder is needed for a move, and only for a move")

    @classmethod
    def parse(cls, text: str) -> Action:
        """``trash``, ``move:DIR``, ``hardlink``, ``symlink`` or ``delete``."""
        name, _, folder = text.partition(":")
        try:
            kind = ActionKind(name.strip().lower())
        except ValueError:
            raise ValueError(
                f"unknown action {text!r}; choose trash, move:DIR, hardlink, symlink or delete"
            ) from None
        if kind is ActionKind.MOVE:
            if not folder:
                raise ValueError("move needs a folder, e.g. move:/tmp/duplicates")
            return cls(kind, os.path.abspath(folder))
        if folder:
            raise ValueError(f"{kind} takes no folder")
        return cls(kind)

    def __str__(self) -> str:
        return f"move:{self.folder}" if self.folder else str(self.kind)


@dataclass(frozen=True, slots=True)
class PlannedFile:
    """One file to act on; ``dest`` for a move; for links, ``kept`` is the target: the
    group's first kept member in group order (the representative when it is kept)."""

    member: Member
    group: int
    dest: str | None = None
    kept: Member | None = None

    @property
    def path(self) -> str:
        return self.member.path


@dataclass(frozen=True, slots=True)
class GroupPlan:
    index: int
    group: Group
    act: tuple[PlannedFile, ...]
    keep: tuple[Member, ...]

    @property
    def bytes(self) -> int:
        return sum(f.member.size for f in self.act)


@dataclass(frozen=True, slots=True)
class Plan:
    """What ``apply`` will do; computed without touching the disk.

    For links, ``different`` names the files whose bytes differ from their link target
    (``compare_link_contents`` fills it); apply replaces those only when ``allow_different``
    is set, and then sends each original to the trash first so undo can bring it back.
    """

    action: Action
    groups: tuple[GroupPlan, ...]
    force_all: bool = False
    root: str | None = None
    different: tuple[str, ...] = ()
    contents_compared: bool = False
    allow_different: bool = False

    @property
    def files(self) -> tuple[PlannedFile, ...]:
        return tuple(f for g in self.groups for f in g.act)

    @property
    def kept(self) -> tuple[Member, ...]:
        return tuple(m for g in self.groups for m in g.keep)

    @property
    def bytes_reclaimed(self) -> int:
        return sum(g.bytes for g in self.groups)

    @property
    def empty(self) -> bool:
        return not self.files

    def confirmation_text(self) -> str:
        """One paragraph for a confirmation dialog or the CLI, saying what cannot be undone."""
        files, kept = len(self.files), len(self.kept)
        size = format_size(self.bytes_reclaimed)
        groups = sum(1 for g in self.groups if g.act)
        what = (
            f"{files:,} file{'s' * (files != 1)} ({size}) in {groups:,} group{'s' * (groups != 1)}"
        )
        kind = self.action.kind
        if kind is ActionKind.TRASH:
            text = f"Send {what} to the trash. Undo can bring them back while the trash is kept."
        elif kind is ActionKind.MOVE:
            text = (
                f"Move {what} to {self.action.folder}, keeping their paths relative to "
                f"{self.root}. Nothing is overwritten: a taken name gets a ' (1)' suffix."
            )
        elif kind is ActionKind.DELETE:
            text = f"PERMANENTLY DELETE {what}. This cannot be undone."
        else:
            link = "hard links" if kind is ActionKind.HARDLINK else "symbolic links"
            text = (
                f"Replace {what} with {link} to the kept file of their group "
                "(only files with exactly the same bytes)."
            )
            text += self._difference_text()
        text += f" {kept:,} file{'s' * (kept != 1)} kept."
        if self.force_all:
            text += " Every member of a group may be acted on (forced)."
        return text

    def _difference_text(self) -> str:
        if not self.contents_compared:
            return (
                " Each file's bytes are compared with the kept file's right before it is replaced."
            )
        count = len(self.different)
        if not count:
            return " Every one has the same bytes as its kept file."
        names = ", ".join(self.different[:5]) + (", ..." if count > 5 else "")
        these = f"{count:,} of them differ from the kept file ({names})"
        if self.allow_different:
            return (
                f" {these}: you allowed replacing them; each original goes to the trash first, "
                "so undo can bring it back."
            )
        return f" {these}: they will be left alone unless you allow different content."


def compare_link_contents(plan: Plan, *, allow_different: bool = False) -> Plan:
    """The plan with ``different`` filled: files whose bytes differ from their link target
    (or that cannot be read to tell). Only link plans read anything."""
    if not plan.action.kind.links:
        return plan
    different = []
    for item in plan.files:
        if item.kept is None:
            continue
        try:
            if not same_bytes(item.path, item.kept.path):
                different.append(item.path)
        except OSError:
            different.append(item.path)
    return dataclasses.replace(
        plan,
        different=tuple(different),
        contents_compared=True,
        allow_different=allow_different,
    )


def _common_root(paths: Iterable[str], roots: Sequence[str | os.PathLike[str]]) -> str | None:
    folders = [os.path.abspath(os.fspath(r)) for r in roots]
    folders += [os.path.dirname(os.path.abspath(p)) for p in paths]
    if not folders:
        return None
    try:
        return os.path.commonpath(folders)
    except ValueError:  # paths on different drives
        return None


def _move_dest(path: str, folder: str, root: str | None) -> str:
    absolute = os.path.abspath(path)
    if root is not None:
        relative = os.path.relpath(absolute, root)
    else:
        pure = PurePath(absolute)
        relative = str(pure.relative_to(pure.anchor))
    return os.path.join(folder, relative)


def make_plan(
    result: ScanResult,
    selection: Iterable[str],
    action: Action | None = None,
    *,
    force_all: bool = False,
    roots: Sequence[str | os.PathLike[str]] = (),
) -> Plan:
    """The plan for acting on ``selection`` (paths; those not in the result are ignored).

    Raises ActionError when a group would lose every member and ``force_all`` is false, and
    always when a link action has no kept file to link to.
    """
    action = action or Action()
    chosen = frozenset(selection)
    picked = [
        (index, group, [m for m in group.members if m.path in chosen])
        for index, group in enumerate(result.groups)
    ]
    whole = [index + 1 for index, group, act in picked if len(act) == len(group.members)]
    if whole and action.kind.links:
        raise ActionError(
            f"a link needs a kept file, but every member is selected in group(s) "
            f"{', '.join(map(str, whole))}"
        )
    if whole and not force_all:
        raise ActionError(
            f"every member of group(s) {', '.join(map(str, whole))} is selected; keep at least "
            "one file per group or force it explicitly"
        )
    root = None
    if action.kind is ActionKind.MOVE:
        root = _common_root((m.path for _, _, act in picked for m in act), roots)
    groups = []
    taken: set[str] = set()
    for index, group, act in picked:
        keep = tuple(m for m in group.members if m.path not in chosen)
        link_to = keep[0] if keep and action.kind.links else None
        planned = tuple(
            PlannedFile(
                member=m,
                group=index,
                dest=_unique(_move_dest(m.path, action.folder, root), taken)
                if action.folder
                else None,
                kept=link_to,
            )
            for m in act
        )
        groups.append(GroupPlan(index, group, planned, keep))
    return Plan(action, tuple(groups), force_all, root)


def _unique(dest: str, taken: set[str]) -> str:
    """``dest``, or ``dest (1)``, ``dest (2)``... when another planned file has it (apply
    adds a suffix again if the name is taken on the disk, and reports the name it used)."""
    stem, suffix = os.path.splitext(dest)
    number = 0
    candidate = dest
    while candidate in taken:
        number += 1
        candidate = f"{stem} ({number}){suffix}"
    taken.add(candidate)
    return candidate
