"""Hand-edited or hostile results files give a clear ResultFormatError, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.results.report import load_result


def _result(**member: Any) -> dict[str, Any]:
    base = {"path": "/x/a.txt", "size": 10, "mtime_ns": 1, "distance": 0, "fingerprint": "00" * 8}
    other = {**base, "path": "/x/b.txt"}
    return {"version": 1, "groups": [{"kind": "text", "members": [{**base, **member}, other]}]}


def _load(tmp_path: Path, data: Any, raw: str | None = None) -> None:
    path = tmp_path / "res.json"
    path.write_text(raw if raw is not None else json.dumps(data))
    load_result(path)


@pytest.mark.parametrize(
    ("member", "message"),
    [
        ({"size": 1e300}, "size"),
        ({"size": -3}, "size"),
        ({"size": "10"}, "size"),
        ({"width": "wide", "height": 10}, "width"),
        ({"path": None}, "path"),
        ({"path": ""}, "path"),
        ({"mtime_ns": None, "mtime": "yesterday"}, "mtime"),
        ({"fingerprint": "xyz"}, "fingerprint"),
        ({"ino": -1}, "ino"),
        ({"links": 0}, "links"),
    ],
)
def test_bad_member_fields_are_named(tmp_path: Path, member: dict[str, Any], message: str) -> None:
    with pytest.raises(ResultFormatError, match=message):
        _load(tmp_path, _result(**member))


def test_members_as_an_object_and_groups_not_a_list(tmp_path: Path) -> None:
    data = _result()
    data["groups"][0]["members"] = {"a": 1}
    with pytest.raises(ResultFormatError, match="members"):
        _load(tmp_path, data)
    with pytest.raises(ResultFormatError, match="groups"):
        _load(tmp_path, {"version": 1, "groups": "all"})


def test_a_size_too_large_for_any_number_type(tmp_path: Path) -> None:
    raw = json.dumps(_result()).replace('"size": 10', '"size": 1e400', 1)
    with pytest.raises(ResultFormatError, match=r"groups\[0\]\.members\[0\]\.size"):
        _load(tmp_path, None, raw=raw)


def test_deep_nesting_infinity_and_binary(tmp_path: Path) -> None:
    with pytest.raises(ResultFormatError, match="nested"):
        _load(tmp_path, None, raw="[" * 200_000 + "]" * 200_000)
    with pytest.raises(ResultFormatError):
        _load(tmp_path, None, raw=json.dumps(_result()).replace('"size": 10', '"size": Infinity'))
    (tmp_path / "res.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ResultFormatError):
        load_result(tmp_path / "res.json")


@pytest.mark.parametrize("spelling", ["/x/./b.txt", "/x//b.txt", "/y/../x/b.txt", "x/b.txt"])
def test_a_path_spelt_other_than_a_scan_writes_it_is_refused(tmp_path: Path, spelling: str) -> None:
    """Tidying ``/y/../x`` by text rules would name another file than the system opens when
    ``y`` is a link; such a path (and a relative one) is refused, never guessed at."""
    with pytest.raises(ResultFormatError, match="absolute path"):
        _load(tmp_path, _result(path=spelling))


def test_identity_fields_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "res.json"
    path.write_text(json.dumps(_result(dev=5, ino=2**63 + 1, ctime_ns=7, links=3)))
    result, _ = load_result(path)
    member = result.groups[0].members[0]
    assert (member.dev, member.ino, member.ctime_ns, member.links) == (5, 2**63 + 1, 7, 3)
