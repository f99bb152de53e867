"""Content digests kept in the fingerprint cache, so a rescan reads only changed files.

A digest rides in the cache under an algorithm id of its own (one for the first read, one for
the whole content), keyed like every fingerprint by path, size, modification and change
times, device and inode: a file that changed in any of them is read again. The 16-byte digest is
kept in the cache's blob column and its first 8 bytes as the value.
"""

from __future__ import annotations

from dupfinder.core.fingerprints.columns import FileColumns
from dupfinder.core.fingerprints.digest import DIGEST_BYTES
from dupfinder.core.scan.cache import FingerprintCache

__all__ = ["CachedDigests"]

#: Keys (and rows to write) built at once: a million files' keys at once were a transient
#: peak of a few hundred MB.
_ROWS_AT_ONCE = 20_000
_ALGORITHMS = {False: "bytes/first-read/blake3-128/1", True: "bytes/whole/blake3-128/1"}


class CachedDigests:
    """A ``DigestStore`` over an open ``FingerprintCache`` and the scan's file columns."""

    def __init__(self, cache: FingerprintCache, files: FileColumns) -> None:
        self._cache = cache
        self._files = files

    def lookup(self, whole: bool, rows: list[int]) -> dict[int, bytes]:
        found: dict[int, bytes] = {}
        for start in range(0, len(rows), _ROWS_AT_ONCE):
            part = rows[start : start + _ROWS_AT_ONCE]
            keys = [self._files.key(row) for row in part]
            for position, digest in self._cache.lookup_blobs(_ALGORITHMS[whole], keys).items():
                if len(digest) == DIGEST_BYTES:
                    found[part[position]] = digest
        return found

    def store(self, whole: bool, digests: dict[int, bytes]) -> None:
        key = self._files.key
        items = list(digests.items())
        for start in range(0, len(items), _ROWS_AT_ONCE):
            part = items[start : start + _ROWS_AT_ONCE]
            self._cache.store_blobs(
                _ALGORITHMS[whole], ((key(row), digest) for row, digest in part)
            )
