"""What the comparison panel shows of a music or video group, without Qt.

A person deciding between copies of a song or a film compares what the files say (title,
artist, album), how long they are, how good they are ("320 kb/s MP3" against "FLAC,
lossless"), and which part of each matched: a trimmed copy or a clip matches only part of
the longer file. The panel also shows each file at the same moments (a waveform with the
matched part shaded and a few seconds to play; a row of video frames), so the times here are
mapped through each member's matched span onto the group's first file, the one the spans are
measured against.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Hashable
from dataclasses import dataclass

from dupfinder.app.i18n import translate
from dupfinder.core.model import Group, Kind, MatchedSpan, MediaFacts, Member
from dupfinder.core.wording import (
    format_bitrate,
    format_duration,
    format_span,
    similarity_percent,
)

__all__ = [
    "CLIP_S",
    "FRAME_SHARES",
    "MediaCard",
    "MediaView",
    "Playback",
    "Role",
    "codec_name",
    "ffplay_arguments",
    "ffplay_beside",
    "file_key",
    "length_text",
    "media_view",
    "playback_hint",
    "player_problem",
    "quality_text",
    "resolution_text",
]

#: Seconds of each member that "Play" plays.
CLIP_S = 5.0
#: Where in the matched part the frames of a video are taken (shares of its length).
FRAME_SHARES = (0.1, 0.3, 0.5, 0.7, 0.9)
#: Where in the matched part a song is played from (share of its length).
PLAY_SHARE = 0.3
#: A span this close to a file's ends (seconds, or this share of its length) covers it all:
#: prints are cut in frames of up to a second.
_WHOLE_S, _WHOLE_SHARE = 1.5, 0.02

#: ffprobe's codec names as players and shops write them.
_CODECS = {
    "mp3": "MP3",
    "mp2": "MP2",
    "flac": "FLAC",
    "aac": "AAC",
    "vorbis": "Vorbis",
    "opus": "Opus",
    "alac": "ALAC",
    "ape": "APE",
    "wavpack": "WavPack",
    "wmav1": "WMA",
    "wmav2": "WMA",
    "wmapro": "WMA Pro",
    "wmalossless": "WMA Lossless",
    "ac3": "AC-3",
    "eac3": "E-AC-3",
    "h264": "H.264",
    "hevc": "HEVC",
    "vp8": "VP8",
    "vp9": "VP9",
    "av1": "AV1",
    "mpeg4": "MPEG-4",
    "mpeg2video": "MPEG-2",
    "mpeg1video": "MPEG-1",
    "msmpeg4v3": "DivX 3",
    "wmv1": "WMV",
    "wmv2": "WMV",
    "wmv3": "WMV",
    "theora": "Theora",
    "prores": "ProRes",
    "mjpeg": "Motion JPEG",
}


def codec_name(codec: str) -> str:
    """ "mp3" → "MP3", "h264" → "H.264", "pcm_s16le" → "PCM"; unknown ones upper-cased."""
    if codec.startswith("pcm_"):
        return "PCM"
    return _CODECS.get(codec, codec.upper())


def length_text(facts: MediaFacts | None) -> str:
    """ "3:41", or a dash when the file does not say."""
    if facts is None or facts.duration_s is None:
        return "—"
    return format_duration(facts.duration_s)


def quality_text(facts: MediaFacts | None) -> str:
    """ "320 kb/s MP3", "FLAC, lossless", "1.2 Mb/s H.264": what a copy is worth."""
    if facts is None:
        return "—"
    codec = codec_name(facts.codec) if facts.codec else None
    if facts.lossless:
        return translate("Media", "{codec}, lossless").format(
            codec=codec or translate("Media", "lossless format")
        )
    if codec and facts.bitrate:
        return translate("Media", "{bitrate} {codec}").format(
            bitrate=format_bitrate(facts.bitrate), codec=codec
        )
    if facts.bitrate:
        return format_bitrate(facts.bitrate)
    return codec or "—"


def resolution_text(member: Member) -> str:
    """ "1920 × 1080", or a dash when not known."""
    if not member.width or not member.height:
        return "—"
    return translate("Media", "{width} × {height}").format(width=member.width, height=member.height)


class Role(enum.Enum):
    """A member's place in the panel: the file kept, the one selected in the list, the rest."""

    KEPT = "kept"
    SELECTED = "selected"
    OTHER = "other"


def _role_text(role: Role) -> str:
    return {
        Role.KEPT: translate("Media", "Kept"),
        Role.SELECTED: translate("Media", "Selected"),
        Role.OTHER: translate("Media", "Also in the group"),
    }[role]


def _whole(start: float, end: float, duration: float | None) -> bool:
    if not duration:
        return False
    slack = max(_WHOLE_S, duration * _WHOLE_SHARE)
    return start <= slack and end >= duration - slack


def _duration(member: Member) -> float | None:
    return member.media.duration_s if member.media is not None else None


