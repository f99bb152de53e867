"""Sentences about finished actions and the undo question, shared by the window and tests."""

from __future__ import annotations

from dupfinder.app.history import UndoOffer
from dupfinder.app.i18n import translate
from dupfinder.core.actions import ActionKind, ApplyReport, Plan, PlannedFile
from dupfinder.core.wording import format_size

__all__ = [
    "action_done_text",
    "done_phrase",
    "left_alone",
    "link_target_text",
    "plan_heading",
    "plan_text",
    "status_text",
    "undo_question",
]


def done_phrase(kind: ActionKind | None, count: int, size: int | None = None) -> str:
    """ "3 files moved to the trash (1.2 MB)": what happened to ``count`` files. Only a
    permanent delete frees space at once; the trash frees it when emptied."""
    size_text = format_size(size) if size is not None else ""
    texts = {
        ActionKind.TRASH: translate("Wording", "%Ln file(s) moved to the trash", None, count),
        ActionKind.MOVE: translate("Wording", "%Ln file(s) moved", None, count),
        ActionKind.HARDLINK: translate(
            "Wording", "%Ln file(s) replaced with hard links", None, count
        ),
        ActionKind.SYMLINK: translate(
            "Wording", "%Ln file(s) replaced with symbolic links", None, count
        ),
        ActionKind.DELETE: translate("Wording", "%Ln file(s) deleted", None, count),
    }
    text = texts[kind] if kind is not None else translate("Wording", "%Ln file(s)", None, count)
    if size_text and kind is ActionKind.DELETE:
        text += translate("Wording", " ({size} freed)").format(size=size_text)
    elif size_text:
        text += f" ({size_text})"
    return text


def action_done_text(report: ApplyReport, kind: ActionKind) -> str:
    text = done_phrase(kind, len(report.done), report.bytes_done)
    if report.skipped:
        amount = len(report.skipped)
        text += translate("Wording", " · %Ln skipped", None, amount)
    if report.failed:
        amount = len(report.failed)
        text += translate("Wording", " · %Ln failed", None, amount)
    if report.cancelled:
        text += translate("Wording", " · stopped")
    return text + "."


def undo_question(offer: UndoOffer) -> str:
    """Names the action and its files: "Put back the 449 files moved to the trash at …?"."""
    if offer.kind is ActionKind.TRASH:
        amount = offer.files
        text = translate("Wording", "Put back the %Ln file(s) moved to the trash", None, amount)
    elif offer.kind is ActionKind.MOVE:
        amount = offer.files
        text = translate(
            "Wording", "Put back the %Ln file(s) moved to {folder}", None, amount
        ).format(folder=offer.folder)
    elif offer.kind is not None and offer.kind.links:
        amount = offer.files
        text = translate("Wording", "Restore the %Ln file(s) replaced with links", None, amount)
    else:
        amount = offer.files
        text = translate("Wording", "Put back the %Ln file(s) of the last action", None, amount)
    when = offer.time[11:16] if len(offer.time) >= 16 else ""
    if when:
        text += translate("Wording", " (at {time})").format(time=when)
    return text + "?"


def status_text(status: str, n: int = -1) -> str:
    """A file outcome in words; with ``n``, counted ("3 done")."""
    if n < 0:
        words = {
            "done": translate("Wording", "done"),
            "skipped": translate("Wording", "skipped"),
            "failed": translate("Wording", "failed"),
            "restored": translate("Wording", "put back"),
        }
        return words.get(status, status)
    counted = {
        "done": translate("Wording", "%Ln done", None, n),
        "skipped": translate("Wording", "%Ln skipped", None, n),
        "failed": translate("Wording", "%Ln failed", None, n),
        "restored": translate("Wording", "%Ln put back", None, n),
    }
    return counted.get(status, f"{n:,} {status}")


def left_alone(plan: Plan) -> frozenset[str]:
    """Files of a link plan that will not be linked: their bytes differ from the kept file
    (unless the plan allows that); apply skips them."""
    if not plan.action.kind.links or plan.allow_different:
        return frozenset()
    return frozenset(plan.different)


def plan_heading(plan: Plan) -> str:
    """ "12 files · 3.4 MB": the files the plan acts on (a link plan's left-alone files and
    their bytes are not counted)."""
    skipped = left_alone(plan)
    acted = [item for item in plan.files if item.path not in skipped]
    amount = len(acted)
    files = translate("Wording", "%Ln file(s)", None, amount)
    size = sum(item.member.size for item in acted)
    text = f"{files} · {format_size(size)}"
    if skipped:
        amount = len(skipped)
        text += " · " + translate("Wording", "%Ln left alone", None, amount)
    return text


def link_target_text(plan: Plan, item: PlannedFile) -> str:
    """The "Link to" column of a link plan: the kept file, or why this one is left alone."""
    if item.path in left_alone(plan):
        return translate("Wording", "left alone: its bytes differ from the kept file")
    return item.kept.path if item.kept is not None else ""


def plan_text(plan: Plan, outside_view: int = 0) -> str:
    """What the plan does, what cannot be undone, how many files are kept, and how many of
    the files are in groups the filter hides (the user has not seen them)."""
    files = len(plan.files)
    groups = sum(1 for g in plan.groups if g.act)
    kept = len(plan.kept)
    what = translate("Wording", "%Ln file(s)", None, files)
    where = translate("Wording", "in %Ln group(s)", None, groups)
    size = format_size(plan.bytes_reclaimed)
    kind = plan.action.kind
    if kind is ActionKind.TRASH:
        text = translate(
            "Wording",
            "Send {what} ({size}) {where} to the trash. Undo can bring them back while the "
            "trash is kept.",
        )
    elif kind is ActionKind.MOVE:
        text = translate(
            "Wording",
            "Move {what} ({size}) {where} to {folder}, keeping their paths relative to {root}. "
            "Nothing is overwritten: a taken name gets a “ (1)” suffix.",
        )
    elif kind is ActionKind.DELETE:
        text = translate(
            "Wording", "PERMANENTLY DELETE {what} ({size}) {where}. This cannot be undone."
        )
    else:
        text = translate(
            "Wording",
            "Replace {what} ({size}) {where} with links to the file each group keeps, only "
            "where the bytes are exactly the same.",
        )
    text = text.format(what=what, size=size, where=where, folder=plan.action.folder, root=plan.root)
    if plan.different and not plan.allow_different:
        differ = len(plan.different)
        names = ", ".join(plan.different[:3]) + (", …" if differ > 3 else "")
        text += " " + translate(
            "Wording",
            "%Ln of them differ from the kept file and will be left alone:",
            None,
            differ,
        )
        text += f" {names}."
    text += " " + translate("Wording", "%Ln file(s) kept.", None, kept)
    if outside_view:
        text += " " + translate(
            "Wording",
            "%Ln of the files are in groups the filter hides.",
            None,
            outside_view,
        )
    return text
