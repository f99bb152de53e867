"""The Parquet layout of stored fingerprints and pairs, versioned.

One row per file: its path and stat values (the cache key and the identity actions check),
its kind, its fingerprint (``value``, null when the file could not be read; then ``error``
and ``code`` say why) and the sketch (documents) or descriptor (pictures) that verifies
candidate pairs. Paths are UTF-8 text; a name that is not valid UTF-8 keeps
its exact bytes in ``path_bytes`` (null otherwise), so every file can be found again.

The schema version is in each file's key-value metadata. Columns are only ever added, with a
new version; readers take any version up to theirs and give added columns a default. The
metadata also names the fingerprint algorithms, so fingerprints of different versions are
never compared with each other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pyarrow as pa

from dupfinder.core.errors import FingerprintStoreError

__all__ = [
    "FINGERPRINT_SCHEMA",
    "PAIRS_SCHEMA",
    "SCHEMA_VERSION",
    "StoreMeta",
]

#: Version 1: the columns below. Later versions may only add columns.
SCHEMA_VERSION = 1

FINGERPRINT_SCHEMA = pa.schema(
    [
        pa.field("path", pa.string(), nullable=False),
        pa.field("path_bytes", pa.binary()),
        pa.field("kind", pa.string()),  # "text" / "image"; null for a folder that failed
        pa.field("size", pa.int64(), nullable=False),
        pa.field("mtime_ns", pa.int64(), nullable=False),
        pa.field("ctime_ns", pa.int64(), nullable=False),
        pa.field("dev", pa.uint64(), nullable=False),
        pa.field("ino", pa.uint64(), nullable=False),
        pa.field("links", pa.uint32(), nullable=False),
        pa.field("value", pa.uint64()),
        pa.field("width", pa.int32()),
        pa.field("height", pa.int32()),
        pa.field("variants", pa.list_(pa.uint64())),
        pa.field("sketch", pa.binary()),  # the second, independent check
        pa.field("error", pa.string()),
        pa.field("code", pa.string()),
    ]
)

#: Pairs of distinct fingerprints within the radius (a < b), and fingerprints shared by
#: several files (``a == b``, distance 0): both are what grouping needs besides the files.
#: One folder per kind (``kind=text/``, Hive style), so readers see a ``kind`` column.
PAIRS_SCHEMA = pa.schema(
    [
        pa.field("a", pa.uint64(), nullable=False),
        pa.field("b", pa.uint64(), nullable=False),
        pa.field("distance", pa.uint8(), nullable=False),
    ]
)

_PREFIX = "dupfinder."


@dataclass(frozen=True, slots=True)
class StoreMeta:
    """What a fingerprint file says about itself (Parquet key-value metadata)."""

    algorithms: dict[str, str]  # kind -> algorithm id (see fingerprint.algorithm_id)
    image_invariance: bool = False
    shard: tuple[int, int] = (0, 1)
    rows: dict[str, int] = field(default_factory=dict)  # kind -> files with a fingerprint
    version: int = SCHEMA_VERSION

    def to_metadata(self) -> dict[bytes, bytes]:
        fields = {
            "schema": str(self.version),
            "algorithms": json.dumps(self.algorithms, sort_keys=True),
            "image_invariance": str(int(self.image_invariance)),
            "shard": f"{self.shard[0]}/{self.shard[1]}",
            "rows": json.dumps(self.rows, sort_keys=True),
        }
        return {(_PREFIX + k).encode(): v.encode() for k, v in fields.items()}

    @classmethod
    def from_metadata(cls, metadata: dict[bytes, bytes] | None, where: str) -> StoreMeta:
        raw = {
            k.decode()[len(_PREFIX) :]: v.decode()
            for k, v in (metadata or {}).items()
            if k.startswith(_PREFIX.encode())
        }
        try:
            version = int(raw["schema"])
            index, count = (int(x) for x in raw["shard"].split("/"))
            meta = cls(
                algorithms=dict(json.loads(raw["algorithms"])),
                image_invariance=raw.get("image_invariance", "0") == "1",
                shard=(index, count),
                rows={str(k): int(v) for k, v in json.loads(raw.get("rows", "{}")).items()},
                version=version,
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise FingerprintStoreError(f"{where}: not a dupfinder fingerprint file") from exc
        if not 1 <= version <= SCHEMA_VERSION:
            raise FingerprintStoreError(
                f"{where}: fingerprint schema {version} is newer than this dupfinder reads "
                f"({SCHEMA_VERSION}); upgrade dupfinder"
            )
        return meta
