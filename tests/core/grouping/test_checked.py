"""The second check done once: the same pairs pass as before, and a rescan checks only what is new."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest
from scan_helpers import essay, write

from dupfinder.core.grouping import checked, verify
from dupfinder.core.grouping.groups import second_check
from dupfinder.core.image import check as imagecheck
from dupfinder.core.index.library import Library
from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.text import sketch


class _Counting:
    """``sketch.pair_similarity``, counting the pairs it is asked about."""

    def __init__(self) -> None:
        self.pairs = 0

    def __call__(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.pairs += len(np.atleast_2d(a))
        return sketch.pair_similarity(a, b)


def _kind(seed: int, rows: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """Fingerprints and sketches of ``rows`` documents in families of near copies."""
    rng = np.random.default_rng(seed)
    base = rng.integers(1, 255, size=(rows // 4, sketch.BINS), dtype=np.uint8)
    sketches = np.repeat(base, 4, axis=0)
    edits = rng.random(sketches.shape) < rng.choice([0.05, 0.3, 0.6], size=(rows, 1))
    sketches[edits] = rng.integers(1, 255, size=int(edits.sum()), dtype=np.uint8)
    values = np.repeat(rng.integers(0, 2**63, size=rows // 4, dtype=np.uint64), 4)
    values ^= np.uint64(1) << rng.integers(0, 4, size=rows).astype(np.uint64)
    return values, sketches


def _found(values: np.ndarray, sketches: np.ndarray) -> verify.Candidates:
    return verify.candidates(values, sketches, 4, bands=True)


def test_the_same_pairs_pass_as_with_the_plain_check() -> None:
    values, sketches = _kind(1)
    found = _found(values, sketches)
    expected, similarity = verify.verified(found, sketches, 0.7, sketch.pair_similarity)
    outcome = checked.checked_pairs(found, lambda r: sketches[r], 0.7, sketch.pair_similarity)
    assert len(found.pairs) > len(expected) > 0
    assert np.array_equal(outcome.pairs, expected)
    assert np.allclose(outcome.similarities, similarity)


class _Memory:
    def __init__(self) -> None:
        self.saved: dict[str, dict[tuple[int, int], float]] = {}

    def recall(self, name: str, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        seen = self.saved.get(name, {})
        found = [seen.get((int(a), int(b))) for a, b in keys.tolist()]
        known = np.array([s is not None for s in found], dtype=bool)
        return known, np.array([s or 0.0 for s in found], dtype=np.float64)

    def keep(self, name: str, keys: np.ndarray, similarities: np.ndarray) -> None:
        self.saved[name] = {
            (int(a), int(b)): float(s)
            for (a, b), s in zip(keys.tolist(), similarities.tolist(), strict=True)
        }


@pytest.mark.parametrize("memory", ["fake", "library"])
def test_a_rescan_checks_only_the_pairs_it_has_not_seen(tmp_path: Path, memory: str) -> None:
    values, sketches = _kind(2)
    store = _Memory() if memory == "fake" else Library(tmp_path)

    def run(values: np.ndarray, sketches: np.ndarray) -> tuple[checked.CheckedPairs, int]:
        found = _found(values, sketches)
        keys = checked.content_keys(values[found.first], sketches[found.first])
        measure = _Counting()
        outcome = checked.checked_pairs(
            found, lambda r: sketches[r], 0.7, measure, keys, store, "text.test"
        )
        return outcome, measure.pairs

    first, first_pairs = run(values, sketches)
    if memory == "library":
        store = Library(tmp_path)  # read back from its file
    again, again_pairs = run(values, sketches)
    assert first_pairs > 0
    assert again_pairs == 0
    assert np.array_equal(again.pairs, first.pairs)
    assert np.allclose(again.similarities, first.similarities)
    changed = sketches.copy()
    changed[5] = 1  # one document rewritten
    _, changed_pairs = run(values, changed)
    assert 0 < changed_pairs < first_pairs


def test_content_keys_tell_rows_apart_by_fingerprint_and_sketch() -> None:
    values = np.array([1, 1, 2, 1], dtype=np.uint64)
    keys = np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 4]], dtype=np.uint8)
    found = checked.content_keys(values, keys)
    assert found[0] == found[1]
    assert len(set(found.tolist())) == 3


def test_content_keys_read_a_chunk_at_a_time_are_those_of_the_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(5)
    values = rng.integers(0, 4, 40).astype(np.uint64)
    keys = rng.integers(0, 3, (40, 11)).astype(np.uint8)
    whole = checked.content_keys(values, keys)
    monkeypatch.setattr(checked, "_KEY_ROWS", 7)
    asked: list[int] = []

    def read(positions: np.ndarray) -> np.ndarray:
        asked.append(len(positions))
        return keys[positions]

    np.testing.assert_array_equal(checked.content_keys(values, read), whole)
    np.testing.assert_array_equal(checked.content_keys(values, keys), whole)
    assert max(asked) == 7


def test_a_warm_rescan_gives_the_same_groups_without_checking_again(tmp_path: Path) -> None:
    from PIL import Image

    folder = tmp_path / "pictures"
    folder.mkdir()
    # three regions of the set, none a crop of another (a crop is the same picture)
    boxes = [(-2.0, -1.2, 1.0, 1.2), (-0.8, 0.05, -0.7, 0.15), (-1.8, -0.05, -1.7, 0.05)]
    for i, box in enumerate(boxes):
        picture = Image.effect_mandelbrot((400, 300), box, 60 + 20 * i).convert("RGB")
        picture.save(folder / f"fractal{i}.jpg")
        picture.resize((200, 150)).save(folder / f"fractal{i}-small.jpg")
    write(folder / "notes.txt", essay(1))
    write(folder / "notes-copy.txt", essay(1).replace(" the ", " a ", 3))
    options = ScanOptions(roots=(folder,), cache_dir=tmp_path / "cache", jobs=1)
    cold = scan.run(options)
    calls: list[object] = []
    plain = checked._similarities

    def counted(*args: object) -> np.ndarray:
        calls.append(args[3])  # the measure: which kind's check ran
        return plain(*args)  # type: ignore[arg-type]

    checked._similarities = counted  # type: ignore[assignment]
    try:
        warm = scan.run(options)
    finally:
        checked._similarities = plain
    assert [g.kind for g in cold.groups].count(Kind.IMAGE) == 3
    assert [[m.path for m in g.members] for g in warm.groups] == [
        [m.path for m in g.members] for g in cold.groups
    ]
    assert [[m.similarity for m in g.members] for g in warm.groups] == [
        [m.similarity for m in g.members] for g in cold.groups
    ]
    # no picture pair is checked again; documents' pairs are (cheaper than remembering them)
    assert imagecheck.pair_similarity not in calls


def test_pairs_checked_on_threads_in_steps_read_each_sketch_once_a_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    values, sketches = _kind(5, rows=800)
    found = _found(values, sketches)
    expected = verify.verified(found, sketches, 0.7, sketch.pair_similarity)
    asked: list[np.ndarray] = []

    def gather(rows: np.ndarray) -> np.ndarray:
        asked.append(rows)
        return sketches[rows]

    def one_way(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """An asymmetric measure: the sides must not be swapped."""
        return sketch.pair_similarity(a, b) - 0.001 * (a[:, 0] > b[:, 0])

    monkeypatch.setattr(checked, "_PARALLEL_MIN", 16)
    monkeypatch.setattr(checked, "_STEP_BYTES", 40 * sketch.BINS)
    outcome = checked.checked_pairs(found, gather, 0.7, sketch.pair_similarity)
    assert np.array_equal(outcome.pairs, expected[0])
    assert np.allclose(outcome.similarities, expected[1])
    assert len(asked) > 8  # several threads' steps
    assert all(len(np.unique(rows)) == len(rows) for rows in asked)
    a, b = sketches[found.first[found.pairs[:, 0]]], sketches[found.first[found.pairs[:, 1]]]
    lopsided = checked.checked_pairs(found, gather, -1.0, one_way)
    assert np.array_equal(lopsided.similarities, one_way(a, b))


class _Bounded:
    """``sketch.pair_similarity`` that stops early like the picture check: a pair under
    ``below`` answers a bound between its similarity and ``below``, plus the offset."""

    offset = -2.0

    def __init__(self) -> None:
        self.pairs = 0

    def __call__(self, a: np.ndarray, b: np.ndarray, below: float) -> np.ndarray:
        self.pairs += len(np.atleast_2d(a))
        exact = sketch.pair_similarity(a, b)
        return np.where(exact < below, (exact + below) / 2 + self.offset, exact)


def test_a_check_that_stops_early_passes_the_same_pairs_and_remembers_its_bounds() -> None:
    values, sketches = _kind(3)
    found = _found(values, sketches)
    keys = checked.content_keys(values[found.first], sketches[found.first])
    store = _Memory()
    measure = _Bounded()
    early = checked.EarlyStop(measure, measure.offset)

    def run(threshold: float) -> tuple[checked.CheckedPairs, int]:
        before = measure.pairs
        outcome = checked.checked_pairs(
            found,
            lambda r: sketches[r],
            threshold,
            sketch.pair_similarity,
            keys,
            store,
            "text.bounded",
            early,
        )
        return outcome, measure.pairs - before

    def plain(threshold: float) -> tuple[np.ndarray, np.ndarray]:
        return verify.verified(found, sketches, threshold, sketch.pair_similarity)

    first, checked_first = run(0.7)
    expected, similarity = plain(0.7)
    assert checked_first == len(found.pairs)
    assert np.array_equal(first.pairs, expected)
    assert np.allclose(first.similarities, similarity)
    assert run(0.7)[1] == 0  # an unchanged rescan: every answer remembered
    assert run(0.8)[1] == 0  # a higher threshold: every bound is under it too
    lower, checked_lower = run(0.5)  # a bound at or over 0.5 no longer decides
    answers = sketch.pair_similarity(
        sketches[found.first[found.pairs[:, 0]]], sketches[found.first[found.pairs[:, 1]]]
    )
    unsure = int(((answers < 0.7) & ((answers + 0.7) / 2 >= 0.5)).sum())
    assert 0 < checked_lower == unsure
    expected, similarity = plain(0.5)
    assert np.array_equal(lower.pairs, expected)
    assert np.allclose(lower.similarities, similarity)


def test_a_change_to_the_compiled_check_alone_renames_its_outcomes(tmp_path: Path) -> None:
    """Outcomes a rescan remembers are named by the check's source and by the kernel it runs:
    a kernel rebuilt with other rules never answers with what the one before decided."""
    kernel = tmp_path / "check_kernels.so"
    kernel.write_bytes(b"rules of one build")
    name = checked.check_name("image", imagecheck.pair_similarity, (str(kernel),))
    assert name == checked.check_name("image", imagecheck.pair_similarity, (str(kernel),))
    kernel.write_bytes(b"rules of another build")
    assert name != checked.check_name("image", imagecheck.pair_similarity, (str(kernel),))
    assert name != checked.check_name("image", imagecheck.pair_similarity)


def test_the_scans_picture_check_is_named_by_its_compiled_kernel_where_it_runs_one() -> None:
    compiled = imagecheck.compiled_files()
    assert all(Path(path).is_file() for path in compiled)
    check = second_check(Kind.IMAGE, ScanOptions(roots=()))
    assert check is not None
    assert check.compiled == compiled


def test_an_indexed_measure_gives_every_pair_the_plain_measures_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Steps of pairs go to the indexed form of the measure as rows of a table of their
    nodes' sketches; a step that names too many nodes is measured side by side instead."""
    values, sketches = _kind(9, rows=800)
    found = _found(values, sketches)
    measure = _Bounded()

    def run(early: checked.EarlyStop) -> checked.CheckedPairs:
        gather = sketches.__getitem__
        return checked.checked_pairs(found, gather, 0.7, sketch.pair_similarity, early=early)

    plain = run(checked.EarlyStop(measure, measure.offset))
    tables: list[tuple[int, int]] = []  # nodes and pairs of each step measured as a table

    def indexed(
        table: np.ndarray, first: np.ndarray, second: np.ndarray, below: float
    ) -> np.ndarray:
        tables.append((len(table), len(first)))
        return measure(table[first], table[second], below)

    monkeypatch.setattr(checked, "_PARALLEL_MIN", 16)
    monkeypatch.setattr(checked, "_INDEXED_PAIRS", 64)
    monkeypatch.setattr(checked, "_INDEXED_NODES", 60)
    before = measure.pairs
    outcome = run(checked.EarlyStop(measure, measure.offset, indexed))
    assert np.array_equal(outcome.pairs, plain.pairs)
    assert np.array_equal(outcome.similarities, plain.similarities)
    assert measure.pairs - before == len(found.pairs)
    assert all(nodes <= 60 for nodes, _ in tables)
    assert 0 < sum(pairs for _, pairs in tables) < len(found.pairs)  # both forms were used


