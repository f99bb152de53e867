"""What a person compares copies of a song or a video by: duration, bitrate, codec, tags.

Read from each file's header (``dupfinder.core.media.info.probe``, a short ffprobe run) for
the grouped members only: a scan fingerprints thousands of files and groups a few, so the
headers of the few are read in the scan's own process, a few at a time on threads (each
read waits on a child process, not on the interpreter). A header that cannot be read leaves
the member without facts; the keeper order then ranks it last among its group's media.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from dupfinder.core.errors import FileProblem
from dupfinder.core.grouping.keeper import regrouped
from dupfinder.core.media.info import MediaInfo, probe
from dupfinder.core.model import MEDIA_KINDS, Group, Kind, MediaFacts, Member

__all__ = ["PROBE_TIME_LIMIT_SECONDS", "described", "facts_from", "probed"]

#: Reading a header takes milliseconds; a file that stalls its reader this long has none.
PROBE_TIME_LIMIT_SECONDS = 10.0
#: Headers read at once (each is a child process that mostly waits on the disk).
_PROBE_THREADS = 8


def facts_from(info: MediaInfo, kind: Kind) -> MediaFacts:
    """The facts a result keeps of a header: a video's codec is its picture's, a song's its
    sound's."""
    codec = info.video_codec if kind is Kind.VIDEO and info.video_codec else info.audio_codec
    tags = info.tags
    return MediaFacts(
        duration_s=info.duration_s,
        bitrate=info.bitrate,
        codec=codec or info.video_codec,
        lossless=info.lossless,
        title=tags.get("title"),
        artist=tags.get("artist"),
        album=tags.get("album"),
    )


def _one(path: str, kind: Kind) -> MediaFacts | None:
    try:
        return facts_from(probe(path, time_limit_s=PROBE_TIME_LIMIT_SECONDS), kind)
    except (FileProblem, OSError):
        return None


def probed(paths: Sequence[str], kind: Kind) -> list[MediaFacts | None]:
    """The facts of each path (None where its header cannot be read), in order."""
    if len(paths) <= 1:
        return [_one(path, kind) for path in paths]
    with ThreadPoolExecutor(max_workers=min(_PROBE_THREADS, len(paths))) as pool:
        return list(pool.map(lambda path: _one(path, kind), paths))


def described(groups: Sequence[Group]) -> list[Group]:
    """``groups`` with every member of a music or video group that has no facts yet (a byte
    copy that joined a group, a group of identical files) given them, and its keeper's
    reasons named again with them. Copies with one content hash are read once."""
    wanted: dict[tuple[str, Kind], str] = {}  # (content hash or path, kind) -> a path to read
    for group in groups:
        if group.kind in MEDIA_KINDS:
            for m in group.members:
                if m.media is None:
                    wanted.setdefault((m.content_hash or m.path, group.kind), m.path)
    if not wanted:
        return list(groups)
    keys = list(wanted)
    found: dict[tuple[str, Kind], MediaFacts | None] = {}
    for kind in MEDIA_KINDS:
        mine = [key for key in keys if key[1] is kind]
        found.update(zip(mine, probed([wanted[key] for key in mine], kind), strict=True))
    out: list[Group] = []
    for group in groups:
        if group.kind not in MEDIA_KINDS or all(m.media is not None for m in group.members):
            out.append(group)
            continue
        members = [
            _with_facts(m, found.get((m.content_hash or m.path, group.kind))) for m in group.members
        ]
        out.append(regrouped(group, members))
    return out


def _with_facts(member: Member, facts: MediaFacts | None) -> Member:
    if member.media is not None or facts is None:
        return member
    return dataclasses.replace(member, media=facts)
