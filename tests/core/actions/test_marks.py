"""Mark rules: each rule, their order as tie-breaks, reference folders, parsing."""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scan_helpers import essay, picture, write

from dupfinder.cli import main
from dupfinder.core.actions.marks import (
    RULE_NAMES,
    KeepRule,
    applies,
    best_member,
    kept_members,
    parse_rule,
    parse_rules,
    select,
    select_group,
)
from dupfinder.core.grouping.keeper import member_key
from dupfinder.core.model import (
    Fingerprint,
    Group,
    KeepReason,
    Kind,
    Member,
    ScanOptions,
    ScanResult,
)
from dupfinder.core.scan import pipeline as scan


def member(
    path: str,
    size: int = 100,
    mtime_ns: int = 1_000,
    width: int | None = None,
    height: int | None = None,
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


def test_later_rules_break_ties_then_the_suggested_order_never_the_path() -> None:
    group = Group(
        Kind.IMAGE,
        (
            member("/x/z.jpg", size=100, mtime_ns=5),
            member("/x/y.jpg", size=100, mtime_ns=5),
            member("/x/big.jpg", size=900, mtime_ns=5),
        ),
    )
    assert kept(group, "oldest", "largest") == ["/x/big.jpg"]
    # alike in every way: the member listed first (the suggested keeper), not "/x/y.jpg"
    assert kept(group, "oldest", "smallest") == ["/x/z.jpg"]
    assert kept(group, "smallest", "oldest") == ["/x/z.jpg"]
    reversed_group = Group(Kind.IMAGE, tuple(reversed(group.members)))
    assert kept(reversed_group, "oldest", "smallest") == ["/x/y.jpg"]
    # a copy mark loses the tie whatever the order
    marked = Group(
        Kind.IMAGE, (member("/x/a copy.jpg", mtime_ns=5), member("/x/b.jpg", mtime_ns=5))
    )
    assert kept(marked, "oldest") == ["/x/b.jpg"]


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


# --- keep rules never keep a worse copy (property tests) ------------------------------------

PHOTO_STEMS = ("IMG_2041", "Aqua", "painting_5640x3172", "holiday")
DOC_STEMS = ("GPL-3", "report", "notes")
#: How a copy's name can read: the original, numbered, "copy", a note, an edit suffix.
RENAMES = ("{}", "{} (1)", "{} copy", "{} - Copy", "{} (my notes)", "{}_q40", "{}-small")
FOLDERS = ("/lib", "/lib/sorted/2023", "/lib/Backup 2023", "/lib/old")
SIMPLE_RULES = [name for name in RULE_NAMES if name != "in:DIR"]


@st.composite
def photo_groups(draw: st.DrawFn) -> Group:
    """A photo and copies of it: recompressed (same pixels, fewer bytes), resized, saved
    as PNG, renamed, filed away, made later."""
    stem = draw(st.sampled_from(PHOTO_STEMS))
    width, height = draw(st.sampled_from([(1280, 1024), (5640, 3172), (800, 600)]))
    size = draw(st.integers(100_000, 20_000_000))
    members = [(f"/lib/{stem}.jpg", size, 1_000, width, height)]
    for _ in range(draw(st.integers(1, 5))):
        scale = draw(st.sampled_from([1.0, 1.0, 0.5, 0.25]))
        w, h = int(width * scale), int(height * scale)
        quality = draw(st.floats(0.2, 1.2))
        suffix = draw(st.sampled_from([".jpg", ".jpg", ".png", ".webp"]))
        name = draw(st.sampled_from(RENAMES)).format(stem) + suffix
        folder = draw(st.sampled_from(FOLDERS))
        mtime = draw(st.sampled_from([1_000, 1_000, 2_000, 500]))
        members.append((f"{folder}/{name}", max(1, int(size * scale**2 * quality)), mtime, w, h))
    unique = {path: rest for path, *rest in members}
    assume(len(unique) >= 2)
    return Group(
        Kind.IMAGE,
        tuple(member(path, s, t, w, h) for path, (s, t, w, h) in unique.items()),
    )


@st.composite
def document_groups(draw: st.DrawFn) -> Group:
    """A document, byte-identical copies of it and edited copies ("(1)", "copy", "my notes")."""
    stem = draw(st.sampled_from(DOC_STEMS))
    size = draw(st.integers(1_000, 50_000))
    rows = [(f"/docs/{stem}.txt", size, 1_000)]
    for _ in range(draw(st.integers(1, 5))):
        name = draw(st.sampled_from(RENAMES)).format(stem) + ".txt"
        folder = draw(st.sampled_from(("/docs", "/docs/old", "/docs/a/b", "/backup")))
        edited = draw(st.sampled_from([0, 0, 120, -300]))
        mtime = draw(st.sampled_from([1_000, 1_000, 3_000, 10]))
        rows.append((f"{folder}/{name}", size + edited, mtime))
    unique = {path: rest for path, *rest in rows}
    assume(len(unique) >= 2)
    members = [Member(path, s, t, 0, Fingerprint(Kind.TEXT, 7)) for path, (s, t) in unique.items()]
    first = draw(st.integers(0, len(members) - 1))  # any member may be the one suggested
    members.insert(0, members.pop(first))
    return Group(Kind.TEXT, tuple(members))


def _criteria(m: Member, rules: Sequence[KeepRule], kind: Kind) -> tuple[tuple[float, ...], ...]:
    """Everything ``rules`` name for a member, smaller better: their own keys (a number, or
    numbers compared in order), then the suggested keeper's order (reference, copy marks,
    pixels, quality, age, depth, size)."""
    folders = [rule.folder for rule in rules if rule.folder is not None]
    own = tuple(_numbers(rule.key(m)) for rule in rules if rule.applies(kind))
    suggested = member_key(m, folders)[:-1]  # every criterion but the path: numbers
    return (*own, *((float(cast(float, value)),) for value in suggested))


def _numbers(key: int | tuple[float, ...]) -> tuple[float, ...]:
    return key if isinstance(key, tuple) else (float(key),)


def _dominated(kept: Member, group: Group, rules: Sequence[KeepRule]) -> list[str]:
    """Members at least as good as ``kept`` on every criterion and better on one."""
    mine = _criteria(kept, rules, group.kind)
    worse = []
    for other in group.members:
        theirs = _criteria(other, rules, group.kind)
        if (
            other is not kept
            and all(a <= b for a, b in zip(theirs, mine, strict=True))
            and theirs != mine
        ):
            worse.append(other.path)
    return worse


RULE_LISTS = st.one_of(
    st.lists(st.sampled_from(SIMPLE_RULES), min_size=1, max_size=2),
    st.sampled_from([["in:/lib/sorted"], ["in:/docs/old", "oldest"], ["in:/lib/old", "largest"]]),
)


@settings(max_examples=300, deadline=None)
@given(group=st.one_of(photo_groups(), document_groups()), names=RULE_LISTS)
def test_no_rule_keeps_a_member_worse_on_every_criterion_it_names(
    group: Group, names: list[str]
) -> None:
    rules = parse_rules(names)
    best = best_member(group, rules)
    if not applies(group, rules):
        assert best is group.members[0]  # the rule does not rank this kind: keeper alone
        return
    assert _dominated(best, group, rules) == [], (names, best.path)


def test_resolution_ties_keep_the_original_over_its_recompressed_copy() -> None:
    # the same 1280x1024 photo: 183 KB original, 57 KB "_q40" copy sorting first by path
    group = Group(
        Kind.IMAGE,
        (
            member("/p/IMG_2041.jpg", 183_000, 1_000, 1280, 1024),
            member("/p/IMG_2041_q40.jpg", 57_000, 2_000, 1280, 1024),
        ),
    )
    recompressed_first = Group(Kind.IMAGE, tuple(reversed(group.members)))
    for g in (group, recompressed_first):
        assert kept(g, "resolution") == ["/p/IMG_2041.jpg"]
        assert kept(g, "in:/elsewhere") == ["/p/IMG_2041.jpg"]


def test_a_rule_for_pictures_leaves_a_document_group_alone() -> None:
    originals = [
        Member(f"/d/{n}/GPL-3.txt", 35_149, 1_000, 0, Fingerprint(Kind.TEXT, 7)) for n in "abcd"
    ]
    notes = Member("/d/GPL-3 (my notes).txt", 35_300, 1_000, 3, Fingerprint(Kind.TEXT, 9))
    group = Group(Kind.TEXT, (originals[0], *originals[1:], notes))
    assert kept(group, "resolution") == [originals[0].path]
    assert best_member(group, parse_rules(["resolution"]), current=originals[2]) is originals[2]
    # every rule but "largest" (the notes made it larger) keeps an original, never the
    # edited copy sorting first by path
    for rule in ("oldest", "newest", "smallest", "shortest-path", "in:/nowhere"):
        assert notes.path not in kept(group, rule), rule
    assert select_group(group, parse_rules(["resolution"])) == {m.path for m in group.members[1:]}


def test_apply_keep_rules_keep_the_originals_on_the_command_line(tmp_path: Path) -> None:
    """``dupfinder apply --keep in:DIR`` on a group with no file in DIR, and ``--keep
    resolution`` on documents: the originals are kept, never the edited copy sorting first."""
    text = essay(11)
    docs = tmp_path / "docs"
    originals = [write(docs / f"{n}" / "GPL-3.txt", text) for n in ("b", "c", "d", "e")]
    for path in originals:
        os.utime(path, ns=(10**18, 10**18))
    notes = write(docs / "GPL-3 (my notes).txt", text + "\nMy notes: read again.\n")
    os.utime(notes, ns=(10**18, 10**18))
    other = essay(12)
    write(tmp_path / "elsewhere" / "other.txt", other)  # a second group, inside DIR
    write(tmp_path / "elsewhere" / "other copy.txt", other)
    saved = tmp_path / "result.json"
    out, err = io.StringIO(), io.StringIO()
    scan_args = ["scan", str(tmp_path), "--no-cache", "--format", "json", "--output", str(saved)]
    assert main(scan_args, out, err) == 0, err.getvalue()
    journal = ["--journal", str(tmp_path / "journal.jsonl")]
    for rule in (f"in:{tmp_path / 'elsewhere'}", "resolution", "oldest", "newest"):
        out, err = io.StringIO(), io.StringIO()
        main(["apply", str(saved), "--keep", rule, *journal], out, err)
        lines = out.getvalue().splitlines()
        kept = [line.split()[-1] for line in lines if "  keep " in line and "GPL-3" in line]
        assert len(kept) == 1, (rule, out.getvalue(), err.getvalue())
        assert kept[0].endswith(os.sep + "GPL-3.txt"), (rule, kept)
        if rule == "resolution":
            assert "cannot rank 2 groups" in err.getvalue()


def test_no_rule_marks_the_original_photo_on_a_real_folder(tmp_path: Path) -> None:
    """A photo, its recompressed copy (same pixels, a third of the bytes) filed where it
    sorts first, its half-size copy and a lossless PNG of the half-size copy: every rule
    that looks at quality, pixels, age or a reference folder keeps the original."""
    photo = picture(8, (1280, 1024))
    original = tmp_path / "photos" / "b" / "IMG_2041.jpg"
    recompressed = tmp_path / "photos" / "a-export" / "IMG_2041.jpg"
    half = tmp_path / "photos" / "a-export" / "IMG_2041-half.jpg"
    for path in (original, recompressed):
        path.parent.mkdir(parents=True, exist_ok=True)
    photo.save(original, quality=95)
    photo.save(recompressed, quality=40)
    photo.resize((640, 512)).save(half, quality=90)
    for path in (original, recompressed, half):
        os.utime(path, ns=(10**18, 10**18))  # copied with their times: all as old
    assert recompressed.stat().st_size < original.stat().st_size / 2
    options = ScanOptions(roots=(tmp_path,), use_cache=False, jobs=1)
    (group,) = scan.run(options).groups
    assert {m.path for m in group.members} == {str(original), str(recompressed), str(half)}
    assert group.members[0].path == str(original)
    assert KeepReason.LEAST_COMPRESSED in group.reasons
    for names in (["resolution"], ["oldest"], ["largest"], [f"in:{tmp_path / 'nowhere'}"]):
        assert best_member(group, parse_rules(names)).path == str(original), names
