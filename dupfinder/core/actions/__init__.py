"""What happens to duplicates: marks, a pure plan, an apply that proves before it acts, undo.

``marks`` chooses what to keep; ``plan`` says what would be done; ``apply`` re-checks and acts
on each file (through ``trash``, ``fileops``), writing every step to the ``journal`` under
one ``lock``; ``undo`` puts files back from the journal; ``outcome`` is each file's fate.
The names most callers need are importable from here in one line (the function that carries
out a plan is ``apply.apply``: a package attribute named ``apply`` is the module).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Where each name of ``__all__`` lives: imported when first asked for, so that a scan's
#: command line (``--keep`` needs ``marks`` alone) does not load the journal, the lock and
#: the trash.
_HOMES = {
    "ApplyReport": "apply",
    "free_name": "apply",
    "FileOutcome": "outcome",
    "FileStatus": "outcome",
    "Action": "plan",
    "ActionKind": "plan",
    "GroupPlan": "plan",
    "Plan": "plan",
    "PlannedFile": "plan",
    "compare_link_contents": "plan",
    "make_plan": "plan",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


#: Modules of this package that other packages may import; the rest are its own.
FACE = ("apply", "plan", "undo", "journal", "marks", "outcome", "lock", "trash", "proof")
#: What this package may import inside ``dupfinder.core`` (``root``: model, errors, wording).
MAY_IMPORT = ("root", "fingerprints", "grouping")
