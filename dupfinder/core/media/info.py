"""What a media file is, as ffprobe reads it: duration, codecs, bitrate, size and tags.

The tags are the container's and the streams' (an Ogg or Opus file keeps them on its audio
stream), with lower-case keys; the keep rules and the app read them (lossless first, highest
bitrate, longest, highest resolution).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dupfinder.core.errors import CorruptFile, UnsupportedFile
from dupfinder.core.media.tools import input_url, require_tools, run_tool

__all__ = ["LOSSLESS_CODECS", "TAG_KEYS", "MediaInfo", "probe"]

#: Audio codecs that keep every sample (a FLAC of a song beats its MP3).
LOSSLESS_CODECS = frozenset(
    {"flac", "alac", "ape", "wavpack", "tta", "mlp", "truehd", "wmalossless"}
    | {"pcm_s16le", "pcm_s16be", "pcm_s24le", "pcm_s24be", "pcm_s32le", "pcm_s32be"}
    | {"pcm_f32le", "pcm_f32be", "pcm_f64le", "pcm_u8", "ffv1", "huffyuv", "utvideo"}
)
#: The tags a music group shows side by side (the lower-case keys kept in ``MediaInfo.tags``).
TAG_KEYS = ("title", "artist", "album", "track", "date", "genre")
#: Streams that are pictures inside an audio file (cover art), not video.
_COVER_CODECS = frozenset({"mjpeg", "png", "bmp", "gif", "webp"})


@dataclass(frozen=True, slots=True)
class MediaInfo:
    """One file's container, first audio and video stream, and tags."""

    duration_s: float | None
    container: str
    audio_codec: str | None
    video_codec: str | None
    bitrate: int | None
    sample_rate: int | None
    channels: int | None
    width: int | None
    height: int | None
    lossless: bool
    tags: Mapping[str, str] = field(default_factory=dict)


def _number(value: Any, kind: type[int] | type[float]) -> Any:
    try:
        number = kind(float(value)) if kind is int else float(value)
    except (TypeError, ValueError):
        return None
    if isinstance(number, float) and not math.isfinite(number):
        return None
    return number if number > 0 else None


def _tags(*sources: Mapping[str, Any]) -> dict[str, str]:
    tags: dict[str, str] = {}
    for source in sources:
        for key, value in (source.get("tags") or {}).items():
            name = str(key).lower()
            if name == "tracknumber":
                name = "track"
            if name in TAG_KEYS and name not in tags and str(value).strip():
                tags[name] = str(value).strip()
    return tags


def parse(report: Mapping[str, Any]) -> MediaInfo:
    """``MediaInfo`` from ffprobe's JSON (``-show_format -show_streams``)."""
    streams = [s for s in report.get("streams") or [] if isinstance(s, dict)]
    fmt = report.get("format") or {}
    audio = next((s for s in streams if s.get("codec_type") == "audio"), None)
    video = next(
        (
            s
            for s in streams
            if s.get("codec_type") == "video"
            and s.get("codec_name") not in _COVER_CODECS
            and not (s.get("disposition") or {}).get("attached_pic")
        ),
        None,
    )
    if audio is None and video is None:
        raise UnsupportedFile("holds no audio or video")
    duration = _number(fmt.get("duration"), float)
    if duration is None:
        duration = _number((video or audio or {}).get("duration"), float)
    bitrate = _number(fmt.get("bit_rate"), int)
    if audio is not None and video is None:
        bitrate = _number(audio.get("bit_rate"), int) or bitrate
    codecs = {s.get("codec_name") for s in (audio, video) if s is not None}
    return MediaInfo(
        duration_s=duration,
        container=str(fmt.get("format_name") or ""),
        audio_codec=audio.get("codec_name") if audio else None,
        video_codec=video.get("codec_name") if video else None,
        bitrate=bitrate,
        sample_rate=_number(audio.get("sample_rate"), int) if audio else None,
        channels=_number(audio.get("channels"), int) if audio else None,
        width=_number(video.get("width"), int) if video else None,
        height=_number(video.get("height"), int) if video else None,
        lossless=bool(codecs) and codecs <= LOSSLESS_CODECS,
        tags=_tags(fmt, *(s for s in (audio, video) if s is not None)),
    )


def probe(path: str, *, time_limit_s: float = 10.0) -> MediaInfo:
    """Read one file's ``MediaInfo``; raises ``FileProblem`` subclasses (not media, damaged,
    timed out) with a message for the user."""
    tools = require_tools()
    out = run_tool(
        [
            tools.ffprobe,
            "-v",
            "error",
            "-print_format",
            "json",
            "-show_format",
            "-show_streams",
            input_url(path),
        ],
        time_limit_s=time_limit_s,
        output_limit=16 * 1024 * 1024,
    )
    try:
        report = json.loads(out.decode("utf-8", "replace"))
    except ValueError as exc:
        raise CorruptFile("cannot be read as media") from exc
    if not isinstance(report, dict):
        raise CorruptFile("cannot be read as media")
    return parse(report)
