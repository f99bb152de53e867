"""The walk finds what a scan should compare and nothing else, and survives odd trees."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dupfinder.core.fingerprints.columns import FileColumns
from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan.walk import WalkReport, normalise_roots, walk, walk_into


def _tree(root: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "a.txt").write_text("hello")
    (root / "docs" / "b.md").write_text("hello")
    (root / "docs" / "photo.JPG").write_bytes(b"\xff\xd8")
    (root / "docs" / "tool.exe").write_bytes(b"MZ")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "c.txt").write_text("hidden")
    (root / "build").mkdir()
    (root / "build" / "d.txt").write_text("built")
    (root / "empty.txt").write_text("")


def _names(options: ScanOptions, report: WalkReport | None = None) -> list[str]:
    return sorted(os.path.relpath(e.path, options.roots[0]) for e in walk(options, report))


def test_finds_known_kinds_and_skips_hidden_and_empty(tmp_path: Path) -> None:
    _tree(tmp_path)
    documents_and_pictures = frozenset({Kind.TEXT, Kind.IMAGE})
    names = _names(ScanOptions(roots=(tmp_path,), kinds=documents_and_pictures))
    assert names == ["build/d.txt", "docs/a.txt", "docs/b.md", "docs/photo.JPG"]
    kinds = {
        os.path.relpath(e.path, tmp_path): e.kind for e in walk(ScanOptions(roots=(tmp_path,)))
    }
    assert kinds == {
        "build/d.txt": Kind.TEXT,
        "docs/a.txt": Kind.TEXT,
        "docs/b.md": Kind.TEXT,
        "docs/photo.JPG": Kind.IMAGE,
        "docs/tool.exe": Kind.OTHER,
    }


def test_files_without_a_telling_suffix_are_listed_as_text_to_sniff(tmp_path: Path) -> None:
    names = ("COPYING", "Makefile", "README.Debian", ".bashrc", "song.mid", "disk.img", "libz.so.1")
    for name in names:
        (tmp_path / name).write_bytes(b"some bytes")
    os.mkfifo(tmp_path / "control")
    report = WalkReport()
    found = walk(ScanOptions(roots=(tmp_path,), include_hidden=True), report)
    kinds = {os.path.basename(e.path): e.kind for e in found}
    assert kinds == {
        "COPYING": Kind.TEXT,
        "Makefile": Kind.TEXT,
        "README.Debian": Kind.TEXT,
        ".bashrc": Kind.TEXT,
        "song.mid": Kind.OTHER,
        "disk.img": Kind.OTHER,
        "libz.so.1": Kind.OTHER,
    }
    assert report.errors == []  # a pipe without a document's name is passed over
    only_other = ScanOptions(roots=(tmp_path,), kinds=frozenset({Kind.OTHER}))
    assert {e.kind for e in walk(only_other)} == {Kind.OTHER}
    assert _names(ScanOptions(roots=(tmp_path,), kinds=frozenset({Kind.IMAGE}))) == []


def test_kinds_hidden_and_globs(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert _names(ScanOptions(roots=(tmp_path,), kinds=frozenset({Kind.IMAGE}))) == [
        "docs/photo.JPG"
    ]
    assert ".hidden/c.txt" in _names(ScanOptions(roots=(tmp_path,), include_hidden=True))
    assert _names(ScanOptions(roots=(tmp_path,), exclude=("build",))) == [
        "docs/a.txt",
        "docs/b.md",
        "docs/photo.JPG",
        "docs/tool.exe",
    ]
    assert _names(ScanOptions(roots=(tmp_path,), include=("*.md",))) == ["docs/b.md"]
    assert _names(ScanOptions(roots=(tmp_path,), exclude=("docs/",))) == ["build/d.txt"]


def test_size_limits(tmp_path: Path) -> None:
    (tmp_path / "small.txt").write_text("x")
    (tmp_path / "large.txt").write_text("x" * 5000)
    assert _names(ScanOptions(roots=(tmp_path,), min_size=100)) == ["large.txt"]
    assert _names(ScanOptions(roots=(tmp_path,), max_size=100)) == ["small.txt"]


def test_symlinks_are_skipped_unless_followed_and_loops_end(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.txt").write_text("a")
    (tmp_path / "real" / "loop").symlink_to(tmp_path)
    (tmp_path / "link.txt").symlink_to(tmp_path / "real" / "a.txt")
    report = WalkReport()
    assert _names(ScanOptions(roots=(tmp_path,)), report) == ["real/a.txt"]
    assert report.skipped_links == 2
    followed = _names(ScanOptions(roots=(tmp_path,), follow_symlinks=True))
    assert followed == ["real/a.txt"]  # one file, listed under its real path


def test_dangling_link_and_fifo_are_reported(tmp_path: Path) -> None:
    (tmp_path / "gone.txt").symlink_to(tmp_path / "missing.txt")
    os.mkfifo(tmp_path / "pipe.txt")
    report = WalkReport()
    found = list(walk(ScanOptions(roots=(tmp_path,), follow_symlinks=True), report))
    assert found == []
    reasons = {os.path.basename(e.path): e.error for e in report.errors}
    target = tmp_path / "missing.txt"
    assert reasons == {
        "gone.txt": f"a broken symbolic link (to {target}, which does not exist)",
        "pipe.txt": "not a regular file",
    }
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "notes").symlink_to("elsewhere")  # no telling suffix: reported all the same
    report = WalkReport()
    assert list(walk(ScanOptions(roots=(tmp_path / "notes",), follow_symlinks=True), report)) == []
    roots = [e.error for e in report.errors]
    assert roots == ["cannot open: a broken symbolic link (to elsewhere, which does not exist)"]
    report = WalkReport()
    list(walk(ScanOptions(roots=(tmp_path,), follow_symlinks=True), report))
    assert [os.path.basename(e.path) for e in report.errors] == ["notes", "pipe.txt"]


def test_unreadable_folder_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (tmp_path / "ok.txt").write_text("fine")
    real_scandir = os.scandir

    def scandir(path: str) -> Iterator[os.DirEntry[str]]:
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = WalkReport()
    assert _names(ScanOptions(roots=(tmp_path,)), report) == ["ok.txt"]
    assert report.errors[0].error == "cannot read folder: permission denied"


def test_roots_inside_roots_are_walked_once(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("a")
    options = ScanOptions(roots=(tmp_path / "sub", tmp_path, tmp_path / "sub"))
    assert len(list(walk(options))) == 1
    assert normalise_roots((tmp_path / "sub", tmp_path)) == [str(tmp_path)]


def test_a_file_root_and_a_missing_root(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    report = WalkReport()
    options = ScanOptions(roots=(tmp_path / "a.txt", tmp_path / "nope"))
    assert [os.path.basename(e.path) for e in walk(options, report)] == ["a.txt"]
    assert report.errors[0].error == "cannot open: no such file"  # a name given, not vanished


def test_undecodable_file_names_survive(tmp_path: Path) -> None:
    raw = os.fsencode(tmp_path) + b"/caf\xe9.txt"
    with open(raw, "wb") as handle:
        handle.write(b"bytes")
    (entry,) = walk(ScanOptions(roots=(tmp_path,)))
    assert os.fsencode(entry.path) == raw
    assert entry.size == 5


def test_suffixes_are_read_as_pathlib_reads_them() -> None:
    from pathlib import PurePath

    from dupfinder.core.fingerprints.formats import suffix_of

    names = ["a.TXT", "archive.tar.gz", ".bashrc", "file.", "..", "dir.d/Makefile", "x/.a.md", "a"]
    for name in names:
        assert suffix_of(name) == PurePath(name).suffix.lower(), name


def test_walking_into_columns_lists_what_the_walk_yields(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / "docs" / "hard.txt").hardlink_to(tmp_path / "docs" / "a.txt")
    options = ScanOptions(roots=(tmp_path,))
    files = FileColumns()
    walk_into(files, options, WalkReport())
    entries = list(walk(options, WalkReport()))
    assert entries
    assert [files.entry(row) for row in range(len(files))] == entries
