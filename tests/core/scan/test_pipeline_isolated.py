"""Beside a window, a scan groups in a worker process: the same groups, a cancel that stops
it at once, and the grouping done here when that process fails."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest
from scan_helpers import edit, essay, picture, write

from dupfinder.core.model import Phase, Progress, ScanOptions, ScanResult
from dupfinder.core.scan import isolated
from dupfinder.core.scan import pipeline as scan


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for i in range(6):
        text = essay(i)
        write(tmp_path / "docs" / f"report-{i}.txt", text)
        write(tmp_path / "docs" / f"report-{i} (edited).txt", edit(text, i))
    write(tmp_path / "docs" / "alone.txt", essay(99))
    for i in range(3):
        image = picture(i)
        (tmp_path / "pictures").mkdir(exist_ok=True)
        image.save(tmp_path / "pictures" / f"photo-{i}.png")
        image.resize((160, 120)).save(tmp_path / "pictures" / f"photo-{i}-small.jpg")
    return tmp_path


def _on_a_thread(options: ScanOptions, cancel: threading.Event, progress: Any = None) -> ScanResult:
    results: list[ScanResult] = []
    worker = threading.Thread(
        target=lambda: results.append(scan.run(options, progress or (lambda _: None), cancel))
    )
    worker.start()
    worker.join(300)
    return results[0]


def _shape(result: ScanResult) -> list[tuple[str, ...]]:
    return [tuple(m.path for m in g.members) for g in result.groups]


def _sims(result: ScanResult) -> list[tuple[float, ...]]:
    return [tuple(m.similarity for m in g.members) for g in result.groups]


def test_a_scan_beside_a_window_groups_in_a_worker_process_with_the_same_groups(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = ScanOptions(roots=(folder,), use_cache=False)
    here = scan.run(options)
    assert len(here.groups) == 9
    monkeypatch.setattr(scan, "_ISOLATED_MIN", 2)
    calls: list[str] = []
    original = isolated.call

    def recording(function: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(function.__name__)
        return original(function, *args, **kwargs)

    monkeypatch.setattr(isolated, "call", recording)
    away = _on_a_thread(options, threading.Event())
    assert calls == ["group_rows"]
    assert _shape(away) == _shape(here)
    assert _sims(away) == _sims(here)
    assert away.stats.pairs == here.stats.pairs
    assert not multiprocessing.active_children()


def test_a_cancel_while_grouping_stops_the_worker_process(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "_ISOLATED_MIN", 2)
    cancel = threading.Event()

    def progress(sample: Progress) -> None:
        if sample.phase is Phase.COMPARING:
            cancel.set()

    result = _on_a_thread(ScanOptions(roots=(folder,), use_cache=False), cancel, progress)
    assert result.stats.cancelled
    assert result.groups == ()
    assert not multiprocessing.active_children()


def test_when_the_worker_process_fails_the_scan_groups_here(
    folder: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    options = ScanOptions(roots=(folder,), use_cache=False)
    here = scan.run(options)
    monkeypatch.setattr(scan, "_ISOLATED_MIN", 2)

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise isolated.IsolatedFailure("the worker process ended without a result")

    monkeypatch.setattr(isolated, "call", failing)
    away = _on_a_thread(options, threading.Event())
    assert _shape(away) == _shape(here)
    assert "grouping here" in caplog.text


def test_small_scans_and_the_command_line_group_in_process(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refusing(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no worker process expected")

    monkeypatch.setattr(isolated, "call", refusing)
    options = ScanOptions(roots=(folder,), use_cache=False)
    assert scan.run(options).groups  # the main thread, as the command line runs it
    assert _on_a_thread(options, threading.Event()).groups  # fewer files than the minimum


def test_grouping_progress_counts_the_files_compared(folder: Path) -> None:
    seen: list[Progress] = []
    scan.run(ScanOptions(roots=(folder,), use_cache=False), seen.append)
    comparing = [(p.done, p.total) for p in seen if p.phase is Phase.COMPARING]
    assert comparing[0] == (0, 19)  # 13 documents and 6 pictures, not "0 of 2" kinds
    assert comparing[-1] == (19, 19)
    assert [done for done, _ in comparing] == sorted(done for done, _ in comparing)


def test_with_the_cache_the_worker_process_saves_the_library_and_rescans_agree(
    folder: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path_factory.mktemp("cache")
    options = ScanOptions(roots=(folder,), cache_dir=cache)
    here = scan.run(ScanOptions(roots=(folder,), use_cache=False))
    monkeypatch.setattr(scan, "_ISOLATED_MIN", 2)
    first = _on_a_thread(options, threading.Event())
    assert (cache / "library-v1.npz").is_file()  # saved by the worker process
    write(
        folder / "docs" / "report-0 (another copy).txt",
        (folder / "docs" / "report-0.txt").read_text(),
    )
    second = _on_a_thread(options, threading.Event())
    assert _shape(first) == _shape(here)
    assert len(second.groups) == len(here.groups)
    assert any(len(g.members) == 3 for g in second.groups)  # the new copy joined its group
