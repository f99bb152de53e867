"""``dupfinder scan``: find near-duplicates headless and print them for people or scripts."""

from __future__ import annotations

import argparse
import contextlib
import io
import signal
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

from dupfinder.cli.cancellable import run_cancellable
from dupfinder.cli.exit_codes import EXIT_CANCELLED, EXIT_CODES, EXIT_FATAL, EXIT_OK, EXIT_USAGE
from dupfinder.cli.paths import COMPLETE_FILE, COMPLETE_FOLDER, path_argument
from dupfinder.cli.progress import TerminalProgress
from dupfinder.core.model import (
    DEFAULT_IMAGE_SIMILARITY,
    DEFAULT_IMAGE_THRESHOLD,
    DEFAULT_TEXT_SIMILARITY,
    DEFAULT_TEXT_THRESHOLD,
    Grouping,
    Kind,
    ScanOptions,
    ScanResult,
)
from dupfinder.core.wording import escaped

__all__ = [
    "add_comparison_options",
    "add_file_options",
    "add_kind_option",
    "add_output_options",
    "emit_result",
    "options_from_args",
    "register",
    "run_scan_cancellable",
]

_KINDS = {
    "text": frozenset({Kind.TEXT}),
    "image": frozenset({Kind.IMAGE}),
    "audio": frozenset({Kind.AUDIO}),
    "video": frozenset({Kind.VIDEO}),
    "other": frozenset({Kind.OTHER}),
    "all": frozenset(Kind),
}


