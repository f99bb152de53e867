"""Faults around a scan: killed processes, full disks, read-only and damaged caches, an
output file that cannot be written. The scan always finishes with the right groups.

Killing a process mid-apply is covered by tests/core/actions/test_journal_crash.py: the journal then says
which file was done, which was interrupted and which was never reached, and undo restores
exactly those.

As root (CI) the full disk is a real 64 KiB tmpfs and the read-only cache a read-only bind
mount; elsewhere both are simulated by a connection that fails the way SQLite does.
"""

from __future__ import annotations

import io
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

import pytest
from scan_helpers import essay, write

from dupfinder.cli import EXIT_FATAL, EXIT_OK, main
from dupfinder.core.model import ScanOptions, ScanResult
from dupfinder.core.scan import cache as cache_module
from dupfinder.core.scan import pipeline as scan

CACHE_LOGGER = "dupfinder.core.scan.cache"


def _corpus(root: Path, files: int = 100) -> Path:
    """Pairs of identical essays: ``files // 2`` groups when every file is fingerprinted."""
    for number in range(files):
        write(root / f"doc{number:03d}.txt", essay(number // 2, 120))
    return root


def _options(root: Path, cache: Path | None, jobs: int = 1) -> ScanOptions:
    return ScanOptions(roots=(root,), cache_dir=cache, use_cache=cache is not None, jobs=jobs)


def _groups(result: ScanResult) -> set[frozenset[str]]:
    return {frozenset(m.path for m in g.members) for g in result.groups}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[frozenset[str]]]:
    root = _corpus(tmp_path_factory.mktemp("faults") / "docs")
    expected = _groups(scan.run(_options(root, None)))
    assert len(expected) == 50
    return root, expected


# --- killed mid-scan ----------------------------------------------------------------------

KILL_CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from dupfinder.core.scan import cache
    from dupfinder.core.scan import pipeline as scan
    from dupfinder.core.model import ScanOptions

    root, folder, when = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    real_store, real_open = cache.FingerprintCache.store, cache.FingerprintCache._open
    stores = []

    def store(self, algorithm, items):
        real_store(self, algorithm, items)
        stores.append(1)
        if when == "between" and len(stores) == 3:  # three batches of 8 committed
            os.kill(os.getpid(), signal.SIGKILL)

    class Dying:
        # A connection that dies inside its third write, after the rows, before the commit.
        def __init__(self, db):
            self.db, self.writes = db, 0
        def __getattr__(self, name):
            return getattr(self.db, name)
        def __enter__(self):
            return self.db.__enter__()
        def __exit__(self, *exc):
            return self.db.__exit__(*exc)
        def executemany(self, *args):
            cursor = self.db.executemany(*args)
            self.writes += 1
            if self.writes == 3:
                os.kill(os.getpid(), signal.SIGKILL)
            return cursor

    cache.FingerprintCache.store = store
    if when == "inside":
        cache.FingerprintCache._open = lambda self: Dying(real_open(self))
    scan.run(ScanOptions(roots=(root,), cache_dir=folder, jobs=1))
    """
)


@pytest.mark.parametrize(("when", "committed"), [("between", 24), ("inside", 16)])
def test_kill_mid_scan_leaves_a_usable_cache(
    corpus: tuple[Path, set[frozenset[str]]], tmp_path: Path, when: str, committed: int
) -> None:
    root, expected = corpus
    folder = tmp_path / "cache"
    child = subprocess.run(
        [sys.executable, "-c", KILL_CHILD, str(root), str(folder), when],
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    with sqlite3.connect(folder / "fingerprints.sqlite3") as db:  # the WAL is replayed
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    result = scan.run(_options(root, folder))
    assert result.stats.files_from_cache == committed  # exactly what was committed, reused
    assert _groups(result) == expected
    assert scan.run(_options(root, folder)).stats.files_from_cache == 100


# --- full disk, read-only and damaged caches ---------------------------------------------


@contextmanager
def _mounted(*commands: list[str], target: Path) -> Iterator[bool]:
    """Run mount commands; yields False (nothing mounted) when not permitted here."""
    target.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        yield False
        return
    try:
        for command in commands:
            subprocess.run(command, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        subprocess.run(["umount", str(target)], check=False, capture_output=True)
        yield False
        return
    try:
        yield True
    finally:
        subprocess.run(["umount", str(target)], check=True, capture_output=True)


class _FailingConnection:
    """A connection whose writes fail like SQLite's on a full disk or read-only file."""

    def __init__(self, db: sqlite3.Connection, message: str) -> None:
        self._db = db
        self._message = message

    def __getattr__(self, name: str) -> object:
        return getattr(self._db, name)

    def __enter__(self) -> sqlite3.Connection:
        return self._db.__enter__()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> object:
        return self._db.__exit__(kind, error, trace)

    def executemany(self, *args: object) -> object:
        raise sqlite3.OperationalError(self._message)


def _cache_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == CACHE_LOGGER]


