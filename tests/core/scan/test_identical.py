"""Byte-identical files: size, then head and tail, then the whole content decide."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dupfinder.core.fingerprints.digest import DIGEST_BYTES
from dupfinder.core.scan import identical
from dupfinder.core.scan.byte_reads import SMALL_FILE
from dupfinder.core.scan.identical import IdenticalReport, find_identical

BIG = SMALL_FILE * 3  # read in two steps: head and tail, then whole


def _find(paths: list[Path], **kwargs: Any) -> tuple[IdenticalReport, list[list[str]]]:
    names = [str(p) for p in paths]
    sizes = [p.stat().st_size if p.exists() else 0 for p in paths]
    report = find_identical(np.arange(len(names)), names, np.array(sizes), **kwargs)
    sets = [[paths[row].name for row in found.rows] for found in report.sets]
    return report, sets


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_small_and_large_copies_are_found_and_same_sized_strangers_are_not(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(1)
    big = rng.bytes(BIG)
    # same size, same head and tail, one byte different in the middle
    middle = bytearray(big)
    middle[BIG // 2] ^= 1
    paths = [
        _write(tmp_path / "a.bin", b"small file"),
        _write(tmp_path / "b" / "a copy.bin", b"small file"),
        _write(tmp_path / "same size.bin", b"other text"),
        _write(tmp_path / "big.iso", big),
        _write(tmp_path / "big middle.iso", bytes(middle)),
        _write(tmp_path / "big copy.iso", big),
        _write(tmp_path / "unique.mp3", b"a size nobody else has"),
    ]
    report, sets = _find(paths)
    assert sets == [["a.bin", "a copy.bin"], ["big.iso", "big copy.iso"]]
    assert [s.size for s in report.sets] == [10, BIG]
    assert report.problems == []
    # the unique size is never read; the three big files are read twice
    assert report.files_read == 3 + 3 + 3
    assert report.sets[1].content_hash != report.sets[0].content_hash
    assert len(report.sets[0].content_hash) == 2 * DIGEST_BYTES


def test_one_threaded_and_pooled_reads_agree(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    paths = []
    for index in range(60):
        data = rng.bytes(int(rng.integers(1, 4)) * 50_000 + index % 3)
        paths.append(_write(tmp_path / f"f{index}.dat", data))
        if index % 4 == 0:
            paths.append(_write(tmp_path / f"f{index}-copy.dat", data))
    _, one = _find(paths, threads=1)
    _, many = _find(paths, threads=4)
    assert one == many
    assert len(one) == 15


def test_hard_links_are_one_file(tmp_path: Path) -> None:
    original = _write(tmp_path / "movie.mkv", b"frames" * 1000)
    link = tmp_path / "movie-link.mkv"
    os.link(original, link)
    _, sets = _find([original, link])
    assert sets == []  # two names of one file are not two copies
    copy = _write(tmp_path / "movie-copy.mkv", b"frames" * 1000)
    _, sets = _find([original, link, copy])
    assert sets == [["movie.mkv", "movie-copy.mkv"]]


def test_empty_files_are_left_out(tmp_path: Path) -> None:
    report, sets = _find([_write(tmp_path / "a", b""), _write(tmp_path / "b", b"")])
    assert sets == []
    assert report.files_read == 0


def test_vanished_and_changed_files_are_reported_not_compared(tmp_path: Path) -> None:
    data = os.urandom(BIG)
    paths = [_write(tmp_path / name, data) for name in ("a", "b", "c", "d")]
    names = [str(p) for p in paths]
    sizes = np.full(4, BIG)
    paths[2].unlink()
    paths[3].write_bytes(data + b"more")
    report = find_identical(np.arange(4), names, sizes)
    assert [found.rows for found in report.sets] == [(0, 1)]
    problems = {(p.row, p.code) for p in report.problems}
    assert problems == {(2, "unreadable"), (3, "changed")}


def test_a_file_that_changes_between_the_reads_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = os.urandom(BIG)
    paths = [_write(tmp_path / name, data) for name in ("a", "b", "c")]
    first_read = identical._first_read

    def then_replace(path: str, size: int, identity: tuple[int, int] | None) -> identical._Read:
        read = first_read(path, size, identity)
        if path.endswith("c"):  # replaced by another file of the same size
            Path(path + ".new").write_bytes(data)
            os.replace(path + ".new", path)
        return read

    monkeypatch.setattr(identical, "_first_read", then_replace)
    report, sets = _find(paths)
    assert sets == [["a", "b"]]
    assert [(p.row, p.code) for p in report.problems] == [(2, "changed")]


def test_progress_counts_every_read_and_cancel_stops(tmp_path: Path) -> None:
    data = os.urandom(BIG)
    paths = [_write(tmp_path / f"{i}.bin", data) for i in range(6)]
    samples: list[tuple[int, int]] = []
    report, sets = _find(paths, progress=lambda done, total, _: samples.append((done, total)))
    assert samples[-1] == (12, 12)
    assert all(done <= total for done, total in samples)
    assert len(sets) == 1

    cancel = threading.Event()

    def stop(done: int, total: int, current: str | None) -> None:
        if done:
            cancel.set()

    report, sets = _find(paths, threads=1, progress=stop, cancel=cancel)
    assert report.cancelled
    assert sets == []
    assert report.files_read < 12


def test_threads_must_be_positive() -> None:
    with pytest.raises(ValueError, match="threads"):
        find_identical([], [], [], threads=0)


def test_a_digest_store_needs_the_walks_identities() -> None:
    class Store:
        def lookup(self, whole: bool, rows: list[int]) -> dict[int, bytes]:
            return {}

        def store(self, whole: bool, digests: dict[int, bytes]) -> None:
            return None

    with pytest.raises(ValueError, match="identities"):
        find_identical([], [], [], store=Store())


def test_a_rescan_takes_every_digest_from_the_store_a_few_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(identical, "_STORE_ROWS", 3)
    monkeypatch.setattr(identical, "_BATCH_FILES", 2)
    paths = [
        _write(tmp_path / f"f{i:02}", b"same" if i % 3 else f"other {i}".encode())
        for i in range(10)
    ]
    paths += [_write(tmp_path / f"g{i:02}", f"strange{i}".encode()) for i in range(10)]
    remembered: dict[tuple[bool, int], bytes] = {}
    asked: list[int] = []
    written: list[int] = []

    class Store:
        def lookup(self, whole: bool, rows: list[int]) -> dict[int, bytes]:
            asked.append(len(rows))
            return {row: remembered[whole, row] for row in rows if (whole, row) in remembered}

        def store(self, whole: bool, digests: dict[int, bytes]) -> None:
            written.append(len(digests))
            remembered.update(((whole, row), digest) for row, digest in digests.items())

    stats = [p.stat() for p in paths]
    identities = (np.array([s.st_dev for s in stats]), np.array([s.st_ino for s in stats]))
    first, first_sets = _find(paths, store=Store(), identities=identities)
    assert max(asked) <= 3
    assert max(written) <= 3 + 2 - 1  # written once a batch brings them to three or more
    assert sum(written) == first.files_read == 20
    again, again_sets = _find(paths, store=Store(), identities=identities)
    assert again.files_read == 0
    assert again.files_from_store == 20
    assert again_sets == first_sets
    assert sorted(first_sets[0]) == [f"f{i:02}" for i in range(10) if i % 3]


def _oracle_buckets(found: Any) -> list[list[int]]:
    """Every readable position grouped by (size, digest), one name per (device, inode)."""
    by_key: dict[tuple[int, bytes], list[int]] = {}
    for position in np.flatnonzero(found.readable).tolist():
        key = (int(found.sizes[position]), found.digests[position].tobytes())
        by_key.setdefault(key, []).append(position)
    out = []
    for key in sorted(by_key):
        seen: set[tuple[int, int]] = set()
        kept = []
        for position in by_key[key]:
            name = (int(found.devs[position]), int(found.inos[position]))
            if name not in seen:
                seen.add(name)
                kept.append(position)
        if len(kept) >= 2:
            out.append(kept)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_buckets_are_files_of_one_size_and_digest_one_name_per_inode(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 400
    found = identical._Candidates(np.arange(n), rng.integers(1, 4, n))
    found.digests[:] = rng.integers(0, 3, (n, 1)).astype(np.uint8)  # few digests: many runs
    found.digests[:, 5] = rng.integers(0, 2, n)
    found.devs[:] = rng.integers(1, 3, n)
    found.inos[:] = rng.integers(1, 300, n)  # some names of one inode
    found.readable[:] = rng.random(n) < (1.0 if seed % 2 else 0.9)  # all read, or not all
    got = [bucket.tolist() for bucket in identical._buckets(found)]
    assert sorted(got) == sorted(_oracle_buckets(found))
    assert got
