"""Which file of a group a person would keep: the suggested keeper, and why it is kept.

The order, criterion by criterion (the first difference decides):

1. a file in a reference folder of the scan;
2. a file that looks like an original: fewer copy marks in its name ("copy", "Kopie", "(1)",
   "backup", "副本", "コピー", a parenthesised note such as " (my notes)", an edit suffix
   such as "-grey", "_small", "-rotated", "_q40", "~", ".bak") and in its folders
   ("Backup 2023", "old", "copies"); a size in the name ("-800x600") marks a document, never
   a picture, whose pixels speak for themselves (a painting's ``_5640x3172`` original);
3. for music and videos, the whole recording before a part of it (a clip, a copy cut by
   more than a few seconds: keeping it would lose the rest), then higher quality: a
   lossless encoding first (the FLAC over its MP3), then more bits per second, then the
   longer file, then for videos more pixels (these come from the file's header,
   ``MediaFacts``);
4. for pictures, more pixels (the full-size original over its resize);
5. for pictures of the same size, higher quality: a lossless format before a lossy one, then
   for lossy ones more bytes per pixel (the original before its recompressed copy: a 183 KB
   photo before its 57 KB ``_q40`` copy); a lossless file keeps every pixel whatever its
   bytes, and a copy's extra bytes are its edit's (a caption, more contrast, more colour);
6. the older modification time (the copy is made after the original);
7. a shallower path (the file in the main folder over the one filed away deeper);
8. the larger file; only then the path, so the choice never depends on the order files were
   found.

Every keep rule of ``dupfinder.core.actions.marks`` breaks its ties with this same order, so
no rule keeps a file that is worse than another on every criterion it names. Why a keeper is
kept (:func:`reasons`) is the criteria on which it is the best of its group.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import os
import re
from collections.abc import Sequence
from typing import cast

from dupfinder.core.model import Group, KeepReason, MediaFacts, Member

__all__ = [
    "BYTES_PER_PIXEL",
    "LOSSLESS_SUFFIXES",
    "MTIME",
    "PART_SECONDS",
    "PART_SHARE",
    "KeeperKey",
    "copy_marks",
    "is_part",
    "keeper_key",
    "longest_of",
    "member_key",
    "quality_key",
    "reasons",
    "regrouped",
    "suggested",
]

_WORD_MARKS = re.compile(
    r"(?:^|[\s._\-(\[])(?:copy|copie|kopie|copia|backup|bak|duplicate|dup|edited|"
    r"draft|thumb|thumbnail|small|resized|rotated|cropped|scaled|compressed|recompressed|"
    r"modified|preview|grey|gray|bw)(?:$|[\s._\-)\]\d])",
    re.IGNORECASE,
)
#: The same in Chinese and Japanese, where words are not spaced: copy (副本, 拷贝, 复制,
#: 複製, コピー), backup (备份, バックアップ), modified (修改, 変更).
_CJK_MARKS = re.compile("副本|拷贝|复制|複製|コピー|备份|バックアップ|修改|変更")
_NUMBERED = re.compile(r"(?:\(\d+\)|\[\d+\])$")
_NOTE = re.compile(r"\s\([^)]*\)$")
_SIZE_SUFFIX = re.compile(r"[\s_\-@]\d{2,5}x\d{2,5}$|@\dx$", re.IGNORECASE)
#: A JPEG quality written into the name by the tool that recompressed it: "_q40", "-q75".
_QUALITY_SUFFIX = re.compile(r"[\s_\-]q\d{1,3}$", re.IGNORECASE)
_BACKUP_SUFFIXES = (".bak", ".orig", ".old", "~")
#: The last characters a numbered or noted name ends with, and those a size (or a
#: quality, a digit) ends with besides a digit.
_NOTE_ENDS = (")", "]")
_SIZE_ENDS = ("x", "X")
_FOLDER_MARKS = re.compile(
    r"(?:^|[\s._\-])(?:copy|copies|kopie|backup|backups|bak|old|duplicates|trash|archive)"
    r"(?:$|[\s._\-\d])",
    re.IGNORECASE,
)
#: Picture formats that keep every pixel as it was (GIF is left out: its 256 colours lose
#: a photo's shades).
LOSSLESS_SUFFIXES = frozenset(
    {".png", ".bmp", ".tif", ".tiff", ".ppm", ".pgm", ".pbm", ".pnm", ".qoi", ".tga"}
)

#: A file's place in the order, smaller first: reference, copy marks, a part of a longer
#: recording, media lossy, -bitrate, -whole seconds, -pixels, picture lossy, -bytes per
#: pixel, mtime, depth, -size, path.
KeeperKey = tuple[int, int, int, int, int, int, int, int, float, int, int, int, str]
#: Positions in ``KeeperKey`` (``BYTES_PER_PIXEL`` and ``MTIME`` named for grouping's
#: keeper swaps).
_REFERENCE, _MARKS, _PART, _MEDIA_LOSSY, _BITRATE, _DURATION, _PIXELS = range(7)
_LOSSY, BYTES_PER_PIXEL, MTIME, _DEPTH, _SIZE = range(7, 12)
#: A song or a video shorter than the longest it matched by more than both of these is a
#: part of it (a clip, a cut copy), never kept over the whole; encoders differ by far less.
PART_SECONDS = 3.0
PART_SHARE = 0.03


def copy_marks(path: str, picture: bool = False) -> int:
    """How many signs of being a copy or an edit the path carries (0: looks original).

    A size in the name counts only when ``picture`` is False: a picture's pixels are
    compared as such, and its original often carries its own size in its name."""
    return _copy_marks(path, picture)


@functools.lru_cache(maxsize=1 << 14)
def _copy_marks(path: str, picture: bool) -> int:
    """``copy_marks``, remembered for the last few thousand paths: grouping asks for a
    member's key several times (clustering, the suggested keeper, its reasons)."""
    folder, name = os.path.split(path)
    marks = 0
    if name.endswith(_BACKUP_SUFFIXES):
        marks += 1
        name = name.rstrip("~")
        for suffix in _BACKUP_SUFFIXES:
            name = name.removesuffix(suffix)
    stem = os.path.splitext(name)[0] if "." in name[1:] else name
    marks += len(_WORD_MARKS.findall(stem))
    if not stem.isascii():
        marks += len(_CJK_MARKS.findall(stem))
    # The other marks end the name: each is looked for only where the last character (before
    # a final newline, where ``$`` also matches) is one it can end with.
    end = stem[-2:-1] if stem.endswith("\n") else stem[-1:]
    if end in _NOTE_ENDS:
        if _NUMBERED.search(stem) or _NOTE.search(stem):
            marks += 1
    elif end.isdecimal() or end in _SIZE_ENDS:
        if not picture and _SIZE_SUFFIX.search(stem):
            marks += 1
        if _QUALITY_SUFFIX.search(stem):
            marks += 1
    return marks + _folder_marks(folder)


