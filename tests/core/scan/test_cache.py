"""The fingerprint cache: exact keys, 64-bit values, survival of damage and concurrency."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from dupfinder.core.fingerprints.worker import FingerprintOutcome
from dupfinder.core.model import CacheKey
from dupfinder.core.scan.cache import FingerprintCache

KEY = CacheKey(
    "/data/a.txt", 120, 1_700_000_000_000_000_000, 1_700_000_000_500_000_000, 2**63 + 5, 2**63 + 9
)


def test_round_trip_of_full_range_values_and_errors(tmp_path: Path) -> None:
    with FingerprintCache(tmp_path) as cache:
        cache.store(
            "text/v1",
            [
                (KEY, FingerprintOutcome(0, value=2**64 - 1)),
                (
                    CacheKey("/b.png", 5, 7, 8, 9, 7),
                    FingerprintOutcome(1, value=2**63, width=3, height=4, variants=(1, 2**64 - 2)),
                ),
                (
                    CacheKey("/c.txt", 1, 1, 1, 1, 7),
                    FingerprintOutcome(2, error="too little text", code="too-little-content"),
                ),
            ],
        )
        found = cache.lookup(
            "text/v1", [KEY, CacheKey("/b.png", 5, 7, 8, 9, 7), CacheKey("/c.txt", 1, 1, 1, 1, 7)]
        )
    assert found[0].value == 2**64 - 1
    assert (found[1].value, found[1].width, found[1].height) == (2**63, 3, 4)
    assert found[1].variants == (1, 2**64 - 2)
    assert (found[2].error, found[2].code) == ("too little text", "too-little-content")


def test_any_change_in_the_key_misses(tmp_path: Path) -> None:
    with FingerprintCache(tmp_path) as cache:
        cache.store("text/v1", [(KEY, FingerprintOutcome(0, value=5))])
        assert cache.lookup("text/v1", [KEY._replace(size=KEY.size + 1)]) == {}
        assert cache.lookup("text/v1", [KEY._replace(mtime_ns=KEY.mtime_ns + 1)]) == {}
        # a file rewritten in place with its mtime put back: new ctime, maybe a new inode
        assert cache.lookup("text/v1", [KEY._replace(ctime_ns=KEY.ctime_ns + 1)]) == {}
        assert cache.lookup("text/v1", [KEY._replace(ino=KEY.ino + 1)]) == {}
        # another file system at the same path may reuse the inode number with other bytes
        assert cache.lookup("text/v1", [KEY._replace(dev=KEY.dev + 1)]) == {}
        assert cache.lookup("text/v2", [KEY]) == {}
        assert cache.lookup("text/v1", [KEY])[0].value == 5


def test_transient_failures_are_not_cached(tmp_path: Path) -> None:
    with FingerprintCache(tmp_path) as cache:
        cache.store(
            "a", [(KEY, FingerprintOutcome(0, error="permission denied", code="unreadable"))]
        )
        assert cache.lookup("a", [KEY]) == {}


def test_undecodable_paths_and_many_keys(tmp_path: Path) -> None:
    weird = os.fsdecode(b"/tmp/caf\xe9.txt")
    keys = [CacheKey(f"/f/{i}", i, i, i, i, 7) for i in range(1200)] + [
        CacheKey(weird, 1, 1, 1, 1, 7)
    ]
    with FingerprintCache(tmp_path) as cache:
        cache.store("a", [(k, FingerprintOutcome(i, value=i)) for i, k in enumerate(keys)])
        found = cache.lookup("a", keys)
    assert len(found) == len(keys)
    assert found[1200].value == 1200


def test_corrupt_file_is_set_aside_and_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "fingerprints.sqlite3").write_bytes(b"this is not a database" * 100)
    with FingerprintCache(tmp_path) as cache:
        assert cache.enabled
        cache.store("a", [(KEY, FingerprintOutcome(0, value=1))])
        assert cache.lookup("a", [KEY])[0].value == 1
    assert any(p.name.startswith("fingerprints.sqlite3.corrupt-") for p in tmp_path.iterdir())
    assert "damaged" in caplog.text


def test_old_schema_is_rebuilt(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "fingerprints.sqlite3")
    db.execute("CREATE TABLE fingerprints (path TEXT)")
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    with FingerprintCache(tmp_path) as cache:
        cache.store("a", [(KEY, FingerprintOutcome(0, value=3))])
        assert cache.lookup("a", [KEY])[0].value == 3


def test_a_cache_of_the_previous_schema_is_rebuilt_not_misread(tmp_path: Path) -> None:
    """Schema 3 keyed by inode without the device: its rows must never answer now."""
    db = sqlite3.connect(tmp_path / "fingerprints.sqlite3")
    db.execute(
        "CREATE TABLE fingerprints (path BLOB, algorithm TEXT, size INTEGER, mtime_ns INTEGER, "
        "ctime_ns INTEGER, ino INTEGER, value INTEGER, width INTEGER, height INTEGER, "
        "variants TEXT, sketch BLOB, error TEXT, code TEXT, PRIMARY KEY (path, algorithm))"
    )
    db.execute(
        "INSERT INTO fingerprints VALUES (?, 'a', ?, ?, ?, ?, 3, NULL, NULL, NULL, NULL, NULL, NULL)",
        (b"/data/a.txt", KEY.size, KEY.mtime_ns, KEY.ctime_ns, 5),
    )
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    with FingerprintCache(tmp_path) as cache:
        assert cache.lookup("a", [KEY._replace(ino=5)]) == {}


def test_unwritable_location_turns_caching_off(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    cache = FingerprintCache(blocker / "cache")
    assert not cache.enabled
    assert "disabled" in (cache.problem or "")
    cache.store("a", [(KEY, FingerprintOutcome(0, value=1))])
    assert cache.lookup("a", [KEY]) == {}


def test_two_writers_at_once(tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def writer(offset: int) -> None:
        try:
            with FingerprintCache(tmp_path) as cache:
                for i in range(30):
                    cache.store(
                        "a",
                        [
                            (
                                CacheKey(f"/{offset}/{i}", 1, 1, 1, 1, 7),
                                FingerprintOutcome(0, value=i),
                            )
                        ],
                    )
        except BaseException as exc:  # collected and checked below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with FingerprintCache(tmp_path) as cache:
        keys = [CacheKey(f"/{n}/{i}", 1, 1, 1, 1, 7) for n in range(2) for i in range(30)]
        assert len(cache.lookup("a", keys)) == 60
