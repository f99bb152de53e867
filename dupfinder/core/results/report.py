"""Write and read scan results: the JSON contract, CSV and a human-readable table.

The JSON shape is a public contract (see the README): fields may be added, never renamed
or removed, and ``version`` changes only when an existing field changes meaning.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

from dupfinder.core.model import (
    MEDIA_KINDS,
    Edit,
    Group,
    Kind,
    MatchedSpan,
    Member,
    ScanResult,
)
from dupfinder.core.results.reader import (
    FORMAT_VERSION,
    parse_json,
    read_result_text,
    result_from_dict,
)
from dupfinder.core.wording import (
    count,
    escaped,
    format_bitrate,
    format_duration,
    format_size,
    format_span,
    similarity_percent,
)

__all__ = [
    "FORMAT_VERSION",
    "edit_to_dict",
    "load_result",
    "result_from_dict",
    "result_to_dict",
    "save_result",
    "span_to_dict",
    "summary",
    "write_csv",
    "write_json",
    "write_text",
]

CSV_COLUMNS = (
    "group",
    "kind",
    "representative",
    "path",
    "size",
    "mtime",
    "distance",
    "similarity",
    "width",
    "height",
    "fingerprint",
    "identical",
    "content_hash",
    # music and videos (empty for other kinds)
    "duration",
    "bitrate",
    "codec",
    "lossless",
    "title",
    "artist",
    "album",
    "match_start",
    "match_end",
    # pictures: what differs from the kept one ("; "-separated, as the table says it)
    "edits",
)


def _member_to_dict(member: Member) -> dict[str, Any]:
    data: dict[str, Any] = {
        "path": member.path,
        "size": member.size,
        "mtime": member.mtime,
        "mtime_ns": member.mtime_ns,
        "distance": member.distance,
        "similarity": member.similarity,
        "fingerprint": member.fingerprint.hex(),
    }
    if member.width is not None and member.height is not None:
        data["width"] = member.width
        data["height"] = member.height
    if member.ino:
        data.update(dev=member.dev, ino=member.ino, ctime_ns=member.ctime_ns)
    data["links"] = member.links
    data["identical"] = member.identical
    if member.content_hash is not None:
        data["content_hash"] = member.content_hash
    if member.media is not None:  # version 2: music and videos
        facts = member.media
        media: dict[str, Any] = {"lossless": facts.lossless}
        if facts.duration_s is not None:
            media["duration"] = round(facts.duration_s, 3)
        for key, value in (
            ("bitrate", facts.bitrate),
            ("codec", facts.codec),
            ("title", facts.title),
            ("artist", facts.artist),
            ("album", facts.album),
        ):
            if value is not None:
                media[key] = value
        data["media"] = media
    if member.span is not None:
        data["match"] = span_to_dict(member.span)
    if member.edits:  # pictures: what differs from the kept one
        data["edits"] = [edit_to_dict(edit) for edit in member.edits]
    return data


def edit_to_dict(edit: Edit) -> dict[str, Any]:
    """A picture's edit as the JSON contract writes it: its code, and the numbers it has."""
    data: dict[str, Any] = {"code": str(edit.code)}
    if edit.percent:
        data["percent"] = edit.percent
    if edit.sides:
        data["sides"] = [str(side) for side in edit.sides]
    if edit.width and edit.height:
        data.update(
            width=edit.width, height=edit.height, of_width=edit.of_width, of_height=edit.of_height
        )
    if edit.format:
        data["format"] = edit.format
    if edit.quality:
        data["quality"] = edit.quality
    return data


def span_to_dict(span: MatchedSpan) -> dict[str, float]:
    """A media member's matched span as the JSON contract writes it (``match``)."""
    return {
        "start": round(span.start_s, 3),
        "end": round(span.end_s, 3),
        "keeper_start": round(span.keeper_start_s, 3),
        "keeper_end": round(span.keeper_end_s, 3),
    }


