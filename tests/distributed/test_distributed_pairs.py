"""The all-pairs pass on a Dask LocalCluster equals the single-machine answer, exactly."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
if TYPE_CHECKING:
    from distributed import Client, Scheduler

from distributed_corpus import near_duplicate_corpus, scan_options

from dupfinder.cli import EXIT_OK, main
from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns
from dupfinder.core.fingerprints.worker import FingerprintOutcome
from dupfinder.core.image import check as imagecheck
from dupfinder.core.index.reference import all_pairs_with_distances
from dupfinder.core.model import FileEntry, Grouping, Kind, ScanOptions
from dupfinder.core.scan import pipeline as scan
from dupfinder.distributed.fingerprint_job import Shard, fingerprint_shard
from dupfinder.distributed.groups import read_pairs, result_from_fingerprints, result_from_pairs
from dupfinder.distributed.layout import TableLayout, _kernel_layout, choose_blocks, table_pairs
from dupfinder.distributed.pairs_job import PairsManifest, find_pairs
from dupfinder.distributed.schema import StoreMeta
from dupfinder.distributed.store import ShardWriter


def planted(seed: int, centres: int, per_centre: int, spread: int) -> np.ndarray:
    """Random fingerprints, each with neighbours at 0..spread bits (copies included)."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 1 << 63, centres, dtype=np.uint64) << np.uint64(1)
    base |= rng.integers(0, 2, centres, dtype=np.uint64)
    out = [base]
    for _ in range(per_centre):
        flips = rng.integers(0, spread + 1, centres)
        noise = np.zeros(centres, np.uint64)
        for c, count in enumerate(flips):
            for bit in rng.choice(64, count, replace=False):
                noise[c] |= np.uint64(1) << np.uint64(bit)
        out.append(base ^ noise)
    return np.concatenate(out)


#: One picture descriptor for every planted picture (a photo's: no detail part): the
#: thumbnails verify every pair the hashes propose, so the groups are those of the hashes
#: alone.
_PICTURE = bytes(range(0, 256)) + bytes([128]) * (imagecheck.BASE_BYTES - 256)


def store(folder: Path, kinds: dict[Kind, np.ndarray], shards: int = 3) -> Path:
    """Fingerprints as if fingerprinted by ``shards`` machines (paths /k/i.ext)."""
    for shard in range(shards):
        writer = ShardWriter(folder, StoreMeta({"text": "t", "image": "i"}, shard=(shard, shards)))
        files = FileColumns()
        chosen = [(kind, i) for kind, v in kinds.items() for i in range(shard, v.size, shards)]
        outcomes = OutcomeColumns(len(chosen))
        for row, (kind, i) in enumerate(chosen):
            files.append(FileEntry(f"/{kind}/{i:06d}.x", 100 + i % 7, i, kind, dev=1, ino=i + 1))
            sketch = _PICTURE if kind is Kind.IMAGE else None
            outcomes.put(row, FingerprintOutcome(row, value=int(kinds[kind][i]), sketch=sketch))
        writer.write(files, outcomes)
        writer.close()
    return folder


