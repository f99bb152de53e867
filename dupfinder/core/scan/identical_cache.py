"""Content digests kept in the fingerprint cache, so a rescan reads only changed files.

A digest rides in the cache under an algorithm id of its own (one for the first read, one for
the whole content), keyed like every fingerprint by path, size, modification and change
times, device and inode: a file that changed in any of them is read again. The 16-byte digest is
kept in the cache's blob column and its first 8 bytes as the value.
"""

from __future__ import annotations

from dupfinder.core.fingerprints.columns import FileColumns
from dupfinder.core.fingerprints.digest import DIGEST_BYTES
from dupfinder.core.fingerprints.worker import FingerprintOutcome
from dupfinder.core.scan.cache import FingerprintCache

__all__ = ["CachedDigests"]

_ALGORITHMS = {False: "bytes/first-read/blake3-128/1", True: "bytes/whole/blake3-128/1"}


class CachedDigests:
    """A ``DigestStore`` over an open ``FingerprintCache`` and the scan's file columns."""

    def __init__(self, cache: FingerprintCache, files: FileColumns) -> None:
        self._cache = cache
        self._files = files

    def lookup(self, whole: bool, rows: list[int]) -> dict[int, bytes]:
        found = self._cache.lookup(_ALGORITHMS[whole], [self._files.key(row) for row in rows])
        return {
            rows[position]: outcome.sketch
            for position, outcome in found.items()
            if outcome.sketch is not None and len(outcome.sketch) == DIGEST_BYTES
        }

    def store(self, whole: bool, digests: dict[int, bytes]) -> None:
        self._cache.store(
            _ALGORITHMS[whole],
            (
                (
                    self._files.key(row),
                    FingerprintOutcome(row, int.from_bytes(digest[:8], "big"), sketch=digest),
                )
                for row, digest in digests.items()
            ),
        )
