"""Remembered decisions: keyed by fingerprints (renames keep them), pairs split, groups hide."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult
from dupfinder.core.results.decisions import (
    Decision,
    DecisionKind,
    Decisions,
    DecisionStore,
    apply_decisions,
    default_decisions_path,
)

A, B, C, D = 0x0F, 0x1F, 0x3F, 0x7F


def member(path: str, value: int) -> Member:
    return Member(path, 10, 1, 0, Fingerprint(Kind.TEXT, value))


def result(*groups: tuple[Member, ...]) -> ScanResult:
    return ScanResult(tuple(Group(Kind.TEXT, g) for g in groups))


def paths(res: ScanResult) -> list[list[str]]:
    return [[m.path for m in g.members] for g in res.groups]


def decisions_for(*entries: tuple[str, int, int]) -> Decisions:
    return Decisions(
        tuple(
            Decision(DecisionKind(kind), frozenset(str(Fingerprint(Kind.TEXT, v)) for v in values))
            for kind, *values in entries
        )
    )


@pytest.fixture
def store(tmp_path: Path) -> DecisionStore:
    return DecisionStore(tmp_path / "decisions.json")


def test_default_store_is_in_the_user_data_dir() -> None:
    assert str(default_decisions_path()).startswith(os.environ["XDG_DATA_HOME"])


def test_ignored_pair_hides_a_two_member_group_and_survives_renames(
    store: DecisionStore,
) -> None:
    a, b = member("/x/a.txt", A), member("/x/b.txt", B)
    store.ignore_pair(a, b)
    assert paths(apply_decisions(result((a, b)), store.load())) == []
    renamed = result((member("/elsewhere/renamed-b.txt", B), member("/y/new-a.txt", A)))
    assert paths(apply_decisions(renamed, DecisionStore(store.path).load())) == []


def test_ignored_pair_inside_a_bigger_group() -> None:
    a, b, c, d = member("/a", A), member("/b", B), member("/c", C), member("/d", D)
    ab = decisions_for(("pair", A, B))
    # C still matches both A and B: the group stays whole
    assert paths(apply_decisions(result((a, b, c)), ab)) == [["/a", "/b", "/c"]]
    # every link of A ignored: A alone leaves
    a_alone = decisions_for(("pair", A, B), ("pair", A, C), ("pair", A, D))
    kept = apply_decisions(result((a, b, c, d)), a_alone)
    assert paths(kept) == [["/b", "/c", "/d"]]
    assert kept.groups[0].members[0].distance == 0
    assert kept.groups[0].members[1].distance == Fingerprint(Kind.TEXT, B) - Fingerprint(
        Kind.TEXT, C
    )
    # only cross links ignored: two groups
    split = decisions_for(("pair", A, C), ("pair", A, D), ("pair", B, C), ("pair", B, D))
    assert paths(apply_decisions(result((a, b, c, d)), split)) == [["/a", "/b"], ["/c", "/d"]]


def test_ignored_group_hides_until_a_new_fingerprint_joins(store: DecisionStore) -> None:
    group = (member("/a", A), member("/b", B))
    store.ignore_group(Group(Kind.TEXT, group))
    decisions = store.load()
    assert paths(apply_decisions(result(group), decisions)) == []
    # another copy of known content (same fingerprint, new path) does not bring it back
    copy = (*group, member("/copy-of-a", A))
    assert paths(apply_decisions(result(copy), decisions)) == []
    # new content does, with every member
    grown = (*group, member("/new", C))
    assert paths(apply_decisions(result(grown), decisions)) == [["/a", "/b", "/new"]]
    # other groups are untouched
    other = (member("/c", C), member("/d", D))
    assert paths(apply_decisions(result(group, other), decisions)) == [["/c", "/d"]]


def test_store_lists_removes_clears_and_ignores_repeats(store: DecisionStore) -> None:
    a, b, c = member("/a", A), member("/b", B), member("/c", C)
    store.ignore_pair(a, b)
    store.ignore_pair(b, a)  # the same decision
    store.ignore_group(Group(Kind.TEXT, (a, b, c)))
    listed = store.list()
    assert [d.kind for d in listed] == ["pair", "group"]
    assert listed[0].paths == ("/a", "/b")
    assert store.remove(0).kind == "pair"
    assert [d.kind for d in store.list()] == ["group"]
    assert store.clear() == 1
    assert store.list() == ()


def test_image_and_text_never_pair(store: DecisionStore) -> None:
    image = Member("/i.png", 1, 1, 0, Fingerprint(Kind.IMAGE, A))
    with pytest.raises(ValueError, match="never in one group"):
        store.ignore_pair(member("/t", A), image)


def test_damaged_store_is_an_error_not_a_silent_reset(store: DecisionStore) -> None:
    store.path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ResultFormatError):
        store.load()
    store.path.write_text(
        '{"version": 1, "decisions": [{"type": "pair", "fingerprints": ["text:zz"]}]}'
    )
    with pytest.raises(ResultFormatError):
        store.load()


def test_a_member_decision_takes_out_one_file_and_keeps_the_rest(tmp_path: Path) -> None:
    copies = tuple(member(f"/gnupg/{i}", A) for i in range(3))
    krb5 = tuple(member(f"/krb5/{i}", B) for i in range(2))
    odd = member("/odd", D)
    res = result((*copies, *krb5, odd))
    store = DecisionStore(tmp_path / "d.json")
    store.ignore_member(odd, res.groups[0])
    shown = apply_decisions(res, store.load())
    assert paths(shown) == [[m.path for m in (*copies, *krb5)]]
    assert store.list()[0].kind is DecisionKind.MEMBER


def test_version_1_files_stay_readable(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    key = str(Fingerprint(Kind.TEXT, A))
    other = str(Fingerprint(Kind.TEXT, B))
    raw = {"version": 1, "decisions": [{"type": "pair", "fingerprints": [key, other]}]}
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert DecisionStore(path).load().ignores_pair(key, other)