@functools.lru_cache(maxsize=4096)
def _folder_marks(folder: str) -> int:
    """Copy marks in a file's folders (remembered: the members of a scan share few folders)."""
    return sum(1 for part in folder.split(os.sep) if part and _FOLDER_MARKS.search(part))


def _in_folder(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _lossy(path: str) -> int:
    return 0 if os.path.splitext(path)[1].lower() in LOSSLESS_SUFFIXES else 1


def is_part(media: MediaFacts | None, longest_s: float | None) -> bool:
    """A recording shorter than ``longest_s`` (the longest it matched) by more than
    ``PART_SECONDS`` and ``PART_SHARE``; one of unknown length is taken for a part of a
    known one."""
    if media is None or not longest_s:
        return False
    own = media.duration_s or 0.0
    return longest_s - own > max(PART_SECONDS, PART_SHARE * longest_s)


def longest_of(members: Sequence[Member]) -> float | None:
    """The longest length among ``members``' headers (None: no media, or none known)."""
    lengths = [m.media.duration_s for m in members if m.media and m.media.duration_s]
    return max(lengths) if lengths else None


def _media_quality(media: MediaFacts | None) -> tuple[int, int, int]:
    """(lossy, -bitrate, -whole seconds) of a song or a video; zeros for other files. A
    medium whose header could not be read ranks last (lossy, no bitrate, no length)."""
    if media is None:
        return (0, 0, 0)
    return (
        0 if media.lossless else 1,
        -(media.bitrate or 0),
        -round(media.duration_s or 0.0),  # encoders pad by some ms: whole seconds decide
    )


def keeper_key(
    path: str,
    size: int,
    mtime_ns: int,
    pixels: int,
    references: Sequence[str] = (),
    media: MediaFacts | None = None,
    longest_s: float | None = None,
) -> KeeperKey:
    """Sort key of a file as the one to keep: smaller is better (see the module's rule).

    ``pixels`` is 0 for anything but a picture or a video; ``references`` are real paths of
    folders; ``media`` is what a song's or a video's header says (None for other files),
    ``longest_s`` the longest length among the files it is compared with."""
    referenced = any(_in_folder(path, folder) for folder in references) if references else False
    picture = pixels > 0 and media is None
    lossy_media, bitrate, seconds = _media_quality(media)
    lossy_picture = _lossy(path) if picture else 0
    return (
        0 if referenced else 1,
        copy_marks(path, pixels > 0),
        int(is_part(media, longest_s)),
        lossy_media,
        bitrate,
        seconds,
        -pixels,
        lossy_picture,
        -size / pixels if lossy_picture else 0.0,
        mtime_ns,
        path.count(os.sep),
        -size,
        path,
    )


def pixels(member: Member) -> int:
    """A picture's or video's width times height (0 when not known)."""
    if member.width is None or member.height is None:
        return 0
    return member.width * member.height


def member_key(
    member: Member, references: Sequence[str] = (), longest_s: float | None = None
) -> KeeperKey:
    """:func:`keeper_key` of a group's member; ``longest_s``: its group's longest length
    (``longest_of``), so a clip never comes before the whole."""
    return keeper_key(
        member.path,
        member.size,
        member.mtime_ns,
        pixels(member),
        references,
        member.media,
        longest_s,
    )


def quality_key(member: Member, longest_s: float | None = None) -> tuple[float, ...]:
    """The quality criteria of :func:`member_key` alone (smaller is better): music and
    videos the whole before a part, lossless, then bitrate, length, pixels; pictures
    pixels, lossless, bytes per pixel. The ``quality`` keep rule ranks by it."""
    key = member_key(member, (), longest_s)
    return tuple(float(cast(float, value)) for value in key[_PART:MTIME])


def suggested(group: Group, references: Sequence[str] = ()) -> Group:
    """``group`` with its suggested keeper first and the reasons it is kept.

    The keeper is the best, by the order above, of the representative and the members with
    exactly its bytes: a group's similarities are measured against its representative, so
    only one of its byte-identical copies may take its place (all of them, in a group of
    identical files). The other members keep their order."""
    members = group.members
    first = members[0]
    longest = longest_of(members)
    keys = [member_key(m, references, longest) for m in members]
    twins = [i for i, m in enumerate(members) if group.same_bytes_as_keeper(m)]
    if longest is None:  # no lengths: no member is a part of another
        best = min(twins, key=keys.__getitem__)
    else:  # twins have one length: none is a part of another, whatever the group's longest
        best = min(twins, key=lambda i: (*keys[i][:_PART], 0, *keys[i][_PART + 1 :]))
    keeper = members[best]
    theirs = [key for m, key in zip(members, keys, strict=True) if m is not keeper]
    ordered = (keeper, *(m for m in members if m is not keeper))
    if keeper is not first and (first.distance, first.similarity) != (0, 1.0):
        # measured against its twin: the same figures
        replaced = dataclasses.replace(first, distance=0, similarity=1.0)
        ordered = tuple(replaced if m is first else m for m in ordered)
    found = (*_original(group, keeper), *_found(keys[best], theirs))
    return dataclasses.replace(group, members=ordered, reasons=found)


def _original(group: Group, keeper: Member) -> tuple[KeepReason, ...]:
    """``ORIGINAL_PICTURE`` where ``group`` named it and ``keeper`` is still its keeper: the
    edits that told it (``grouping.groups``) are not known here."""
    if KeepReason.ORIGINAL_PICTURE in group.reasons and keeper is group.members[0]:
        return (KeepReason.ORIGINAL_PICTURE,)
    return ()


def regrouped(group: Group, members: Sequence[Member]) -> Group:
    """``group`` with ``members`` (its own, the keeper still first, and copies that joined
    it), the reasons named again; a reference folder named before stays named (the
    folders themselves are not known here)."""
    found = reasons(members[0], members)
    if KeepReason.REFERENCE in group.reasons:
        found = (KeepReason.REFERENCE, *found)
    found = (*_original(group, members[0]), *found)
    return dataclasses.replace(group, members=tuple(members), reasons=found)


def reasons(
    keeper: Member, members: Sequence[Member], references: Sequence[str] = ()
) -> tuple[KeepReason, ...]:
    """The criteria on which ``keeper`` is the best of ``members``: as good as every other
    member and better than at least one, in the order's order."""
    longest = longest_of(members)
    theirs = [member_key(m, references, longest) for m in members if m is not keeper]
    return _found(member_key(keeper, references, longest), theirs)


def _numbers(key: KeeperKey) -> tuple[float, ...]:
    """Every criterion of ``key`` but the path, as numbers (compared once a member, not once
    a criterion and member)."""
    return tuple(map(float, key[:-1]))


def _found(key: KeeperKey, their_keys: Sequence[KeeperKey]) -> tuple[KeepReason, ...]:
    """:func:`reasons` of the member whose key is ``key`` among members whose keys are
    ``their_keys`` (each computed once)."""
    if not their_keys:
        return ()
    found: list[KeepReason] = []
    mine = _numbers(key)
    theirs = [_numbers(other) for other in their_keys]
    # at each position, as good as all the others and better than one
    if len(theirs) == 1:  # of two files: better than the other
        wins = list(map(operator.lt, mine, theirs[0]))
    else:
        columns = list(zip(*theirs, strict=True))
        wins = [
            own <= low and own < high
            for own, low, high in zip(mine, map(min, columns), map(max, columns), strict=True)
        ]

    def best_among(position: int, among: Sequence[tuple[float, ...]]) -> bool:
        """The same among some of the others only (none: False)."""
        if not among:
            return False
        own = mine[position]
        values = [other[position] for other in among]
        return own <= min(values) and own < max(values)

    if wins[_REFERENCE]:
        found.append(KeepReason.REFERENCE)
    if wins[_MARKS]:
        found.append(
            KeepReason.NO_COPY_MARKS if mine[_MARKS] == 0 else KeepReason.FEWEST_COPY_MARKS
        )
    whole = wins[_PART]
    if whole:  # the others hold only part of it
        found.append(KeepReason.LONGEST)
    lossless_media = wins[_MEDIA_LOSSY]
    if lossless_media:
        found.append(KeepReason.LOSSLESS)
    media_class = mine[_MEDIA_LOSSY]
    if all(other[_MEDIA_LOSSY] == media_class for other in theirs):
        highest_bitrate = wins[_BITRATE]
    else:
        same_class = [other for other in theirs if other[_MEDIA_LOSSY] == media_class]
        highest_bitrate = best_among(_BITRATE, same_class)
    if highest_bitrate:
        found.append(KeepReason.HIGHEST_BITRATE)
    if wins[_DURATION] and not whole:
        found.append(KeepReason.LONGEST)
    if wins[_PIXELS]:
        found.append(KeepReason.MOST_PIXELS)
    pixels = mine[_PIXELS]
    if pixels < 0:  # a picture: the same size's formats and compression
        same_size = [other for other in theirs if other[_PIXELS] == pixels]
        if best_among(_LOSSY, same_size) and not lossless_media:
            found.append(KeepReason.LOSSLESS)
        same_format = [other for other in same_size if other[_LOSSY] == mine[_LOSSY]]
        if best_among(BYTES_PER_PIXEL, same_format):
            found.append(KeepReason.LEAST_COMPRESSED)
    if wins[MTIME]:
        found.append(KeepReason.OLDEST)
    if wins[_DEPTH]:
        found.append(KeepReason.SHALLOWEST)
    if wins[_SIZE]:
        found.append(KeepReason.LARGEST)
    return tuple(found)
