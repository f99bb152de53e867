"""The walk where a folder's listing gives no identity (Windows' ``DirEntry.stat()`` reports
inode and device 0; so do some network file systems): every file is listed, and a file with
two names still once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from simulated_platform import ListingWithoutIdentity, with_stat

from dupfinder.core.model import ScanOptions
from dupfinder.core.scan.walk import WalkReport, walk


def _documents(folder: Path, count: int) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"doc{i}.txt"
        path.write_text(f"document {i} " * 40)
        paths.append(str(path))
    return paths


def _walk(root: Path) -> tuple[list[str], WalkReport]:
    report = WalkReport()
    entries = list(walk(ScanOptions(roots=(root,)), report))
    return sorted(e.path for e in entries), report


@pytest.fixture
def listing_without_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "scandir", ListingWithoutIdentity)


@pytest.mark.usefixtures("listing_without_identity")
def test_every_file_is_listed_when_the_listing_reports_inode_zero(tmp_path: Path) -> None:
    made = _documents(tmp_path / "a", 3) + _documents(tmp_path / "a" / "sub", 2)
    listed, report = _walk(tmp_path / "a")
    assert listed == sorted(made)
    assert report.same_file_again == 0


@pytest.mark.usefixtures("listing_without_identity")
def test_hard_links_are_still_one_file_and_entries_carry_the_real_identity(
    tmp_path: Path,
) -> None:
    (first,) = _documents(tmp_path / "a", 1)
    os.link(first, tmp_path / "a" / "second name.txt")
    entries = list(walk(ScanOptions(roots=(tmp_path / "a",))))
    assert [e.path for e in entries] == [first]
    real = os.stat(first)
    assert (entries[0].dev, entries[0].ino) == (real.st_dev, real.st_ino)


@pytest.mark.usefixtures("listing_without_identity")
def test_without_any_inode_number_files_are_named_by_their_path_never_merged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _documents(tmp_path / "a", 3)
    os.link(made[0], tmp_path / "a" / "second name.txt")
    real_stat = os.stat

    def stat_without_identity(path: object, *args: object, **kwargs: object) -> os.stat_result:
        return with_stat(real_stat(path, *args, **kwargs), st_ino=0, st_dev=0)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat_without_identity)
    listed, _ = _walk(tmp_path / "a")
    # a hard link cannot be told from another file then: both names are listed, none lost
    assert listed == sorted([*made, str(tmp_path / "a" / "second name.txt")])
