"""What changed in a picture, in the JSON contract, the table and the CSV; results written
before edits were named still read."""

from __future__ import annotations

import csv
import io
import json

import pytest

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.model import (
    Edit,
    EditCode,
    Fingerprint,
    Group,
    Kind,
    Member,
    ScanResult,
    Side,
)
from dupfinder.core.results.report import (
    result_from_dict,
    result_to_dict,
    write_csv,
    write_text,
)

EDITS = (
    Edit(EditCode.SMALLER, width=128, height=128, of_width=256, of_height=256),
    Edit(EditCode.CROPPED, percent=6, sides=(Side.LEFT, Side.TOP)),
    Edit(EditCode.GREYSCALE),
    Edit(EditCode.REENCODED, format="JPEG", quality=60),
)


def _result() -> ScanResult:
    def picture(name: str, size: int, edits: tuple[Edit, ...] = ()) -> Member:
        return Member(
            f"/photos/{name}", size, 1_700_000_000_000_000_000, 3, Fingerprint(Kind.IMAGE, 7),
            width=256, height=256, similarity=0.93, edits=edits,
        )  # fmt: skip

    group = Group(Kind.IMAGE, (picture("a.png", 9000), picture("b.jpg", 2000, EDITS)))
    return ScanResult(groups=(group,))


def test_edits_round_trip_through_the_json_contract() -> None:
    data = result_to_dict(_result())
    written = data["groups"][0]["members"][1]["edits"]
    assert written[1] == {"code": "cropped", "percent": 6, "sides": ["left", "top"]}
    assert written[3] == {"code": "re-encoded", "format": "JPEG", "quality": 60}
    assert "edits" not in data["groups"][0]["members"][0]  # the kept one
    back = result_from_dict(json.loads(json.dumps(data)))
    assert back.groups[0].members[1].edits == EDITS


def test_a_contrast_raised_past_double_reads_back() -> None:
    data = result_to_dict(_result())
    data["groups"][0]["members"][1]["edits"] = [{"code": "more-contrast", "percent": 180}]
    edits = result_from_dict(json.loads(json.dumps(data))).groups[0].members[1].edits
    assert edits == (Edit(EditCode.MORE_CONTRAST, percent=180),)


def test_results_without_edits_and_with_unknown_codes_read() -> None:
    data = result_to_dict(_result())
    member = data["groups"][0]["members"][1]
    member["edits"] = [{"code": "vignetted"}, {"code": "greyscale", "sides": ["middle"]}]
    assert result_from_dict(data).groups[0].members[1].edits == (Edit(EditCode.GREYSCALE),)
    del member["edits"]  # a result saved before edits were named
    assert result_from_dict(data).groups[0].members[1].edits == ()


@pytest.mark.parametrize(
    "bad", [[{"percent": 5}], [{"code": "cropped", "percent": 101}], ["cropped"], {"code": 1}]
)
def test_a_damaged_edit_is_refused_by_place(bad: object) -> None:
    data = result_to_dict(_result())
    data["groups"][0]["members"][1]["edits"] = bad
    with pytest.raises(ResultFormatError, match=r"groups\[0\]\.members\[1\]\.edits"):
        result_from_dict(data)


def test_the_table_and_the_csv_say_what_changed() -> None:
    out = io.StringIO()
    write_text(_result(), out)
    assert (
        "what changed: smaller: 128 × 128 of 256 × 256 · cropped 6 % (left, top) · greyscale"
        " · re-encoded JPEG q≈60" in out.getvalue()
    )
    table = io.StringIO()
    write_csv(_result(), table)
    rows = list(csv.DictReader(io.StringIO(table.getvalue())))
    assert rows[0]["edits"] == ""
    assert rows[1]["edits"].startswith("smaller: 128 × 128 of 256 × 256; cropped 6 %")