def match_text(member: Member, first: Member, first_is_kept: bool) -> str:
    """How much of ``member`` matched the group's first file (the one spans are measured
    against): "the whole file matches the kept file", "0:00–0:32 of 0:32 matches
    0:08–0:40 of the kept file (0:40)"."""
    if member is first:
        return translate("Media", "the others were compared with this file")
    other = (
        translate("Media", "the kept file")
        if first_is_kept
        else translate("Media", "“{name}”").format(name=os.path.basename(first.path))
    )
    if first.content_hash is not None and member.content_hash == first.content_hash:
        return translate("Media", "the same bytes as {other}").format(other=other)
    # the list's own figure: rounded down, "100%" only for the same bytes
    alike = translate("Media", "{percent} alike").format(
        percent=similarity_percent(member.similarity, same_bytes=False)
    )
    span = member.span
    if span is None:
        return alike
    mine_whole = _whole(span.start_s, span.end_s, _duration(member))
    theirs_whole = _whole(span.keeper_start_s, span.keeper_end_s, _duration(first))
    if mine_whole and theirs_whole:
        text = translate("Media", "the whole file matches {other}").format(other=other)
    elif mine_whole:
        text = translate("Media", "all of it matches {span} of {other}").format(
            span=format_span(span.keeper_start_s, span.keeper_end_s, _duration(first)),
            other=other,
        )
    elif (
        abs(span.start_s - span.keeper_start_s) < _WHOLE_S
        and abs(span.end_s - span.keeper_end_s) < _WHOLE_S
    ):  # e.g. all but a black start, which no print counts
        text = translate("Media", "{span} matches the same part of {other}").format(
            span=format_span(span.start_s, span.end_s, _duration(member)), other=other
        )
    elif theirs_whole:
        text = translate("Media", "{span} matches all of {other}").format(
            span=format_span(span.start_s, span.end_s, _duration(member)), other=other
        )
    else:
        text = translate("Media", "{span} matches {theirs} of {other}").format(
            span=format_span(span.start_s, span.end_s, _duration(member)),
            theirs=format_span(span.keeper_start_s, span.keeper_end_s, _duration(first)),
            other=other,
        )
    return f"{alike}: {text}"


def _map(time_s: float, span: MatchedSpan | None, duration: float | None) -> float:
    """A time of the first file as the same moment of a member matched through ``span``."""
    if span is not None:
        theirs = span.keeper_end_s - span.keeper_start_s
        mine = span.end_s - span.start_s
        scale = mine / theirs if theirs > 0 else 1.0
        time_s = span.start_s + (time_s - span.keeper_start_s) * scale
        time_s = min(max(time_s, span.start_s), span.end_s)
    if duration is not None:
        time_s = min(time_s, max(0.0, duration - 0.5))
    return max(0.0, time_s)


@dataclass(frozen=True, slots=True)
class MediaCard:
    """One member as the panel shows it."""

    member: Member
    role: Role
    name: str
    role_text: str
    title: str
    artist: str
    album: str
    #: Which of title, artist, album differ from the kept file's (shown stressed).
    differs: frozenset[str]
    length: str
    quality: str
    resolution: str
    match: str
    #: The part of this file that matched (seconds), shaded on its waveform; None: unknown.
    matched: tuple[float, float] | None
    duration_s: float | None
    #: The moments of this file shown as frames (videos), the same moments on every card.
    frame_times: tuple[float, ...]
    #: Where "Play" starts in this file: the same moment on every card.
    play_from_s: float
    #: Where this file's start lies on the group's shared timeline (seconds from the first
    #: file's start): a copy cut 8 s later starts at 8, so the same moments line up.
    offset_s: float = 0.0


@dataclass(frozen=True, slots=True)
class MediaView:
    """A music or video group as the panel draws it: the kept file first, then the selected
    one, then the rest in the group's order."""

    kind: Kind
    cards: tuple[MediaCard, ...]
    #: Why the kept file is kept ("Kept as the original: lossless, highest bitrate").
    keeper_reason: str
    #: The shared timeline every strip is drawn on (seconds of the first file; it starts
    #: before 0 when a member holds more before the matched part than the first file).
    timeline: tuple[float, float]

    @property
    def is_video(self) -> bool:
        return self.kind is Kind.VIDEO


def _anchor(group: Group, keeper: Member, selected: Member) -> Member | None:
    """The member whose span sets the moments shown: the selected one, else the kept one,
    else any that is not the first file."""
    first = group.members[0]
    for candidate in (selected, keeper, *group.members[1:]):
        if candidate is not first:
            return candidate
    return None


def _reference_window(group: Group, anchor: Member | None) -> tuple[float, float]:
    first = group.members[0]
    if anchor is not None and anchor.span is not None:
        return anchor.span.keeper_start_s, anchor.span.keeper_end_s
    return 0.0, _duration(first) or 0.0


