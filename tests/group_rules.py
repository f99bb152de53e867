"""The promise every group keeps, checked on every scan the test suite runs.

With star grouping (the default) every member of a document or picture group is
verified-similar to the representative: its similarity, and an estimate made again here from
the file itself, reach the scan's threshold for that kind. ``conftest.py`` wraps the scan's grouping step with ``check_groups``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from dupfinder.core.errors import FileProblem
from dupfinder.core.extract import extract_text
from dupfinder.core.image import check as imagecheck
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.model import Group, Grouping, Kind, Member, ScanOptions
from dupfinder.core.text import simhash as textsim
from dupfinder.core.text import sketch

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


def _descriptor_of(member: Member) -> bytes | None:
    """The member's picture descriptor made again from its file (None as for sketches)."""
    try:
        found = imagesim.image_fingerprint(member.path)
    except (OSError, FileProblem):
        return None
    return found.descriptor if found.value == member.fingerprint.value else None


def _check_pictures(group: Group, options: ScanOptions) -> None:
    rep = group.representative
    rep_descriptor = _descriptor_of(rep)
    measure = (
        imagecheck.invariant_pair_similarity
        if options.image_invariance
        else imagecheck.pair_similarity
    )
    for member in group.members[1:]:
        assert member.similarity >= options.image_similarity, (rep.path, member.path)
        member_descriptor = _descriptor_of(member)
        if rep_descriptor is None or member_descriptor is None:
            continue
        again = float(
            measure(
                np.frombuffer(rep_descriptor, np.uint8), np.frombuffer(member_descriptor, np.uint8)
            )[0]
        )
        assert again >= options.image_similarity - _TOLERANCE, (rep.path, member.path, again)


def check_groups(groups: Iterable[Group], options: ScanOptions) -> None:
    for group in groups:
        rep = group.representative
        assert rep.distance == 0
        assert rep.similarity == 1.0
        assert all(0.0 <= m.similarity <= 1.0 for m in group.members)
        if group.kind is Kind.IMAGE and options.image_grouping is Grouping.STAR:
            _check_pictures(group, options)
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