def test_full_disk_degrades_gracefully_and_keeps_the_cache(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache that stops fitting on its disk is switched off for the scan, logged once,
    and kept: once space is free again its old entries are used."""
    root = _corpus(tmp_path / "docs", 40)
    expected = _groups(scan.run(_options(root, None)))
    disk = tmp_path / "disk"
    folder = disk / "cache"
    mount = ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)]
    with _mounted(mount, target=disk) as real:
        first = scan.run(_options(root, folder))  # fills the cache while there is room
        assert first.stats.files_from_cache == 0
        _corpus(tmp_path / "docs" / "more", 40)  # new files: their rows will not fit
        expected = _groups(scan.run(_options(root, None)))
        caplog.set_level(logging.WARNING, logger=CACHE_LOGGER)
        if real:
            filler = disk / "filler"
            handle = os.open(filler, os.O_WRONLY | os.O_CREAT)
            try:
                while os.write(handle, b"\1" * 4096):
                    pass
            except OSError:  # ENOSPC: the disk is full
                pass
            finally:
                os.close(handle)
        else:
            real_open = cache_module.FingerprintCache._open
            monkeypatch.setattr(
                cache_module.FingerprintCache,
                "_open",
                lambda self: _FailingConnection(real_open(self), "database or disk is full"),
            )
        result = scan.run(_options(root, folder))
        assert _groups(result) == expected
        # SQLite cannot even create its shared-memory file on a full disk, so the cache may
        # be off from the start ("disk I/O error") rather than from the first write.
        assert result.stats.files_from_cache in (0, 40)
        (warning,) = _cache_warnings(caplog)
        assert warning in {
            "fingerprint cache disabled: database or disk is full",
            "fingerprint cache disabled: disk I/O error",
        }
        assert sorted(p.name for p in folder.iterdir() if "corrupt" in p.name) == []
        if real:
            filler.unlink()
        monkeypatch.undo()
        again = scan.run(_options(root, folder))
        assert again.stats.files_from_cache >= 40  # the cache was kept, not set aside
        assert _groups(again) == expected


def test_read_only_cache_folder_degrades_gracefully(
    corpus: tuple[Path, set[frozenset[str]]],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, expected = corpus
    source = tmp_path / "cache-source"
    scan.run(_options(root, source))  # a sound cache, then its folder turns read-only
    before = {p.name: p.stat().st_mtime_ns for p in source.iterdir()}
    view = tmp_path / "read-only"
    commands = (
        ["mount", "--bind", str(source), str(view)],
        ["mount", "-o", "remount,bind,ro", str(view)],
    )
    caplog.set_level(logging.WARNING, logger=CACHE_LOGGER)
    with _mounted(*commands, target=view) as real:
        if not real:
            view = source
            real_open = cache_module.FingerprintCache._open

            def read_only(self: cache_module.FingerprintCache) -> sqlite3.Connection:
                raise sqlite3.OperationalError("attempt to write a readonly database")

            monkeypatch.setattr(cache_module.FingerprintCache, "_open", read_only)
            assert real_open is not None
        result = scan.run(_options(root, view, jobs=2))
        assert _groups(result) == expected
        assert len(_cache_warnings(caplog)) == 1
        assert _cache_warnings(caplog)[0].startswith("fingerprint cache disabled: ")
    assert "fingerprints.sqlite3" in before
    assert {p.name: p.stat().st_mtime_ns for p in source.iterdir()} == before  # untouched


def test_cache_damaged_after_opening_is_rebuilt(
    corpus: tuple[Path, set[frozenset[str]]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Damage in a page the open does not read is found by a lookup: the file is set aside
    and rebuilt at once, so the next scan is served from the cache again."""
    root, expected = corpus
    folder = tmp_path / "cache"
    scan.run(_options(root, folder))
    path = folder / "fingerprints.sqlite3"
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) >= 4 * page
    for at in range(len(data) // 2 // page * page, len(data) // 2 // page * page + page):
        data[at] = (at * 7) & 0xFF
    path.write_bytes(bytes(data))
    # one file touched: the folder is no longer as its last scan settled it, and the scan
    # looks up every file's row (an unchanged folder's rescan reads its kept result only)
    touched = next(root.rglob("*.txt"))
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns))
    caplog.set_level(logging.WARNING, logger=CACHE_LOGGER)
    damaged = scan.run(_options(root, folder))
    assert _groups(damaged) == expected
    assert any("damaged" in message for message in _cache_warnings(caplog))
    assert any(p.name.startswith("fingerprints.sqlite3.corrupt-") for p in folder.iterdir())
    again = scan.run(_options(root, folder))
    assert again.stats.files_from_cache == 100
    assert _groups(again) == expected


def test_cache_file_of_garbage_is_rebuilt(
    corpus: tuple[Path, set[frozenset[str]]], tmp_path: Path
) -> None:
    root, expected = corpus
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "fingerprints.sqlite3").write_bytes(os.urandom(64 * 1024))
    (folder / "fingerprints.sqlite3-wal").write_bytes(os.urandom(1000))
    assert _groups(scan.run(_options(root, folder))) == expected
    assert scan.run(_options(root, folder)).stats.files_from_cache == 100


# --- the result file cannot be written ---------------------------------------------------


@pytest.mark.parametrize("target", ["/dev/full", "missing-folder/out.json", "."])
def test_unwritable_output_exits_1_with_a_message(tmp_path: Path, target: str) -> None:
    root = _corpus(tmp_path / "docs", 4)
    output = target if target.startswith("/") else str(tmp_path / target)
    out, err = io.StringIO(), io.StringIO()
    code = main(["scan", str(root), "--format", "json", "--no-cache", "-o", output], out, err)
    assert code == EXIT_FATAL
    assert err.getvalue().startswith("dupfinder: cannot write the result: ")
    assert out.getvalue() == ""
    assert main(["scan", str(root), "--no-cache"], io.StringIO(), io.StringIO()) == EXIT_OK
