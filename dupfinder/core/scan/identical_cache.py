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

_ALGORITHMS = {False: "bytes/first-read/blake3-128/1", True: "bytes/whole/blake3-128/1"}


class CachedDigests:
    """A ``DigestStore`` over an open ``FingerprintCache`` and the scan's file columns."""

    def __init__(self, cache: FingerprintCache, files: FileColumns) -> None:
        self._cache = cache
        self._files = files

    def lookup(self, whole: bool, rows: list[int]) -> dict[int, bytes]:
        keys = [self._files.key(row) for row in rows]
        found = self._cache.lookup_blobs(_ALGORITHMS[whole], keys)
        return {
            rows[position]: digest
            for position, digest in found.items()
            if len(digest) == DIGEST_BYTES
        }

    def store(self, whole: bool, digests: dict[int, bytes]) -> None:
        key = self._files.key
        self._cache.store_blobs(
            _ALGORITHMS[whole], ((key(row), digest) for row, digest in digests.items())
        )