@contextlib.contextmanager
def local_client(workers: int, processes: bool) -> Iterator[Client]:
    with (
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=processes,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
        yield c


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    """Three workers as threads of this process: quick to start, warnings seen by pytest."""
    with local_client(3, processes=False) as c:
        yield c


def expected_pairs(values: np.ndarray, k: int) -> set[tuple[int, int, int]]:
    unique = np.unique(values)
    pairs, dist = all_pairs_with_distances(unique, k)
    return set(
        zip(unique[pairs[:, 0]].tolist(), unique[pairs[:, 1]].tolist(), dist.tolist(), strict=False)
    )


def test_layout_reports_every_pair_once() -> None:
    rng = np.random.default_rng(5)
    for k in (1, 3, 8, 12):
        layout = TableLayout.make(k, choose_blocks(10_000, k))
        xor = np.zeros(4000, np.uint64)
        for row in range(xor.size):
            for bit in rng.choice(64, rng.integers(0, k + 1), replace=False):
                xor[row] |= np.uint64(1) << np.uint64(bit)
        owners = np.stack([layout.canonical(xor, t) for t in range(layout.tables)]).sum(axis=0)
        assert (owners == 1).all()


@pytest.mark.parametrize("k", [1, 3, 8])
def test_each_table_reports_the_same_pairs_compiled_or_not(
    k: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled kernel and the numpy search agree on which table reports a pair."""
    from dupfinder.core.index import compiled as index_kernel

    if not index_kernel.available():
        pytest.skip("the compiled kernel does not load here")
    values = np.unique(planted(7, 400, 5, k + 2))
    layout = TableLayout.make(k, choose_blocks(values.size, k))
    compiled = [table_pairs(values, layout, t) for t in range(layout.tables)]
    monkeypatch.setattr(index_kernel, "available", lambda: False)
    _kernel_layout.cache_clear()
    try:
        for t, (a, b, d) in enumerate(compiled):
            want = set(zip(*(x.tolist() for x in table_pairs(values, layout, t)), strict=True))
            assert set(zip(a.tolist(), b.tolist(), d.tolist(), strict=True)) == want, t
    finally:
        _kernel_layout.cache_clear()
    assert sum(len(a) for a, _, _ in compiled) == len(expected_pairs(values, k))


def test_pairs_equal_the_single_machine_for_every_radius(client: Client, tmp_path: Path) -> None:
    text = planted(1, 60, 6, 14)
    fingerprints = store(tmp_path / "fp", {Kind.TEXT: text}, shards=2)
    unique, counts = np.unique(text, return_counts=True)
    for k in range(13):
        out = tmp_path / f"k{k}"
        manifest = find_pairs(fingerprints, out, {Kind.TEXT: k}, threads=2, partitions=2)
        assert manifest == PairsManifest.read(out)
        a, b, d = read_pairs(out, Kind.TEXT)
        distinct = a != b
        got = list(
            zip(a[distinct].tolist(), b[distinct].tolist(), d[distinct].tolist(), strict=True)
        )
        assert len(got) == len(set(got))  # each pair once
        assert set(got) == expected_pairs(text, k), k
        assert sorted(a[~distinct].tolist()) == unique[counts > 1].tolist()
        assert manifest.kinds["text"].pairs == len(got)


def test_groups_from_cluster_pairs_equal_the_scan(client: Client, tmp_path: Path) -> None:
    """Real documents (pairs verified by their sketches) and pictures, both groupings."""
    corpus = near_duplicate_corpus(tmp_path / "corpus")
    options = scan_options(corpus)
    for shard in range(2):
        fingerprint_shard(options, tmp_path / "fp", Shard(shard, 2))
    find_pairs(tmp_path / "fp", tmp_path / "pairs", {Kind.TEXT: 8, Kind.IMAGE: 8}, threads=3)
    for grouping in Grouping:
        grouped = replace(options, text_grouping=grouping, image_grouping=grouping)
        expected = scan.run(grouped)
        spread = result_from_pairs(tmp_path / "fp", tmp_path / "pairs", grouped)
        assert {g.kind for g in expected.groups} == {Kind.TEXT, Kind.IMAGE}
        assert spread.groups == expected.groups
        assert spread.errors == expected.errors
        assert spread.stats.pairs == expected.stats.pairs


def test_cluster_pairs_group_like_one_machine_at_scale(client: Client, tmp_path: Path) -> None:
    """Thousands of pictures' fingerprints with chains of neighbours: the same groups."""
    images = planted(4, 300, 6, 9)
    fingerprints = store(tmp_path / "fp", {Kind.IMAGE: images})
    find_pairs(fingerprints, tmp_path / "pairs", {Kind.IMAGE: 8}, threads=3)
    for grouping in Grouping:
        options = ScanOptions(roots=(), image_grouping=grouping, image_threshold=8)
        local = result_from_fingerprints(fingerprints, options)
        spread = result_from_pairs(fingerprints, tmp_path / "pairs", options)
        assert len(local.groups) > 50
        assert spread.groups == local.groups
        assert spread.stats.pairs == local.stats.pairs
        assert spread.stats.files_seen == local.stats.files_seen == images.size


def test_a_killed_worker_changes_nothing(tmp_path: Path) -> None:
    """A worker process dies (SIGKILL) while partitions run; the nanny restarts it, the
    scheduler recomputes what it held, and the pairs are the same."""
    values = planted(6, 4_000, 4, 5)
    fingerprints = store(tmp_path / "fp", {Kind.TEXT: values}, shards=4)
    with local_client(2, processes=True) as c:
        result: dict[str, object] = {}

        def job() -> None:
            try:
                result["manifest"] = find_pairs(
                    fingerprints, tmp_path / "pairs", {Kind.TEXT: 3}, threads=2, partitions=8
                )
            except BaseException as exc:  # handed to the test thread
                result["error"] = exc

        runner = threading.Thread(target=job)
        runner.start()
        victim = None
        deadline = time.monotonic() + 120
        while victim is None and runner.is_alive() and time.monotonic() < deadline:
            done = c.run_on_scheduler(_tasks_done)
            busy = [w for w, tasks in c.processing().items() if tasks]
            if done >= 8 and busy:
                victim = busy[0]
            else:
                time.sleep(0.05)
        assert victim is not None, "the job ended before a worker could be killed"
        pid = c.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)
        assert runner.is_alive()  # killed mid-job
        runner.join(timeout=300)
        assert victim not in c.scheduler_info()["workers"]  # it did die (and was replaced)
        assert not runner.is_alive()
        assert "error" not in result, result.get("error")
    a, b, d = read_pairs(tmp_path / "pairs", Kind.TEXT)
    distinct = a != b
    got = list(zip(a[distinct].tolist(), b[distinct].tolist(), d[distinct].tolist(), strict=True))
    assert len(got) == len(set(got))
    assert set(got) == expected_pairs(values, 3)


def _tasks_done(dask_scheduler: Scheduler) -> int:
    return sum(1 for task in dask_scheduler.tasks.values() if task.state == "memory")


def test_the_commands_run_the_whole_job(tmp_path: Path) -> None:
    """fingerprint, pairs (its own local cluster, task shuffle), groups: scan's JSON."""
    corpus = near_duplicate_corpus(tmp_path / "corpus")
    fp, pairs = str(tmp_path / "fp"), str(tmp_path / "pairs")
    assert main(["fingerprint", str(corpus), "--out", fp, "--no-cache", "-j", "1"]) == EXIT_OK
    err = io.StringIO()
    job = ["pairs", fp, "--out", pairs, "--workers", "1", "--shuffle", "tasks"]
    assert main(job, err=err) == EXIT_OK, err.getvalue()
    assert "text: " in err.getvalue()
    assert "pairs written to" in err.getvalue()
    spread, alone, scanned = io.StringIO(), io.StringIO(), io.StringIO()
    assert main(["groups", fp, "--pairs", pairs, "--format", "json"], spread) == EXIT_OK
    assert main(["groups", fp, "--format", "json"], alone) == EXIT_OK
    assert (
        main(["scan", str(corpus), "--no-identical", "--no-cache", "--format", "json"], scanned)
        == EXIT_OK
    )
    want = json.loads(scanned.getvalue())
    for got in (json.loads(spread.getvalue()), json.loads(alone.getvalue())):
        assert got["groups"] == want["groups"]
        assert got["errors"] == want["errors"]
    assert want["groups"]
