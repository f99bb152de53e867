"""A file is its (device, inode): however many paths reach it, it is listed and grouped once."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from dupfinder.core.model import ScanOptions
from dupfinder.core.scan.pipeline import run
from dupfinder.core.scan.walk import WalkReport, walk

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def _document(seed: int) -> str:
    """A 120-word text unlike the others (a different word order per seed)."""
    return " ".join(
        WORDS[(i * (seed + 3) + seed) % len(WORDS)] + str(i % (seed + 5)) for i in range(120)
    )


def _three_documents(folder: Path) -> None:
    folder.mkdir(parents=True)
    for seed in range(3):
        (folder / f"doc{seed}.txt").write_text(_document(seed))


def _listed(*roots: Path | str, follow: bool = False) -> list[str]:
    options = ScanOptions(roots=tuple(Path(r) for r in roots), follow_symlinks=follow)
    return sorted(e.path for e in walk(options))


def test_a_symlinked_root_is_the_same_folder(tmp_path: Path) -> None:
    _three_documents(tmp_path / "data")
    (tmp_path / "link").symlink_to("data")
    listed = _listed(tmp_path / "data", tmp_path / "link")
    assert listed == sorted(str(tmp_path / "data" / f"doc{i}.txt") for i in range(3))
    # given in the other order, the real path still wins
    assert _listed(tmp_path / "link", tmp_path / "data") == listed


def test_roots_spelt_differently_are_one_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _three_documents(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    spellings = ("data", "./data", "data/", f"{tmp_path}//data", f"{tmp_path}/data/../data")
    assert len(_listed(*spellings)) == 3


def test_a_followed_link_into_another_root_lists_nothing_twice(tmp_path: Path) -> None:
    _three_documents(tmp_path / "a" / "data")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "shortcut").symlink_to(tmp_path / "a" / "data")
    (tmp_path / "b" / "one.txt").symlink_to(tmp_path / "a" / "data" / "doc0.txt")
    listed = _listed(tmp_path / "b", tmp_path / "a", follow=True)
    assert listed == sorted(str(tmp_path / "a" / "data" / f"doc{i}.txt") for i in range(3))


def test_hard_links_are_one_file_with_a_link_count(tmp_path: Path) -> None:
    _three_documents(tmp_path / "data")
    os.link(tmp_path / "data" / "doc0.txt", tmp_path / "data" / "same-bytes.txt")
    report = WalkReport()
    entries = list(walk(ScanOptions(roots=(tmp_path,)), report))
    assert len(entries) == 3
    assert report.same_file_again == 1
    linked = [e for e in entries if e.links == 2]
    assert [os.path.basename(e.path) for e in linked] == ["doc0.txt"]
    assert all(e.ino and e.dev for e in entries)


def test_a_folder_mounted_twice_is_walked_once(tmp_path: Path) -> None:
    _three_documents(tmp_path / "data")
    (tmp_path / "again").mkdir()
    mounted = subprocess.run(
        ["mount", "--bind", str(tmp_path / "data"), str(tmp_path / "again")],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip("bind mounts need root")
    try:
        assert len(_listed(tmp_path / "data", tmp_path / "again")) == 3
    finally:
        subprocess.run(["umount", str(tmp_path / "again")], check=False)


def test_scan_of_a_folder_and_its_symlink_finds_no_group(tmp_path: Path) -> None:
    """Three different documents, reached by two paths each, are not duplicates of themselves."""
    _three_documents(tmp_path / "X" / "data")
    (tmp_path / "X" / "link").symlink_to("data")
    options = ScanOptions(
        roots=(tmp_path / "X" / "data", tmp_path / "X" / "link"), use_cache=False, jobs=1
    )
    result = run(options)
    assert result.groups == ()
    assert result.stats.files_seen == 3


def test_a_rewritten_file_with_its_old_mtime_is_fingerprinted_again(tmp_path: Path) -> None:
    """Same length, mtime put back (``touch -r``): the cache must not trust the old fingerprint."""
    folder = tmp_path / "docs"
    folder.mkdir()
    original = _document(1)
    (folder / "a.txt").write_text(original)
    (folder / "b.txt").write_text(original.replace("alpha", "ALPHA", 1))
    cache = tmp_path / "cache"
    options = ScanOptions(roots=(folder,), cache_dir=cache, jobs=1)
    assert len(run(options).groups) == 1
    target = folder / "b.txt"
    before = target.stat()
    unrelated = _document(2)[: before.st_size].ljust(before.st_size, "x")
    target.write_text(unrelated)
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (
        before.st_size,
        before.st_mtime_ns,
    )
    again = run(options)
    assert again.stats.files_fingerprinted >= 1
    assert again.groups == ()
