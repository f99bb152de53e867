"""Per-file scan state as columns: a million files cost a few bytes each, not objects.

A scan of a whole disk sees millions of files and groups a few thousand of them. Keeping a
``FileEntry`` and an ``FingerprintOutcome`` object per file costs hundreds of bytes each; here the walk's
stat values and the fingerprints live in numpy arrays, the paths in one byte string with the
end of each, and errors and image variants are kept only for the files that have them.
Objects are made again only for the files a result shows.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, cast, overload

from dupfinder.core.filesystem import change_time_ns
from dupfinder.core.fingerprints.worker import FingerprintOutcome
from dupfinder.core.jit import lazy
from dupfinder.core.model import CacheKey, FileEntry, Fingerprint, Kind, Member

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy.module("numpy")  # a rescan given its last result touches no array

__all__ = ["FileColumns", "OutcomeColumns", "PathColumn", "digest_state", "member"]

_KINDS = tuple(Kind)
_KIND_CODE = {kind: code for code, kind in enumerate(_KINDS)}


#: How paths are held as bytes: every ``str`` a path can be (lone surrogates stand for bytes
#: that are not UTF-8, as ``os.fsdecode`` gives them) comes back exactly.
_ENCODING = ("utf-8", "surrogatepass")


#: Link counts are kept in 4 bytes; more links than this read as this many.
_MOST_LINKS = 0xFFFF_FFFF

#: Sketch rows fed to a digest at a time.
_DIGEST_ROWS = 4096


class _Digest(Protocol):
    def update(self, data: bytes | bytearray | memoryview, /) -> None: ...


def digest_state(digest: _Digest, value: object) -> None:
    """Feed everything ``value`` holds (a column's pickled state: arrays, dicts, tuples,
    numbers and text) into ``digest``, each part with its type and length, so that two
    states feed the same bytes only when they are equal."""
    numpy = lazy.loaded("numpy")  # an array only where numpy was imported
    if numpy is not None and isinstance(value, numpy.ndarray):
        digest.update(f"n{value.dtype.str}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).data.cast("B"))
    elif isinstance(value, array):
        digest.update(f"a{value.typecode}{len(value)}".encode())
        digest.update(memoryview(value).cast("B"))
    elif isinstance(value, bytes | bytearray):
        digest.update(f"b{len(value)}:".encode())
        digest.update(value)
    elif isinstance(value, dict) and _numbers_by_row(digest, value):
        pass
    elif isinstance(value, dict):
        digest.update(f"d{len(value)}".encode())
        for key in sorted(value, key=repr):
            digest_state(digest, key)
            digest_state(digest, value[key])
    elif isinstance(value, tuple | list):
        digest.update(f"t{len(value)}".encode())
        for item in value:
            digest_state(digest, item)
    elif isinstance(value, OutcomeColumns):
        digest.update(b"OutcomeColumns")
        value.digest_into(digest)
    elif isinstance(value, PathColumn | FileColumns):
        digest.update(type(value).__name__.encode())
        digest_state(digest, value.__getstate__())
    elif value is None or isinstance(value, bool | int | float | str | Kind):
        text = repr(value).encode("utf-8", "surrogatepass")
        digest.update(f"v{len(text)}:".encode())
        digest.update(text)
    else:
        raise TypeError(f"no digest for {type(value).__name__}")


def _numbers_by_row(digest: _Digest, value: dict[object, object]) -> bool:
    """Feed a dict of rows to tuples of unsigned numbers (the pictures' variant hashes, one
    entry a picture) as three arrays, not an entry at a time; False, feeding nothing, when
    ``value`` is another kind of dict."""
    if type(next(iter(value), 0)) is not int:
        return False  # (a column's state, keyed by its names)
    try:
        rows = np.fromiter(value.keys(), dtype=np.int64, count=len(value))
        lengths = np.fromiter(map(len, value.values()), dtype=np.int64, count=len(value))  # type: ignore[arg-type]
        flat = np.fromiter(
            itertools.chain.from_iterable(value.values()),  # type: ignore[arg-type]
            dtype=np.uint64,
            count=int(lengths.sum()),
        )
    except (TypeError, ValueError, OverflowError):
        return False
    order = np.argsort(rows, kind="stable")
    counts = lengths[order]
    firsts = (np.cumsum(lengths) - lengths)[order]
    # the entries' numbers in row order: each entry's run of ``flat``, one after another
    within = np.arange(len(flat)) - np.repeat(np.cumsum(counts) - counts, counts)
    digest.update(f"r{len(value)}".encode())
    digest.update(rows[order].tobytes())
    digest.update(counts.tobytes())
    digest.update(flat[np.repeat(firsts, counts) + within].tobytes())
    return True


class PathColumn(Sequence[str]):
    """Paths as folders and names, each folder kept once for the files listed one after
    another in it: the names in one byte string with the end of each, and each row's folder
    number. A million paths of 60 characters cost some 25 MB here, against some 190 MB as a
    list of ``str`` (an object and a pointer each); a path is made again when asked for.
    Reads as a list of ``str`` does."""

    def __init__(self, paths: Iterable[str] = ()) -> None:
        self._folders = bytearray()
        self._folder_ends = array("Q")
        self._names = bytearray()
        self._name_ends = array("Q")
        self._folder_of = array("I")  # 4 bytes a row ("L" is 8 on 64-bit Linux)
        self._last_folder = ""  # the newest folder's text: the walk lists a folder at a time
        self._cached = (-1, "")  # the folder text read last, by number
        for path in paths:
            self.append(path)

    def append(self, path: str) -> None:
        cut = max(path.rfind(os.sep), path.rfind(os.altsep) if os.altsep else -1) + 1
        folder = path[:cut]
        if folder != self._last_folder or not self._folder_ends:
            self._folders += folder.encode(*_ENCODING)
            self._folder_ends.append(len(self._folders))
            self._last_folder = folder
        self._folder_of.append(len(self._folder_ends) - 1)
        self._names += path[cut:].encode(*_ENCODING)
        self._name_ends.append(len(self._names))

    def __len__(self) -> int:
        return len(self._name_ends)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self._at(row) for row in range(*index.indices(len(self)))]
        row = operator.index(index)
        if row < 0:
            row += len(self)
        if not 0 <= row < len(self):
            raise IndexError("path row out of range")
        return self._at(row)

    def _folder(self, number: int) -> str:
        cached = self._cached  # read once: the byte-identical scan's threads share it
        if cached[0] == number:
            return cached[1]
        start = self._folder_ends[number - 1] if number else 0
        text = self._folders[start : self._folder_ends[number]].decode(*_ENCODING)
        self._cached = (number, text)
        return text

    def _at(self, row: int) -> str:
        start = self._name_ends[row - 1] if row else 0
        name = self._names[start : self._name_ends[row]].decode(*_ENCODING)
        return self._folder(self._folder_of[row]) + name

    def __iter__(self) -> Iterator[str]:
        for row in range(len(self)):
            yield self._at(row)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list is

    def __getstate__(self) -> dict[str, object]:
        state = self.__dict__.copy()
        state["_cached"] = (-1, "")
        return state

    def __repr__(self) -> str:
        return f"PathColumn({len(self)} paths)"


class FileColumns:
    """The walk's files in the order found: paths, stat values (identity, size, change
    stamps, link counts) and kinds."""

    def __init__(self) -> None:
        self.paths = PathColumn()
        self._sizes = array("q")
        self._mtimes = array("q")
        self._ctimes = array("q")
        self._devs = array("Q")
        self._inos = array("Q")
        self._links = array("I")
        self._kinds = array("B")

    def append(self, entry: FileEntry) -> None:
        self.paths.append(entry.path)
        self._sizes.append(entry.size)
        self._mtimes.append(entry.mtime_ns)
        self._ctimes.append(entry.ctime_ns)
        self._devs.append(entry.dev)
        self._inos.append(entry.ino)
        self._links.append(min(entry.links, _MOST_LINKS))
        self._kinds.append(_KIND_CODE[entry.kind])

    def append_stat(self, path: str, info: os.stat_result, kind: Kind) -> None:
        """``append`` of the walk's record of a file (``scan.walk.entry_from_stat``), straight
        from its stat."""
        self.paths.append(path)
        self._sizes.append(info.st_size)
        self._mtimes.append(info.st_mtime_ns)
        self._ctimes.append(change_time_ns(info))
        self._devs.append(info.st_dev)
        self._inos.append(info.st_ino)
        self._links.append(min(info.st_nlink, _MOST_LINKS))
        self._kinds.append(_KIND_CODE[kind])

    def __len__(self) -> int:
        return len(self.paths)

    def __getstate__(self) -> dict[str, object]:
        return self.__dict__.copy()

    @property
    def kinds(self) -> npt.NDArray[np.uint8]:
        return np.frombuffer(self._kinds, dtype=np.uint8)

    def kinds_present(self, rows: npt.NDArray[np.intp] | None = None) -> list[Kind]:
        """The kinds of the files (of ``rows`` only, when given)."""
        codes = self.kinds if rows is None else self.kinds[rows]
        present = np.bincount(codes, minlength=len(_KINDS))
        return [_KINDS[code] for code in np.flatnonzero(present).tolist()]

    def rows_of(self, kind: Kind) -> npt.NDArray[np.intp]:
        return np.flatnonzero(self.kinds == _KIND_CODE[kind])

    def rows_in(self, kinds: frozenset[Kind]) -> npt.NDArray[np.intp]:
        codes = [_KIND_CODE[kind] for kind in kinds]
        return np.flatnonzero(np.isin(self.kinds, codes))

    def kind(self, row: int) -> Kind:
        return _KINDS[self._kinds[row]]

    def set_kind(self, row: int, kind: Kind) -> None:
        """A file listed as text for sniffing turned out to be something else."""
        self._kinds[row] = _KIND_CODE[kind]

    @property
    def sizes(self) -> npt.NDArray[np.int64]:
        return np.frombuffer(self._sizes, dtype=np.int64)

    @property
    def identities(self) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        """(devices, inodes) by row."""
        return np.frombuffer(self._devs, dtype=np.uint64), np.frombuffer(
            self._inos, dtype=np.uint64
        )

    def key(self, row: int) -> CacheKey:
        """What the cache keys a fingerprint by (see ``CacheKey``)."""
        return CacheKey(
            self.paths[row],
            self._sizes[row],
            self._mtimes[row],
            self._ctimes[row],
            self._inos[row],
            self._devs[row],
        )

    def entry(self, row: int) -> FileEntry:
        """The walk's record of one row, made again for a file a result shows."""
        return FileEntry(
            self.paths[row],
            self._sizes[row],
            self._mtimes[row],
            self.kind(row),
            dev=self._devs[row],
            ino=self._inos[row],
            ctime_ns=self._ctimes[row],
            links=self._links[row],
        )


