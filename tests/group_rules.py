"""The promise every group keeps, checked on every scan the test suite runs.

With star grouping (the default) every member of a document group is verified-similar to the
representative: its similarity, and an estimate made again here from the file itself, reach
the scan's threshold. ``conftest.py`` wraps the scan's grouping step with ``check_groups``.
"""

from __future__ import annotations

from collections.abc import Iterable

from dupfinder.core import sketch, textsim
from dupfinder.core.errors import FileProblem
from dupfinder.core.extract import extract_text
from dupfinder.core.model import Group, Grouping, Kind, Member, ScanOptions

#: The estimate is recomputed from the same shingles, so it must agree exactly.
_TOLERANCE = 1e-9


def _sketch_of(member: Member) -> bytes | None:
    """The member's sketch made again from its file; None when the file is gone or reads
    differently now (changed since, or a test replaced the reader)."""
    try:
        value, found = textsim.text_fingerprint(extract_text(member.path))
    except (OSError, FileProblem):
        return None
    return found if value == member.fingerprint.value else None


def check_groups(groups: Iterable[Group], options: ScanOptions) -> None:
    for group in groups:
        rep = group.representative
        assert rep.distance == 0
        assert rep.similarity == 1.0
        assert all(0.0 <= m.similarity <= 1.0 for m in group.members)
        if group.kind is not Kind.TEXT or options.text_grouping is not Grouping.STAR:
            continue
        rep_sketch = _sketch_of(rep)
        for member in group.members[1:]:
            assert member.similarity >= options.text_similarity, (rep.path, member.path)
            member_sketch = _sketch_of(member)
            if rep_sketch is None or member_sketch is None:
                continue
            again = sketch.similarity(bytearray(rep_sketch), bytearray(member_sketch))
            assert again >= options.text_similarity - _TOLERANCE, (rep.path, member.path, again)
