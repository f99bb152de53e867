"""Find files like this one, in the app: the query, where it searches, the job, the words.

A search replaces the scan's list with one group: the query file first (the file the group
keeps) and its near-duplicates, most similar first, so the list, the comparison, the marks
and the one safe action path (plan, confirmation, journal, undo) all work on it unchanged.
:class:`SimilarMode` remembers how the scan's list looked, so "Back to the scan results"
brings it back, without the files acted on meanwhile.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dupfinder.app.i18n import translate
from dupfinder.app.jobs import JobFunction, Rescored, shown
from dupfinder.app.listing import SortKey
from dupfinder.core.model import (
    FINGERPRINTED_KINDS,
    Kind,
    Member,
    Progress,
    ProgressCallback,
    ScanOptions,
    ScanResult,
)
from dupfinder.core.results.decisions import DecisionStore
from dupfinder.core.scan.similar import NoFolders, SimilarResult, similar

__all__ = [
    "ScanView",
    "SearchScope",
    "SimilarFound",
    "SimilarMode",
    "SimilarQuery",
    "SimilarStatus",
    "banner_text",
    "can_search",
    "empty_hint",
    "outcome_text",
    "similar_job",
    "similar_options",
]

# The core's search, replaceable in tests.
SearchFunction = Callable[
    [str, Sequence[str], ScanOptions, ProgressCallback, threading.Event], SimilarResult
]


def _search(
    target: str,
    folders: Sequence[str],
    options: ScanOptions,
    progress: ProgressCallback,
    cancel: threading.Event,
) -> SimilarResult:
    return similar(target, folders, options, progress, cancel)


class SearchScope(enum.Enum):
    """Where a search looks."""

    FOLDERS = "folders"  # the folders listed in the scan panel
    LAST_SCAN = "last-scan"  # the folders of the last scan, remembered with the cache


@dataclass(frozen=True, slots=True)
class SimilarQuery:
    """The file to find files like, and the folders to search (none: the last scan's)."""

    target: str
    folders: tuple[str, ...] = ()

    @property
    def scope(self) -> SearchScope:
        return SearchScope.FOLDERS if self.folders else SearchScope.LAST_SCAN

    @property
    def name(self) -> str:
        return os.path.basename(self.target) or self.target


class SimilarStatus(enum.Enum):
    """How a search ended; only FOUND changes the list."""

    FOUND = "found"
    NOTHING = "nothing"  # the file was read, and no file is like it
    UNSUPPORTED = "unsupported"  # not a document or picture
    UNREADABLE = "unreadable"  # could not be read, or holds too little to compare
    NO_FOLDERS = "no-folders"  # no folder listed and no scan remembered
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class SimilarFound:
    """What a search gives the app: the outcome, the core's answer, and (when FOUND) the
    one-group result prepared for the list; ``problem`` says why an UNREADABLE file was."""

    query: SimilarQuery
    outcome: SimilarStatus
    result: SimilarResult | None = None
    rescored: Rescored | None = None
    problem: str = ""

    @property
    def folders(self) -> tuple[str, ...]:
        return self.result.folders if self.result is not None else self.query.folders


def can_search(member: Member | None) -> bool:
    """Files like a document, a picture, a song or a video can be searched for (not other
    files)."""
    return member is not None and member.fingerprint.kind in FINGERPRINTED_KINDS


def similar_options(options: ScanOptions) -> ScanOptions:
    """The scan's options (thresholds, patterns, limits, cache) for a search: every kind with
    a fingerprint whatever the scan compares (the query's kind decides), no byte comparison."""
    return dataclasses.replace(
        options,
        kinds=FINGERPRINTED_KINDS,
        identical=False,
        near_duplicates=True,
        references=(),
    )


def similar_job(
    query: SimilarQuery,
    options: ScanOptions,
    references: Sequence[str],
    store: DecisionStore,
    sort: SortKey | None = None,
    search: SearchFunction = _search,
) -> JobFunction[SimilarFound]:
    """The search, and its matches prepared as one group for the list, off the GUI thread."""
    wanted = similar_options(options)

    def job(progress: Callable[[Progress], None], cancel: threading.Event) -> SimilarFound:
        try:
            result = search(query.target, query.folders, wanted, progress, cancel)
        except NoFolders:
            return SimilarFound(query, SimilarStatus.NO_FOLDERS)
        if cancel.is_set():
            return SimilarFound(query, SimilarStatus.CANCELLED, result)
        if result.kind is None:
            problems = [e.error for e in result.errors if e.path == result.target]
            if problems:
                return SimilarFound(query, SimilarStatus.UNREADABLE, result, problem=problems[0])
            return SimilarFound(query, SimilarStatus.UNSUPPORTED, result)
        if result.group is None:
            return SimilarFound(query, SimilarStatus.NOTHING, result)
        raw = ScanResult((result.group,), result.errors)
        rescored = shown(raw, references, store, sort, {})
        if not rescored.prepared.result.groups:  # every match was "not a duplicate" before
            return SimilarFound(query, SimilarStatus.NOTHING, result)
        return SimilarFound(query, SimilarStatus.FOUND, result, rescored)

    return job


@dataclass(frozen=True, slots=True)
class ScanView:
    """The scan's list as it was when a search replaced it (``raw`` None: no result yet)."""

    raw: ScanResult | None
    marks: frozenset[str]
    keepers: tuple[str, ...]
    terms: str  # the filter


@dataclass(slots=True)
class SimilarMode:
    """The list shows files like ``query``; ``before`` is the scan's list to go back to,
    ``gone`` the files moved or deleted meanwhile (left out of it)."""

    query: SimilarQuery
    found: SimilarResult
    before: ScanView
    gone: set[str] = field(default_factory=set)


#: Searched folders named in full; more are counted.
_NAMED_FOLDERS = 3


def _where(found: SimilarFound) -> str:
    folders = found.folders
    if len(folders) <= _NAMED_FOLDERS:
        where = ", ".join(folders)
    else:
        amount = len(folders)
        where = translate("Similar", "%Ln folder(s)", None, amount)
    if found.query.scope is SearchScope.LAST_SCAN:
        where = translate("Similar", "{where} (the last scan’s folders)").format(where=where)
    return where


def outcome_text(found: SimilarFound) -> tuple[str, str]:
    """A title and a sentence for the user about how a search ended."""
    name = found.query.name
    outcome = found.outcome
    if outcome is SimilarStatus.FOUND:
        group = found.rescored.prepared.result.groups[0] if found.rescored else None
        amount = len(group.members) - 1 if group is not None else 0
        text = translate("Similar", "%Ln file(s) like {name} in {where}.", None, amount)
        return translate("Similar", "Files like this one"), text.format(
            name=name, where=_where(found)
        )
    if outcome is SimilarStatus.NOTHING:
        text = translate("Similar", "No file like {name} in {where}.")
        return translate("Similar", "Nothing similar found"), text.format(
            name=name, where=_where(found)
        )
    if outcome is SimilarStatus.UNSUPPORTED:
        text = translate(
            "Similar",
            "{name} is not a document, a picture, music or a video. dupfinder finds files "
            "like a document (text, PDF, Word, OpenDocument, HTML, e-book…), a picture, a song "
            "or a video.",
        )
        return translate("Similar", "Not a kind dupfinder compares"), text.format(name=name)
    if outcome is SimilarStatus.UNREADABLE:
        text = translate("Similar", "{name} cannot be compared: {problem}")
        return translate("Similar", "Cannot compare this file"), text.format(
            name=name, problem=found.problem
        )
    if outcome is SimilarStatus.NO_FOLDERS:
        return translate("Similar", "Nowhere to search"), translate(
            "Similar",
            "Add the folders to search on the left, or scan once with the cache on: dupfinder "
            "then remembers the folders of the last scan.",
        )
    return translate("Similar", "Search stopped"), translate(
        "Similar", "Search for files like {name} stopped."
    ).format(name=name)


def _found_text(kind: Kind | None, amount: int) -> str:
    if kind is Kind.IMAGE:
        return translate("Similar", "Pictures like {name}: %Ln found", None, amount)
    if kind is Kind.AUDIO:
        return translate("Similar", "Recordings like {name}: %Ln found", None, amount)
    if kind is Kind.VIDEO:
        return translate("Similar", "Videos like {name}: %Ln found", None, amount)
    return translate("Similar", "Documents like {name}: %Ln found", None, amount)


def banner_text(mode: SimilarMode, shown_files: int) -> str:
    """The line above the list: whose files these are, how many, and where they were found."""
    amount = max(0, shown_files - 1)
    found_kind = mode.found.kind
    if amount:
        text = _found_text(found_kind, amount)
    elif found_kind is Kind.IMAGE:  # every match was trashed, moved or taken out of the list
        text = translate("Similar", "Pictures like {name}: none left in the list")
    elif found_kind is Kind.AUDIO:
        text = translate("Similar", "Recordings like {name}: none left in the list")
    elif found_kind is Kind.VIDEO:
        text = translate("Similar", "Videos like {name}: none left in the list")
    else:
        text = translate("Similar", "Documents like {name}: none left in the list")
    found = SimilarFound(mode.query, SimilarStatus.FOUND, mode.found)
    return (
        text.format(name=mode.query.name)
        + " · "
        + translate("Similar", "in {where}").format(where=_where(found))
    )


def empty_hint(mode: SimilarMode) -> str:
    """What the empty list says when no file like the query is left in it."""
    return translate("Similar", "No file like {name} is left in this list.").format(
        name=mode.query.name
    )
