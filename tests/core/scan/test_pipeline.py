"""End to end through ``scan.run``: real files in, the right groups and problems out."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from scan_helpers import edit, essay, picture, write

from dupfinder.core.model import Kind, Phase, Progress, ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan


def _options(root: Path, tmp_path: Path, **kwargs: Any) -> ScanOptions:  # more fields
    kwargs.setdefault("jobs", 1)
    return ScanOptions(roots=(root,), cache_dir=tmp_path / "cache", **kwargs)


def _names(result: ScanResult) -> list[list[str]]:
    return [sorted(os.path.basename(m.path) for m in g.members) for g in result.groups]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    base = essay(1)
    write(root / "report.txt", base)
    write(root / "copy" / "report (1).txt", base)
    write(root / "report-revised.md", edit(base, 5, changes=1))
    write(root / "other.txt", essay(2))
    write(root / "tiny.txt", "just a few words here")
    (root / "data.txt").write_bytes(bytes(range(256)) * 40)
    pictures = root / "pictures"
    pictures.mkdir()
    image = picture(3)
    image.save(pictures / "beach.png")
    image.save(pictures / "beach.jpg", quality=80)
    image.resize((160, 120)).save(pictures / "beach-small.webp")
    picture(4).save(pictures / "forest.png")
    return root


def test_groups_text_and_images_and_reports_problems(corpus: Path, tmp_path: Path) -> None:
    result = scan.run(_options(corpus, tmp_path))
    assert sorted(_names(result)) == [
        ["beach-small.webp", "beach.jpg", "beach.png"],
        ["report (1).txt", "report-revised.md", "report.txt"],
    ]
    kinds = {g.kind for g in result.groups}
    assert kinds == {Kind.TEXT, Kind.IMAGE}
    image_group = next(g for g in result.groups if g.kind is Kind.IMAGE)
    assert {(m.width, m.height) for m in image_group.members} == {(320, 240), (160, 120)}
    problems = {os.path.basename(e.path): e.code for e in result.errors}
    assert problems == {"tiny.txt": "too-little-content", "data.txt": "unsupported"}
    assert result.stats.files_seen == 10
    assert result.stats.files_fingerprinted == 8
    for group in result.groups:
        assert group.members[0].distance == 0
        assert all(m.distance <= 10 for m in group.members)


def test_second_scan_uses_the_cache_and_notices_changes(corpus: Path, tmp_path: Path) -> None:
    first = scan.run(_options(corpus, tmp_path))
    second = scan.run(_options(corpus, tmp_path))
    assert second.stats.files_from_cache == second.stats.files_seen == 10
    assert _names(second) == _names(first)
    changed = corpus / "other.txt"
    changed.write_text(essay(1))
    third = scan.run(_options(corpus, tmp_path))
    assert third.stats.files_from_cache == 9
    assert ["other.txt", "report (1).txt", "report-revised.md", "report.txt"] in _names(third)


def test_no_cache_option_writes_nothing(corpus: Path, tmp_path: Path) -> None:
    scan.run(_options(corpus, tmp_path, use_cache=False))
    assert not (tmp_path / "cache").exists()


def test_thresholds_and_kinds_are_honoured(corpus: Path, tmp_path: Path) -> None:
    strict = scan.run(_options(corpus, tmp_path, text_threshold=0, kinds=frozenset({Kind.TEXT})))
    assert {g.kind for g in strict.groups} == {Kind.TEXT}
    assert all(m.distance == 0 for g in strict.groups for m in g.members)
    write(corpus / "report-rewritten.txt", edit(essay(1), 9, changes=60))
    loose = scan.run(
        _options(
            corpus, tmp_path, text_threshold=32, text_similarity=0.0, kinds=frozenset({Kind.TEXT})
        )
    )
    assert "report-rewritten.txt" in _names(loose)[0]


def test_progress_runs_through_every_phase(corpus: Path, tmp_path: Path) -> None:
    samples: list[Progress] = []
    scan.run(_options(corpus, tmp_path), progress=samples.append)
    phases = [s.phase for s in samples]
    assert phases[0] is Phase.WALKING
    assert phases[-1] is Phase.DONE
    assert {Phase.FINGERPRINTING, Phase.COMPARING} <= set(phases)
    last_fp = [s for s in samples if s.phase is Phase.FINGERPRINTING][-1]
    assert last_fp.done == last_fp.total == 10


def test_cancel_before_and_during(corpus: Path, tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    result = scan.run(_options(corpus, tmp_path), cancel=cancel)
    assert result.stats.cancelled
    assert result.groups == ()

    during = threading.Event()

    def stop_when_fingerprinting(sample: Progress) -> None:
        if sample.phase is Phase.FINGERPRINTING:
            during.set()

    result = scan.run(
        _options(corpus, tmp_path, use_cache=False),
        progress=stop_when_fingerprinting,
        cancel=during,
    )
    assert result.stats.cancelled
    assert result.groups == ()


def test_process_pool_gives_the_same_groups(tmp_path: Path) -> None:
    root = tmp_path / "many"
    for i in range(60):
        write(root / f"doc{i:02d}.txt", essay(100 + i // 2))
    pooled = scan.run(_options(root, tmp_path, jobs=2, use_cache=False))
    serial = scan.run(_options(root, tmp_path, jobs=1, use_cache=False))
    assert _names(pooled) == _names(serial)
    assert len(pooled.groups) == 30


def test_a_file_that_kills_its_worker_is_reported_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import scan_helpers

    root = tmp_path / "many"
    for i in range(59):
        write(root / f"doc{i:02d}.txt", essay(200 + i // 2))
    write(root / "crash.txt", essay(999))
    monkeypatch.setattr(scan, "fingerprint_batch", scan_helpers.crashing_batch)
    result = scan.run(_options(root, tmp_path, jobs=2, use_cache=False))
    assert [(os.path.basename(e.path), e.code) for e in result.errors] == [("crash.txt", "crashed")]
    assert result.stats.files_fingerprinted == 59
    assert len(result.groups) == 29


@pytest.mark.parametrize("refused_at", [1, 3, 9])
def test_a_pool_that_breaks_between_two_waits_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused_at: int
) -> None:
    """A worker that dies after its last answer leaves a pool that refuses the next chunk
    (``submit`` raises): the scan goes on in a new pool, every file fingerprinted once."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    root = tmp_path / "many"
    for i in range(60):
        write(root / f"doc{i:02d}.txt", essay(200 + i // 2))
    expected = scan.run(_options(root, tmp_path, jobs=2, use_cache=False))
    real_submit = ProcessPoolExecutor.submit
    calls = 0

    def refusing(self: ProcessPoolExecutor, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == refused_at:
            raise BrokenProcessPool("a child process terminated abruptly")
        return real_submit(self, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", refusing)
    result = scan.run(_options(root, tmp_path, jobs=2, use_cache=False))
    assert calls > refused_at
    assert result.errors == ()
    assert result.stats.files_fingerprinted == 60
    assert result.groups == expected.groups


def test_vanished_file_is_an_error_and_the_scan_goes_on(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dupfinder.core.scan import walk as walk_module

    real_walk_into = walk_module.walk_into

    def walk_then_delete(*args: Any, **kwargs: Any) -> None:  # the walk's own arguments
        real_walk_into(*args, **kwargs)
        (corpus / "other.txt").unlink()

    monkeypatch.setattr(scan, "walk_into", walk_then_delete)
    result = scan.run(_options(corpus, tmp_path))
    assert ("other.txt", "the file vanished during the scan") in {
        (os.path.basename(e.path), e.error) for e in result.errors
    }
    assert len(result.groups) == 2


def _children_running(marker: str) -> list[int]:
    """This process's children whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and marker.encode() in command:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_fork_server_ends_with_the_pool_on_the_command_line(tmp_path: Path) -> None:
    root = tmp_path / "files"
    for i in range(60):  # enough files for worker processes
        write(root / f"note{i}.txt", essay(i, words=60))
    write(root / "copy.txt", essay(3, words=60))
    result = scan.run(_options(root, tmp_path, jobs=2, use_cache=False))
    assert ["copy.txt", "note3.txt"] in _names(result)
    assert _children_running("forkserver") == []
    again = scan.run(_options(root, tmp_path, jobs=2, use_cache=False))  # a fresh one serves
    assert _names(again) == _names(result)