def test_work_in_threads_covers_every_item_once_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts cut as ``np.array_split`` cuts them, each on some thread, given back in order;
    too few items for a thread each are worked here at once."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2}, raising=False)
    seen: list[str] = []

    def work(part: slice) -> list[int]:
        seen.append(threading.current_thread().name)
        return list(range(part.start, part.stop))

    parts = checked.in_threads(work, 1003, least=100)
    assert [len(p) for p in parts] == [len(p) for p in np.array_split(np.arange(1003), 12)]
    assert [i for part in parts for i in part] == list(range(1003))
    assert all(name.startswith("dupfinder-check") for name in seen)
    seen.clear()
    assert checked.in_threads(work, 150, least=100) == [list(range(150))]
    assert seen == [threading.current_thread().name]
    assert checked.in_threads(work, 0) == [[]]


def test_members_compared_on_threads_give_one_comparison_of_them_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The naming's comparisons cut across threads are the comparison of every pair at once."""
    from dupfinder.core.grouping import groups

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    rng = np.random.default_rng(5)
    kept = rng.integers(0, 256, (300, imagecheck.DESCRIPTOR_BYTES), dtype=np.uint8)
    other = np.clip(kept.astype(int) + rng.integers(-30, 30, kept.shape), 0, 255).astype(np.uint8)
    for rows in (kept, other):
        rows[:, 0] = rng.integers(0, 8, len(rows))
        rows[:, 3] = rng.integers(1, 256, len(rows))
    whole = imagecheck.compare(kept, other)
    threaded = groups._comparisons(kept, other)
    for name in imagecheck.Comparison.__dataclass_fields__:
        assert np.array_equal(getattr(threaded, name), getattr(whole, name)), name
