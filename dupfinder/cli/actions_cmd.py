"""Actions on the command line: ``--keep``/``--action`` options, ``apply``, ``undo``, decisions.

The plan is always printed first; without ``--yes`` nothing is changed (a dry run). Exit codes
follow ``dupfinder.cli``: 0 when every planned action succeeded, 3 when some were skipped or
failed (each listed with its reason), 2 for usage errors or a refused plan, 1 for fatal errors,
130 when cancelled with Ctrl-C (the file in progress is finished and journalled first).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from dupfinder.cli.action_options import add_action_options
from dupfinder.cli.cancellable import run_cancellable
from dupfinder.cli.exit_codes import EXIT_CANCELLED, EXIT_FATAL, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE
from dupfinder.cli.paths import path_argument
from dupfinder.core.actions import (
    ApplyReport,
    Plan,
    compare_link_contents,
    free_name,
    make_plan,
)
from dupfinder.core.actions.apply import apply
from dupfinder.core.actions.journal import FileState, Journal, SessionKind
from dupfinder.core.actions.marks import (
    KeepRule,
    applies,
    reference_folder_problem,
    select,
)
from dupfinder.core.actions.undo import UndoReport, iter_sessions, undo
from dupfinder.core.errors import ActionBusy, ActionError, DupfinderError, JournalReadError
from dupfinder.core.model import ScanOptions, ScanResult
from dupfinder.core.results.decisions import DecisionStore, apply_decisions
from dupfinder.core.results.report import load_result
from dupfinder.core.results.session import load_session
from dupfinder.core.wording import count, escaped, format_size

__all__ = ["add_action_options", "register", "run_actions"]  # add_action_options: action_options


def _print_plan(plan: Plan, out: TextIO) -> None:
    verb = str(plan.action.kind)
    for group in plan.groups:
        if not group.act:
            continue
        out.write(
            f"Group {group.index + 1} · {group.group.kind} · keep {len(group.keep)}, "
            f"{verb} {len(group.act)} ({format_size(group.bytes)})\n"
        )
        for member in group.keep:
            out.write(f"  keep     {escaped(member.path)}\n")
        for item in group.act:
            where = f"  ->  {escaped(free_name(item.dest))}" if item.dest else ""
            out.write(f"  {verb:<8} {escaped(item.path)}{where}\n")
    out.write(f"\n{escaped(plan.confirmation_text(), lines=True)}\n")


def _print_report(report: ApplyReport, out: TextIO, err: TextIO) -> None:
    for outcome in report.outcomes:
        if outcome.status != "done":
            err.write(
                f"  {outcome.status}: {escaped(outcome.path)}: {escaped(str(outcome.reason))}\n"
            )
    out.write(
        f"{len(report.done):,} done ({format_size(report.bytes_done)}), "
        f"{len(report.skipped):,} skipped, {len(report.failed):,} failed"
        f"{' (cancelled)' if report.cancelled else ''}.\n"
    )
    if report.stopped:
        err.write(
            f"dupfinder: stopped early: {escaped(report.stopped)}. The {len(report.done):,} files above "
            "marked done were changed and are in the journal; nothing after them was touched.\n"
        )
    if report.session:
        out.write(
            f"Journal session {report.session}; undo with: dupfinder undo --session {report.session}\n"
        )


def _waiting(err: TextIO) -> Callable[[str], None]:
    def tell(message: str) -> None:
        err.write(f"dupfinder: {message}; waiting for it to finish (Ctrl-C to stop waiting)\n")
        err.flush()

    return tell


def _apply_cancellable(
    plan: Plan, journal: Journal | None, err: TextIO, options: ScanOptions | None
) -> ApplyReport:
    """Apply on a worker thread so Ctrl-C stops cleanly between two files."""
    return run_cancellable(
        lambda cancel: apply(
            plan, journal=journal, cancel=cancel, on_wait=_waiting(err), options=options
        ),
        "dupfinder-apply",
    )


def run_actions(
    result: ScanResult,
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
    options: ScanOptions | None = None,
) -> int:
    """Plan from ``--keep`` (or saved marks in ``args.marks``), print it, apply with ``--yes``.

    ``options``: the scan's, when it ran just now: a near-duplicate must still be as similar
    to its kept file as the scan required (a saved result: the defaults)."""
    try:
        result = apply_decisions(result, DecisionStore(args.decisions).load())
    except DupfinderError as exc:
        err.write(f"dupfinder: {escaped(str(exc))}\n")
        return EXIT_FATAL
    rules: list[KeepRule] = args.keep or []
    roots = tuple(getattr(args, "paths", None) or ())
    members = (m for g in result.groups for m in g.members)
    problem = reference_folder_problem(rules, roots, members)
    if problem is not None:
        err.write(f"dupfinder: --keep {escaped(problem)}\n")
        return EXIT_USAGE
    marks = getattr(args, "marks", None)
    if rules:
        selection = select(result, rules)
        alone = sum(1 for group in result.groups if not applies(group, rules))
        if alone:
            named = ", ".join(rule.name for rule in rules if rule.protects is None)
            err.write(
                f"dupfinder: --keep {named} cannot rank {count(alone, 'group')} (documents or "
                "other files): they keep their suggested file\n"
            )
    elif marks is not None:
        selection = frozenset(marks)
    else:
        err.write("dupfinder: choose what to keep with --keep RULE (e.g. --keep oldest)\n")
        return EXIT_USAGE
    try:
        plan = make_plan(
            result,
            selection,
            args.action,
            force_all=args.force_all,
            roots=roots,
        )
    except ActionError as exc:
        err.write(f"dupfinder: refused: {escaped(str(exc))}\n")
        return EXIT_USAGE
    plan = compare_link_contents(plan, allow_different=args.allow_different_content)
    _print_plan(plan, out)
    if plan.empty:
        out.write("Nothing to do.\n")
        return EXIT_OK
    if args.dry_run or not args.yes:
        out.write("Dry run: nothing was changed. Add --yes to carry out the plan.\n")
        return EXIT_OK
    journal = Journal(args.journal) if args.journal else None
    try:
        report = _apply_cancellable(plan, journal, err, options)
    except ActionBusy as exc:
        err.write(f"dupfinder: {escaped(str(exc))}\n")
        return EXIT_CANCELLED
    except ActionError as exc:
        err.write(f"dupfinder: {escaped(str(exc))}\n")
        return EXIT_FATAL
    except JournalReadError as exc:
        err.write(f"dupfinder: {escaped(str(exc.strerror))}; nothing was changed\n")
        return EXIT_FATAL
    _print_report(report, out, err)
    if report.stopped:
        return EXIT_FATAL
    if report.cancelled:
        return EXIT_CANCELLED
    return EXIT_OK if report.ok else EXIT_PROBLEMS


def _handle_apply(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        session = load_session(args.result)
    except (OSError, DupfinderError) as exc:
        err.write(f"dupfinder apply: cannot read {escaped(args.result)}: {escaped(str(exc))}\n")
        return EXIT_FATAL
    for label, paths in (("missing", session.missing), ("changed", session.changed)):
        if paths:
            err.write(f"{len(paths)} file(s) {label} since the scan; they will be skipped\n")
    args.marks = session.marks if not args.keep else None
    if not args.keep and not session.marks:
        err.write("dupfinder apply: the result has no marks; choose with --keep RULE\n")
        return EXIT_USAGE
    return run_actions(session.result, args, out, err)


def _list_sessions(journal: Journal, out: TextIO) -> None:
    for s in iter_sessions(journal):
        counts = ", ".join(f"{s.count(state):,} {state}" for state in FileState if s.count(state))
        undone = " · undone" if s.kind is SessionKind.APPLY and s.undone else ""
        out.write(f"{s.id}  {s.time}  {s.kind} {escaped(s.action or '')}  {counts}{undone}\n")


def _print_undo(report: UndoReport, out: TextIO, err: TextIO) -> None:
    for outcome in report.outcomes:
        note = f" ({escaped(outcome.reason)})" if outcome.reason else ""
        stream = out if outcome.status == "restored" else err
        stream.write(f"  {outcome.status}: {escaped(outcome.path)}{note}\n")
    out.write(
        f"Session {report.session}: {len(report.restored):,} restored, "
        f"{len(report.problems):,} not restored{' (cancelled)' if report.cancelled else ''}.\n"
    )
    if report.journal_problem:
        err.write(
            "dupfinder undo: the journal could not record this undo: "
            f"{escaped(report.journal_problem)}\n"
        )


def _handle_undo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    journal = Journal(args.journal) if args.journal else Journal()
    try:
        if args.list:
            _list_sessions(journal, out)
            return EXIT_OK
        if args.session and journal.find(args.session) is None:
            err.write(
                f"dupfinder undo: no apply session {escaped(args.session)} in "
                f"{escaped(str(journal.path))}\n"
            )
            return EXIT_USAGE
        report = run_cancellable(
            lambda cancel: undo(
                args.session,
                journal=journal,
                cancel=cancel,
                on_wait=_waiting(err),
                restore_edited=args.restore_edited,
            ),
            "dupfinder-undo",
        )
    except ActionBusy as exc:
        err.write(f"dupfinder undo: {escaped(str(exc))}\n")
        return EXIT_CANCELLED
    except ActionError as exc:
        err.write(f"dupfinder undo: {escaped(str(exc))}\n")
        return EXIT_FATAL
    except JournalReadError as exc:
        err.write(f"dupfinder undo: {escaped(str(exc.strerror))}; nothing was changed\n")
        return EXIT_FATAL
    except OSError as exc:
        err.write(
            f"dupfinder undo: cannot read the journal {escaped(str(journal.path))}: "
            f"{escaped(str(exc.strerror or exc))}\n"
        )
        return EXIT_FATAL
    finally:
        for problem in journal.problems:
            err.write(f"dupfinder undo: journal {escaped(problem)}\n")
    if report.nothing is not None:
        out.write(f"{escaped(report.nothing)}\n")
        return EXIT_OK
    _print_undo(report, out, err)
    if report.cancelled:
        return EXIT_CANCELLED
    return EXIT_OK if report.ok else EXIT_PROBLEMS


def _handle_ignore(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        result, _ = load_result(args.result)
    except (OSError, DupfinderError) as exc:
        err.write(f"dupfinder ignore: cannot read {escaped(args.result)}: {escaped(str(exc))}\n")
        return EXIT_FATAL
    store = DecisionStore(args.decisions)
    if args.group is not None:
        if not 1 <= args.group <= len(result.groups):
            err.write(f"dupfinder ignore: no group {args.group} (1..{len(result.groups)})\n")
            return EXIT_USAGE
        store.ignore_group(result.groups[args.group - 1])
        out.write(f"Group {args.group} is hidden until a new member joins it.\n")
        return EXIT_OK
    members = {m.path: m for g in result.groups for m in g.members}
    first, second = (members.get(p) for p in args.pair)
    if first is None or second is None:
        err.write("dupfinder ignore: both files of --pair must be members of the result\n")
        return EXIT_USAGE
    try:
        store.ignore_pair(first, second)
    except ValueError as exc:
        err.write(f"dupfinder ignore: {escaped(str(exc))}\n")
        return EXIT_USAGE
    out.write("These two files will no longer be reported as duplicates of each other.\n")
    return EXIT_OK


def _handle_decisions(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    store = DecisionStore(args.decisions)
    try:
        if args.what == "clear":
            out.write(f"Forgot {store.clear()} decision(s).\n")
            return EXIT_OK
        for number, decision in enumerate(store.list(), start=1):
            paths = ", ".join(escaped(p) for p in decision.paths)
            out.write(f"{number}. {decision.kind} · {decision.time} · {paths}\n")
    except DupfinderError as exc:
        err.write(f"dupfinder decisions: {escaped(str(exc))}\n")
        return EXIT_FATAL
    return EXIT_OK


def register(commands: Any) -> None:
    """Add ``apply``, ``undo``, ``ignore`` and ``decisions`` to the ``dupfinder`` commands."""
    parser = commands.add_parser(
        "apply",
        help="act on a saved result (its saved marks, or --keep rules)",
        description="Plan and carry out actions on a result saved with --format json.",
    )
    parser.add_argument("result", type=path_argument, metavar="RESULT.json")
    add_action_options(parser)
    parser.set_defaults(handler=_handle_apply)

    parser = commands.add_parser(
        "undo",
        help="undo the last apply (or a given session)",
        description="Put back what the last apply changed; once it is undone, undo says there is "
        "nothing to undo. Older applies are undone by id (see --list).",
    )
    parser.add_argument("--session", metavar="ID", help="the apply session to undo")
    parser.add_argument("--list", action="store_true", help="list journal sessions")
    parser.add_argument(
        "--restore-edited",
        action="store_true",
        help="also move back files edited at their destination since the move (edits included; "
        "by default they stay there and are listed)",
    )
    parser.add_argument(
        "--journal",
        type=path_argument,
        metavar="PATH",
        help="journal file (default: user data dir)",
    )
    parser.set_defaults(handler=_handle_undo)

    parser = commands.add_parser(
        "ignore", help="remember that files of a saved result are not duplicates"
    )
    parser.add_argument("result", type=path_argument, metavar="RESULT.json")
    choice = parser.add_mutually_exclusive_group(required=True)
    choice.add_argument("--group", type=int, metavar="N", help="hide group N (as numbered)")
    choice.add_argument(
        "--pair", nargs=2, type=path_argument, metavar="PATH", help="these two are not duplicates"
    )
    parser.add_argument(
        "--decisions",
        type=path_argument,
        metavar="PATH",
        help="decisions file (default: user data)",
    )
    parser.set_defaults(handler=_handle_ignore)

    parser = commands.add_parser("decisions", help="list or clear remembered decisions")
    parser.add_argument("what", choices=("list", "clear"))
    parser.add_argument(
        "--decisions",
        type=path_argument,
        metavar="PATH",
        help="decisions file (default: user data)",
    )
    parser.set_defaults(handler=_handle_decisions)
