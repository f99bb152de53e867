"""The library must give exactly the pairs of a fresh search, however the values changed."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest
from index_oracle import flip_bits, planted
from scan_helpers import edit, essay, write

from dupfinder.core.index import compiled as index_kernel
from dupfinder.core.index import library as library_module
from dupfinder.core.index.library import LIBRARY_VERSION, Library
from dupfinder.core.index.pairs import near_pairs
from dupfinder.core.index.reference import all_pairs
from dupfinder.core.model import Kind, ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan

needs_kernel = pytest.mark.skipif(not index_kernel.available(), reason="numba is not installed")


def changed(x: np.ndarray, seed: int, removed: int, added: int, k: int) -> np.ndarray:
    """``x`` without ``removed`` values, plus ``added`` new ones: half near kept values."""
    rng = np.random.default_rng(seed)
    keep = np.delete(x, rng.choice(x.size, removed, replace=False))
    near = flip_bits(rng, keep[rng.integers(0, keep.size, added // 2)], k // 2)
    fresh = rng.integers(0, 2**64, added - near.size, dtype=np.uint64)
    return np.concatenate([keep, near, fresh])


@needs_kernel
@pytest.mark.parametrize("k", [1, 3, 8])
@pytest.mark.parametrize(("removed", "added"), [(0, 10), (50, 200), (0, 0), (300, 0)])
def test_rescan_pairs_equal_a_fresh_search(
    tmp_path: Path, k: int, removed: int, added: int
) -> None:
    x = planted(k, 20_000, k)
    library = Library(tmp_path)
    np.testing.assert_array_equal(library.pairs(Kind.TEXT, x, k), all_pairs(np.unique(x), k))
    assert library.last_mode == "batch"  # nothing remembered yet
    y = changed(x, k, removed, added, k)
    again = Library(tmp_path)  # a new process: read from the file
    np.testing.assert_array_equal(again.pairs(Kind.TEXT, y, k), all_pairs(np.unique(y), k))


@needs_kernel
def test_a_few_new_values_are_searched_incrementally(tmp_path: Path) -> None:
    x = planted(2, 200_000, 8)
    Library(tmp_path).pairs(Kind.TEXT, x, 8)
    y = changed(x, 3, 20, 40, 8)
    library = Library(tmp_path)
    got = library.pairs(Kind.TEXT, y, 8)
    assert library.last_mode == "incremental"
    np.testing.assert_array_equal(got, all_pairs(np.unique(y), 8))


@needs_kernel
def test_mostly_new_values_take_the_batch_search(tmp_path: Path) -> None:
    Library(tmp_path).pairs(Kind.TEXT, planted(1, 30_000, 3), 3)
    library = Library(tmp_path)
    other = planted(99, 30_000, 3)
    np.testing.assert_array_equal(
        library.pairs(Kind.TEXT, other, 3), all_pairs(np.unique(other), 3)
    )
    assert library.last_mode == "batch"


def test_kinds_and_radii_are_remembered_apart(tmp_path: Path) -> None:
    x = planted(5, 3000, 4)
    library = Library(tmp_path)
    library.pairs(Kind.TEXT, x, 4)
    library.pairs(Kind.IMAGE, x[:100], 2)
    again = Library(tmp_path)
    text, image = again.remembered(Kind.TEXT, 4), again.remembered(Kind.IMAGE, 2)
    assert text is not None
    assert image is not None
    np.testing.assert_array_equal(text.values, np.unique(x))
    np.testing.assert_array_equal(text.pairs, all_pairs(np.unique(x), 4))
    assert image.values.size == np.unique(x[:100]).size
    assert again.remembered(Kind.TEXT, 3) is None


def test_damaged_or_old_library_is_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / f"library-v{LIBRARY_VERSION}.npz"
    path.write_bytes(b"not a zip file")
    x = planted(6, 2000, 3)
    with caplog.at_level(logging.WARNING, logger="dupfinder.core.index.library"):
        library = Library(tmp_path)
    assert "unreadable" in caplog.text
    np.testing.assert_array_equal(library.pairs(Kind.TEXT, x, 3), all_pairs(np.unique(x), 3))
    assert Library(tmp_path).remembered(Kind.TEXT, 3) is not None
    np.savez(path, version=np.array(LIBRARY_VERSION + 1))
    assert Library(tmp_path).remembered(Kind.TEXT, 3) is None


def test_picture_variants_are_searched_in_full(tmp_path: Path) -> None:
    values = np.array([0, 0xFF, 1 << 40], np.uint64)
    variants = [[0xFE], [], [(1 << 40) | 1]]  # row 0 mirrored is 1 bit from row 1, k = 1
    library = Library(tmp_path)
    got = library.pairs(Kind.IMAGE, values, 1, variants)
    assert library.last_mode == "batch"
    np.testing.assert_array_equal(got, near_pairs(values, 1, variants))
    assert [0, 1] in got.tolist()
    assert library.remembered(Kind.IMAGE, 1) is None


def test_a_search_with_variants_is_remembered_while_its_input_is_the_same(
    tmp_path: Path,
) -> None:
    """A rescan of unchanged pictures takes the last search's pairs (from the file, in a new
    process); a changed variant, value or radius searches again."""
    rng = np.random.default_rng(5)
    values = rng.integers(0, 2**64, 300, dtype=np.uint64)
    values[1::7] = values[::7][: len(values[1::7])] ^ np.uint64(0b101)  # near pairs
    variants = [[int(v) ^ (1 << int(b)) for b in rng.integers(0, 64, 3)] for v in values]
    expected = near_pairs(values, 4, variants)
    Library(tmp_path).pairs(Kind.IMAGE, values, 4, variants)
    again = Library(tmp_path)
    np.testing.assert_array_equal(again.pairs(Kind.IMAGE, values, 4, variants), expected)
    assert again.last_mode == "remembered"
    moved = [list(v) for v in variants]
    moved[3][0] = int(values[40])  # a crop of picture 3 now looks like picture 40
    np.testing.assert_array_equal(
        again.pairs(Kind.IMAGE, values, 4, moved), near_pairs(values, 4, moved)
    )
    assert again.last_mode == "batch"
    np.testing.assert_array_equal(
        again.pairs(Kind.IMAGE, values, 3, moved), near_pairs(values, 3, moved)
    )
    assert again.last_mode == "batch"


@needs_kernel
def test_incremental_rescans_group_like_a_full_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files added, edited and removed between scans: the remembered pairs plus the pairs of
    what changed give the groups of a scan without any cache."""
    root = tmp_path / "files"
    for i in range(40):
        text = essay(i)
        write(root / f"doc{i}.txt", text)
        if i % 3 == 0:
            write(root / f"doc{i}-draft.txt", edit(text, i, changes=1))
    options = ScanOptions(roots=(root,), cache_dir=tmp_path / "cache", jobs=1)
    scan.run(options)
    modes: list[str] = []
    pairs = Library.pairs

    def spy(self: Library, *args: object, **kwargs: object) -> np.ndarray:
        found = pairs(self, *args, **kwargs)  # type: ignore[arg-type]
        modes.append(self.last_mode)
        return found

    monkeypatch.setattr(Library, "pairs", spy)
    monkeypatch.setattr(library_module, "pairs_cost", lambda *_, **__: float("inf"))
    monkeypatch.setattr(library_module, "_INCREMENTAL_MIN", 0)
    for step in range(3):
        write(root / f"new{step}.txt", edit(essay(step * 7), 50 + step, changes=2))  # near old
        write(root / f"fresh{step}.txt", essay(100 + step))
        (root / f"doc{step * 5 + 1}.txt").unlink()
        write(root / f"doc{step * 5 + 2}.txt", essay(200 + step))  # changed content
        rescanned = scan.run(options)
        fresh = scan.run(ScanOptions(roots=(root,), use_cache=False, jobs=1))
        assert groups_of(rescanned) == groups_of(fresh)
    assert modes == ["incremental"] * 3


def groups_of(result: ScanResult) -> list[list[tuple[str, int]]]:
    return sorted(sorted((m.path, m.distance) for m in g.members) for g in result.groups)


def test_keeping_what_the_library_holds_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unchanged rescan keeps the same checked pairs: the file is not written again; a
    change is, and a fresh library reads it back."""
    library = Library(tmp_path)
    keys = np.array([[1, 2], [3, 4]], dtype=np.uint64)
    library.keep("check", keys, np.array([0.9, 0.2]))
    saves: list[None] = []
    save = library._save
    monkeypatch.setattr(library, "_save", lambda: saves.append(save()))
    library.keep("check", keys[::-1], np.array([0.2, 0.9]))  # the same pairs, in another order
    assert saves == []
    library.keep("check", keys, np.array([0.9, 0.3]))
    assert len(saves) == 1
    known, similarity = Library(tmp_path).recall("check", keys)
    assert known.all()
    assert similarity.tolist() == [0.9, 0.3]
