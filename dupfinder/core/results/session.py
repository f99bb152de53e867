"""Saved results with marks, so a long scan and the user's choices are never lost.

A session file is the JSON result contract (``dupfinder.core.results.report``) with one extra top-level
key, ``marks``: the sorted list of paths the user marked to act on. Loading checks every
member against the disk again: files gone are ``missing``, files whose size or mtime differ
are ``changed``; the result itself is returned as saved, so the caller decides whether to
show, drop (``without``) or rescan them. Actions re-check each file anyway.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.model import Group, ScanResult
from dupfinder.core.results.report import load_result, save_result

__all__ = ["LoadedSession", "load_session", "save_session", "without"]


@dataclass(frozen=True, slots=True)
class LoadedSession:
    result: ScanResult
    marks: frozenset[str]
    missing: frozenset[str]
    changed: frozenset[str]

    @property
    def intact(self) -> bool:
        return not self.missing and not self.changed


def save_session(
    path: str | os.PathLike[str], result: ScanResult, marks: Iterable[str] = ()
) -> None:
    """Write the result and its marks atomically; marks outside the result are dropped."""
    known = {m.path for g in result.groups for m in g.members}
    save_result(result, path, extra={"marks": sorted(set(marks) & known)})


def load_session(path: str | os.PathLike[str], *, check_files: bool = True) -> LoadedSession:
    """Read a saved result and its marks, and see which of its files are still as scanned."""
    result, data = load_result(path)
    raw_marks = data.get("marks", [])
    if not isinstance(raw_marks, list) or not all(isinstance(p, str) for p in raw_marks):
        raise ResultFormatError(f"{path}: marks must be a list of paths")
    missing: set[str] = set()
    changed: set[str] = set()
    if check_files:
        for group in result.groups:
            for member in group.members:
                try:
                    st = os.stat(member.path, follow_symlinks=False)
                except FileNotFoundError:
                    missing.add(member.path)
                    continue
                except OSError:
                    changed.add(member.path)
                    continue
                replaced = member.ino and (st.st_dev, st.st_ino) != (member.dev, member.ino)
                if st.st_size != member.size or st.st_mtime_ns != member.mtime_ns or replaced:
                    changed.add(member.path)
    # marks name files as the results file spells them; members are read normalised
    marks = frozenset(os.path.normpath(os.path.abspath(p)) for p in raw_marks)
    return LoadedSession(result, marks, frozenset(missing), frozenset(changed))


def without(result: ScanResult, paths: Iterable[str]) -> ScanResult:
    """The result minus ``paths``; groups left with fewer than two members disappear."""
    gone = frozenset(paths)
    groups = []
    for group in result.groups:
        members = tuple(m for m in group.members if m.path not in gone)
        if len(members) == len(group.members):
            groups.append(group)
        elif len(members) >= 2:
            head = members[0].fingerprint
            remeasured = tuple(replace(m, distance=m.fingerprint.distance(head)) for m in members)
            groups.append(Group(group.kind, remeasured))
    return replace(result, groups=tuple(groups))
