"""Which scan the app's choices lead to, and the cache folder, without any widget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dupfinder.app.cache_folder import cache_bytes, clear_cache, folder_of
from dupfinder.app.scan_settings import AdvancedSettings, FolderEntry, ScanSettings, scan_options
from dupfinder.core.model import FINGERPRINTED_KINDS, Kind
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.scan.cache import default_cache_dir


def settings(folder: Path, kinds: frozenset[Kind], **advanced: Any) -> ScanSettings:
    return ScanSettings(
        folders=(FolderEntry(str(folder)),),
        kinds=kinds,
        advanced=AdvancedSettings(**advanced),  # AdvancedSettings's fields
    )


BOTH = frozenset({Kind.TEXT, Kind.IMAGE})
EVERYTHING = FINGERPRINTED_KINDS


def test_identical_files_of_every_type_when_everything_is_compared(
    tmp_path: Path,
) -> None:
    options = scan_options(settings(tmp_path, EVERYTHING))
    assert options.identical
    assert options.kinds == frozenset(Kind)  # the command line's --kind all
    assert ScanSettings().kinds == EVERYTHING  # the panel's default
    # Off: near-duplicate documents, pictures, music and videos only (--no-identical).
    off = scan_options(settings(tmp_path, EVERYTHING, identical=False))
    assert not off.identical
    assert off.kinds == EVERYTHING
    # Music only stays music only (--kind audio).
    assert scan_options(settings(tmp_path, frozenset({Kind.AUDIO}))).kinds == {Kind.AUDIO}
    # Documents only stays documents only (--kind text), identical ones included.
    texts = scan_options(settings(tmp_path, frozenset({Kind.TEXT})))
    assert texts.kinds == frozenset({Kind.TEXT})
    assert texts.identical


def test_the_scan_finds_identical_other_files_only_when_asked(tmp_path: Path) -> None:
    blob = bytes(range(256)) * 64
    for name in ("a.bin", "copy of a.bin", "archive.tar.zst"):
        (tmp_path / name).write_bytes(blob)
    (tmp_path / "different.bin").write_bytes(blob[::-1])
    on = scan.run(scan_options(settings(tmp_path, EVERYTHING, use_cache=False)))
    assert [(g.kind, g.identical, len(g.members)) for g in on.groups] == [(Kind.OTHER, True, 3)]
    off = scan.run(scan_options(settings(tmp_path, EVERYTHING, use_cache=False, identical=False)))
    assert off.groups == ()


def test_the_cache_folder_is_chosen_cleared_and_says_what_it_freed(tmp_path: Path) -> None:
    assert folder_of("") == default_cache_dir()
    cache = tmp_path / "cache"
    assert scan_options(settings(tmp_path, BOTH, cache_dir=str(cache))).cache_dir == cache
    assert scan_options(settings(tmp_path, BOTH)).cache_dir is None
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"n{i}.txt").write_text(f"note {i} " * 200, encoding="utf-8")
    scan.run(scan_options(settings(docs, BOTH, cache_dir=str(cache))))
    keep = cache / "mine.txt"  # a file of the user's in the folder they chose
    keep.write_text("not the cache's", encoding="utf-8")
    used = cache_bytes(cache)
    assert used > 0
    cleared = clear_cache(cache)
    assert cleared.freed == used
    assert cleared.problems == ()
    assert cache_bytes(cache) == 0
    assert keep.exists()
    assert clear_cache(tmp_path / "never made").freed == 0


def test_a_scan_without_folders_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="folder"):
        scan_options(ScanSettings())
