"""The empty list's hint and the status bar's totals, decided without Qt."""

from __future__ import annotations

import dataclasses

from dupfinder.app.list_status import ListState, Totals, totals_text, view_hint

IDLE = ListState(
    scanning=False,
    has_result=True,
    folders_listed=True,
    similar=None,
    scan_found=3,
    groups=3,
    rows_shown=3,
)


def test_the_hint_leads_a_new_user_to_the_next_step() -> None:
    fresh = dataclasses.replace(IDLE, has_result=False, folders_listed=False, groups=0)
    assert "Add folders" in view_hint(fresh)
    assert "Press Scan" in view_hint(dataclasses.replace(fresh, folders_listed=True))
    scanning = dataclasses.replace(fresh, scanning=True, rows_shown=0)
    assert "Scanning" in view_hint(scanning)


def test_the_hint_says_why_the_list_is_empty() -> None:
    assert view_hint(IDLE) == ""
    none_found = dataclasses.replace(IDLE, scan_found=0, groups=0, rows_shown=0)
    assert view_hint(none_found) == "No near-duplicates found."
    handled = dataclasses.replace(IDLE, groups=0, rows_shown=0)
    assert "No groups left to review" in view_hint(handled)
    filtered = dataclasses.replace(IDLE, rows_shown=0)
    assert view_hint(filtered) == "No group matches the filter."


def test_totals_count_in_words_and_name_what_is_marked() -> None:
    assert totals_text(None) == ""
    totals = Totals(groups=1, files=2, reclaimable=1500, shown=1, marked=0, marked_bytes=0)
    assert totals_text(totals) == "1 group · 2 files · up to 1.5 KB reclaimable"
    marked = dataclasses.replace(totals, groups=12, shown=5, marked=1, marked_bytes=2_000_000)
    assert totals_text(marked) == (
        "showing 5 of 12 groups · 2 files · up to 1.5 KB reclaimable · 1 marked (2.0 MB)"
    )
