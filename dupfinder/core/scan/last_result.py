"""The last scan's groups, given again when nothing that forms them has changed.

A rescan of an unchanged folder takes every fingerprint and digest from the cache, then
spent most of its time forming the very groups it formed before: the index's pairs, the
checks the library remembers, the stars, the keepers and the names of the edits, all in
Python. Grouping is a function of what it is given: the files (paths, sizes, change stamps,
identities, kinds), what fingerprinting found for each (values, sketches, errors, sizes in
pixels), the byte-identical sets, the options and this version of dupfinder. A digest of all
of it keys the groups the scan formed; a later scan whose digest is the same is given those
groups without forming them. One file touched (its ctime moves even when its mtime is put
back), one setting changed or another version installed, and the groups are formed again.

A folder whose every file was settled (each read to a final outcome: a fingerprint, or a
reason that will not pass, such as too little text) is also kept under a digest of its files
alone, as walked: their paths, sizes, change stamps and identities, with the options and the
code. Its rescan finds that digest right after the walk and is given the groups at once, with
no cache look-up and no byte-identical pass for any file (a fingerprint is a function of the
file's bytes, and the cache already takes an unchanged change stamp for unchanged bytes). A
file left unread for a reason that may pass (vanished, unreadable, timed out, no FFmpeg) and
the folder is not settled: its rescan reads what it must.

Nothing here is proof for an action: apply re-reads and re-checks every file it touches.
The groups are kept in the scan's cache as the JSON contract (one entry for each set of
folders, the newest only), so a damaged entry reads as none: a line for the result's frame,
then a line for each group, packed by zlib as they are written and read back a thousand
groups at a time, so that neither end holds the text, or the contract's dicts, of every
member at once (a million files' 100,000 members: 35 MB of text, some 4 packed).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import sys
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns, digest_state
from dupfinder.core.model import CacheKey, Group, ScanError, ScanOptions, ScanResult, ScanStats
from dupfinder.core.results.report import result_to_dict
from dupfinder.core.scan.cache import FingerprintCache
from dupfinder.core.scan.identical import IdenticalReport

__all__ = [
    "Settled",
    "files_digest",
    "inputs_digest",
    "recall",
    "recall_settled",
    "remember",
    "remember_settled",
]

#: Part of the key: a change in how groups are kept here makes every kept entry stale.
#: 2: packed, a line for the frame and one for each group.
_FORMAT = "scan-result/2"
#: The algorithm part of a settled folder's entry (its files' digest -> its inputs' digest).
_SETTLED = "scan-settled/1"
#: Groups made again from their text at once.
_GROUPS_AT_ONCE = 1000
#: Packed bytes unpacked at once.
_UNPACK_BYTES = 1 << 16
#: zlib's fastest level: the text is paths and numbers, which it packs about ten to one.
_PACK_LEVEL = 1
_MASK = (1 << 63) - 1
#: The files of the engine's code (sources, compiled kernels).
_CODE_SUFFIXES = frozenset({".py", ".so", ".pyd", ".pyx"})


@functools.cache
def _code_stamp() -> tuple[object, ...]:
    """What identifies the code that forms groups: each module file of the engine (name, size,
    change stamp), so another version, or a source tree edited since, forms them again; a
    frozen bundle's executable, which carries them all."""
    if getattr(sys, "frozen", False):
        info = os.stat(sys.executable)
        return (sys.executable, info.st_size, info.st_mtime_ns)
    engine = Path(__file__).resolve().parents[1]
    stamps: list[object] = []
    for path in sorted(engine.rglob("*")):
        if path.suffix in _CODE_SUFFIXES:
            info = path.stat()
            stamps.append((str(path.relative_to(engine)), info.st_size, info.st_mtime_ns))
    return tuple(stamps)


#: Options that do not change what a scan finds, only how it runs.
_HOW_IT_RUNS = frozenset({"jobs", "use_cache", "cache_dir"})


def _settings(options: ScanOptions) -> tuple[object, ...]:
    """The options that change what a scan finds, each as text in a fixed order (a set's
    order changes between processes)."""
    out: list[object] = []
    for field in dataclasses.fields(options):
        if field.name in _HOW_IT_RUNS:
            continue
        value = getattr(options, field.name)
        if isinstance(value, frozenset | set):
            value = tuple(sorted(str(item) for item in value))
        elif isinstance(value, tuple):
            value = tuple(str(item) for item in value)
        elif value is not None and not isinstance(value, bool | int | float):
            value = str(value)
        out.append((field.name, value))
    return tuple(out)


def inputs_digest(
    files: FileColumns,
    outcomes: OutcomeColumns,
    identical: IdenticalReport,
    options: ScanOptions,
) -> bytes:
    """A digest of everything the groups of a scan are formed from."""
    digest = hashlib.blake2b(digest_size=32)
    digest_state(digest, (_FORMAT, _settings(options), _code_stamp()))
    digest_state(digest, files)
    digest_state(digest, outcomes)
    digest_state(
        digest,
        [(found.rows, found.size, found.digest) for found in identical.sets],
    )
    return digest.digest()


def files_digest(files: FileColumns, options: ScanOptions) -> bytes:
    """A digest of the files as walked (before any is read), the options and the code."""
    digest = hashlib.blake2b(digest_size=32)
    digest_state(digest, (_SETTLED, _FORMAT, _settings(options), _code_stamp()))
    digest_state(digest, files)
    return digest.digest()


