"""Actions on duplicates, in one import: plan (``dupfinder.core.plan``), then apply
(``dupfinder.core.apply``); undo and the journal live in ``dupfinder.core.undo`` and
``dupfinder.core.journal``."""

from __future__ import annotations

from dupfinder.core.apply import ApplyReport, FileOutcome, OutcomeStatus, apply, free_name
from dupfinder.core.plan import (
    Action,
    ActionKind,
    GroupPlan,
    Plan,
    PlannedFile,
    compare_link_contents,
    make_plan,
)

__all__ = [
    "Action",
    "ActionKind",
    "ApplyReport",
    "FileOutcome",
    "GroupPlan",
    "OutcomeStatus",
    "Plan",
    "PlannedFile",
    "apply",
    "compare_link_contents",
    "free_name",
    "make_plan",
]
