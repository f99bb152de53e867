"""Damaged fingerprint shards and impossible layouts end in a clear message and an exit code.

A shard cut short (a copy interrupted, a full disk) or with damaged pages, and ``pairs
--blocks 100``, used to end in a pyarrow or layout traceback; now they name the shard or
the option, and ``pairs`` says so before it starts a cluster.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

from distributed_corpus import near_duplicate_corpus, scan_options

from dupfinder.cli import EXIT_FATAL, EXIT_USAGE, distributed_cmd, main
from dupfinder.core.errors import FingerprintStoreError
from dupfinder.distributed.fingerprint_job import Shard, fingerprint_shard
from dupfinder.distributed.groups import result_from_fingerprints
from dupfinder.distributed.store import load


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = near_duplicate_corpus(tmp_path_factory.mktemp("corpus"))
    folder = tmp_path_factory.mktemp("shards")
    for index in range(2):
        fingerprint_shard(scan_options(corpus), folder, Shard(index, 2))
    return folder


def cut_short(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def pages_damaged(path: Path) -> None:
    """The footer intact, the data pages overwritten."""
    data = bytearray(path.read_bytes())
    for at in range(8, len(data) // 2):
        data[at] = 0xA5
    path.write_bytes(bytes(data))


@pytest.fixture(params=[cut_short, pages_damaged], ids=["cut short", "pages damaged"])
def damaged(request: pytest.FixtureRequest, shards: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "shards"
    shutil.copytree(shards, folder)
    change: Callable[[Path], None] = request.param
    change(folder / "fingerprints-00001-of-00002.parquet")
    return folder


def test_a_damaged_shard_is_a_store_error(damaged: Path) -> None:
    with pytest.raises(FingerprintStoreError, match="fingerprint"):
        load(damaged)
    with pytest.raises(FingerprintStoreError):
        result_from_fingerprints(damaged, scan_options(damaged))


def test_groups_names_the_damaged_shard(damaged: Path) -> None:
    code, out, err = run("groups", str(damaged))
    assert code == EXIT_FATAL, err
    assert out == ""
    assert "dupfinder groups:" in err
    assert "damaged" in err or "cut short" in err


@pytest.fixture
def no_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object) -> None:
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(distributed_cmd, "_client", refused)


@pytest.mark.usefixtures("no_cluster")
def test_pairs_stops_on_a_shard_cut_short_before_starting_a_cluster(
    shards: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "shards"
    shutil.copytree(shards, folder)
    cut_short(folder / "fingerprints-00000-of-00002.parquet")
    code, _, err = run("pairs", str(folder), "--out", str(tmp_path / "pairs"))
    assert code == EXIT_FATAL, err
    assert "fingerprints-00000-of-00002.parquet" in err


@pytest.mark.usefixtures("no_cluster")
@pytest.mark.parametrize("blocks", ["100", "65", "3"])
def test_pairs_with_an_impossible_layout_is_a_usage_error(
    shards: Path, tmp_path: Path, blocks: str
) -> None:
    code, _, err = run(
        "pairs",
        str(shards),
        "--out",
        str(tmp_path / "pairs"),
        "--blocks",
        blocks,
        "--text-bits",
        "4",
    )
    assert code == EXIT_USAGE, err
    assert "--blocks" in err
