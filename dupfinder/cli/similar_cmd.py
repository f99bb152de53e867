"""``dupfinder similar FILE [FOLDER...]``: the files like one document or picture."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from dupfinder.cli import scan_cmd
from dupfinder.cli.exit_codes import EXIT_CODES, EXIT_FATAL, EXIT_OK, EXIT_USAGE
from dupfinder.cli.paths import COMPLETE_FILE, COMPLETE_FOLDER, path_argument
from dupfinder.core.model import MatchedSpan, MediaFacts
from dupfinder.core.scan.similar import Match, NoFolders, SimilarResult
from dupfinder.core.wording import count, escaped, format_span, similarity_percent

__all__ = ["register", "render_json", "render_text"]

_EXAMPLES = """\
examples:
  dupfinder similar report.docx ~/Documents       documents like report.docx
  dupfinder similar photo.jpg                      pictures like photo.jpg, in the last scan's folders
  dupfinder similar notes.md ~/Notes --format json
"""


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "similar",
        help="find files like one document, picture, song or video",
        description="List the near-duplicates of FILE in FOLDER... (default: the folders of "
        "the last scan), most similar first, with their verified similarity.",
        epilog=f"{_EXAMPLES}\n{EXIT_CODES}",
    )
    target = parser.add_argument(
        "file", type=path_argument, metavar="FILE", help="the document, picture, song or video"
    )
    target.complete = COMPLETE_FILE
    folders = parser.add_argument(
        "folders", nargs="*", type=path_argument, metavar="FOLDER", help="where to look"
    )
    folders.complete = COMPLETE_FOLDER
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default) or json"
    )
    scan_cmd.add_comparison_options(parser)
    scan_cmd.add_file_options(parser)
    parser.set_defaults(handler=_handle)


def render_text(result: SimilarResult) -> str:
    if result.kind is None:
        problem = result.problem or (
            "not a document, picture, song or video that can be fingerprinted"
        )
        return f"{escaped(result.target)}: {escaped(problem)}\n"
    target = escaped(result.target)
    spans = _spans(result)
    lines = [f"{count(len(result.matches), 'file')} like {target} ({result.kind.value}):"]
    lines += [
        f"  {_similarity(m)}  distance {m.distance:2d}  {escaped(m.path)}{spans.get(m.path, '')}"
        for m in result.matches
    ]
    return "\n".join(lines) + "\n"


def _media(result: SimilarResult) -> dict[str, tuple[MatchedSpan, MediaFacts | None]]:
    """The matched span of each song or video like the target (and its header's facts)."""
    if result.group is None:
        return {}
    return {m.path: (m.span, m.media) for m in result.group.members if m.span is not None}


def _spans(result: SimilarResult) -> dict[str, str]:
    """ "  (0:12–3:05 of 3:41)" per media match: the part of it that matched the target."""
    return {
        path: f"  ({format_span(span.start_s, span.end_s, facts.duration_s if facts else None)})"
        for path, (span, facts) in _media(result).items()
    }


def _similarity(match: Match) -> str:
    """ "Identical" for the same bytes; otherwise rounded down, never to 100 %."""
    if match.identical:
        return f"{'identical':>9}"
    return f"{similarity_percent(match.similarity, same_bytes=False):>9}"


def render_json(result: SimilarResult) -> str:
    media = _media(result)
    document = {
        "target": result.target,
        "kind": result.kind.value if result.kind else None,
        "folders": list(result.folders),
        "matches": [
            {
                "path": m.path,
                "similarity": round(m.similarity, 4),
                "distance": m.distance,
                "identical": m.identical,
                **_match_fields(media.get(m.path)),
            }
            for m in result.matches
        ],
        "errors": [{"path": e.path, "code": e.code, "error": e.error} for e in result.errors],
    }
    if result.kind is None and result.problem is not None:
        document["problem"] = result.problem
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _match_fields(found: tuple[MatchedSpan, MediaFacts | None] | None) -> dict[str, Any]:
    """A media match's span against the target, as the scan's JSON writes a member's."""
    from dupfinder.core.results.report import span_to_dict

    return {} if found is None else {"match": span_to_dict(found[0])}


def _handle(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from dupfinder.core.scan.similar import similar

    options = scan_cmd.options_from_args(args)
    try:
        result = similar(args.file, args.folders, options)
    except NoFolders as exc:
        err.write(f"dupfinder similar: {escaped(str(exc))}\n")
        return EXIT_USAGE
    out.write(render_json(result) if args.format == "json" else render_text(result))
    return EXIT_OK if result.kind is not None else EXIT_FATAL
