"""The byte-identical scan's compiled listing and first reads answer as the Python walk and reads.

``walk.walk_by_size`` lists folders in compiled code where it is built; every folder it hands
back (a special file, a link it does not follow, a name that is not UTF-8...) is walked in
Python. Both must give the same files, in the same order, with the same stats, counts and
errors; the compiled first reads the same bytes and failures as ``byte_reads``' own.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan import byte_reads, compiled, walk
from dupfinder.core.scan.walk import Sized, WalkReport

pytestmark = pytest.mark.skipif(
    compiled.walk_kernels is None, reason="the compiled listing is not built here"
)

#: The fields of a file's stat the byte-identical scan reads.
_FIELDS = ("st_mode", "st_ino", "st_dev", "st_nlink", "st_size", "st_mtime_ns", "st_ctime_ns")


def _options(root: Path, **kwargs: object) -> ScanOptions:
    return ScanOptions(
        roots=(root,),
        near_duplicates=False,
        use_cache=False,
        **kwargs,  # type: ignore[arg-type]
    )


def _listed(
    options: ScanOptions, monkeypatch: pytest.MonkeyPatch, python: bool
) -> tuple[list[tuple[int, list[tuple[object, ...]]]], WalkReport, list[int]]:
    """The walk's lists by size (each file's path, stat fields and kind), its report and the
    counts it told, with the compiled listing or without it."""
    with monkeypatch.context() as patched:
        if python:
            patched.setattr(walk, "walk_kernels", None)
        report, told = WalkReport(), list[int]()
        sized: Sized = walk.walk_by_size(options, report, None, told.append)
    files = [
        (size, [(path, *(getattr(info, f) for f in _FIELDS), kind) for path, info, kind in same])
        for size, same in sized.items()
    ]
    return files, report, told


def _same_both_ways(options: ScanOptions, monkeypatch: pytest.MonkeyPatch) -> dict[int, list[str]]:
    """The paths by size both ways list, once it is seen that they list the same."""
    fast, fast_report, fast_told = _listed(options, monkeypatch, python=False)
    slow, slow_report, slow_told = _listed(options, monkeypatch, python=True)
    assert fast == slow  # sizes in the order first met, files in walk order
    assert fast_report == slow_report  # errors, links passed over, second names
    assert len(fast_told) == len(slow_told)
    return {size: [str(path) for path, *_ in same] for size, same in fast}


def _handed_back(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders (relative to ``root``) the compiled listing will hand to the Python walk."""
    kernels = compiled.walk_kernels
    assert kernels is not None
    real = kernels.folder_by_size
    handed: list[str] = []

    def listing(folder: str, *args: Any) -> Any:
        answer = real(folder, *args)
        if answer is None:
            handed.append(os.path.relpath(folder, root))
        return answer

    monkeypatch.setattr(kernels, "folder_by_size", listing)
    return handed


def _odd_tree(root: Path) -> None:
    """Copies, hard links, symbolic links, hidden files and folders, empty files, names that
    sort differently as bytes and as text, a pipe with a document's name, a trash folder."""
    (root / "a" / "b").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / ".Trash-0").mkdir()
    for path, data in (
        ("one.txt", b"same"),
        ("a/two.txt", b"same"),
        ("a/b/three", b"other"),
        (".hidden/four", b"same"),
        (".dot", b"other"),
        ("a/empty", b""),
        (".Trash-0/thrown.txt", b"same"),
        ("x\ud7ff", b"same"),  # U+D7FF: before an escaped byte as text, after it as bytes
        (os.fsdecode(b"x\xe9"), b"same"),  # not UTF-8
        ("Zed", b"x" * 70_000),
        ("zed", b"x" * 70_000),
    ):
        (root / path).write_bytes(data)
    os.link(root / "one.txt", root / "a" / "one again.txt")
    (root / "a" / "to one").symlink_to(root / "one.txt")
    (root / "a" / "loop").symlink_to(root / "a")


def test_the_compiled_listing_lists_what_the_python_walk_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    _odd_tree(root)
    for hidden in (False, True):
        sized = _same_both_ways(_options(root, include_hidden=hidden), monkeypatch)
        paths = [os.path.relpath(path, root) for same in sized.values() for path in same]
        assert "a/one again.txt" not in paths  # the second name of one file
        assert ".Trash-0/thrown.txt" not in paths
        assert ("a/empty" in paths) is False  # below the smallest size
        assert (".hidden/four" in paths) is hidden
    for limits in ({"min_size": 0}, {"min_size": 5}, {"max_size": 4}):
        _same_both_ways(_options(root, include_hidden=True, **limits), monkeypatch)