def _tag(facts: MediaFacts | None, name: str) -> str:
    value = getattr(facts, name, None) if facts is not None else None
    return str(value).strip() if value else ""


def media_view(group: Group, keeper: Member, selected: Member, keeper_reason: str) -> MediaView:
    """The cards of a music or video group, ``keeper`` kept and ``selected`` chosen in the
    list (either may be any member; the group's first file is the one spans refer to)."""
    if group.kind not in (Kind.AUDIO, Kind.VIDEO):
        raise ValueError(f"not a music or video group: {group.kind}")
    first = group.members[0]
    anchor = _anchor(group, keeper, selected)
    start, end = _reference_window(group, anchor)
    length = max(0.0, end - start)
    moments = tuple(start + share * length for share in FRAME_SHARES)
    play_moment = start + PLAY_SHARE * length
    order = [keeper] + [m for m in (selected,) if m is not keeper]
    order += [m for m in group.members if all(m is not o for o in order)]
    cards = []
    for member in order:
        role = (
            Role.KEPT if member is keeper else Role.SELECTED if member is selected else Role.OTHER
        )
        duration = _duration(member)
        span = None if member is first else member.span
        if member is first:
            matched: tuple[float, float] | None = (start, end) if anchor is not None else None
        elif span is not None:
            matched = (span.start_s, span.end_s)
        else:
            matched = None
        differs = frozenset(
            name
            for name in ("title", "artist", "album")
            if _tag(member.media, name).casefold() != _tag(keeper.media, name).casefold()
        )
        play_from = _map(play_moment, span, duration)
        if duration is not None:
            play_from = max(0.0, min(play_from, duration - CLIP_S))
        cards.append(
            MediaCard(
                member=member,
                role=role,
                name=os.path.basename(member.path),
                role_text=_role_text(role),
                title=_tag(member.media, "title"),
                artist=_tag(member.media, "artist"),
                album=_tag(member.media, "album"),
                differs=differs,
                length=length_text(member.media),
                quality=quality_text(member.media),
                resolution=resolution_text(member),
                match=match_text(member, first, first is keeper),
                matched=matched,
                duration_s=duration,
                frame_times=tuple(_map(t, span, duration) for t in moments),
                play_from_s=play_from,
                offset_s=span.keeper_start_s - span.start_s if span is not None else 0.0,
            )
        )
    starts = [c.offset_s for c in cards]
    ends = [c.offset_s + (c.duration_s or 0.0) for c in cards]
    timeline = (min(starts, default=0.0), max(ends, default=0.0))
    return MediaView(group.kind, tuple(cards), keeper_reason, timeline)


# --- playing a few seconds ---------------------------------------------------------------


class Playback(enum.Enum):
    """How "Play" plays: ffplay (found beside ffmpeg) with a Stop, a short WAV clip handed to
    the system's player, or not at all (no FFmpeg)."""

    FFPLAY = "ffplay"
    SYSTEM_PLAYER = "system"
    NONE = "none"


def ffplay_beside(ffmpeg: str | None) -> str | None:
    """The ffplay program in ffmpeg's folder, where it is installed (Debian's ffmpeg package
    has it; some builds leave it out)."""
    if not ffmpeg:
        return None
    folder, name = os.path.split(ffmpeg)
    candidate = os.path.join(folder, name.replace("ffmpeg", "ffplay", 1))
    if candidate != ffmpeg and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
        return candidate
    return None


def ffplay_arguments(path: str, start_s: float, seconds: float = CLIP_S) -> list[str]:
    """ffplay's arguments for ``seconds`` of ``path`` from ``start_s``, with no window."""
    from dupfinder.core.media.tools import input_url

    return [
        "-nodisp",
        "-autoexit",
        "-loglevel",
        "error",
        "-ss",
        f"{start_s:.2f}",
        "-t",
        f"{seconds:g}",
        input_url(path),
    ]


def player_problem(stderr: str) -> str:
    """What ffplay said when it could not play (e.g. no sound device), without the sound
    library's own chatter; empty when it said nothing."""
    lines = [line.strip() for line in stderr.splitlines()]
    said = [line for line in lines if line and not line.startswith("ALSA lib ")]
    return said[0] if said else ""


def playback_hint(playback: Playback) -> str:
    """The line under the music cards that says what "Play" does."""
    seconds = f"{CLIP_S:g}"
    if playback is Playback.FFPLAY:
        return translate("Media", "Play plays {seconds} seconds of each file with ffplay.").format(
            seconds=seconds
        )
    if playback is Playback.SYSTEM_PLAYER:
        return translate(
            "Media", "Play opens a {seconds}-second clip of the file in your system's player."
        ).format(seconds=seconds)
    return ""


# --- what was decoded, per file -----------------------------------------------------------


def file_key(member: Member, what: Hashable) -> tuple[object, ...]:
    """A cache key that changes with the file: its path, size and modification time."""
    return (member.path, member.size, member.mtime_ns, what)
