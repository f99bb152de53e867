"""A whole scan finds byte-identical files of every type and reads unnamed text by content."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import shutil
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest
from scan_helpers import edit, essay, picture, write

from dupfinder.cli import EXIT_OK, main
from dupfinder.core.model import Kind, Phase, Progress, ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan

GPL = Path("/usr/share/common-licenses/GPL-3")


def _options(root: Path, tmp_path: Path, **kwargs: Any) -> ScanOptions:  # more fields
    kwargs.setdefault("jobs", 1)
    return ScanOptions(roots=(root,), cache_dir=tmp_path / "cache", **kwargs)


def _groups(result: ScanResult, root: Path) -> list[tuple[Kind, bool, list[str]]]:
    """(kind, identical, member paths), sorted by kind name then paths."""
    return sorted(
        (g.kind, g.identical, sorted(os.path.relpath(m.path, root) for m in g.members))
        for g in result.groups
    )


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    archive = root / "backup.zip"
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("notes.txt", essay(3))
    (root / "old").mkdir()
    shutil.copyfile(archive, root / "old" / "backup (1).zip")
    song = os.urandom(300_000)
    (root / "song.mid").write_bytes(song)
    (root / "old" / "song.mid").write_bytes(song)
    (root / "other-song.mid").write_bytes(os.urandom(300_000))  # same size, other bytes
    program = b"\x7fELF\x02\x01\x01\x00" + os.urandom(5000)
    (root / "tool").write_bytes(program)  # no suffix: sniffed, found binary
    (root / "old" / "tool").write_bytes(program)
    base = essay(1)
    write(root / "report.txt", base)
    write(root / "old" / "report.txt", base)
    write(root / "report-revised.md", edit(base, 5, changes=1))
    pictures = root / "pictures"
    pictures.mkdir()
    picture(3).save(pictures / "beach.png")
    shutil.copyfile(pictures / "beach.png", root / "old" / "beach.png")
    return root


def test_identical_files_of_every_type_are_found_once(mixed: Path, tmp_path: Path) -> None:
    result = scan.run(_options(mixed, tmp_path))
    assert _groups(result, mixed) == [
        (Kind.IMAGE, True, ["old/beach.png", "pictures/beach.png"]),
        (Kind.OTHER, True, ["backup.zip", "old/backup (1).zip"]),
        (Kind.OTHER, True, ["old/song.mid", "song.mid"]),
        (Kind.OTHER, True, ["old/tool", "tool"]),
        (Kind.TEXT, False, ["old/report.txt", "report-revised.md", "report.txt"]),
    ]
    assert result.errors == ()  # the sniffed program is not a problem
    text = next(g for g in result.groups if g.kind is Kind.TEXT)
    marks = {os.path.basename(m.path): m.identical for m in text.members}
    assert marks == {"report.txt": True, "report-revised.md": False}  # both copies marked
    assert len({m.content_hash for m in text.members if m.identical}) == 1
    other = [g for g in result.groups if g.kind is Kind.OTHER]
    for group in other:  # other files share a fingerprint taken from their bytes
        assert len({m.fingerprint for m in group.members}) == 1
        assert {m.distance for m in group.members} == {0}


def test_kinds_and_the_identical_switch_choose_what_is_compared(
    mixed: Path, tmp_path: Path
) -> None:
    text_only = scan.run(_options(mixed, tmp_path, kinds=frozenset({Kind.TEXT})))
    assert {g.kind for g in text_only.groups} == {Kind.TEXT}
    other_only = scan.run(_options(mixed, tmp_path, kinds=frozenset({Kind.OTHER})))
    assert {g.kind for g in other_only.groups} == {Kind.OTHER}
    assert len(other_only.groups) == 3
    near_only = scan.run(_options(mixed, tmp_path, identical=False))
    assert _groups(near_only, mixed) == [
        (Kind.IMAGE, False, ["old/beach.png", "pictures/beach.png"]),
        (Kind.TEXT, False, ["old/report.txt", "report-revised.md", "report.txt"]),
    ]
    with pytest.raises(ValueError, match="byte for byte"):
        ScanOptions(roots=(mixed,), kinds=frozenset({Kind.OTHER}), identical=False)


def test_progress_reports_the_byte_comparison(mixed: Path, tmp_path: Path) -> None:
    samples: list[Progress] = []
    scan.run(_options(mixed, tmp_path), progress=samples.append)
    phases = [s.phase for s in samples]
    assert phases.index(Phase.FINGERPRINTING) < phases.index(Phase.IDENTICAL)
    assert phases.index(Phase.IDENTICAL) < phases.index(Phase.COMPARING)
    last = [s for s in samples if s.phase is Phase.IDENTICAL][-1]
    assert last.done == last.total
    assert last.done > 0
    fingerprinting = [s for s in samples if s.phase is Phase.FINGERPRINTING][-1]
    assert fingerprinting.done == fingerprinting.total  # other files are not counted there


@pytest.mark.skipif(not GPL.is_file(), reason="needs Debian's common licences")
def test_licences_without_a_suffix_group_with_named_copies(tmp_path: Path) -> None:
    root = tmp_path / "licences"
    (root / "project").mkdir(parents=True)
    (root / "notes").mkdir()
    shutil.copyfile(GPL, root / "project" / "COPYING")
    shutil.copyfile(GPL, root / "notes" / "gpl.txt")
    reworded = "This program is distributed under the licence below.\n\n" + GPL.read_text()
    (root / "project" / "LICENSE").write_text(reworded)
    shutil.copyfile("/bin/true", root / "project" / "Makefile")  # a binary, whatever its name
    result = scan.run(_options(root, tmp_path))
    assert _groups(result, root) == [
        (Kind.TEXT, False, ["notes/gpl.txt", "project/COPYING", "project/LICENSE"])
    ]
    identical = {os.path.basename(m.path) for m in result.groups[0].members if m.identical}
    assert identical == {"COPYING", "gpl.txt"}
    assert result.errors == ()


def test_cli_reports_identical_in_json_and_csv(mixed: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    args = ["scan", str(mixed), "--format", "json", "--cache-dir", str(tmp_path / "c")]
    assert main(args, out, io.StringIO()) == EXIT_OK
    data = json.loads(out.getvalue())
    by_kind = {(g["kind"], g["identical"]) for g in data["groups"]}
    assert by_kind == {("text", False), ("image", True), ("other", True)}
    other = next(g for g in data["groups"] if g["kind"] == "other")
    assert all(m["identical"] and len(m["content_hash"]) == 32 for m in other["members"])

    out = io.StringIO()
    args = ["scan", str(mixed), "--format", "csv", "--no-identical", "--no-cache"]
    assert main(args, out, io.StringIO()) == EXIT_OK
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert rows
    assert all(row["identical"] == "0" and row["content_hash"] == "" for row in rows)

    out = io.StringIO()
    args = ["scan", str(mixed), "--kind", "other", "--no-cache"]
    assert main(args, out, io.StringIO()) == EXIT_OK
    assert out.getvalue().count("· other · 2 identical files ·") == 3


class _Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("phase", list(Phase))
def test_every_phase_has_a_label_for_people(phase: Phase) -> None:
    from dupfinder.app.progress import ProgressEstimate
    from dupfinder.cli.progress import TerminalProgress

    assert ProgressEstimate().describe(Progress(phase, 1, 2), now=0.0)
    stream = _Terminal()
    TerminalProgress(stream)(Progress(phase, 1, 2))
    assert stream.getvalue()


def test_hard_links_are_one_member_of_an_identical_group(tmp_path: Path) -> None:
    root = tmp_path / "files"
    root.mkdir()
    data = os.urandom(100_000)
    (root / "a.bin").write_bytes(data)
    os.link(root / "a.bin", root / "a-link.bin")
    (root / "copy.bin").write_bytes(data)
    (group,) = scan.run(_options(root, tmp_path)).groups
    assert group.identical
    assert len(group.members) == 2
    assert sorted(m.links for m in group.members) == [1, 2]
    linked = os.stat(root / "a.bin")
    assert (linked.st_dev, linked.st_ino) in {(m.dev, m.ino) for m in group.members}


def test_exact_only_fingerprints_nothing_and_names_kinds_by_suffix(
    mixed: Path, tmp_path: Path
) -> None:
    samples: list[Progress] = []
    options = _options(mixed, tmp_path, near_duplicates=False)
    result = scan.run(options, progress=samples.append)
    assert _groups(result, mixed) == [
        (Kind.IMAGE, True, ["old/beach.png", "pictures/beach.png"]),
        (Kind.OTHER, True, ["backup.zip", "old/backup (1).zip"]),
        (Kind.OTHER, True, ["old/song.mid", "song.mid"]),
        (Kind.OTHER, True, ["old/tool", "tool"]),
        (Kind.TEXT, True, ["old/report.txt", "report.txt"]),
    ]
    assert result.stats.files_fingerprinted == 0
    assert Phase.FINGERPRINTING not in {s.phase for s in samples}
    with pytest.raises(ValueError, match="nothing to look for"):
        ScanOptions(roots=(mixed,), identical=False, near_duplicates=False)
    err = io.StringIO()
    assert main(["scan", str(mixed), "--exact-only", "--no-identical"], io.StringIO(), err) == 2
    assert "nothing to look for" in err.getvalue()


def test_a_rescan_reads_only_files_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dupfinder.core.scan import identical

    root = tmp_path / "files"
    root.mkdir()
    big = os.urandom(200_000)  # read in two steps: head and tail, then whole
    for name in ("a.iso", "b.iso", "c.iso"):
        (root / name).write_bytes(big)
    for name in ("x.bin", "y.bin"):
        (root / name).write_bytes(b"small and the same")
    reads: list[str] = []
    first, whole = identical._first_read, identical._full_read

    def first_read(path: str, size: int, identity: tuple[int, int] | None) -> identical._Read:
        reads.append(path)
        return first(path, size, identity)

    def full_read(
        path: str, size: int, identity: tuple[int, int], cancel: threading.Event
    ) -> identical._Read:
        reads.append(path)
        return whole(path, size, identity, cancel)

    monkeypatch.setattr(identical, "_first_read", first_read)
    monkeypatch.setattr(identical, "_full_read", full_read)
    options = _options(root, tmp_path, kinds=frozenset({Kind.OTHER}))
    before = _groups(scan.run(options), root)
    assert before == [
        (Kind.OTHER, True, ["a.iso", "b.iso", "c.iso"]),
        (Kind.OTHER, True, ["x.bin", "y.bin"]),
    ]
    assert len(reads) == 3 + 3 + 2
    reads.clear()
    assert _groups(scan.run(options), root) == before
    assert reads == []  # every digest came from the cache
    changed = bytearray(big)
    changed[100_000] ^= 1  # same size, same head and tail, other bytes
    (root / "c.iso").write_bytes(bytes(changed))
    assert _groups(scan.run(options), root) == [
        (Kind.OTHER, True, ["a.iso", "b.iso"]),
        (Kind.OTHER, True, ["x.bin", "y.bin"]),
    ]
    assert sorted(os.path.basename(p) for p in reads) == ["c.iso", "c.iso"]
    reads.clear()
    scan.run(dataclasses.replace(options, use_cache=False))
    assert len(reads) == 3 + 3 + 2  # without the cache every candidate is read again


def test_the_summary_counts_files_compared_by_bytes_apart(mixed: Path, tmp_path: Path) -> None:
    from dupfinder.core.results.report import summary

    result = scan.run(_options(mixed, tmp_path))
    # two zips, three MIDI files, two programs by bytes; three documents, two pictures fingerprinted
    assert result.stats.files_bytes_only == 7
    assert "5 fingerprinted, 7 by their bytes only, 0 skipped" in summary(result)
    exact = scan.run(_options(mixed, tmp_path, near_duplicates=False))
    assert exact.stats.files_bytes_only == exact.stats.files_seen
    assert "0 fingerprinted, 12 by their bytes only, 0 skipped" in summary(exact)
    assert "0 from the cache, 0 read now" in summary(exact)


def test_a_rescan_counts_sniffed_binaries_among_the_other_files(
    mixed: Path, tmp_path: Path
) -> None:
    """The cache also serves "holds no text" for the sniffed program; a rescan counts it with
    the other files, so every count of the summary adds up (it had said "-2 read now")."""
    from dupfinder.core.results.report import summary

    options = _options(mixed, tmp_path)
    first = scan.run(options)
    again = scan.run(options)
    readable = again.stats.files_seen - again.stats.files_bytes_only
    assert again.stats.files_from_cache == again.stats.files_fingerprinted == readable
    assert first.stats.files_from_cache == 0
    assert "0 read now" in summary(again)


def test_identical_files_keep_the_copy_in_a_reference_folder(tmp_path: Path) -> None:
    """Byte copies of a file of no other kind: the scan's suggested keeper is the copy in the
    reference folder, even when another copy is older and shorter-named."""
    from dupfinder.core.model import ScanOptions
    from dupfinder.core.scan import pipeline

    archive, downloads = tmp_path / "archive", tmp_path / "dl"
    archive.mkdir()
    downloads.mkdir()
    data = bytes(range(256)) * 64
    old, kept = downloads / "a.bin", archive / "the archived copy.bin"
    old.write_bytes(data)
    kept.write_bytes(data)
    os.utime(old, (1_000, 1_000))
    options = ScanOptions(roots=(tmp_path,), references=(archive,), use_cache=False, jobs=1)
    result = pipeline.run(options)
    (group,) = result.groups
    assert group.members[0].path == str(kept)
