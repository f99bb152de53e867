"""Plan, then apply, what to do with duplicates: trash, move, replace with links, delete.

``make_plan`` is pure: from a result and a selection it says which files are acted on, which
are kept and how many bytes that frees, and it refuses (``ActionError``) to act on every member
of a group unless forced. ``apply`` then works file by file and never trusts the scan: each
file is re-statted first and skipped when its size or mtime changed; a group whose kept files
all changed or vanished is skipped whole (acting on it could remove the last copy). Every
problem is recorded per file and the run carries on; "done" is only reported for a file
verified gone, moved or linked. Every step is journalled before and after it runs (see
``dupfinder.core.journal``), so undo and crash recovery know what happened.

Moves keep each file's path relative to the deepest folder holding every planned file (or
every scan root when given) and never overwrite: a taken name gets a `` (1)``, `` (2)``...
suffix, and the name used is journalled. Links are made under a temporary name in the same
folder, checked to point at the kept file, then renamed over the original, so the original is
never removed before its replacement exists.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import secrets
import stat
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from send2trash import send2trash
from send2trash.exceptions import TrashPermissionError

from dupfinder.core.errors import ActionError
from dupfinder.core.journal import (
    ACTING,
    Journal,
    JournalSession,
    find_trash_entry,
    move_no_overwrite,
    os_error_reason,
    sha256_file,
)
from dupfinder.core.model import (
    Group,
    Member,
    Progress,
    ProgressCallback,
    ScanResult,
    no_progress,
)
from dupfinder.core.report import format_size

__all__ = [
    "Action",
    "ActionKind",
    "ApplyReport",
    "FileOutcome",
    "GroupPlan",
    "Plan",
    "PlannedFile",
    "apply",
    "make_plan",
]

CHANGED = "changed since the scan"


class ActionKind(enum.StrEnum):
    TRASH = "trash"
    MOVE = "move"
    HARDLINK = "hardlink"
    SYMLINK = "symlink"
    DELETE = "delete"

    @property
    def links(self) -> bool:
        return self in (ActionKind.HARDLINK, ActionKind.SYMLINK)


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
    """What ``apply`` will do; computed without touching the disk."""

    action: Action
    groups: tuple[GroupPlan, ...]
    force_all: bool = False
    root: str | None = None

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
        what = f"{files} file{'s' * (files != 1)} ({size}) in {groups} group{'s' * (groups != 1)}"
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
            differ = sum(
                1
                for f in self.files
                if f.kept is not None
                and (f.kept.size != f.member.size or f.kept.fingerprint != f.member.fingerprint)
            )
            text = (
                f"Replace {what} with {link} to the kept file of their group. "
                "Undo can restore only files whose bytes equal the kept file's."
            )
            if differ:
                text += (
                    f" {differ} of them differ from the kept file: their own content will be lost."
                )
        text += f" {kept} file{'s' * (kept != 1)} kept."
        if self.force_all:
            text += " Every member of a group may be acted on (forced)."
        return text


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
    for index, group, act in picked:
        keep = tuple(m for m in group.members if m.path not in chosen)
        link_to = keep[0] if keep and action.kind.links else None
        planned = tuple(
            PlannedFile(
                member=m,
                group=index,
                dest=_move_dest(m.path, action.folder, root) if action.folder else None,
                kept=link_to,
            )
            for m in act
        )
        groups.append(GroupPlan(index, group, planned, keep))
    return Plan(action, tuple(groups), force_all, root)


# ---------------------------------------------------------------- apply


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """The fate of one planned file: ``done``, ``skipped`` or ``failed``, and why."""

    path: str
    status: str
    reason: str | None = None
    dest: str | None = None
    size: int = 0


@dataclass(frozen=True, slots=True)
class ApplyReport:
    session: str
    action: Action
    outcomes: tuple[FileOutcome, ...]
    cancelled: bool = False

    def _with(self, status: str) -> tuple[FileOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status == status)

    @property
    def done(self) -> tuple[FileOutcome, ...]:
        return self._with("done")

    @property
    def skipped(self) -> tuple[FileOutcome, ...]:
        return self._with("skipped")

    @property
    def failed(self) -> tuple[FileOutcome, ...]:
        return self._with("failed")

    @property
    def ok(self) -> bool:
        """True only when every planned file was acted on and verified."""
        return all(o.status == "done" for o in self.outcomes) and not self.cancelled

    @property
    def bytes_done(self) -> int:
        return sum(o.size for o in self.done)


class _SkipError(Exception):
    """Leave this file alone, for the reason given."""


class _FailError(Exception):
    """The operation did not happen (or could not be verified), for the reason given."""


def _matches(st: os.stat_result, member: Member) -> bool:
    return (
        stat.S_ISREG(st.st_mode) and st.st_size == member.size and st.st_mtime_ns == member.mtime_ns
    )


def _restat(member: Member, what: str = "") -> os.stat_result:
    try:
        st = os.lstat(member.path)
    except FileNotFoundError:
        raise _SkipError(f"{what}vanished") from None
    except OSError as exc:
        raise _FailError(f"{what}{os_error_reason(exc)}") from exc
    if not _matches(st, member):
        raise _SkipError(f"{what}{CHANGED}")
    return st


def _kept_in_place(group: GroupPlan) -> bool:
    for member in group.keep:
        with contextlib.suppress(OSError):
            if _matches(os.lstat(member.path), member):
                return True
    return False


def _free_name(dest: str) -> str:
    if not os.path.lexists(dest):
        return dest
    stem, suffix = os.path.splitext(dest)
    number = 1
    while os.path.lexists(f"{stem} ({number}){suffix}"):
        number += 1
    return f"{stem} ({number}){suffix}"


def _trash_reason(exc: OSError) -> str:
    if isinstance(exc, TrashPermissionError) or exc.errno is None:
        return "no trash on that volume"
    return os_error_reason(exc)


class _Applier:
    """Carries the state of one apply run (journal, cached digests) between files."""

    def __init__(self, plan: Plan, log: JournalSession) -> None:
        self.plan = plan
        self.log = log
        self.kind = plan.action.kind
        self.digests: dict[str, str] = {}

    def run(self, seq: int, item: PlannedFile) -> FileOutcome:
        member = item.member
        base = {"seq": seq, "op": str(self.kind), "path": member.path, "group": item.group}
        try:
            st = _restat(member)
            extra = self._prepare(item, st)
        except (_SkipError, _FailError) as problem:
            status = "skipped" if isinstance(problem, _SkipError) else "failed"
            self.log.write("skipped", **base, reason=str(problem))
            return FileOutcome(member.path, status, str(problem))
        intent = {**base, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        self.log.write("intent", **intent, dev=st.st_dev, ino=st.st_ino, **extra)
        try:
            details = self._act(item, st, extra)
        except (_SkipError, _FailError) as problem:
            status = "skipped" if isinstance(problem, _SkipError) else "failed"
            self.log.write(status, **base, reason=str(problem))
            return FileOutcome(member.path, status, str(problem))
        self.log.write("done", **base, **details)
        return FileOutcome(member.path, "done", None, details.get("dest"), member.size)

    def _digest(self, path: str) -> str:
        if path not in self.digests:
            self.digests[path] = sha256_file(path)
        return self.digests[path]

    def _prepare(self, item: PlannedFile, st: os.stat_result) -> dict[str, str | int | bool]:
        """Checks and names needed before the intent is written."""
        if self.kind is ActionKind.MOVE:
            if item.dest is None:
                raise _FailError("no destination was planned")
            return {"dest": _free_name(item.dest)}
        if not self.kind.links:
            return {}
        if item.kept is None:
            raise _FailError("no kept file to link to")
        kept = _restat(item.kept, "the kept file ")
        if (kept.st_dev, kept.st_ino) == (st.st_dev, st.st_ino):
            raise _SkipError("already a hard link to the kept file")
        folder, name = os.path.split(item.path)
        try:
            digest = self._digest(item.path)
            identical = digest == self._digest(item.kept.path)
        except OSError as exc:
            raise _FailError(os_error_reason(exc)) from exc
        return {
            "kept": item.kept.path,
            "kept_ino": kept.st_ino,
            "tmp": os.path.join(folder, f".{name}.dupfinder-{secrets.token_hex(4)}.tmp"),
            "sha256": digest,
            "identical": identical,
        }

    def _act(
        self, item: PlannedFile, st: os.stat_result, extra: dict[str, str | int | bool]
    ) -> dict[str, str | None]:
        path = item.path
        try:
            if self.kind is ActionKind.TRASH:
                return self._trash(item.member, st)
            if self.kind is ActionKind.MOVE:
                return self._move(path, str(extra["dest"]), st)
            if self.kind.links:
                self._link(item.member, str(extra["kept"]), str(extra["tmp"]), extra)
                return {}
            os.unlink(path)
        except OSError as exc:
            raise _FailError(os_error_reason(exc)) from exc
        if os.path.lexists(path):
            raise _FailError("still in place after deleting")
        return {}

    def _trash(self, member: Member, st: os.stat_result) -> dict[str, str | None]:
        try:
            send2trash(member.path)
        except OSError as exc:
            raise _FailError(_trash_reason(exc)) from exc
        if os.path.lexists(member.path):
            raise _FailError("still in place after sending to the trash")
        entry = find_trash_entry(member.path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        return {"trash_entry": None if entry is None else str(entry)}

    def _move(self, path: str, dest: str, st: os.stat_result) -> dict[str, str | None]:
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        try:
            move_no_overwrite(path, dest)
        except FileExistsError as exc:
            raise _FailError(f"{dest} appeared during the move; nothing was overwritten") from exc
        moved = os.lstat(dest)
        if os.path.lexists(path) or moved.st_size != st.st_size:
            raise _FailError("the move could not be verified")
        return {"dest": dest}

    def _link(
        self, member: Member, kept: str, tmp: str, extra: dict[str, str | int | bool]
    ) -> None:
        target = os.path.abspath(kept)
        try:
            if self.kind is ActionKind.HARDLINK:
                try:
                    os.link(kept, tmp, follow_symlinks=False)
                except OSError as exc:
                    if exc.errno == errno.EXDEV:
                        raise _FailError("the kept file is on another device") from exc
                    raise
            else:
                os.symlink(target, tmp)
            self._verify_link(tmp, target, extra)
            if not _matches(os.lstat(member.path), member):
                raise _SkipError(CHANGED)
            os.replace(tmp, member.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        self._verify_link(member.path, target, extra)

    def _verify_link(self, link: str, target: str, extra: dict[str, str | int | bool]) -> None:
        kept = os.stat(target)
        if self.kind is ActionKind.SYMLINK:
            if os.readlink(link) != target or os.stat(link).st_ino != kept.st_ino:
                raise _FailError("the link does not point to the kept file")
        elif os.lstat(link).st_ino != kept.st_ino or kept.st_ino != extra["kept_ino"]:
            raise _FailError("the link is not the kept file")


def apply(
    plan: Plan,
    *,
    journal: Journal | None = None,
    progress: ProgressCallback = no_progress,
    cancel: threading.Event | None = None,
) -> ApplyReport:
    """Carry out ``plan`` file by file; problems are collected per file, never raised.

    ``cancel`` is checked before each file: the rest are reported as skipped ("cancelled").
    """
    journal = journal or Journal()
    cancel = cancel if cancel is not None else threading.Event()
    items = plan.files
    outcomes: list[FileOutcome] = []
    cancelled = False
    info = {"action": str(plan.action), "files": len(items), "force_all": plan.force_all}
    with journal.session("apply", **info) as log:
        applier = _Applier(plan, log)
        seq = 0
        for group in plan.groups:
            if not group.act:
                continue
            guard = plan.force_all or _kept_in_place(group)
            for item in group.act:
                if cancel.is_set():
                    cancelled = True
                    outcomes.append(FileOutcome(item.path, "skipped", "cancelled"))
                    continue
                progress(Progress(ACTING, seq, len(items), item.path))
                if guard:
                    outcomes.append(applier.run(seq, item))
                else:
                    reason = "no kept file of the group is still in place unchanged"
                    log.write(
                        "skipped",
                        seq=seq,
                        op=str(plan.action.kind),
                        path=item.path,
                        group=item.group,
                        reason=reason,
                    )
                    outcomes.append(FileOutcome(item.path, "skipped", reason))
                seq += 1
        log.close(cancelled=cancelled, done=sum(o.status == "done" for o in outcomes))
        progress(Progress(ACTING, len(items), len(items)))
    return ApplyReport(log.id, plan.action, tuple(outcomes), cancelled)
