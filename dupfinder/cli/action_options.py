"""The ``--keep`` and ``--action`` options that ``scan`` and ``apply`` share.

Apart from ``actions_cmd`` so that a scan's command line reads them without importing what
carries a plan out (the journal, the lock, the trash): only the keep rules' names are needed
to build the parser, and an action is parsed when one is given.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from dupfinder.cli.paths import path_argument
from dupfinder.core.actions.marks import RULE_NAMES, KeepRule, parse_rule

if TYPE_CHECKING:
    from dupfinder.core.actions.plan import Action

__all__ = ["add_action_options"]


def _rule(text: str) -> KeepRule:
    try:
        return parse_rule(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _action(text: str) -> Action:
    from dupfinder.core.actions.plan import Action

    try:
        return Action.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_action_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by ``scan`` and ``apply``."""
    group = parser.add_argument_group(
        "actions (the plan is printed; nothing changes without --yes)"
    )
    group.add_argument(
        "--keep",
        action="append",
        type=_rule,
        default=[],
        metavar="RULE",
        help=f"which file of each group to keep: {', '.join(RULE_NAMES)}; repeat to break "
        "ties in order, e.g. --keep in:/photos --keep oldest; the suggested keeper's order "
        "(no copy marks, more pixels, higher quality, older) breaks the last tie, and a rule "
        "that cannot rank a group (resolution for documents) keeps its suggested file",
    )
    group.add_argument(
        "--action",
        type=_action,
        default=None,
        metavar="ACTION",
        help="what to do with the others: trash (default), move:DIR, hardlink, symlink, delete",
    )
    group.add_argument("--dry-run", action="store_true", help="only print the plan (default)")
    group.add_argument("--yes", "-y", action="store_true", help="carry out the plan")
    group.add_argument(
        "--force-all", action="store_true", help="allow acting on every member of a group"
    )
    group.add_argument(
        "--allow-different-content",
        action="store_true",
        help="hardlink/symlink: also replace files whose bytes differ from the kept file (the "
        "plan names them; each original goes to the trash first, so undo can restore it)",
    )
    group.add_argument(
        "--journal",
        type=path_argument,
        metavar="PATH",
        help="journal file (default: user data dir)",
    )
    group.add_argument(
        "--decisions",
        type=path_argument,
        metavar="PATH",
        help="decisions file (default: user data)",
    )