def _threshold(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 32:
        raise argparse.ArgumentTypeError("must be from 0 to 32 bits")
    return value


def _percent(text: str) -> float:
    """A similarity in percent (0-100), returned as a share (0..1)."""
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError("must be from 0 to 100 (percent)")
    return value / 100


def _size(text: str) -> int:
    """Bytes, with an optional K/M/G suffix (powers of 1024)."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    text = text.strip().lower().removesuffix("b")
    factor = units.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in units else text
    try:
        value = int(float(number) * factor)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def _jobs(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


PATTERNS_HELP = """\
patterns (--include, --exclude) are read as in .gitignore, relative to each scanned PATH:
  *.tmp           a name at any depth (no slash in the pattern)
  node_modules/   a folder at any depth, with everything in it (trailing slash: folders only)
  build/**        build at the top of PATH only (a slash in the middle anchors the pattern)
  **/cache/**     cache at any depth; ** spans folders, * and ? stop at a slash
  !keep.md        re-include what an earlier pattern excluded (the last match wins)
An excluded folder is not entered. --include selects files only; folders are always entered.
"""

SCAN_EXAMPLES = """\
examples:
  dupfinder scan ~/Documents ~/Pictures
  dupfinder scan ~/Pictures --kind image --image-similarity 92 --exclude thumbnails/
  dupfinder scan ~/Music --kind audio --keep quality
  dupfinder scan ~/Code --include '*.md' --exclude node_modules/ --format json -o dups.json
  dupfinder scan ~/Downloads --keep oldest --action trash --yes
"""


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "scan",
        help="find near-duplicate files in folders",
        description="Find near-duplicate documents, pictures, music and videos under PATH... "
        "and print the groups.",
        epilog=f"{PATTERNS_HELP}\n{SCAN_EXAMPLES}\n{EXIT_CODES}",
    )
    paths = parser.add_argument(
        "paths", nargs="+", type=path_argument, metavar="PATH", help="folders or files to scan"
    )
    paths.complete = COMPLETE_FILE
    add_output_options(parser)
    add_kind_option(parser)
    parser.add_argument(
        "--identical",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="find byte-identical files of every type (default); --no-identical finds only "
        "near-duplicate documents and pictures",
    )
    parser.add_argument(
        "--exact-only",
        action="store_true",
        help="find byte-identical files only, as fclones or jdupes do: nothing is fingerprinted "
        "(much faster; documents and pictures known by their suffix)",
    )
    add_comparison_options(parser)
    add_file_options(parser)
    try:
        from dupfinder.cli.action_options import add_action_options
    except ImportError:  # pragma: no cover - present in every release
        add_action_options = None  # type: ignore[assignment]
    if add_action_options is not None:
        add_action_options(parser)
    parser.set_defaults(handler=_handle)


def add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("text", "json", "csv"),
        default="text",
        help="text for people (default), json (the documented contract) or csv",
    )
    output = parser.add_argument(
        "--output", "-o", type=path_argument, metavar="FILE", help="write the result here"
    )
    output.complete = COMPLETE_FILE  # type: ignore[attr-defined]


def add_kind_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kind",
        choices=tuple(_KINDS),
        default="all",
        help="what to compare: documents, pictures, music, videos (by content where FFmpeg is "
        "installed), other files (by their bytes only) or all (default)",
    )


def add_comparison_options(
    parser: argparse.ArgumentParser, *, radius: bool = True, verify: bool = True
) -> None:
    """What makes files one group: the search ``radius`` (bits) and the ``verify`` step
    (the verified text similarity and the grouping rules)."""
    if radius:
        parser.add_argument(
            "--text-bits",
            type=_threshold,
            default=DEFAULT_TEXT_THRESHOLD,
            metavar="K",
            help="search radius: documents whose 64-bit fingerprints differ in at most K bits are "
            f"compared (default {DEFAULT_TEXT_THRESHOLD}; larger finds more, slower)",
        )
        parser.add_argument(
            "--image-threshold",
            "--image-bits",
            type=_threshold,
            default=DEFAULT_IMAGE_THRESHOLD,
            metavar="K",
            help="search radius: pictures whose 64-bit perceptual hashes differ in at most K bits "
            f"are compared (default {DEFAULT_IMAGE_THRESHOLD}; larger finds more, slower)",
        )
    if not verify:
        return
    parser.add_argument(
        "--text-threshold",
        type=_percent,
        default=DEFAULT_TEXT_SIMILARITY,
        metavar="PERCENT",
        help="how much text two documents must share to be grouped: the verified similarity "
        f"in percent of 3-word runs (default {DEFAULT_TEXT_SIMILARITY * 100:.0f}%%)",
    )
    parser.add_argument(
        "--image-similarity",
        type=_percent,
        default=DEFAULT_IMAGE_SIMILARITY,
        metavar="PERCENT",
        help="how alike two pictures must look to be grouped: the verified similarity in "
        "percent of their layout and colours on small thumbnails "
        f"(default {DEFAULT_IMAGE_SIMILARITY * 100:.0f}%%; 92-95 for icons and clip art)",
    )
    parser.add_argument(
        "--audio-similarity",
        type=_percent,
        default=None,
        metavar="PERCENT",
        help="how alike two recordings must sound to be grouped: the verified similarity in "
        "percent over the part they share, once aligned (default: dupfinder's own figure)",
    )
    parser.add_argument(
        "--video-similarity",
        type=_percent,
        default=None,
        metavar="PERCENT",
        help="how alike two videos must look to be grouped: the verified similarity in percent "
        "of their frames over the part they share, once aligned (default: dupfinder's own figure)",
    )
    for kind in ("text", "image"):
        parser.add_argument(
            f"--{kind}-grouping",
            choices=[g.value for g in Grouping],
            default=Grouping.STAR.value,
            help=f"{kind} groups: 'star' (default) keeps every member verified-similar to the "
            "group's first file; 'connected' also follows chains of matches (drafts that drift)",
        )


def add_file_options(parser: argparse.ArgumentParser) -> None:
    """Which files are read and how they are fingerprinted."""
    parser.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only files these patterns select (repeatable; as in .gitignore, see below), "
        "e.g. '*.md'",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERN",
        help="skip files and folders these patterns select (repeatable; as in .gitignore, "
        "see below), e.g. node_modules/",
    )
    parser.add_argument(
        "--min-size", type=_size, default=1, metavar="BYTES", help="skip smaller files (1, 10K, 2M)"
    )
    parser.add_argument("--max-size", type=_size, default=None, metavar="BYTES")
    parser.add_argument(
        "--reference",
        type=path_argument,
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of originals (repeatable): its files are suggested as the ones to keep",
    )
    parser.add_argument("--hidden", action="store_true", help="include hidden files and folders")
    parser.add_argument(
        "--follow-symlinks", action="store_true", help="follow symbolic links (loops are detected)"
    )
    parser.add_argument(
        "--mirror-rotate",
        action="store_true",
        help="also match images that are mirrored or rotated by 90 degrees",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default=None,
        metavar="N",
        help="worker processes (default: cores)",
    )
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    cache_dir = parser.add_argument(
        "--cache-dir", type=path_argument, metavar="DIR", help="where the fingerprint cache lives"
    )
    cache_dir.complete = COMPLETE_FOLDER  # type: ignore[attr-defined]


#: ScanOptions fields set by the options above (argument name: field name).
_OPTION_FIELDS = {
    "identical": "identical",
    "text_bits": "text_threshold",
    "text_threshold": "text_similarity",
    "image_threshold": "image_threshold",
    "image_similarity": "image_similarity",
    "audio_similarity": "audio_similarity",
    "video_similarity": "video_similarity",
    "min_size": "min_size",
    "max_size": "max_size",
}


def options_from_args(args: argparse.Namespace) -> ScanOptions:
    """ScanOptions from whichever option groups above the command has (others: defaults)."""
    given = vars(args)
    extra: dict[str, Any] = {
        field: given[name] for name, field in _OPTION_FIELDS.items() if name in given
    }
    for name in ("text_grouping", "image_grouping"):
        if name in given:
            extra[name] = Grouping(given[name])
    if given.get("jobs") is not None:
        extra["jobs"] = given["jobs"]
    if given.get("exact_only"):
        extra["near_duplicates"] = False
    if "include" in given:
        extra.update(
            include=tuple(args.include),
            exclude=tuple(args.exclude),
            include_hidden=args.hidden,
            follow_symlinks=args.follow_symlinks,
            image_invariance=args.mirror_rotate,
            references=tuple(Path(p) for p in args.reference),
            use_cache=not args.no_cache,
            cache_dir=Path(args.cache_dir) if args.cache_dir else None,
        )
    return ScanOptions(
        roots=tuple(Path(p) for p in given.get("paths") or ()),
        kinds=_KINDS[given.get("kind", "all")],
        **extra,
    )


#: Signals that cancel a scan: Ctrl-C, and a polite request to stop (``kill``, ``timeout``,
#: a service manager). Either stops the scan within a second or two and exits 128 + its number.
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Stopped(KeyboardInterrupt):
    """Raised out of a phase that has nothing to keep (comparing fingerprints all in hand)."""


class _StopRequest:
    """What the stop signals did: the cancel event they set and the last signal's number."""

    def __init__(self, err: TextIO) -> None:
        self.cancel = threading.Event()
        self.signum = 0
        self.comparing = False
        self._err = err

    def __call__(self, signum: int, frame: object) -> None:
        first = not self.cancel.is_set()
        self.signum = signum
        self.cancel.set()
        if first:
            self._err.write("\ncancelling…\n")
        # Comparing checks no cancel event and keeps nothing: stop it where it stands. A
        # second signal stops whatever runs.
        if self.comparing or not first:
            raise _Stopped


def cancelled_code(signum: int) -> int:
    """The exit code of a scan a signal stopped: 130 for Ctrl-C, 143 for SIGTERM."""
    return 128 + signum if signum else EXIT_CANCELLED


def run_scan_cancellable(
    options: ScanOptions, err: TextIO, stop: _StopRequest | None = None
) -> ScanResult:
    """Run the scan so that Ctrl-C (or SIGTERM) cancels it cleanly.

    On the main thread the scan runs right here and a signal only sets the cancel event
    (or, while comparing, where nothing is left to keep, stops at once): the per-file time
    limit (SIGALRM, main thread only) then also guards the files a small scan reads in this
    process, which a scan on a helper thread would wait on forever. A second signal stops at
    once. Called from another thread, the scan runs on a helper thread.
    """
    from dupfinder.core.model import Phase, Progress, ScanStats
    from dupfinder.core.scan import exact_only

    if exact_only.serves(options):  # byte-identical files only: the path without numpy
        run = exact_only.find_exact
    else:
        from dupfinder.core.scan import pipeline

        run = pipeline.run

    bar = TerminalProgress(err)

    def cancelling() -> None:
        err.write("\ncancelling…\n")

    try:
        if threading.current_thread() is not threading.main_thread():
            return run_cancellable(
                lambda cancel: run(options, bar, cancel), "dupfinder-scan", cancelling
            )
        stop = stop if stop is not None else _StopRequest(err)

        def progress(sample: Progress) -> None:
            stop.comparing = sample.phase is Phase.COMPARING
            if stop.comparing and stop.cancel.is_set():
                raise _Stopped
            bar(sample)

        previous = {signum: signal.signal(signum, stop) for signum in _STOP_SIGNALS}
        try:
            return run(options, progress, stop.cancel)
        except _Stopped:
            return ScanResult(stats=ScanStats(cancelled=True))
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
    finally:
        bar.finish()


def write_result(result: ScanResult, fmt: str, out: TextIO) -> None:
    from dupfinder.core.results import report

    writer = {"json": report.write_json, "csv": report.write_csv, "text": report.write_text}[fmt]
    writer(result, out)


def _handle(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        options = options_from_args(args)
    except ValueError as exc:
        err.write(f"dupfinder scan: error: {escaped(str(exc))}\n")
        return EXIT_USAGE
    missing = [p for p in options.roots if not p.exists()]
    if missing:
        err.write(f"dupfinder scan: error: no such file or folder: {escaped(str(missing[0]))}\n")
        return EXIT_USAGE
    stop = _StopRequest(err)
    try:
        result = run_scan_cancellable(options, err, stop)
    except Exception as exc:
        err.write(f"dupfinder: scan failed: {escaped(str(exc))}\n")
        return EXIT_FATAL
    if result.stats.cancelled:
        err.write("dupfinder: scan cancelled\n")
        return cancelled_code(stop.signum)
    result = _without_ignored(result, getattr(args, "decisions", None))
    if not emit_result(result, args.format, args.output, out, err):
        return EXIT_FATAL
    if args.format != "text" or args.output:  # the table says them itself
        for notice in result.notices:
            err.write(f"dupfinder: {escaped(notice)}\n")
    if getattr(args, "action", None) or getattr(args, "keep", None):
        from dupfinder.cli.actions_cmd import run_actions

        return int(run_actions(result, args, out if args.output else err, err, options))
    return EXIT_OK


def emit_result(result: ScanResult, fmt: str, output: str | None, out: TextIO, err: TextIO) -> bool:
    """Write the result to ``output`` (a file) or ``out``; False (reported) when it cannot."""
    buffer = io.StringIO()
    write_result(result, fmt, buffer)
    text = buffer.getvalue()
    try:
        if output:
            with open(output, "w", encoding="utf-8", errors="surrogateescape") as handle:
                handle.write(text)
        else:
            _write_stdout(out, text)
    except OSError as exc:
        err.write(f"dupfinder: cannot write the result: {escaped(str(exc))}\n")
        return False
    return True


def _without_ignored(result: ScanResult, decisions_path: str | None) -> ScanResult:
    """Hide what the user marked "not a duplicate" (remembered by content, not by path)."""
    from dupfinder.core.results.decisions import DecisionStore, apply_decisions

    return apply_decisions(result, DecisionStore(decisions_path).load())


def _write_stdout(out: TextIO, text: str) -> None:
    """File names that are not valid UTF-8 go out as their original bytes."""
    if out is sys.stdout and hasattr(out, "buffer"):
        out.flush()
        out.buffer.write(text.encode("utf-8", "surrogateescape"))
        out.buffer.flush()
        return
    with contextlib.suppress(UnicodeEncodeError):
        out.write(text)
        return
    out.write(text.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
