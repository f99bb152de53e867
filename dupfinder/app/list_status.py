"""What the list says when it is empty and what the status bar counts: rules, not drawing.

The window draws these strings; the app decides them from its state, so they are tested
without Qt and read the same in every view.
"""

from __future__ import annotations

from dataclasses import dataclass

from dupfinder.app.i18n import translate
from dupfinder.app.similar import SimilarMode, empty_hint
from dupfinder.core.wording import format_size

__all__ = ["ListState", "Totals", "totals_text", "view_hint"]


@dataclass(frozen=True, slots=True)
class ListState:
    """What decides the empty list's hint."""

    scanning: bool
    has_result: bool
    folders_listed: bool
    similar: SimilarMode | None
    scan_found: int  # groups the last scan found (all of them may have been handled since)
    groups: int  # groups in the result
    rows_shown: int  # groups the filter lets through


@dataclass(frozen=True, slots=True)
class Totals:
    """The status bar's figures."""

    groups: int
    files: int
    reclaimable: int
    shown: int  # groups the filter lets through
    marked: int
    marked_bytes: int


def view_hint(state: ListState) -> str:
    """The line shown in an empty list: what to do next, or why nothing is listed."""
    if state.scanning and state.rows_shown == 0:
        return translate("Window", "Scanning… the groups appear here when the scan is done.")
    if not state.has_result:
        if state.folders_listed:
            return translate("Window", "Press Scan to look for near-duplicates.")
        return translate("Window", "Add folders on the left, then press Scan.")
    if state.similar is not None and state.groups == 0:
        return empty_hint(state.similar)
    if state.groups == 0 and state.scan_found:
        return translate("Window", "No groups left to review: each was acted on or set aside.")
    if state.groups == 0:
        return translate("Window", "No near-duplicates found.")
    if state.rows_shown == 0:
        return translate("Window", "No group matches the filter.")
    return ""


def totals_text(totals: Totals | None) -> str:
    """'12 groups · 30 files · up to 4.5 MB reclaimable · 3 marked (1.2 MB)'; empty without a
    result."""
    if totals is None:
        return ""
    # each count is a plain name: pyside6-lupdate finds a call only in that form
    groups, files, marked = totals.groups, totals.files, totals.marked
    text = translate("Window", "%Ln group(s)", None, groups)
    text += " · " + translate("Window", "%Ln file(s)", None, files)
    text += " · " + translate("Window", "up to {size} reclaimable").format(
        size=format_size(totals.reclaimable)
    )
    if totals.shown != totals.groups:
        text = translate("Window", "showing {shown} of ").format(shown=f"{totals.shown:,}") + text
    if totals.marked:
        text += " · " + translate("Window", "%Ln marked ({size})", None, marked).format(
            size=format_size(totals.marked_bytes)
        )
    return text