def _key(options: ScanOptions, inputs: bytes, entry: str = _FORMAT) -> CacheKey:
    """The cache row of a set of folders' last result: the folders name it (a scan of other
    folders keeps its own), the digest fills the fields a file's row keys on."""
    parts = [int.from_bytes(inputs[i : i + 8], "big") for i in range(0, 32, 8)]
    folders = "\0".join(sorted(str(root) for root in options.roots))
    return CacheKey(
        f"\0{entry}\0{folders}", parts[0] & _MASK, parts[1] & _MASK, parts[2] & _MASK, parts[3], 0
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Settled:
    """What a settled folder's scan found besides its groups: the digest of the inputs its
    groups were formed from, the files that could not be compared (for reasons that do not
    pass) and its counts."""

    inputs: bytes
    errors: tuple[ScanError, ...]
    fingerprinted: int
    bytes_only: int


def remember_settled(
    cache: FingerprintCache, options: ScanOptions, walked: bytes, settled: Settled
) -> None:
    """Keep ``settled`` under the digest of the folders' files as ``walked``: its files that
    could not be compared and its counts as the JSON contract, the inputs' digest beside."""
    stats = ScanStats(
        files_fingerprinted=settled.fingerprinted, files_bytes_only=settled.bytes_only
    )
    data = result_to_dict(ScanResult((), settled.errors, stats), {"inputs": settled.inputs.hex()})
    blob = zlib.compress(json.dumps(data, separators=(",", ":")).encode(), _PACK_LEVEL)
    cache.store_blobs(_SETTLED, [(_key(options, walked, _SETTLED), blob)])


def recall_settled(cache: FingerprintCache, options: ScanOptions, walked: bytes) -> Settled | None:
    """What the last scan of these folders found, when it settled the very same files as
    ``walked``; None when there is none or it cannot be read."""
    from dupfinder.core.errors import ResultFormatError
    from dupfinder.core.results.report import result_from_dict

    blob = cache.lookup_blobs(_SETTLED, [_key(options, walked, _SETTLED)]).get(0)
    if blob is None:
        return None
    try:
        data = json.loads(zlib.decompress(blob))
        found = result_from_dict(data)
        inputs = bytes.fromhex(data["inputs"])
    except (ValueError, KeyError, TypeError, zlib.error, ResultFormatError):
        return None
    if len(inputs) != 32:
        return None
    stats = found.stats
    return Settled(inputs, found.errors, stats.files_fingerprinted, stats.files_bytes_only)


def recall(
    cache: FingerprintCache, options: ScanOptions, inputs: bytes
) -> tuple[list[Group], int] | None:
    """The groups (and the pair count) the last scan of these folders formed from the very
    same inputs; None when there is none or it cannot be read."""
    from dupfinder.core.errors import ResultFormatError

    blob = cache.lookup_blobs(_FORMAT, [_key(options, inputs)]).get(0)
    if blob is None:
        return None
    try:
        lines = _lines(blob)
        frame = json.loads(next(lines))
        pairs = frame["stats"]["pairs"]
        if not isinstance(pairs, int):
            return None
        groups: list[Group] = []
        batch: list[bytes] = []
        for line in lines:
            batch.append(line)
            if len(batch) == _GROUPS_AT_ONCE:
                groups.extend(_groups_of(frame, batch))
                batch.clear()
        groups.extend(_groups_of(frame, batch))
    except (ValueError, KeyError, TypeError, StopIteration, zlib.error, ResultFormatError):
        return None
    return groups, pairs


def _lines(blob: bytes) -> Iterator[bytes]:
    """The lines packed in ``blob``; ``zlib.error`` when it is not a whole zlib stream."""
    unpacker = zlib.decompressobj()
    pending = b""
    for start in range(0, len(blob), _UNPACK_BYTES):
        pending += unpacker.decompress(blob[start : start + _UNPACK_BYTES])
        *whole, pending = pending.split(b"\n")
        yield from whole
    pending += unpacker.flush()
    if not unpacker.eof or pending:
        raise zlib.error("the kept result ends early")


def _groups_of(frame: dict[str, Any], lines: list[bytes]) -> tuple[Group, ...]:
    """Groups from their lines, read as the contract within the result's frame."""
    from dupfinder.core.results.report import result_from_dict

    if not lines:
        return ()
    return result_from_dict({**frame, "groups": json.loads(b"[" + b",".join(lines) + b"]")}).groups


def remember(
    cache: FingerprintCache,
    options: ScanOptions,
    inputs: bytes,
    groups: Sequence[Group],
    pairs: int,
) -> None:
    """Keep ``groups`` as these folders' last result, formed from ``inputs``: each group is
    written out and packed on its own, so only the packed text is held."""
    frame = result_to_dict(ScanResult((), (), ScanStats(pairs=pairs)))
    packer = zlib.compressobj(_PACK_LEVEL)
    packed = [packer.compress(json.dumps(frame, separators=(",", ":")).encode() + b"\n")]
    for group in groups:
        packed.append(packer.compress(_group_text(group).encode() + b"\n"))
    packed.append(packer.flush())
    blob = b"".join(packed)
    del packed
    cache.store_blobs(_FORMAT, [(_key(options, inputs), blob)])


def _group_text(group: Group) -> str:
    """One group as the contract writes it (ASCII: other characters escaped), music's and
    videos' times exact."""
    (data,) = result_to_dict(ScanResult((group,)))["groups"]
    _exact_times(data, group)
    return json.dumps(data, separators=(",", ":"))


def _exact_times(data: dict[str, Any], group: Group) -> None:
    """Music's and videos' lengths and matched spans as they are: the contract writes them to
    the millisecond, and the groups given again must be the very ones formed."""
    for member, entry in zip(group.members, data["members"], strict=True):
        if member.media is not None and member.media.duration_s is not None:
            entry["media"]["duration"] = member.media.duration_s
        if member.span is not None:
            span = member.span
            entry["match"] = {
                "start": span.start_s,
                "end": span.end_s,
                "keeper_start": span.keeper_start_s,
                "keeper_end": span.keeper_end_s,
            }
