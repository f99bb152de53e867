"""Mark rules: each rule, their order as tie-breaks, reference folders, parsing."""

from __future__ import annotations

import pytest

from dupfinder.core.actions.marks import (
    kept_members,
    parse_rule,
    parse_rules,
    select,
    select_group,
)
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanResult


def member(
    path: str, size: int = 100, mtime_ns: int = 1_000, width: int | None = None, height=None
) -> Member:
    return Member(path, size, mtime_ns, 0, Fingerprint(Kind.IMAGE, 7), width, height)


def kept(group: Group, *rules: str) -> list[str]:
    return [m.path for m in kept_members(group, parse_rules(rules))]


GROUP = Group(
    Kind.IMAGE,
    (
        member("/photos/b/long-name.jpg", size=300, mtime_ns=2_000, width=100, height=100),
        member("/photos/a.jpg", size=100, mtime_ns=1_000, width=400, height=300),
        member("/ref/c.jpg", size=200, mtime_ns=3_000, width=200, height=200),
    ),
)


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("oldest", "/photos/a.jpg"),
        ("newest", "/ref/c.jpg"),
        ("largest", "/photos/b/long-name.jpg"),
        ("smallest", "/photos/a.jpg"),
        ("resolution", "/photos/a.jpg"),
        ("shortest-path", "/ref/c.jpg"),
    ],
)
def test_each_rule_keeps_one(rule: str, expected: str) -> None:
    assert kept(GROUP, rule) == [expected]
    assert select_group(GROUP, parse_rules([rule])) == {
        m.path for m in GROUP.members if m.path != expected
    }


def test_later_rules_break_ties_then_the_path() -> None:
    group = Group(
        Kind.IMAGE,
        (
            member("/x/z.jpg", size=100, mtime_ns=5),
            member("/x/y.jpg", size=100, mtime_ns=5),
            member("/x/big.jpg", size=900, mtime_ns=5),
        ),
    )
    assert kept(group, "oldest", "largest") == ["/x/big.jpg"]
    assert kept(group, "oldest", "smallest") == ["/x/y.jpg"]  # tie left: path order
    assert kept(group, "smallest", "oldest") == ["/x/y.jpg"]
    # the order of the members never matters
    reversed_group = Group(Kind.IMAGE, tuple(reversed(group.members)))
    assert kept(reversed_group, "oldest", "smallest") == ["/x/y.jpg"]


def test_missing_resolution_ranks_last() -> None:
    group = Group(Kind.IMAGE, (member("/a.jpg"), member("/b.jpg", width=10, height=10)))
    assert kept(group, "resolution") == ["/b.jpg"]


def test_reference_folder_keeps_all_its_members_and_prefers_them() -> None:
    group = Group(
        Kind.IMAGE,
        (
            member("/ref/one.jpg", mtime_ns=9),
            member("/work/old.jpg", mtime_ns=1),
            member("/ref/sub/two.jpg", mtime_ns=8),
            member("/reference-not/x.jpg", mtime_ns=2),
        ),
    )
    assert kept(group, "in:/ref", "oldest") == ["/ref/one.jpg", "/ref/sub/two.jpg"]
    assert kept(group, "in:/ref/", "oldest") == ["/ref/one.jpg", "/ref/sub/two.jpg"]
    # no member inside the folder: the next rule decides
    assert kept(group, "in:/elsewhere", "oldest") == ["/work/old.jpg"]


def test_select_keeps_at_least_one_member_per_group() -> None:
    second = Group(Kind.IMAGE, (member("/q/1.jpg", mtime_ns=1), member("/q/2.jpg", mtime_ns=1)))
    result = ScanResult((GROUP, second))
    selection = select(result, parse_rules(["oldest"]))
    assert selection == {"/photos/b/long-name.jpg", "/ref/c.jpg", "/q/2.jpg"}
    for group in result.groups:
        assert any(m.path not in selection for m in group.members)


def test_parse_rule_names_and_errors() -> None:
    assert parse_rule(" Oldest ").name == "oldest"
    assert parse_rule("in:/some/dir").name == "in:/some/dir"
    with pytest.raises(ValueError, match="unknown keep rule"):
        parse_rule("prettiest")
    with pytest.raises(ValueError, match="needs a folder"):
        parse_rule("in:")
