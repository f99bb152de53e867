"""Music and videos in the JSON contract (version 2), the table and the CSV; version 1 reads."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.model import (
    Fingerprint,
    Group,
    KeepReason,
    Kind,
    MatchedSpan,
    MediaFacts,
    Member,
    ScanResult,
)
from dupfinder.core.results.report import (
    FORMAT_VERSION,
    load_result,
    result_from_dict,
    result_to_dict,
    save_result,
    write_csv,
    write_text,
)

NOTICE = "Install FFmpeg to compare music and videos by content."


def _song() -> Group:
    flac = MediaFacts(221.4, 900_000, "flac", True, "Tune", "Band", "Record")
    mp3 = MediaFacts(221.5, 320_000, "mp3", False, "Tune", "Band", "Record")
    clip = MediaFacts(173.0, 128_000, "vorbis", False)
    return Group(
        Kind.AUDIO,
        (
            Member("/m/tune.flac", 30_000_000, 1, 0, Fingerprint(Kind.AUDIO, 5), media=flac),
            Member(
                "/m/tune.mp3",
                9_000_000,
                2,
                3,
                Fingerprint(Kind.AUDIO, 6),
                similarity=0.97,
                media=mp3,
                span=MatchedSpan(0.0, 221.5, 0.0, 221.4),
            ),
            Member(
                "/m/cut.ogg",
                3_000_000,
                3,
                9,
                Fingerprint(Kind.AUDIO, 7),
                similarity=0.93,
                media=clip,
                span=MatchedSpan(0.0, 173.0, 12.2, 185.2),
            ),
        ),
        (KeepReason.LOSSLESS, KeepReason.LONGEST),
    )


def _result() -> ScanResult:
    return ScanResult((_song(),), notices=(NOTICE,))


def test_media_fields_and_notices_round_trip(tmp_path: Path) -> None:
    save_result(_result(), tmp_path / "r.json")
    loaded, raw = load_result(tmp_path / "r.json")
    assert loaded == _result()
    assert raw["version"] == FORMAT_VERSION == 2
    assert raw["notices"] == [NOTICE]
    member = raw["groups"][0]["members"][2]
    assert member["media"]["codec"] == "vorbis"
    assert member["match"] == {
        "start": 0.0,
        "end": 173.0,
        "keeper_start": 12.2,
        "keeper_end": 185.2,
    }
    assert "title" not in member["media"]  # absent tags are left out, not written as null


def test_a_version_1_result_still_reads() -> None:
    data = result_to_dict(ScanResult((_song(),)))
    data["version"] = 1
    for group in data["groups"]:
        group["kind"] = "image"
        for member in group["members"]:
            member.pop("media")
            member.pop("match", None)
    del data["notices"]
    loaded = result_from_dict(json.loads(json.dumps(data)))
    assert loaded.notices == ()
    assert all(m.media is None and m.span is None for m in loaded.groups[0].members)


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("media", {"duration": -1}),
        ("media", {"lossless": "yes"}),
        ("match", {"start": 5, "end": 1, "keeper_start": 0, "keeper_end": 4}),
        ("match", {"start": 0, "end": 1}),
    ],
)
def test_bad_media_fields_are_format_errors(where: str, value: object) -> None:
    data = result_to_dict(_result())
    data["groups"][0]["members"][1][where] = value
    with pytest.raises(ResultFormatError, match=rf"members\[1\]\.{where}"):
        result_from_dict(data)


def test_table_shows_length_bitrate_tags_and_the_matched_span() -> None:
    out = io.StringIO()
    write_text(_result(), out)
    text = out.getvalue()
    assert "Group 1 · audio · 3 files" in text
    assert "kept (*) as the original: lossless, longest" in text
    assert "3:41 · 900 kb/s · flac (lossless) · Tune \u2014 Band \u2014 Record" in text
    assert "matches 0:00\u20132:53 of 2:53 (keeper's 0:12\u20133:05 of 3:41)" in text
    assert f"note: {NOTICE}" in text


def test_csv_has_the_media_columns() -> None:
    out = io.StringIO()
    write_csv(_result(), out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["codec"] for r in rows] == ["flac", "mp3", "vorbis"]
    assert rows[0]["lossless"] == "1"
    assert rows[0]["match_start"] == ""
    assert rows[2]["match_start"] == "0.000"
    assert rows[2]["duration"] == "173.000"
