"""Why a group keeps the file it keeps, in the words the list shows beside it.

The scan suggests a keeper for a reason (``core.grouping.keeper``: in a reference folder, no
copy marks, most pixels, least compressed, oldest...); a keep rule or the person may choose
another. Either way the list says which, and on what the kept file is the best of its group:
"Kept as the original: no copy marks, oldest, largest".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dupfinder.app.i18n import translate
from dupfinder.app.marks import Chosen
from dupfinder.core.grouping.keeper import reasons
from dupfinder.core.model import Group, KeepReason, Member, ScanResult
from dupfinder.core.scan.similar import Measure

__all__ = [
    "RULES",
    "carried",
    "keeper_text",
    "measured_directly",
    "reason_words",
    "rule_title",
]

#: The keep rules the Mark menu offers, in its order (core rule names).
RULES = ("oldest", "newest", "largest", "smallest", "resolution", "quality", "shortest-path")


def rule_title(name: str) -> str:
    """The Mark menu's words for a keep rule: "Keep the oldest"."""
    titles = {
        "oldest": translate("Commands", "Keep the oldest"),
        "newest": translate("Commands", "Keep the newest"),
        "largest": translate("Commands", "Keep the largest"),
        "smallest": translate("Commands", "Keep the smallest"),
        "resolution": translate("Commands", "Keep the highest resolution"),
        "quality": translate("Commands", "Keep the best quality"),
        "shortest-path": translate("Commands", "Keep the shortest path"),
        "reference": translate("Commands", "Keep files in reference folders"),
    }
    return titles.get(name, name)


def _reason_word(reason: KeepReason) -> str:
    words = {
        KeepReason.REFERENCE: translate("Keeping", "in a reference folder"),
        KeepReason.ORIGINAL_PICTURE: translate("Keeping", "the others are edited copies of it"),
        KeepReason.NO_COPY_MARKS: translate("Keeping", "no copy marks"),
        KeepReason.FEWEST_COPY_MARKS: translate("Keeping", "fewest copy marks"),
        KeepReason.MOST_PIXELS: translate("Keeping", "most pixels"),
        KeepReason.LOSSLESS: translate("Keeping", "lossless"),
        KeepReason.HIGHEST_BITRATE: translate("Keeping", "highest bitrate"),
        KeepReason.LONGEST: translate("Keeping", "longest"),
        KeepReason.LEAST_COMPRESSED: translate("Keeping", "least compressed"),
        KeepReason.OLDEST: translate("Keeping", "oldest"),
        KeepReason.SHALLOWEST: translate("Keeping", "least deep folder"),
        KeepReason.LARGEST: translate("Keeping", "largest"),
    }
    return words[reason]


def reason_words(found: Sequence[KeepReason]) -> str:
    """ "no copy marks, oldest, largest"."""
    return translate("Keeping", ", ").join(_reason_word(reason) for reason in found)


def keeper_text(
    group: Group, keeper: Member, chosen: Chosen | None, references: Sequence[str] = ()
) -> str:
    """Why ``keeper`` is the file ``group`` keeps: the original the scan suggested and on
    what it is the best, or the rule or the person that chose it."""
    if chosen is None and keeper is group.members[0]:
        found = group.reasons or reasons(keeper, group.members, references)
        if not found:
            return translate("Keeping", "Kept as the original: the files are alike")
        return translate("Keeping", "Kept as the original: {reasons}").format(
            reasons=reason_words(found)
        )
    merits = reasons(keeper, group.members, references)
    if chosen is not None and chosen.rule is not None:
        text = translate("Keeping", "Kept by “{rule}”").format(rule=rule_title(chosen.rule))
    else:
        text = translate("Keeping", "Kept: your choice")
    if merits:
        text += translate("Keeping", ": {reasons}").format(reasons=reason_words(merits))
    return text


def measured_directly(group: Group, keeper: Member) -> tuple[Measure, ...] | None:
    """A group's members against ``keeper`` without reading a file, where that is known: in
    a pair, the other file is as alike to the keeper as the scan measured them; in a group
    of identical files every file is. None for the rest."""
    first = group.members[0]
    if group.identical:
        return tuple(Measure(m.path, 0, 1.0, True) for m in group.members if m is not keeper)
    if len(group.members) == 2:
        same = group.same_bytes_as_keeper(keeper)
        return (Measure(first.path, keeper.distance, keeper.similarity, same),)
    return None


def carried(
    before: Sequence[Group], result: ScanResult, marks: Iterable[str], keepers: Iterable[str]
) -> tuple[frozenset[str], list[str], int]:
    """The ``marks`` and chosen ``keepers`` of the groups shown ``before`` that still apply to
    a new scan's ``result`` (the same file, unchanged: same size and modification time),
    and how many marks do not. A rescan keeps a person's marks; it never drops them
    silently."""
    old = {m.path: m for group in before for m in group.members}
    new = {m.path: m for group in result.groups for m in group.members}

    def unchanged(path: str) -> bool:
        a, b = old.get(path), new.get(path)
        return a is not None and b is not None and (a.size, a.mtime_ns) == (b.size, b.mtime_ns)

    marked = list(marks)
    kept = frozenset(path for path in marked if unchanged(path))
    return kept, [path for path in keepers if unchanged(path)], len(marked) - len(kept)
