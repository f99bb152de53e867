"""Fingerprints are values: distance, stable hex text, validation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanOptions

u64 = st.integers(min_value=0, max_value=2**64 - 1)


@given(u64)
def test_hex_round_trips(value: int) -> None:
    fp = Fingerprint(Kind.TEXT, value)
    text = fp.hex()
    assert len(text) == 16
    assert Fingerprint.from_hex("text", text) == fp


@given(u64, u64)
def test_distance_is_popcount_of_xor(a: int, b: int) -> None:
    fa, fb = Fingerprint(Kind.IMAGE, a), Fingerprint(Kind.IMAGE, b)
    assert fa - fb == bin(a ^ b).count("1") == fb.distance(fa)


def test_hex_is_fixed_text() -> None:
    assert Fingerprint(Kind.TEXT, 0x1F).hex() == "000000000000001f"
    assert str(Fingerprint(Kind.IMAGE, 2**64 - 1)) == "image:ffffffffffffffff"


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5])
def test_out_of_range_values_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="64-bit"):
        Fingerprint(Kind.TEXT, bad)  # type: ignore[arg-type]  # 1.5 on purpose: refused


def test_kinds_never_compare() -> None:
    with pytest.raises(ValueError, match="cannot compare"):
        Fingerprint(Kind.TEXT, 1).distance(Fingerprint(Kind.IMAGE, 1))


def test_group_needs_two_members_and_reports_reclaimable_bytes() -> None:
    fp = Fingerprint(Kind.TEXT, 0)
    a = Member("/a", 100, 0, 0, fp)
    b = Member("/b", 300, 0, 1, fp)
    with pytest.raises(ValueError, match="two members"):
        Group(Kind.TEXT, (a,))
    group = Group(Kind.TEXT, (a, b))
    assert group.representative is a
    assert group.reclaimable_bytes == 300  # at most: everything but the smallest
    linked = Member("/c", 500, 0, 1, fp, links=2)
    # another name keeps a hard-linked file's bytes: removing this one frees nothing
    assert Group(Kind.TEXT, (a, b, linked)).reclaimable_bytes == 300
    assert b.similarity == pytest.approx(63 / 64)


@pytest.mark.parametrize(
    "kwargs",
    [{"text_threshold": 33}, {"image_threshold": -1}, {"jobs": 0}, {"kinds": frozenset()}],
)
def test_options_validate(kwargs: dict[str, Any]) -> None:  # a field out of its range
    with pytest.raises(ValueError):  # noqa: PT011 - each case has its own message
        ScanOptions(roots=(), **kwargs)
