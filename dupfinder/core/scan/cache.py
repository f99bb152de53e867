"""SQLite cache of fingerprints, so a rescan of unchanged files costs a stat, not a decode.

The key holds everything that changes the answer: path, size, mtime_ns, ctime_ns, device and
inode (a file rewritten in place with its old mtime put back still gets a new ctime; another
file system mounted at the same path may reuse the inode number) and the
algorithm id (algorithm, its version and the settings that matter). WAL mode and a busy timeout let
the CLI and the GUI use one cache at once; every batch is its own transaction, so a
killed scan keeps what it committed. A corrupt or old-schema file is set aside and
rebuilt, and a cache that cannot be written at all turns itself off: the scan goes on.
"""

from __future__ import annotations

import itertools
import logging
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from dupfinder.core.fingerprints.worker import FingerprintOutcome
from dupfinder.core.model import CacheKey

__all__ = ["SCHEMA_VERSION", "FingerprintCache", "default_cache_dir"]

log = logging.getLogger(__name__)

#: 2: ctime_ns and inode joined the key (version-1 caches are rebuilt).
#: 3: a ``sketch`` blob beside the fingerprint (the second, independent check).
#: 4: the device joined the key (version-3 caches are rebuilt).
SCHEMA_VERSION = 4
_LOOKUP_CHUNK = 500
#: What ``lookup`` reads of a row besides its key.
_OUTCOME_COLUMNS = "value, width, height, variants, sketch, error, code"
_SIGN_BIT = 1 << 63
_WRAP = 1 << 64
_MASK = _WRAP - 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS fingerprints (
    path BLOB NOT NULL,
    algorithm TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    dev INTEGER NOT NULL,
    value INTEGER,
    width INTEGER,
    height INTEGER,
    variants TEXT,
    sketch BLOB,
    error TEXT,
    code TEXT,
    PRIMARY KEY (path, algorithm)
) WITHOUT ROWID
"""


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("dupfinder", appauthor=False))


#: SQLite's primary result codes for a damaged file: SQLITE_CORRUPT and SQLITE_NOTADB.
_DAMAGE_CODES = frozenset({11, 26})


def _primary_code(exc: Exception) -> int | None:
    """SQLite's primary result code of an error, None when the module raised it itself."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _is_damage(exc: Exception) -> bool:
    """True for a damaged database file, False for a full disk, no permission, a lock..."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = _primary_code(exc)
    if code is None:  # raised by the module itself, not by SQLite: damage is its base class
        return type(exc) is sqlite3.DatabaseError
    return code in _DAMAGE_CODES


#: SQLite's primary result codes for a file another connection holds: SQLITE_BUSY, SQLITE_LOCKED.
_BUSY_CODES = frozenset({5, 6})
#: How long opening waits for another process (the GUI and the CLI at once) to let go.
_OPEN_PATIENCE_S = 30.0


def _is_busy(exc: Exception) -> bool:
    """True when another connection holds a lock SQLite would not wait for: setting up WAL
    or the schema while another process does the same fails at once, whatever the timeout."""
    return isinstance(exc, sqlite3.OperationalError) and _primary_code(exc) in _BUSY_CODES


def _to_signed(value: int) -> int:
    return value - _WRAP if value >= _SIGN_BIT else value


def _to_unsigned(value: int) -> int:
    return value + _WRAP if value < 0 else value


class FingerprintCache:
    """Fingerprint outcomes keyed by ``CacheKey`` and algorithm."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.path = self.directory / "fingerprints.sqlite3"
        self.problem: str | None = None
        self._db: sqlite3.Connection | None = None
        deadline = time.monotonic() + _OPEN_PATIENCE_S
        for attempt in itertools.count():
            try:
                self._db = self._open()
            except (sqlite3.DatabaseError, OSError) as exc:
                if _is_busy(exc) and time.monotonic() < deadline:
                    time.sleep(min(0.02 * 2**attempt, 0.5))
                    continue
                self._set_aside(exc)
            break

    @property
    def enabled(self) -> bool:
        return self._db is not None

    def _open(self) -> sqlite3.Connection:
        self.directory.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 30000")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            (version,) = db.execute("PRAGMA user_version").fetchone()
            if version not in (0, SCHEMA_VERSION):
                log.warning("fingerprint cache %s has schema %s; rebuilding", self.path, version)
                db.execute("DROP TABLE IF EXISTS fingerprints")
            db.execute(_SCHEMA)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.commit()
            db.execute("SELECT 1 FROM fingerprints LIMIT 1").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _set_aside(self, exc: Exception) -> None:
        """A damaged cache is moved aside and rebuilt once; if that fails, caching is off.

        Only real damage counts: a full disk, a read-only folder or a locked file also raise
        sqlite3 errors, and moving a sound cache aside for those would throw it away.
        """
        if _is_damage(exc) and self.path.exists():
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            log.warning("fingerprint cache %s is damaged (%s); rebuilding", self.path, exc)
            try:
                os.replace(self.path, aside)
                for suffix in ("-wal", "-shm"):
                    Path(f"{self.path}{suffix}").unlink(missing_ok=True)
                self._db = self._open()
                return
            except (sqlite3.DatabaseError, OSError) as second:
                exc = second
        self.problem = f"fingerprint cache disabled: {exc}"
        log.warning("%s", self.problem)
        self._db = None

    def lookup(self, algorithm: str, keys: Sequence[CacheKey]) -> dict[int, FingerprintOutcome]:
        """Cached outcomes for ``keys``, by position in ``keys``; a row counts only when every
        part of its key matches the file as the walk saw it."""
        found = self._matching(algorithm, keys, _OUTCOME_COLUMNS)
        return {position: _outcome_from_row(position, row) for position, row in found.items()}

    def lookup_blobs(self, algorithm: str, keys: Sequence[CacheKey]) -> dict[int, bytes]:
        """The blob (``sketch`` column) cached for each of ``keys`` that has one, by position:
        content digests, read without building an outcome per file (a rescan asks this of
        every file whose size another file has)."""
        found = self._matching(algorithm, keys, "sketch")
        blobs = {position: row[0] for position, row in found.items()}
        return {position: blob for position, blob in blobs.items() if isinstance(blob, bytes)}

    def _matching(
        self, algorithm: str, keys: Sequence[CacheKey], columns: str
    ) -> dict[int, tuple[object, ...]]:
        """``columns`` of the rows whose whole key matches, by position in ``keys``."""
        found: dict[int, tuple[object, ...]] = {}
        if self._db is None:
            return found
        try:
            for start in range(0, len(keys), _LOOKUP_CHUNK):
                chunk = keys[start : start + _LOOKUP_CHUNK]
                encoded = [os.fsencode(key.path) for key in chunk]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT path, size, mtime_ns, ctime_ns, ino, dev, {columns} "
                    f"FROM fingerprints WHERE algorithm = ? AND path IN ({marks})",
                    [algorithm, *encoded],
                ).fetchall()
                by_path = {row[0]: row for row in rows}
                for offset, (raw, key) in enumerate(zip(encoded, chunk, strict=True)):
                    row = by_path.get(raw)
                    if (
                        row is not None
                        and row[1] == key.size
                        and row[2] == key.mtime_ns
                        and row[3] == key.ctime_ns
                        and row[4] == _to_signed(key.ino)
                        and row[5] == _to_signed(key.dev)
                    ):
                        found[start + offset] = row[6:]
        except sqlite3.DatabaseError as exc:
            self._disable(exc)
        return found

    def store_blobs(self, algorithm: str, items: Iterable[tuple[CacheKey, bytes]]) -> None:
        """Save blobs (content digests) in one transaction; the value column holds the first
        8 bytes of each as a number."""
        self._insert(
            [
                (
                    os.fsencode(key.path),
                    algorithm,
                    key.size,
                    key.mtime_ns,
                    key.ctime_ns,
                    _to_signed(key.ino),
                    _to_signed(key.dev),
                    int.from_bytes(blob[:8], "big", signed=True),
                    None,
                    None,
                    None,
                    blob,
                    None,
                    None,
                )
                for key, blob in items
            ]
        )

    def store(
        self,
        algorithm: str,
        items: Iterable[tuple[CacheKey, FingerprintOutcome]],
    ) -> None:
        """Save outcomes in one transaction; transient failures are not cached."""
        if self._db is None:
            return
        rows = [
            (
                os.fsencode(key.path),
                algorithm,
                key.size,
                key.mtime_ns,
                key.ctime_ns,
                _to_signed(key.ino),
                _to_signed(key.dev),
                None if o.value is None else _to_signed(o.value),
                o.width,
                o.height,
                ",".join(f"{v:016x}" for v in o.variants) or None,
                o.sketch,
                o.error,
                o.code,
            )
            for key, o in items
            if o.cacheable
        ]
        self._insert(rows)

    def _insert(self, rows: Sequence[tuple[object, ...]]) -> None:
        if not rows or self._db is None:
            return
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO fingerprints "
                    "(path, algorithm, size, mtime_ns, ctime_ns, ino, dev, "
                    "value, width, height, variants, sketch, error, code)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
        except (sqlite3.DatabaseError, OSError) as exc:
            self._disable(exc)

    def _disable(self, exc: Exception) -> None:
        """Stop caching for this scan; damage found after opening is set aside and rebuilt,
        or every later scan would trip over it again."""
        self.close()
        if _is_damage(exc):
            self._set_aside(exc)
            return
        self.problem = f"fingerprint cache disabled: {exc}"
        log.warning("%s", self.problem)

    def clear(self) -> None:
        if self._db is not None:
            with self._db:
                self._db.execute("DELETE FROM fingerprints")

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            finally:
                self._db = None

    def __enter__(self) -> FingerprintCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _blob(value: object) -> bytes | None:
    return bytes(value) if isinstance(value, memoryview) else None


def _outcome_from_row(position: int, row: tuple[object, ...]) -> FingerprintOutcome:
    value, width, height, variants, sketch, error, code = row
    return FingerprintOutcome(
        position,
        None if value is None else int(value) & _MASK,  # type: ignore[call-overload]
        width,  # type: ignore[arg-type]
        height,  # type: ignore[arg-type]
        tuple(int(v, 16) for v in str(variants).split(",")) if variants else (),
        sketch if isinstance(sketch, bytes) else _blob(sketch),
        error,  # type: ignore[arg-type]
        code,  # type: ignore[arg-type]
    )
