"""Fingerprints as Parquet: sharded writing, reading back into the scan's own result."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow")

import pyarrow.parquet as pq
from distributed_corpus import near_duplicate_corpus, scan_options

from dupfinder.cli import EXIT_FATAL, EXIT_OK, EXIT_USAGE, main
from dupfinder.core.errors import FingerprintStoreError
from dupfinder.core.model import Kind, ScanResult
from dupfinder.core.scan import pipeline as scan
from dupfinder.distributed.fingerprint_job import Shard, fingerprint_shard
from dupfinder.distributed.groups import result_from_fingerprints
from dupfinder.distributed.schema import SCHEMA_VERSION, StoreMeta
from dupfinder.distributed.store import load, shard_files, store_meta


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return near_duplicate_corpus(tmp_path_factory.mktemp("corpus"))


def _same(a: ScanResult, b: ScanResult) -> None:
    assert a.groups == b.groups
    assert a.errors == b.errors
    assert (a.stats.files_seen, a.stats.pairs) == (b.stats.files_seen, b.stats.pairs)


def test_shards_split_a_list_exactly() -> None:
    paths = [f"/data/{i}/file-{i}.txt" for i in range(3000)]
    owners = [[s for s in range(5) if Shard(s, 5).holds(p)] for p in paths]
    assert all(len(o) == 1 for o in owners)
    sizes = np.bincount([o[0] for o in owners])
    assert sizes.min() > 450  # spread, not all in one
    assert Shard.parse("2/8") == Shard(2, 8)
    for bad in ("8/8", "-1/4", "3", "a/b", "1/0"):
        with pytest.raises(ValueError, match="i/n"):
            Shard.parse(bad)


def test_shards_read_back_as_the_scan_result(corpus: Path, tmp_path: Path) -> None:
    options = scan_options(corpus)
    for index in range(3):
        report = fingerprint_shard(options, tmp_path, Shard(index, 3))
        assert report.path.exists()
        assert not report.cancelled
    assert len(shard_files(tmp_path)) == 3
    expected = scan.run(options)
    assert expected.groups
    assert expected.errors
    _same(result_from_fingerprints(tmp_path, options), expected)
    # the non-UTF-8 name comes back byte for byte, and is in a group
    paths = {m.path for g in expected.groups for m in g.members}
    assert str(corpus / os.fsdecode(b"caf\xe9-notes.txt")) in paths


def test_columns_keep_identity_and_metadata(corpus: Path, tmp_path: Path) -> None:
    fingerprint_shard(scan_options(corpus), tmp_path)
    table = pq.read_table(shard_files(tmp_path)[0])
    assert table.schema.field("value").type == "uint64"
    row = next(r for r in table.to_pylist() if r["path"] == str(corpus / "alone.txt"))
    info = os.stat(corpus / "alone.txt")
    assert (row["size"], row["mtime_ns"], row["ino"], row["dev"], row["ctime_ns"]) == (
        info.st_size,
        info.st_mtime_ns,
        info.st_ino,
        info.st_dev,
        info.st_ctime_ns,
    )
    assert row["kind"] == "text"
    assert row["value"] is not None
    assert row["error"] is None
    meta = store_meta(shard_files(tmp_path))
    assert meta.version == SCHEMA_VERSION
    assert set(meta.algorithms) == {"text", "image"}
    stored = load(tmp_path)
    assert meta.rows["text"] + meta.rows["image"] == stored.outcomes.fingerprinted()


def test_incomplete_or_mixed_sets_are_refused(corpus: Path, tmp_path: Path) -> None:
    options = scan_options(corpus, kinds=frozenset({Kind.TEXT}))
    fingerprint_shard(options, tmp_path, Shard(0, 2))
    with pytest.raises(FingerprintStoreError, match="1 shard\\(s\\) missing: 1/2"):
        load(tmp_path)
    path = shard_files(tmp_path)[0]
    table = pq.read_table(path)
    other = StoreMeta({"text": "text/other", "image": "image/other"}, shard=(1, 2))
    pq.write_table(table.replace_schema_metadata(other.to_metadata()), tmp_path / "x.parquet")
    with pytest.raises(FingerprintStoreError, match="same dupfinder version"):
        load(tmp_path)
    newer = StoreMeta({}, shard=(1, 2), version=SCHEMA_VERSION + 1)
    pq.write_table(table.replace_schema_metadata(newer.to_metadata()), tmp_path / "x.parquet")
    with pytest.raises(FingerprintStoreError, match="newer than this dupfinder reads"):
        load(tmp_path)


def test_cli_fingerprints_a_list_in_shards_and_prints_the_scan(
    corpus: Path, tmp_path: Path
) -> None:
    listing = tmp_path / "files.lst"
    names = sorted(os.fsencode(p) for p in corpus.rglob("*") if p.is_file())
    listing.write_bytes(b"\0".join(names) + b"\0")
    out_dir = tmp_path / "fp"
    for index in range(2):
        args = ["fingerprint", "--files-from", str(listing), "-0", "--shard", f"{index}/2"]
        assert main([*args, "--out", str(out_dir), "--no-cache", "-j", "1"]) == EXIT_OK
    out, err = io.StringIO(), io.StringIO()
    assert main(["groups", str(out_dir), "--format", "json"], out, err) == EXIT_OK, err.getvalue()
    scanned = io.StringIO()
    assert (
        main(["scan", str(corpus), "--no-identical", "--format", "json", "--no-cache"], scanned)
        == EXIT_OK
    )
    got, want = json.loads(out.getvalue()), json.loads(scanned.getvalue())
    assert got["groups"] == want["groups"]
    assert got["stats"]["files_seen"] == want["stats"]["files_seen"]
    assert got["errors"] == want["errors"]
    bad = io.StringIO()
    assert (
        main(["fingerprint", str(corpus), "--out", str(out_dir), "--shard", "2/2"], err=bad)
        == EXIT_USAGE
    )
    assert "i/n" in bad.getvalue()
    other = ["fingerprint", str(corpus), "--out", str(out_dir), "--kind", "other"]
    assert main(other, err=bad) == EXIT_USAGE
    assert "documents and pictures" in bad.getvalue()


def test_a_failed_shard_leaves_nothing_readable(corpus: Path, tmp_path: Path) -> None:
    class Boom(Exception):
        pass

    def explode(sample: object) -> None:
        raise Boom

    with pytest.raises(Boom):
        fingerprint_shard(scan_options(corpus), tmp_path, progress=explode)
    assert list(tmp_path.iterdir()) == []


def test_commands_say_how_to_install_the_extra(tmp_path: Path) -> None:
    """Without pyarrow and dask, the commands explain; scan and the core never load them."""
    code = (
        "import sys\n"
        "for name in ('pyarrow', 'dask', 'distributed', 'pandas'):\n"
        "    sys.modules[name] = None\n"
        "from dupfinder.cli import main\n"
        f"codes = [main([c, {str(tmp_path)!r}, '--out', {str(tmp_path / 'o')!r}]) "
        "for c in ('fingerprint', 'pairs')]\n"
        f"codes.append(main(['groups', {str(tmp_path)!r}]))\n"
        "print(codes)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == str([EXIT_FATAL] * 3)
    assert done.stderr.count("pip install 'dupfinder[distributed]'") == 3
    probe = (
        "import sys, dupfinder.cli, dupfinder.core.scan.pipeline, dupfinder.core.results.report\n"
        "dupfinder.cli.build_parser()\n"
        f"dupfinder.core.scan.pipeline.run(dupfinder.core.scan.pipeline.ScanOptions(roots=({str(tmp_path)!r},)))\n"
        "print(sorted(m for m in ('pyarrow', 'dask', 'distributed', 'pandas') if m in sys.modules))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"
