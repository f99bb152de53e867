"""Plain values that flow through a scan: what was found, what it hashed to, how it grouped.

Every type here is immutable and free of I/O so that the CLI, the GUI, the cache and the
report writers can share them without surprises.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "DEFAULT_IMAGE_SIMILARITY",
    "DEFAULT_IMAGE_THRESHOLD",
    "DEFAULT_TEXT_SIMILARITY",
    "DEFAULT_TEXT_THRESHOLD",
    "FINGERPRINTED_KINDS",
    "MEDIA_KINDS",
    "TONE_CODES",
    "ActionKind",
    "CacheKey",
    "Edit",
    "EditCode",
    "FileEntry",
    "Fingerprint",
    "Group",
    "KeepReason",
    "Kind",
    "MatchedSpan",
    "MediaFacts",
    "Member",
    "Phase",
    "Progress",
    "ProgressCallback",
    "ScanError",
    "ScanOptions",
    "ScanResult",
    "ScanStats",
    "Side",
    "no_progress",
]

#: Hamming radius within which SimHashes propose document pairs (bench/text_accuracy.py).
DEFAULT_TEXT_THRESHOLD = 8
#: Share of 3-word runs two documents must have in common (estimated Jaccard similarity of
#: their shingle sets) to be grouped: the verified similarity a person sees. Chosen on real
#: boilerplate-heavy folders and the accuracy corpus (bench/text_verify.py, text_accuracy.py).
DEFAULT_TEXT_SIMILARITY = 0.7
#: Verified similarity two pictures must reach to be grouped: the lower of their layout
#: and colour agreement on small thumbnails (``dupfinder.core.image.check``), the figure a
#: person sees. Chosen on bench/image_accuracy.py.
DEFAULT_IMAGE_SIMILARITY = 0.85
#: Hamming radius within which perceptual hashes propose picture pairs (bench/image_accuracy.py).
#: With the thumbnails verifying every pair, 12 finds more edited photos than 8 did, and a
#: detailed picture beside its JPEG half-size copy (11 bits apart), at higher icon precision.
DEFAULT_IMAGE_THRESHOLD = 12

HASH_BITS = 64
_HASH_MASK = (1 << HASH_BITS) - 1


class Kind(enum.StrEnum):
    """What a file is compared as; text never meets image in one index."""

    TEXT = "text"
    IMAGE = "image"
    AUDIO = "audio"  # music and other sound, by content when FFmpeg is found
    VIDEO = "video"
    OTHER = "other"  # none of these: compared by its bytes only (archives, programs...)


#: Kinds with a content fingerprint (the others are only compared byte for byte).
FINGERPRINTED_KINDS = frozenset({Kind.TEXT, Kind.IMAGE, Kind.AUDIO, Kind.VIDEO})
#: Kinds decoded by FFmpeg: without it they are compared by their bytes only.
MEDIA_KINDS = frozenset({Kind.AUDIO, Kind.VIDEO})


class ActionKind(enum.StrEnum):
    """What an apply does with the files it acts on (also the journal's operation names)."""

    TRASH = "trash"
    MOVE = "move"
    HARDLINK = "hardlink"
    SYMLINK = "symlink"
    DELETE = "delete"

    @property
    def links(self) -> bool:
        return self in (ActionKind.HARDLINK, ActionKind.SYMLINK)


class Phase(enum.StrEnum):
    """Stages of a scan, in the order they run."""

    WALKING = "walking"
    FINGERPRINTING = "fingerprinting"
    IDENTICAL = "identical"  # reading files of equal size to find byte-identical ones
    COMPARING = "comparing"
    DONE = "done"
    APPLYING = "applying"  # keep/delete actions and undo, after a scan


class CacheKey(NamedTuple):
    """What a cached fingerprint is valid for: a file rewritten in place gets a new ctime
    (and often a new inode) even when its size and mtime are put back, and an inode number
    means one file only on one device (another disk mounted at the same path has its own)."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    dev: int


@dataclass(frozen=True, slots=True)
class FileEntry:
    """A file found by the walk, with the stat values that key the cache and guard actions.

    A file is its (``dev``, ``ino``): the walk lists each once, however many paths reach it;
    ``links`` > 1 says other names (hard links) lead to the same bytes. ``ctime_ns`` and
    ``ino`` change when a file is rewritten in place even if its size and mtime are put back.
    Zero means "not known" (results written by older versions).
    """

    path: str
    size: int
    mtime_ns: int
    kind: Kind
    dev: int = 0
    ino: int = 0
    ctime_ns: int = 0
    links: int = 1

    @property
    def mtime(self) -> float:
        return self.mtime_ns / 1e9


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A 64-bit hash of one file's content; ``a - b`` is the Hamming distance."""

    kind: Kind
    value: int

    def __post_init__(self) -> None:
        if not isinstance(self.value, int) or not 0 <= self.value <= _HASH_MASK:
            raise ValueError(f"fingerprint must be an unsigned 64-bit int, got {self.value!r}")

    def distance(self, other: Fingerprint) -> int:
        if other.kind is not self.kind:
            raise ValueError(f"cannot compare a {self.kind} fingerprint with a {other.kind} one")
        return (self.value ^ other.value).bit_count()

    def __sub__(self, other: Fingerprint) -> int:
        return self.distance(other)

    def hex(self) -> str:
        """Sixteen lowercase hex digits, most significant first; stable across versions."""
        return f"{self.value:016x}"

    @classmethod
    def from_hex(cls, kind: Kind | str, text: str) -> Fingerprint:
        if len(text) != 16:
            raise ValueError(f"fingerprint hex must have 16 digits, got {text!r}")
        return cls(Kind(kind), int(text, 16))

    def __str__(self) -> str:
        return f"{self.kind}:{self.hex()}"


class EditCode(enum.StrEnum):
    """What differs between a picture and its group's kept one, as a person would name it.
    The values are the JSON contract's (results format 4 and later)."""

    SMALLER = "smaller"  # fewer pixels: width x height of of_width x of_height
    LARGER = "larger"
    CROPPED = "cropped"  # percent of the kept one's area gone, from sides
    UNCROPPED = "uncropped"  # more around the edges: the kept one is a crop of it
    PADDED = "padded"  # a plain border added around it (percent of a side, sides)
    BORDER_REMOVED = "border-removed"
    GREYSCALE = "greyscale"  # the colours removed
    TINTED = "tinted"  # one hue left: sepia, a toned print
    COLOURED = "coloured"  # in colour where the kept one is grey or tinted
    BRIGHTER = "brighter"  # percent: mean grey level moved, of full scale
    DARKER = "darker"
    MORE_CONTRAST = "more-contrast"  # percent: spread of grey levels changed
    LESS_CONTRAST = "less-contrast"
    MARKED = "marked"  # text or a small mark added (or taken away), at sides
    TRANSPARENCY_REMOVED = "transparency-removed"
    TRANSPARENCY_ADDED = "transparency-added"
    REENCODED = "re-encoded"  # a lossy format again: format, quality (JPEG, 0 unknown)
    CONVERTED = "converted"  # another file format: format


class Side(enum.StrEnum):
    """An edge of a picture (where it was cropped, or where a mark is)."""

    LEFT = "left"
    TOP = "top"
    RIGHT = "right"
    BOTTOM = "bottom"


_FRAMING_WORDS = {
    EditCode.CROPPED: "cropped",
    EditCode.UNCROPPED: "more around the edges:",
    EditCode.PADDED: "border added:",
    EditCode.BORDER_REMOVED: "border removed:",
}
#: The edits of a picture's tones (brightness and contrast).
TONE_CODES = frozenset(
    {EditCode.BRIGHTER, EditCode.DARKER, EditCode.MORE_CONTRAST, EditCode.LESS_CONTRAST}
)


@dataclass(frozen=True, slots=True)
class Edit:
    """One named difference of a picture from its group's kept one, with its numbers."""

    code: EditCode
    percent: int = 0  # how much: area cropped, border added, brightness or contrast change
    sides: tuple[Side, ...] = ()
    width: int = 0  # SMALLER/LARGER: this picture's size, and the kept one's
    height: int = 0
    of_width: int = 0
    of_height: int = 0
    format: str = ""  # REENCODED/CONVERTED: the format this picture is in ("JPEG")
    quality: int = 0  # REENCODED as JPEG: the estimated quality, 0 when unknown

    def label(self) -> str:
        """How the difference reads: "cropped 6 % (left, top)", "re-encoded JPEG q≈60"."""
        where = f" ({', '.join(str(s) for s in self.sides)})" if self.sides else ""
        code = self.code
        if code in (EditCode.SMALLER, EditCode.LARGER):
            return f"{code}: {self.width} × {self.height} of {self.of_width} × {self.of_height}"
        if code in _FRAMING_WORDS:
            return f"{_FRAMING_WORDS[code]} {self.percent} %{where}"
        if code is EditCode.REENCODED:
            quality = f" q≈{self.quality}" if self.quality else ""
            return f"re-encoded {self.format}{quality}"
        if code is EditCode.CONVERTED:
            return f"converted to {self.format}"
        if code is EditCode.MARKED:
            return f"text or a mark added{where}"
        if code in TONE_CODES:
            name = str(code).replace("-", " ")
            return f"{name} ({self.percent} %)" if self.percent else name
        return str(code).replace("-", " ")


@dataclass(frozen=True, slots=True)
class ScanError:
    """One file that could not be compared, and why (shown to the user as is)."""

    path: str
    error: str
    code: str = "unreadable"


@dataclass(frozen=True, slots=True)
class MediaFacts:
    """What a person compares copies of a song or a video by, read from the file's header
    (``dupfinder.core.media.info``); None where the file does not say."""

    duration_s: float | None = None
    #: Bits per second of the whole file (all its streams).
    bitrate: int | None = None
    #: The codec of the stream that matters: the video's for a video, else the sound's.
    codec: str | None = None
    lossless: bool = False
    title: str | None = None
    artist: str | None = None
    album: str | None = None


@dataclass(frozen=True, slots=True)
class MatchedSpan:
    """The part of a media member that matched its group's keeper, in seconds from each
    file's start: a trimmed copy or a clip matches only part of the longer file."""

    start_s: float
    end_s: float
    keeper_start_s: float
    keeper_end_s: float

    def __post_init__(self) -> None:
        if not (0 <= self.start_s <= self.end_s and 0 <= self.keeper_start_s <= self.keeper_end_s):
            raise ValueError(f"a matched span must run forward from 0 or later, got {self!r}")


@dataclass(frozen=True, slots=True)
class Member:
    """One file of a group, with its distance (bits) and similarity to the representative.

    ``similarity`` (0..1) is the verified estimate: for documents the share of 3-word runs
    the two texts have in common (a MinHash estimate of their Jaccard similarity). When it is
    not given (results of older versions) it is the share of equal fingerprint bits.
    ``dev``, ``ino`` and ``ctime_ns`` are the file's identity and change stamp when the scan
    saw it (0: unknown, e.g. a result saved by an older version); actions compare them with
    the disk right before they act. ``links`` counts the file's names (hard links).
    """

    path: str
    size: int
    mtime_ns: int
    distance: int
    fingerprint: Fingerprint
    width: int | None = None
    height: int | None = None
    dev: int = 0
    ino: int = 0
    ctime_ns: int = 0
    links: int = 1
    #: BLAKE3 digest (32 hex digits) of the bytes, set only when another member of the group
    #: has the very same bytes; members with equal ``content_hash`` are byte-identical.
    content_hash: str | None = None
    similarity: float = -1.0
    #: Music and videos: what the file's header says (duration, bitrate, codec, tags).
    media: MediaFacts | None = None
    #: Music and videos: the part of this file that matched the keeper (None for the keeper).
    span: MatchedSpan | None = None
    #: Pictures: what differs from the group's kept one (empty for the kept one itself, for
    #: other kinds, and in results saved before edits were named).
    edits: tuple[Edit, ...] = ()

    def __post_init__(self) -> None:
        if self.similarity < 0:
            object.__setattr__(self, "similarity", 1.0 - self.distance / HASH_BITS)
        elif self.similarity > 1:
            raise ValueError(f"similarity must be from 0 to 1, got {self.similarity!r}")

    @property
    def mtime(self) -> float:
        return self.mtime_ns / 1e9

    @property
    def identical(self) -> bool:
        """Another member of the group has exactly the same bytes."""
        return self.content_hash is not None


class KeepReason(enum.StrEnum):
    """Why a group's keeper is kept: a criterion on which it is the best of its group (as
    good as every other member, better than one). ``dupfinder.core.grouping.keeper`` says
    the order they decide in."""

    REFERENCE = "reference"  # in a reference folder
    ORIGINAL_PICTURE = "original-picture"  # pictures: another is an edited copy of it
    NO_COPY_MARKS = "no-copy-marks"  # no "copy", "(1)", "backup"... in its name or folders
    FEWEST_COPY_MARKS = "fewest-copy-marks"
    MOST_PIXELS = "most-pixels"
    LOSSLESS = "lossless"  # a lossless format where another copy (of that size) is lossy
    HIGHEST_BITRATE = "highest-bitrate"  # music and videos: more bits per second of media
    LONGEST = "longest"  # music and videos: the full length where another copy is cut
    LEAST_COMPRESSED = "least-compressed"  # most bytes per pixel among copies of that size
    OLDEST = "oldest"
    SHALLOWEST = "shallowest"  # the fewest folders deep
    LARGEST = "largest"


@dataclass(frozen=True, slots=True)
class Group:
    """Files that are near-duplicates of each other; ``members[0]`` is the representative,
    the suggested keeper, and ``reasons`` say why it is kept (empty: not known, or every
    member alike)."""

    kind: Kind
    members: tuple[Member, ...]
    reasons: tuple[KeepReason, ...] = ()

    def __post_init__(self) -> None:
        if len(self.members) < 2:
            raise ValueError("a group needs at least two members")

    @property
    def representative(self) -> Member:
        return self.members[0]

    @property
    def identical(self) -> bool:
        """Every member has exactly the same bytes (an exact-duplicate group)."""
        first = self.members[0].content_hash
        return first is not None and all(m.content_hash == first for m in self.members)

    def same_bytes_as_keeper(self, member: Member) -> bool:
        """``member`` is the representative or has exactly its bytes."""
        keeper = self.members[0]
        return member is keeper or (
            member.content_hash is not None and member.content_hash == keeper.content_hash
        )

    @property
    def reclaimable_bytes(self) -> int:
        """Bytes freed at most by keeping one member: every member but the smallest.

        A member with other hard links frees nothing when removed: its bytes stay
        reachable through its other names.
        """
        smallest = min(range(len(self.members)), key=lambda i: self.members[i].size)
        return sum(m.size for i, m in enumerate(self.members) if i != smallest and m.links <= 1)


@dataclass(frozen=True, slots=True)
class ScanStats:
    files_seen: int = 0
    files_fingerprinted: int = 0
    files_from_cache: int = 0
    #: Files compared by their bytes only, never fingerprinted (kind other, or all files when
    #: near duplicates are off); with the fingerprinted and the skipped ones they make up
    #: ``files_seen``.
    files_bytes_only: int = 0
    pairs: int = 0
    seconds: float = 0.0
    cancelled: bool = False


@dataclass(frozen=True, slots=True)
class ScanResult:
    groups: tuple[Group, ...] = ()
    errors: tuple[ScanError, ...] = ()
    stats: ScanStats = field(default_factory=ScanStats)
    #: What the scan says once about itself rather than per file (e.g. that music and
    #: videos were compared by their bytes only, FFmpeg being missing).
    notices: tuple[str, ...] = ()


def _default_jobs() -> int:
    return os.cpu_count() or 1


class Grouping(enum.StrEnum):
    """How pairs become groups (see ``dupfinder.core.grouping.cluster``)."""

    CONNECTED = "connected"  # everything linked through pairs, however long the chain
    STAR = "star"  # every member matches its representative directly


@dataclass(frozen=True, slots=True)
class ScanOptions:
    """Everything that changes what a scan finds; the CLI and the GUI both build one of these."""

    roots: tuple[Path, ...]
    kinds: frozenset[Kind] = frozenset(Kind)
    #: Find byte-identical files among every file of ``kinds`` (documents, pictures and other).
    identical: bool = True
    #: Find near-duplicate documents and pictures (off: byte-identical files only, nothing
    #: is fingerprinted, documents and pictures are known by their suffix alone).
    near_duplicates: bool = True
    text_threshold: int = DEFAULT_TEXT_THRESHOLD
    image_threshold: int = DEFAULT_IMAGE_THRESHOLD
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    min_size: int = 1
    max_size: int | None = None
    include_hidden: bool = False
    follow_symlinks: bool = False
    image_invariance: bool = False
    text_similarity: float = DEFAULT_TEXT_SIMILARITY
    image_similarity: float = DEFAULT_IMAGE_SIMILARITY
    #: Folders whose files are preferred as the representative (the suggested keeper).
    references: tuple[Path, ...] = ()
    text_grouping: Grouping = Grouping.STAR
    image_grouping: Grouping = Grouping.STAR
    #: Verified similarity music and videos must reach (None: each kind's own default,
    #: ``dupfinder.core.media.audio.MIN_SIMILARITY`` and ``video.MIN_SIMILARITY``).
    audio_similarity: float | None = None
    video_similarity: float | None = None
    jobs: int = field(default_factory=_default_jobs)
    use_cache: bool = True
    cache_dir: Path | None = None

    def __post_init__(self) -> None:
        for name in ("text_threshold", "image_threshold"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value <= 32:
                raise ValueError(f"{name} must be an int from 0 to 32, got {value!r}")
        for name in ("text_similarity", "image_similarity", "audio_similarity", "video_similarity"):
            share = getattr(self, name)
            if share is not None and not 0.0 <= share <= 1.0:
                raise ValueError(f"{name} must be from 0 to 1, got {share!r}")
        if self.jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {self.jobs}")
        if self.min_size < 0:
            raise ValueError("min_size must not be negative")
        if not self.kinds:
            raise ValueError("choose at least one kind of file to scan")
        if not self.identical and not self.kinds & FINGERPRINTED_KINDS:
            raise ValueError("other files are only compared byte for byte: keep identical on")
        if not self.identical and not self.near_duplicates:
            raise ValueError("nothing to look for: neither identical nor near-duplicate files")

    def threshold(self, kind: Kind) -> int:
        return self.text_threshold if kind is Kind.TEXT else self.image_threshold

    def grouping(self, kind: Kind) -> Grouping:
        """Documents group as ``text_grouping`` says; pictures, music and videos as
        ``image_grouping`` (stars by default: every member matches its keeper directly)."""
        return self.text_grouping if kind is Kind.TEXT else self.image_grouping


@dataclass(frozen=True, slots=True)
class Progress:
    """A progress sample: ``done`` of ``total`` items in ``phase`` (total None while unknown)."""

    phase: Phase
    done: int
    total: int | None = None
    current: str | None = None


ProgressCallback = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    """The do-nothing progress sink that the CLI and tests get by default."""
