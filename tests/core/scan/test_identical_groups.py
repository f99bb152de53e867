"""Identical sets meet near-duplicate groups: every file once, copies marked."""

from __future__ import annotations

from dupfinder.core.model import Fingerprint, Group, Kind, Member
from dupfinder.core.scan.identical_groups import Copies, merge

TEXT = Fingerprint(Kind.TEXT, 0x0F)


def _member(path: str, distance: int = 0, mtime_ns: int = 1, content: str | None = None) -> Member:
    return Member(path, 100, mtime_ns, distance, TEXT, content_hash=content)


def _copies(kind: Kind, content: str, *paths: str) -> Copies:
    return Copies(kind, tuple(_member(p, content=content) for p in paths))


def _paths(groups: list[Group]) -> list[list[tuple[str, str | None]]]:
    return [[(m.path, m.content_hash) for m in g.members] for g in groups]


def test_copies_inside_a_group_are_marked_and_outside_copies_join_beside_their_twin() -> None:
    near = Group(Kind.TEXT, (_member("/report.txt"), _member("/draft.txt", 5)))
    copies = [_copies(Kind.TEXT, "aa", "/draft.txt", "/old/draft (1).txt")]
    (merged,) = merge([near], copies)
    assert _paths([merged]) == [
        [("/report.txt", None), ("/draft.txt", "aa"), ("/old/draft (1).txt", "aa")]
    ]
    joined = merged.members[2]
    assert joined.distance == 5  # as close to the representative as its twin
    assert joined.fingerprint == TEXT
    assert merged.members[1].identical
    assert not merged.members[0].identical
    assert not merged.identical


def test_a_set_no_group_holds_becomes_an_identical_group_oldest_copy_first() -> None:
    copies = [
        Copies(
            Kind.OTHER,
            (
                _member("/b/backup.zip", mtime_ns=20, content="bb"),
                _member("/a/backup.zip", mtime_ns=10, content="bb"),
            ),
        )
    ]
    (group,) = merge([], copies)
    assert group.kind is Kind.OTHER
    assert group.identical
    assert [m.path for m in group.members] == ["/a/backup.zip", "/b/backup.zip"]


def test_a_group_of_copies_only_is_identical_and_no_file_is_listed_twice() -> None:
    near = Group(Kind.IMAGE, (_member("/p/a.png"), _member("/p/b.png")))
    copies = [
        _copies(Kind.IMAGE, "cc", "/p/a.png", "/p/b.png"),
        _copies(Kind.OTHER, "dd", "/x.bin", "/y.bin"),
    ]
    merged = merge([near], copies)
    assert merged[0].identical
    assert [g.kind for g in merged] == [Kind.IMAGE, Kind.OTHER]
    paths = [m.path for g in merged for m in g.members]
    assert len(paths) == len(set(paths)) == 4


def test_two_sets_in_one_group_keep_their_own_hashes() -> None:
    near = Group(
        Kind.TEXT,
        (_member("/a"), _member("/a2", 1), _member("/b", 3), _member("/b2", 3), _member("/c", 4)),
    )
    copies = [_copies(Kind.TEXT, "aa", "/a", "/a2"), _copies(Kind.TEXT, "bb", "/b", "/b2")]
    (merged,) = merge([near], copies)
    assert [m.content_hash for m in merged.members] == ["aa", "aa", "bb", "bb", None]
