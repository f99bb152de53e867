"""What happens to duplicates: marks, a pure plan, an apply that proves before it acts, undo.

``marks`` chooses what to keep; ``plan`` says what would be done; ``apply`` re-checks and acts
on each file (through ``trash``, ``fileops``), writing every step to the ``journal`` under
one ``lock``; ``undo`` puts files back from the journal; ``outcome`` is each file's fate.
The names most callers need are importable from here in one line (the function that carries
out a plan is ``apply.apply``: a package attribute named ``apply`` is the module).
"""

from __future__ import annotations

from dupfinder.core.actions.apply import ApplyReport, free_name
from dupfinder.core.actions.outcome import FileOutcome, FileStatus
from dupfinder.core.actions.plan import (
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
    "FileStatus",
    "GroupPlan",
    "Plan",
    "PlannedFile",
    "compare_link_contents",
    "free_name",
    "make_plan",
]

#: Modules of this package that other packages may import; the rest are its own.
FACE = ("apply", "plan", "undo", "journal", "marks", "outcome", "lock", "trash", "proof")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root", "fingerprints", "grouping")
