"""The JSON contract round-trips; CSV and text say the same things for people and sheets."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.model import Fingerprint, Group, Kind, Member, ScanError, ScanResult, ScanStats
from dupfinder.core.results.report import (
    load_result,
    result_from_dict,
    result_to_dict,
    save_result,
    write_csv,
    write_json,
    write_text,
)


def _result(path_b: str = "/docs/b.txt") -> ScanResult:
    text = Group(
        Kind.TEXT,
        (
            Member("/docs/a.txt", 1200, 1_700_000_000_123_456_789, 0, Fingerprint(Kind.TEXT, 7)),
            Member(path_b, 1180, 1_700_000_001_000_000_000, 2, Fingerprint(Kind.TEXT, 4)),
        ),
    )
    image = Group(
        Kind.IMAGE,
        (
            Member("/p/1.jpg", 5000, 1, 0, Fingerprint(Kind.IMAGE, 2**64 - 1), 640, 480),
            Member("/p/2.webp", 3000, 2, 5, Fingerprint(Kind.IMAGE, 2**64 - 32), 320, 240),
        ),
    )
    return ScanResult(
        (text, image),
        (ScanError("/docs/bad.pdf", "password-protected PDF", "encrypted"),),
        ScanStats(files_seen=5, files_fingerprinted=4, pairs=2, seconds=0.25),
    )


def test_json_matches_the_documented_contract() -> None:
    data = json.loads(json.dumps(result_to_dict(_result())))
    assert data["version"] == 2
    group = data["groups"][0]
    assert group["kind"] == "text"
    assert group["representative"] == "/docs/a.txt"
    assert set(group["members"][0]) >= {"path", "size", "mtime", "distance"}
    assert data["groups"][1]["members"][1]["width"] == 320
    assert data["errors"] == [
        {"path": "/docs/bad.pdf", "error": "password-protected PDF", "code": "encrypted"}
    ]
    assert set(data["stats"]) >= {"files_seen", "files_fingerprinted", "seconds"}


def test_round_trip_keeps_every_value(tmp_path: Path) -> None:
    original = _result()
    save_result(original, tmp_path / "r.json", extra={"marks": ["/docs/b.txt"]})
    loaded, raw = load_result(tmp_path / "r.json")
    assert loaded == original
    assert raw["marks"] == ["/docs/b.txt"]


def test_undecodable_names_stay_valid_json(tmp_path: Path) -> None:
    weird = os.fsdecode(b"/docs/caf\xe9.txt")
    buffer = io.StringIO()
    write_json(_result(weird), buffer)
    buffer.getvalue().encode("utf-8")  # strict: no lone surrogates in the output
    assert result_from_dict(json.loads(buffer.getvalue())).groups[0].members[1].path == weird


@pytest.mark.parametrize(
    "data", [{"version": 3, "groups": []}, {"version": 1, "groups": [{"kind": "x"}]}, []]
)
def test_bad_input_is_a_format_error(data: object) -> None:
    with pytest.raises(ResultFormatError):
        result_from_dict(data)


def test_not_json_is_a_format_error(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text("{")
    with pytest.raises(ResultFormatError, match="not JSON"):
        load_result(tmp_path / "r.json")


def test_csv_has_one_row_per_member() -> None:
    buffer = io.StringIO()
    write_csv(_result(), buffer)
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue())))
    assert [(r["group"], r["path"], r["representative"]) for r in rows] == [
        ("1", "/docs/a.txt", "1"),
        ("1", "/docs/b.txt", "0"),
        ("2", "/p/1.jpg", "1"),
        ("2", "/p/2.webp", "0"),
    ]
    assert rows[3]["width"] == "320"
    assert rows[2]["fingerprint"] == "ffffffffffffffff"


def test_text_lists_groups_errors_and_totals() -> None:
    buffer = io.StringIO()
    write_text(_result(), buffer)
    text = buffer.getvalue()
    assert "Group 1 · text · 2 files" in text
    assert "640x480" in text
    assert "! /docs/bad.pdf: password-protected PDF" in text
    assert text.rstrip().endswith(
        "2 groups in 5 files · 4 fingerprinted, 1 skipped · 0 from the cache, 5 read now · 0.25 s"
    )


def _identical_result() -> ScanResult:
    same = "0123456789abcdef0123456789abcdef"
    copies = Group(
        Kind.OTHER,
        (
            Member("/a/disk.iso", 900, 1, 0, Fingerprint(Kind.OTHER, 0x0123), content_hash=same),
            Member("/b/disk.iso", 900, 2, 0, Fingerprint(Kind.OTHER, 0x0123), content_hash=same),
        ),
    )
    text = Group(
        Kind.TEXT,
        (
            Member("/d/a.txt", 10, 1, 0, Fingerprint(Kind.TEXT, 7), content_hash="ab" * 16),
            Member("/d/a (1).txt", 10, 1, 0, Fingerprint(Kind.TEXT, 7), content_hash="ab" * 16),
            Member("/d/b.txt", 12, 1, 3, Fingerprint(Kind.TEXT, 4)),
        ),
    )
    return ScanResult((copies, text))


def test_identical_files_are_flagged_in_json_csv_and_text(tmp_path: Path) -> None:
    result = _identical_result()
    data = result_to_dict(result)
    assert [g["identical"] for g in data["groups"]] == [True, False]
    assert [m["identical"] for m in data["groups"][1]["members"]] == [True, True, False]
    assert "content_hash" not in data["groups"][1]["members"][2]
    save_result(result, tmp_path / "r.json")
    assert load_result(tmp_path / "r.json")[0] == result

    buffer = io.StringIO()
    write_csv(result, buffer)
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue())))
    assert [(r["kind"], r["identical"], r["content_hash"][:4]) for r in rows] == [
        ("other", "1", "0123"),
        ("other", "1", "0123"),
        ("text", "1", "abab"),
        ("text", "1", "abab"),
        ("text", "0", ""),
    ]

    buffer = io.StringIO()
    write_text(result, buffer)
    text = buffer.getvalue()
    assert "Group 1 · other · 2 identical files · 900 B reclaimable" in text
    assert "  * identical      900 B  /a/disk.iso" in text
    assert " 0 bits 100%  =ababab" in text


def test_text_never_says_100_percent_of_different_bytes() -> None:
    keeper = Member("/d/a.jpg", 10, 1, 0, Fingerprint(Kind.IMAGE, 7))
    resized = Member("/d/small.jpg", 5, 1, 0, Fingerprint(Kind.IMAGE, 7))
    buffer = io.StringIO()
    write_text(ScanResult((Group(Kind.IMAGE, (keeper, resized)),)), buffer)
    assert " 0 bits  99%" in buffer.getvalue()
    assert "100%" not in buffer.getvalue().split("/d/a.jpg", 1)[1]