def test_a_folder_with_anything_unusual_is_walked_in_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipe named as a document (an error), a name that is not UTF-8, a folder that cannot
    be listed any more: the Python walk answers for that folder, the same way."""
    root = tmp_path / "root"
    (root / "pipes" / "below").mkdir(parents=True)
    (root / "plain").mkdir()
    os.mkfifo(root / "pipes" / "pipe.txt")
    (root / "pipes" / "below" / "copy").write_bytes(b"same")
    (root / "plain" / "copy").write_bytes(b"same")
    (root / os.fsdecode(b"caf\xe9")).write_bytes(b"same")
    handed = _handed_back(root, monkeypatch)
    sized = _same_both_ways(_options(root), monkeypatch)
    assert handed == ["pipes"]  # and everything below it
    report = WalkReport()
    walk.walk_by_size(_options(root), report)
    assert [(os.path.basename(e.path), e.code) for e in report.errors] == [
        ("pipe.txt", "unsupported")
    ]
    assert len(sized[4]) == 3


def test_where_inode_numbers_do_not_name_files_the_python_walk_lists_every_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FAT, exFAT, network shares: a file is its real path there, which only the Python walk
    asks for (``filesystem.file_key``)."""
    from dupfinder.core import filesystem

    root = tmp_path / "card"
    (root / "DCIM").mkdir(parents=True)
    (root / "DCIM" / "a.jpg").write_bytes(b"same")
    (root / "b.jpg").write_bytes(b"same")
    monkeypatch.setattr(filesystem, "inodes_name_files", lambda path: False)
    handed = _handed_back(root, monkeypatch)
    sized = _same_both_ways(_options(root), monkeypatch)
    assert handed == ["."]  # the root, and everything below it with it
    assert [os.path.relpath(path, root) for path in sized[4]] == ["b.jpg", "DCIM/a.jpg"]


def test_progress_is_told_as_the_python_walk_tells_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    for folder in range(5):
        (root / str(folder)).mkdir(parents=True)
        for name in range(40):
            (root / str(folder) / str(name)).write_bytes(b"%d" % name)
    fast = _listed(_options(root), monkeypatch, python=False)[2]
    slow = _listed(_options(root), monkeypatch, python=True)[2]
    assert slow == [1, 65, 129, 193]  # every 64th file, from the first
    assert len(fast) == len(slow)  # once a folder passes each of them
    assert fast[-1] == 200


_NAMES = ("a", "b.txt", ".c", "D", "é", "e", "copy (1)")


@st.composite
def _trees(draw: st.DrawFn) -> list[tuple[str, str, int]]:
    """(relative path, how: file, link, symlink, folder link, pipe, content index)."""
    entries = []
    for _ in range(draw(st.integers(1, 16))):
        folder = draw(st.sampled_from(("", "x/", "x/y/", ".h/", "x/.h/")))
        how = draw(st.sampled_from(("file", "file", "file", "link", "symlink", "dirlink", "pipe")))
        entries.append((folder + draw(st.sampled_from(_NAMES)), how, draw(st.integers(0, 3))))
    return entries


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tree=_trees(), hidden=st.booleans())
def test_random_trees_are_listed_the_same_both_ways(
    tree: list[tuple[str, str, int]],
    hidden: bool,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path_factory.mktemp("tree")
    made: list[Path] = []
    for relative, how, index in tree:
        path = root / relative
        if path.exists() or path.is_symlink():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if how == "pipe":
            os.mkfifo(path)
        elif how in ("link", "symlink", "dirlink") and made:
            target = made[index % len(made)]
            if how == "link":
                os.link(target, path)
            else:
                path.symlink_to(target if how == "symlink" else target.parent)
        else:
            path.write_bytes(b"content %d" % index if index else b"")
            made.append(path)
    _same_both_ways(_options(root, include_hidden=hidden), monkeypatch)


def _targets(paths: list[Path]) -> list[byte_reads.Target]:
    return [(str(path), path.stat(), Kind.OTHER) for path in paths]


def test_first_reads_are_the_bytes_python_reads(tmp_path: Path) -> None:
    kernels = compiled.walk_kernels
    assert kernels is not None
    files = []
    for number, size in enumerate((1, 4096, byte_reads.SMALL_FILE, byte_reads.SMALL_FILE + 1)):
        path = tmp_path / f"{number}.bin"
        path.write_bytes(os.urandom(size))
        files.append(path)
    targets = _targets(files)
    small, partial = byte_reads.SMALL_FILE, byte_reads.PARTIAL_BYTES
    answers = kernels.first_reads(targets, 0, len(targets), small, partial)
    assert answers == [byte_reads._first(target) for target in targets]
    assert len(answers[-1]) == 2 * partial  # head and tail of a large file


def test_a_file_changed_or_gone_before_its_read_is_reported_as_python_reports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replaced by another inode: changed; removed: vanished; truncated: changed."""
    paths = [tmp_path / f"{name}.bin" for name in ("kept", "replaced", "gone", "cut", "twin")]
    for path in paths:
        path.write_bytes(b"same bytes" * 10)
    sizes = [_targets(paths)]
    (tmp_path / "new").write_bytes(b"same bytes" * 10)
    (tmp_path / "new").replace(paths[1])
    paths[2].unlink()
    paths[3].write_bytes(b"same")
    answers = []
    for python in (False, True):
        with monkeypatch.context() as patched:
            if python:
                patched.setattr(byte_reads, "walk_kernels", None)
            found = byte_reads.read_sets(sizes, False, 1, threading.Event(), lambda *_: None)
        assert found is not None
        answers.append(
            (
                [[os.path.basename(p) for p, *_ in alike.files] for alike in found.sets],
                [(os.path.basename(target[0]), why) for target, why in found.failed],
                found.files_read,
            )
        )
    assert answers[0] == answers[1]
    sets, failed, read = answers[0]
    assert sets == [["kept.bin", "twin.bin"]]
    assert [(name, why.code) for name, why in failed] == [
        ("replaced.bin", "changed"),
        ("gone.bin", "unreadable"),
        ("cut.bin", "changed"),
    ]
    assert failed[1][1].error == "the file vanished during the scan"
    assert read == 2