def result_to_dict(result: ScanResult, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON contract as a dict; ``extra`` adds top-level keys (e.g. saved marks)."""
    data: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "groups": [
            {
                "kind": str(group.kind),
                "identical": group.identical,
                "representative": group.representative.path,
                "keeper_reasons": [str(reason) for reason in group.reasons],
                "members": [_member_to_dict(m) for m in group.members],
            }
            for group in result.groups
        ],
        "errors": [{"path": e.path, "error": e.error, "code": e.code} for e in result.errors],
        "stats": {
            "files_seen": result.stats.files_seen,
            "files_fingerprinted": result.stats.files_fingerprinted,
            "files_from_cache": result.stats.files_from_cache,
            "files_bytes_only": result.stats.files_bytes_only,
            "pairs": result.stats.pairs,
            "seconds": round(result.stats.seconds, 3),
            "cancelled": result.stats.cancelled,
        },
        "notices": list(result.notices),
    }
    if extra:
        data.update(extra)
    return data


def write_json(result: ScanResult, out: TextIO, extra: Mapping[str, Any] | None = None) -> None:
    """UTF-8 JSON; file names that are not valid UTF-8 are written as \\udcXX escapes.

    Laid out as the README shows it: the result and each group indented, a member or an
    error on a line of its own. Each line is written by the json module's C encoder (its
    indenting encoder is pure Python: 50 ms of a 0.3 s scan for 800 groups), one encoder
    for the whole result (setting one up for each line cost 25 ms of 800 groups' 30)."""
    data = result_to_dict(result, extra)
    text = _laid_out(data, _UTF8)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from undecodable file names
        text = _laid_out(data, _ASCII)
    out.write(text + "\n")


class _OneLine:
    """Values as compact JSON on one line (``", "`` and ``": "`` between items), by one C
    encoder kept for every line of a result. ``json.dumps`` builds a new encoder at each
    call, which costs more than encoding a member; where the json module has no C encoder
    (another Python), ``JSONEncoder.encode`` writes the very same text."""

    def __init__(self, ensure_ascii: bool) -> None:
        encoder = json.JSONEncoder(ensure_ascii=ensure_ascii, separators=(", ", ": "))
        self.string: Callable[[str], str] = (
            json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
        )
        self.value: Callable[[Any], str] = encoder.encode
        make = getattr(json.encoder, "c_make_encoder", None)
        if make is None:
            return
        try:  # the arguments JSONEncoder.iterencode gives it; no marks: results hold no loops
            chunks = make(None, encoder.default, self.string, None, ": ", ", ", False, False, True)
        except TypeError:  # pragma: no cover - a json module that builds it otherwise
            return
        self.value = lambda value: "".join(chunks(value, 0))


_UTF8 = _OneLine(ensure_ascii=False)
_ASCII = _OneLine(ensure_ascii=True)
#: Objects this deep or deeper (a member, an error) are written on one line.
_ONE_LINE_DEPTH = 3


def _laid_out(value: Any, encode: _OneLine, depth: int = 0) -> str:
    """``value`` as JSON: a list of objects one item a line, an object that holds such a list
    one key a line (above ``_ONE_LINE_DEPTH``), anything else on one line."""
    if isinstance(value, list) and _holds_objects(value):
        deep = depth + 1 >= _ONE_LINE_DEPTH  # its objects (members, errors): one line each
        items = [
            encode.value(v) if deep and isinstance(v, dict) else _laid_out(v, encode, depth + 1)
            for v in value
        ]
        opening, closing = "[", "]"
    elif isinstance(value, dict) and depth < _ONE_LINE_DEPTH and _spreads(value):
        string, deeper = encode.string, depth + 1
        items = [
            f"{string(key)}: "
            + (
                string(v)
                if isinstance(v, str)
                else _laid_out(v, encode, deeper)
                if isinstance(v, (list, dict))
                else encode.value(v)
            )
            for key, v in value.items()
        ]
        opening, closing = "{", "}"
    elif isinstance(value, str):
        return encode.string(value)
    else:
        return encode.value(value)
    pad = "\n" + "  " * (depth + 1)
    return opening + pad + ("," + pad).join(items) + "\n" + "  " * depth + closing


def _holds_objects(items: list[Any]) -> bool:
    """``items`` holds an object (a loop: ``any`` over a generator costs more, once a group)."""
    for item in items:  # noqa: SIM110
        if isinstance(item, dict):
            return True
    return False


def _spreads(value: dict[str, Any]) -> bool:
    """``value`` holds a list of objects: it is written one key a line."""
    for item in value.values():  # noqa: SIM110
        if isinstance(item, list) and _holds_objects(item):
            return True
    return False


def save_result(
    result: ScanResult, path: str | os.PathLike[str], extra: Mapping[str, Any] | None = None
) -> None:
    """Write atomically (temp file + rename) so a crash never leaves half a result."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    with tmp.open("w", encoding="utf-8") as out:
        write_json(result, out, extra)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, target)


def load_result(path: str | os.PathLike[str]) -> tuple[ScanResult, dict[str, Any]]:
    """Read a saved result; returns it with the raw dict (for extra keys such as marks)."""
    text = read_result_text(path)  # a regular file only, of a bounded size
    data = parse_json(text, os.fspath(path))
    return result_from_dict(data), data


def _media_cells(m: Member) -> list[Any]:
    facts, span = m.media, m.span
    if facts is None:
        cells: list[Any] = [""] * 7
    else:
        cells = [
            "" if facts.duration_s is None else f"{facts.duration_s:.3f}",
            facts.bitrate or "",
            facts.codec or "",
            int(facts.lossless),
            facts.title or "",
            facts.artist or "",
            facts.album or "",
        ]
    if span is None:
        return [*cells, "", ""]
    return [*cells, f"{span.start_s:.3f}", f"{span.end_s:.3f}"]


def _csv_rows(result: ScanResult) -> Iterable[list[Any]]:
    for number, group in enumerate(result.groups, start=1):
        for index, m in enumerate(group.members):
            yield [
                number,
                str(group.kind),
                int(index == 0),
                m.path,
                m.size,
                f"{m.mtime:.3f}",
                m.distance,
                f"{m.similarity:.3f}",
                "" if m.width is None else m.width,
                "" if m.height is None else m.height,
                m.fingerprint.hex(),
                int(m.identical),
                m.content_hash or "",
                *_media_cells(m),
                "; ".join(edit.label() for edit in m.edits),
            ]


def write_csv(result: ScanResult, out: TextIO) -> None:
    """One row per member, numbered by group; errors are not part of the CSV.

    The csv module quotes only the characters of its line terminator, so a row whose file
    name holds a carriage return is written fully quoted: unquoted, readers split it there.
    """
    import csv  # (a scan that writes JSON or text never needs it)

    writer = csv.writer(out, lineterminator="\n")
    quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(CSV_COLUMNS)
    for row in _csv_rows(result):
        (quoted if "\r" in row[3] else writer).writerow(row)


def summary(result: ScanResult) -> str:
    """One line whose counts add up: every file seen was fingerprinted, compared by its bytes
    only (other files), or skipped (with a problem listed); every fingerprint came either
    from the cache or from reading the file."""
    stats = result.stats
    found = f"{count(len(result.groups), 'group')} in {count(stats.files_seen, 'file')}"
    if stats.cancelled:
        return f"{found} · cancelled after {stats.seconds:.2f} s"
    readable = stats.files_seen - stats.files_bytes_only  # those meant to be fingerprinted
    unreadable = readable - stats.files_fingerprinted
    read_now = readable - stats.files_from_cache
    others = len(result.errors) - unreadable  # folders that could not be listed, and such
    by_bytes = f"{stats.files_bytes_only:,} by their bytes only, " if stats.files_bytes_only else ""
    parts = [
        found,
        f"{stats.files_fingerprinted:,} fingerprinted, {by_bytes}{unreadable:,} skipped",
        f"{stats.files_from_cache:,} from the cache, {read_now:,} read now",
    ]
    if others > 0:
        parts.append(count(others, "other problem"))
    parts.append(f"{stats.seconds:.2f} s")
    return " · ".join(parts)


def _media_line(group: Group, m: Member, keeper: bool) -> str:
    """A song's or a video's facts under its line: length, bitrate, codec, lossless, the
    part that matched the keeper, and its tags (tags come from the file: escaped)."""
    facts = m.media
    parts: list[str] = []
    if facts is not None:
        if facts.duration_s:
            parts.append(format_duration(facts.duration_s))
        if facts.bitrate:
            parts.append(format_bitrate(facts.bitrate))
        if facts.codec:
            parts.append(escaped(facts.codec) + (" (lossless)" if facts.lossless else ""))
    if not keeper and m.span is not None:
        duration = facts.duration_s if facts is not None else None
        kept = group.members[0].media
        kept_length = kept.duration_s if kept is not None else None
        parts.append(
            f"matches {format_span(m.span.start_s, m.span.end_s, duration)}"
            f" (keeper's {format_span(m.span.keeper_start_s, m.span.keeper_end_s, kept_length)})"
        )
    tags = [getattr(facts, name) for name in ("title", "artist", "album")] if facts else []
    if any(tags):
        parts.append(" \u2014 ".join(escaped(tag) for tag in tags if tag))
    return f"      {' · '.join(parts)}\n" if parts else ""


def write_text(result: ScanResult, out: TextIO) -> None:
    """A table for people: one block per group, representative first, then the problems.
    File names are shown escaped (``wording.escaped``): a name cannot drive the terminal."""
    buffer = io.StringIO()
    for number, group in enumerate(result.groups, start=1):
        reclaim = format_size(group.reclaimable_bytes)
        files = "identical files" if group.identical else "files"
        buffer.write(
            f"Group {number} · {group.kind} · {len(group.members)} {files} · "
            f"{reclaim} reclaimable\n"
        )
        if group.reasons:  # why the file marked * is the one to keep
            why = ", ".join(str(reason).replace("-", " ") for reason in group.reasons)
            buffer.write(f"  kept (*) as the original: {why}\n")
        copies = any(m.identical for m in group.members)
        for index, m in enumerate(group.members):
            marker = "*" if index == 0 else " "
            dims = f"  {m.width}x{m.height}" if m.width and m.height else ""
            others = m.links - 1
            links = f"  (+{others} other link{'s' * (others != 1)})" if others else ""
            if group.identical:
                closeness = "identical"
            else:  # members with the same bytes share a short tag of their content hash
                same = f"  ={m.content_hash[:6]}" if m.content_hash else " " * 9 * copies
                percent = similarity_percent(m.similarity, group.same_bytes_as_keeper(m))
                closeness = f"{m.distance:>2} bits {percent:>4}{same}"
            buffer.write(
                f"  {marker} {closeness}  {format_size(m.size):>9}{dims}  {escaped(m.path)}{links}\n"
            )
            if group.kind in MEDIA_KINDS:
                buffer.write(_media_line(group, m, index == 0))
            elif group.kind is Kind.IMAGE and m.edits:
                buffer.write(f"      what changed: {' · '.join(e.label() for e in m.edits)}\n")
        buffer.write("\n")
    for notice in result.notices:
        buffer.write(f"note: {escaped(notice)}\n")
    for error in result.errors:
        buffer.write(f"! {escaped(error.path)}: {escaped(error.error)}\n")
    buffer.write(summary(result) + "\n")
    out.write(buffer.getvalue())
