"""A file's content digest: one definition shared by the scan, the cache and every action.

The byte-identical pass records BLAKE3 digests truncated to ``DIGEST_BYTES``; an action that
re-checks a file before touching it must compute the very same digest, so both take it here.
"""

from __future__ import annotations

from typing import BinaryIO

from blake3 import blake3

__all__ = ["CHUNK", "DIGEST_BYTES", "digest_of", "digest_stream", "hasher"]

#: Length of a content digest (BLAKE3 output, truncated).
DIGEST_BYTES = 16
#: Read size when hashing a whole file.
CHUNK = 1 << 20


def hasher(data: bytes = b"") -> blake3:
    """A fresh content hasher, fed ``data``."""
    return blake3(data)


def digest_of(data: bytes) -> bytes:
    """The digest of ``data`` held in memory."""
    return blake3(data).digest(DIGEST_BYTES)


def digest_stream(handle: BinaryIO) -> bytes:
    """The digest of everything ``handle`` reads from its position to the end."""
    state = blake3()
    for chunk in iter(lambda: handle.read(CHUNK), b""):
        state.update(chunk)
    return state.digest(DIGEST_BYTES)
