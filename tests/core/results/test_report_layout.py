"""The JSON result is laid out as the README shows it, one member or error a line, the same
text whichever encoder of the json module writes it."""

from __future__ import annotations

import io
import json

import pytest

from dupfinder.core.model import (
    Fingerprint,
    Group,
    KeepReason,
    Kind,
    Member,
    ScanError,
    ScanResult,
    ScanStats,
)
from dupfinder.core.results import report

_EXPECTED = """\
{
  "version": 2,
  "groups": [
    {
      "kind": "image",
      "identical": false,
      "representative": "/p/caf\u00e9 \\"1\\".jpg",
      "keeper_reasons": ["oldest"],
      "members": [
        {"path": "/p/caf\u00e9 \\"1\\".jpg", "size": 5000, "mtime": 1e-09, "mtime_ns": 1, \
"distance": 0, "similarity": 1.0, "fingerprint": "ffffffffffffffff", "width": 640, \
"height": 480, "links": 1, "identical": false},
        {"path": "/p/}, {2}.webp", "size": 3000, "mtime": 2e-09, "mtime_ns": 2, \
"distance": 5, "similarity": 0.921875, "fingerprint": "ffffffffffffffe0", "width": 320, \
"height": 240, "links": 1, "identical": false}
      ]
    }
  ],
  "errors": [
    {"path": "/d/bad.pdf", "error": "password-protected PDF", "code": "encrypted"}
  ],
  "stats": {"files_seen": 5, "files_fingerprinted": 4, "files_from_cache": 0, \
"files_bytes_only": 0, "pairs": 2, "seconds": 0.25, "cancelled": false},
  "notices": ["music compared by its bytes only"],
  "marks": ["/p/}, {2}.webp"],
  "layers": [
    {"at": [1, 2]},
    [
      {"deep": [{"x": 1}]}
    ]
  ]
}
"""


def _result() -> ScanResult:
    pictures = Group(
        Kind.IMAGE,
        (
            Member('/p/café "1".jpg', 5000, 1, 0, Fingerprint(Kind.IMAGE, 2**64 - 1), 640, 480),
            Member("/p/}, {2}.webp", 3000, 2, 5, Fingerprint(Kind.IMAGE, 2**64 - 32), 320, 240),
        ),
        (KeepReason.OLDEST,),
    )
    return ScanResult(
        (pictures,),
        (ScanError("/d/bad.pdf", "password-protected PDF", "encrypted"),),
        ScanStats(files_seen=5, files_fingerprinted=4, pairs=2, seconds=0.25),
        ("music compared by its bytes only",),
    )


_EXTRA = {"marks": ["/p/}, {2}.webp"], "layers": [{"at": [1, 2]}, [{"deep": [{"x": 1}]}]]}


def _written() -> str:
    buffer = io.StringIO()
    report.write_json(_result(), buffer, _EXTRA)
    return buffer.getvalue()


def test_one_member_or_error_a_line_and_every_value_kept() -> None:
    text = _written()
    assert text == _EXPECTED
    assert json.loads(text) == report.result_to_dict(_result(), _EXTRA)


def test_the_same_text_without_the_json_modules_c_encoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    monkeypatch.setattr(report, "_UTF8", report._OneLine(ensure_ascii=False))
    assert _written() == _EXPECTED