class OutcomeColumns:
    """What fingerprinting found for each row: a value, pixel size, or an error.

    Sketches of one length share a table as tall as the scan (documents' and pictures' are
    of a few fixed lengths); the rows named ``sequence_rows`` (music and videos) keep theirs
    as bytes of their own, since each file's sequence has its own length and a table per
    length would be one per file."""

    def __init__(self, count: int, sequence_rows: npt.ArrayLike | None = None) -> None:
        self.known = np.zeros(count, dtype=np.bool_)
        self.has_value = np.zeros(count, dtype=np.bool_)
        self.values = np.zeros(count, dtype=np.uint64)
        self.widths = np.zeros(count, dtype=np.int32)  # 0: not a picture
        self.heights = np.zeros(count, dtype=np.int32)
        self.variants: dict[int, tuple[int, ...]] = {}
        self.errors: dict[int, tuple[str, str | None]] = {}  # row: (error, code)
        # sketches by their length in bytes (text and pictures differ); np.zeros maps zero
        # pages lazily, so rows that never get a sketch of a length cost no memory
        self._sketches: dict[int, npt.NDArray[np.uint8]] = {}
        self._sketch_width = np.zeros(count, dtype=np.int32)  # 0: no sketch
        self._sequence_row = np.zeros(count, dtype=np.bool_)
        if sequence_rows is not None:
            self._sequence_row[np.asarray(sequence_rows, dtype=np.intp)] = True
        self.sequences: dict[int, bytes] = {}

    def put(self, row: int, outcome: FingerprintOutcome) -> None:
        self.known[row] = True
        if outcome.value is not None:
            self.has_value[row] = True
            self.values[row] = outcome.value
        # only pictures write sizes: the pages of the rest stay unwritten, costing nothing
        if outcome.width or self.widths[row]:
            self.widths[row] = outcome.width or 0
        if outcome.height or self.heights[row]:
            self.heights[row] = outcome.height or 0
        if outcome.variants:
            self.variants[row] = outcome.variants
        if outcome.sketch is not None and self._sequence_row[row]:
            self.sequences[row] = outcome.sketch
        elif outcome.sketch is not None:
            width = len(outcome.sketch)
            if width not in self._sketches:
                self._sketches[width] = np.zeros((len(self.known), width), dtype=np.uint8)
            self._sketches[width][row] = np.frombuffer(outcome.sketch, dtype=np.uint8)
            self._sketch_width[row] = width
        if outcome.error is not None:
            self.errors[row] = (outcome.error, outcome.code)

    def digest_into(self, digest: _Digest) -> None:
        """Feed everything held here into ``digest`` (``digest_state``), the sketches a few
        thousand rows at a time: a copy of them all would be a million documents' 128 MB."""
        state = self.__dict__.copy()
        tables = cast("dict[int, npt.NDArray[np.uint8]]", state.pop("_sketches"))
        digest_state(digest, state)
        for width in sorted(tables):
            rows = np.flatnonzero(self._sketch_width == width)
            digest_state(digest, (width, rows))
            for start in range(0, len(rows), _DIGEST_ROWS):
                digest.update(tables[width][rows[start : start + _DIGEST_ROWS]].tobytes())

    def __getstate__(self) -> dict[str, object]:
        """Sketch tables cross to another process as the rows that have one: a table is as
        tall as the scan (its untouched pages cost nothing here), and pickled whole, a
        million rows of picture descriptors would have been 3.4 GB."""
        state = self.__dict__.copy()
        state["_sketches"] = {
            width: (rows, table[rows])
            for width, table in self._sketches.items()
            for rows in (np.flatnonzero(self._sketch_width == width),)
        }
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        packed = cast("dict[int, tuple[np.ndarray, np.ndarray]]", state.pop("_sketches"))
        self.__dict__.update(state)
        self._sketches = {}
        for width, (rows, kept) in packed.items():
            table = np.zeros((len(self.known), width), dtype=np.uint8)
            table[rows] = kept
            self._sketches[width] = table

    def sketch(self, row: int) -> bytes | None:
        """The sketch of ``row`` as it was made (None when it has none)."""
        if row in self.sequences:
            return self.sequences[row]
        width = int(self._sketch_width[row])
        return self._sketches[width][row].tobytes() if width else None

    def padded_sketches(self, rows: npt.NDArray[np.intp], width: int) -> npt.NDArray[np.uint8]:
        """The sketches of ``rows`` as ``width``-byte rows, shorter ones padded with zeros
        (a large picture stores its descriptor without the detail part; zeros mean none).
        Only the asked rows are gathered: call it per chunk of pairs, never for every row."""
        out = np.zeros((len(rows), width), dtype=np.uint8)
        widths = self._sketch_width[rows]
        for stored, table in self._sketches.items():
            if stored <= width:
                chosen = np.flatnonzero(widths == stored)
                out[chosen, :stored] = table[rows[chosen]]
        return out

    def sketch_keys(
        self, rows: npt.NDArray[np.intp], prefix: int, digest: bool | None = None
    ) -> npt.NDArray[np.uint8]:
        """Per row, the first ``prefix`` bytes of its sketch, then (when some row's sketch is
        longer, or ``digest`` says so) a 16-byte BLAKE2 digest of the rest: rows with equal
        keys have equal sketches, which is what folds copies of one file into one node, and
        the array stays ``prefix`` bytes wide however long the longest sketch."""
        widths = self._sketch_width[rows]
        if digest is None:
            digest = bool(np.any(widths > prefix))
        out = np.zeros((len(rows), prefix + (16 if digest else 0)), dtype=np.uint8)
        for stored, table in self._sketches.items():
            chosen = np.flatnonzero(widths == stored)
            if len(chosen) == 0:
                continue
            part = min(stored, prefix)
            out[chosen, :part] = table[rows[chosen], :part]
            if stored > prefix and digest:
                rest = table[rows[chosen], prefix:]
                out[chosen, prefix:] = np.frombuffer(
                    b"".join(hashlib.blake2b(r.tobytes(), digest_size=16).digest() for r in rest),
                    dtype=np.uint8,
                ).reshape(-1, 16)
        return out

    def key_reader(
        self, rows: npt.NDArray[np.intp], prefix: int
    ) -> Callable[[npt.NDArray[np.intp]], npt.NDArray[np.uint8]]:
        """``sketch_keys`` of ``rows[i]`` for the positions ``i`` asked, a few at a time: the
        keys of a million documents were a copy of their sketches (128 MB) held through the
        whole grouping. Whether keys carry a digest is decided once, from every row, so keys
        read in separate calls compare as one array's would."""
        digest = bool(np.any(self._sketch_width[rows] > prefix))

        def read(positions: npt.NDArray[np.intp]) -> npt.NDArray[np.uint8]:
            return self.sketch_keys(rows[positions], prefix, digest)

        return read

    def pixels(self, row: int) -> int:
        return int(self.widths[row]) * int(self.heights[row])

    def fingerprinted(self) -> int:
        return int(self.has_value.sum())


def member(
    files: FileColumns,
    outcomes: OutcomeColumns,
    row: int,
    kind: Kind,
    distance: int,
    similarity: float,
) -> Member:
    """The group member a result shows for a fingerprinted row."""
    entry = files.entry(row)
    return Member(
        path=entry.path,
        size=entry.size,
        mtime_ns=entry.mtime_ns,
        distance=distance,
        fingerprint=Fingerprint(kind, int(outcomes.values[row])),
        width=int(outcomes.widths[row]) or None,
        height=int(outcomes.heights[row]) or None,
        dev=entry.dev,
        ino=entry.ino,
        ctime_ns=entry.ctime_ns,
        links=entry.links,
        similarity=similarity,
    )
