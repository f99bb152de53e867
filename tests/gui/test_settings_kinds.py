"""The panel's "Compare" choice as saved: one kind, or everything (music and videos too)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from dupfinder.core.model import FINGERPRINTED_KINDS, Kind
from dupfinder.gui.settings import ScanSettings, Settings


def _load(path: Path, kinds: str) -> frozenset[Kind]:
    path.write_text(f"[scan]\nkinds={kinds}\n")
    return Settings(QSettings(str(path), QSettings.Format.IniFormat)).load_scan().kinds


@pytest.mark.parametrize(
    ("saved", "kinds"),
    [
        ('"text,image"', FINGERPRINTED_KINDS),  # "Documents and pictures" compared everything
        ("audio", frozenset({Kind.AUDIO})),
        ("video", frozenset({Kind.VIDEO})),
        ("text", frozenset({Kind.TEXT})),
        ('"audio,image,text,video"', FINGERPRINTED_KINDS),
        ("sound", FINGERPRINTED_KINDS),
    ],
)
def test_saved_kinds_load_as_a_choice_of_the_panel(
    tmp_path: Path, saved: str, kinds: frozenset[Kind]
) -> None:
    assert _load(tmp_path / "s.ini", saved) == kinds


@pytest.mark.parametrize("kinds", [FINGERPRINTED_KINDS, frozenset({Kind.AUDIO})])
def test_music_and_videos_round_trip(tmp_path: Path, kinds: frozenset[Kind]) -> None:
    path = tmp_path / "s.ini"
    Settings(QSettings(str(path), QSettings.Format.IniFormat)).save_scan(ScanSettings(kinds=kinds))
    again = Settings(QSettings(str(path), QSettings.Format.IniFormat)).load_scan()
    assert again.kinds == kinds
