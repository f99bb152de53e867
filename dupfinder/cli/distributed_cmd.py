"""``dupfinder fingerprint``, ``pairs`` and ``groups``: one scan split across machines.

``fingerprint`` writes one shard of fingerprints (Parquet) per machine; ``pairs`` finds
every pair within the radius on a Dask cluster; ``groups`` turns fingerprints and pairs into
the same result ``dupfinder scan`` prints. They need the ``distributed`` extra; without it
they say how to install it (the desktop install and ``scan`` never need it).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from dupfinder.cli import scan_cmd
from dupfinder.cli.exit_codes import EXIT_CANCELLED, EXIT_FATAL, EXIT_OK, EXIT_USAGE
from dupfinder.cli.paths import COMPLETE_FILE, COMPLETE_FOLDER, path_argument
from dupfinder.core.errors import DupfinderError, ExtraMissing
from dupfinder.core.model import Kind
from dupfinder.core.wording import escaped

__all__ = ["register"]

_INSTALL = "pip install 'dupfinder[distributed]'"


def register(commands: Any) -> None:
    fingerprint = commands.add_parser(
        "fingerprint",
        help="fingerprint files into Parquet (one shard per machine)",
        description="Fingerprint files as 'scan' does and write them, with their metadata, to "
        "a Parquet shard in DIR. Run it on several machines with --shard 0/N ... N-1/N over "
        "the same list; 'pairs' and 'groups' read all shards.",
    )
    source = fingerprint.add_mutually_exclusive_group(required=True)
    paths = source.add_argument(
        "paths",
        nargs="*",
        default=[],
        type=path_argument,
        metavar="PATH",
        help="folders or files",
    )
    paths.complete = COMPLETE_FILE
    listing = source.add_argument(
        "--files-from",
        type=path_argument,
        metavar="LIST",
        help="read paths from this file, one per line ('-': stdin)",
    )
    listing.complete = COMPLETE_FILE
    fingerprint.add_argument(
        "--null", "-0", action="store_true", help="paths in LIST end with NUL (find -print0)"
    )
    _folder(fingerprint, "--out", required=True, metavar="DIR", help="folder of the shards")
    fingerprint.add_argument(
        "--shard", default="0/1", metavar="I/N", help="take share I of N (0 <= I < N; default 0/1)"
    )
    scan_cmd.add_kind_option(fingerprint)
    scan_cmd.add_file_options(fingerprint)
    fingerprint.set_defaults(handler=_fingerprint)

    pairs = _reader(
        commands,
        "pairs",
        "find every near pair of stored fingerprints on a Dask cluster",
        "Find every pair within the thresholds among the fingerprints in FINGERPRINTS, on a "
        "local Dask cluster or the one at --scheduler, and write them as Parquet to --out.",
    )
    _folder(pairs, "--out", required=True, metavar="DIR", help="folder for the pairs")
    pairs.add_argument(
        "--scheduler", metavar="ADDRESS", help="a running Dask scheduler (tcp://host:8786)"
    )
    for flag, metavar, text in (
        ("--workers", "N", "local cluster: worker processes (default: cores)"),
        ("--blocks", "M", "split fingerprints into M blocks: C(M, K) tables (default: by cost)"),
        ("--partitions", "P", "partitions per table (default: 2 per worker, <= 2M fingerprints)"),
    ):
        pairs.add_argument(flag, type=_positive, default=None, metavar=metavar, help=text)
    pairs.add_argument(
        "--memory-limit",
        default="auto",
        metavar="BYTES",
        help="local cluster: memory per worker, e.g. 4GB (default: share of the machine)",
    )
    pairs.add_argument(
        "--shuffle",
        choices=("p2p", "tasks"),  # ShuffleMethod (not imported: it needs the extra)
        default=None,
        help="Dask shuffle method (default: Dask's choice, p2p on a cluster)",
    )
    scan_cmd.add_kind_option(pairs)
    scan_cmd.add_comparison_options(pairs, verify=False)
    pairs.set_defaults(handler=_pairs)

    groups = _reader(
        commands,
        "groups",
        "groups of stored fingerprints, as 'scan' prints them",
        "Print the groups of the files in FINGERPRINTS, exactly as 'scan --no-identical' "
        "would. With --pairs, use the pairs found by 'pairs' (and its search radius) and read "
        "back only the paired files; without, search everything on this machine.",
    )
    _folder(groups, "--pairs", metavar="DIR", help="pairs written by 'dupfinder pairs'")
    scan_cmd.add_output_options(groups)
    scan_cmd.add_kind_option(groups)
    scan_cmd.add_comparison_options(groups)
    groups.set_defaults(handler=_groups)


def _reader(commands: Any, name: str, summary: str, description: str) -> argparse.ArgumentParser:
    """A command that reads a folder of fingerprint shards."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name, help=summary, description=description
    )
    _folder(parser, "fingerprints", metavar="FINGERPRINTS", help="folder of fingerprint shards")
    return parser


def _folder(parser: argparse.ArgumentParser, *flags: str, **options: Any) -> None:
    """An argument naming a folder (shell completion offers folders)."""
    action = parser.add_argument(*flags, type=path_argument, **options)
    action.complete = COMPLETE_FOLDER  # type: ignore[attr-defined]


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _missing(command: str, err: TextIO, exc: ImportError) -> int:
    if isinstance(exc, ExtraMissing):
        err.write(f"dupfinder {command}: {escaped(str(exc))}\n")
    else:  # e.g. a bundle built without the extra
        err.write(f"dupfinder {command}: needs the distributed extra ({exc}): {_INSTALL}\n")
    return EXIT_FATAL


def _listed(source: str, null: bool) -> Iterator[str]:
    """Paths from a list file, streamed (a list of millions is never held)."""
    sep = b"\0" if null else b"\n"
    handle = sys.stdin.buffer if source == "-" else open(source, "rb")  # noqa: SIM115
    with handle if source != "-" else contextlib.nullcontext(handle):
        rest = b""
        for block in iter(lambda: handle.read(1 << 20), b""):
            rest += block
            *lines, rest = rest.split(sep)
            for line in lines:
                if line.strip():
                    yield os.fsdecode(line.rstrip(b"\r") if not null else line)
        if rest.strip():
            yield os.fsdecode(rest.rstrip(b"\r") if not null else rest)


def _fingerprint(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from dupfinder.cli.cancellable import run_cancellable
    from dupfinder.cli.progress import TerminalProgress

    try:
        from dupfinder.distributed import require

        require("pyarrow")
        from dupfinder.distributed.fingerprint_job import (
            Shard,
            fingerprint_shard,
            stored_options,
        )
    except ImportError as exc:
        return _missing("fingerprint", err, exc)
    try:
        shard = Shard.parse(args.shard)
        options = stored_options(scan_cmd.options_from_args(args))
    except ValueError as exc:
        err.write(f"dupfinder fingerprint: error: {escaped(str(exc))}\n")
        return EXIT_USAGE
    if args.files_from not in (None, "-") and not Path(args.files_from).is_file():
        err.write(f"dupfinder fingerprint: error: no such list: {escaped(args.files_from)}\n")
        return EXIT_USAGE
    listed = _listed(args.files_from, args.null) if args.files_from else None
    bar = TerminalProgress(err)

    def cancelling() -> None:
        err.write("\ncancelling…\n")

    try:
        report = run_cancellable(
            lambda cancel: fingerprint_shard(
                options, Path(args.out), shard, listed, progress=bar, cancel=cancel
            ),
            "dupfinder-fingerprint",
            on_interrupt=cancelling,
        )
    except (OSError, DupfinderError) as exc:
        err.write(f"dupfinder fingerprint: {escaped(str(exc))}\n")
        return EXIT_FATAL
    finally:
        bar.finish()
    if report.cancelled:
        err.write("dupfinder: fingerprinting cancelled; the shard was not written\n")
        return EXIT_CANCELLED
    err.write(
        f"{escaped(str(report.path))}: {report.files} files, {report.fingerprinted} fingerprinted, "
        f"{report.errors} problems\n"
    )
    return EXIT_OK


def _thresholds(args: argparse.Namespace) -> dict[Kind, int]:
    options = scan_cmd.options_from_args(args)
    # the kinds shards store (dupfinder.distributed.fingerprint_job.STORED_KINDS, which
    # this module cannot import before the extra is known to be installed)
    stored = frozenset({Kind.TEXT, Kind.IMAGE})
    return {kind: options.threshold(kind) for kind in options.kinds & stored}


@contextlib.contextmanager
def _client(args: argparse.Namespace) -> Iterator[tuple[Any, int]]:
    """A Dask client (to --scheduler, or a local cluster) and its worker thread count."""
    from distributed import Client, LocalCluster

    if args.scheduler:
        with Client(args.scheduler) as client:
            threads = sum(client.nthreads().values())
            yield client, max(1, threads)
        return
    workers = args.workers or os.cpu_count() or 1
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.memory_limit,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client, workers


def _layout_problem(args: argparse.Namespace) -> str | None:
    """Why ``--blocks`` cannot split the fingerprints at the radius asked (None: it can)."""
    if args.blocks is None:
        return None
    from dupfinder.distributed.layout import TableLayout

    for kind, k in sorted(_thresholds(args).items()):
        try:
            TableLayout.make(k, args.blocks)
        except ValueError as exc:
            return (
                f"--blocks {args.blocks}: {exc} for {kind} (radius {k}: from {k + 1} to 64 blocks)"
            )
    return None


def _pairs(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        from dupfinder.distributed import require

        require("pyarrow", "dask.dataframe", "distributed")
        from dupfinder.distributed.pairs_job import ShuffleMethod, find_pairs
    except ImportError as exc:
        return _missing("pairs", err, exc)
    problem = _layout_problem(args)
    if problem is not None:
        err.write(f"dupfinder pairs: error: {problem}\n")
        return EXIT_USAGE
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    try:
        from dupfinder.distributed.store import shard_files, store_meta

        store_meta(shard_files(Path(args.fingerprints)))  # every shard readable: before a cluster
        with _client(args) as (_, threads):
            manifest = find_pairs(
                Path(args.fingerprints),
                Path(args.out),
                _thresholds(args),
                threads=threads,
                blocks=args.blocks,
                partitions=args.partitions,
                shuffle=ShuffleMethod(args.shuffle) if args.shuffle else None,
            )
    except (OSError, DupfinderError) as exc:
        err.write(f"dupfinder pairs: {escaped(str(exc))}\n")
        return EXIT_FATAL
    for kind, plan in sorted(manifest.kinds.items()):
        err.write(
            f"{kind}: {plan.fingerprints} fingerprints, k={plan.k}, {plan.tables} tables "
            f"x {plan.partitions} partitions: {plan.pairs} pairs, {plan.shared} shared\n"
        )
    err.write(f"pairs written to {escaped(args.out)} in {manifest.seconds:.1f} s\n")
    return EXIT_OK


def _groups(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        from dupfinder.distributed import require

        require("pyarrow")
        from dupfinder.distributed.groups import result_from_fingerprints, result_from_pairs
    except ImportError as exc:
        return _missing("groups", err, exc)
    options = scan_cmd.options_from_args(args)
    try:
        if args.pairs:
            result = result_from_pairs(Path(args.fingerprints), Path(args.pairs), options)
        else:
            result = result_from_fingerprints(Path(args.fingerprints), options)
    except (OSError, DupfinderError) as exc:
        err.write(f"dupfinder groups: {escaped(str(exc))}\n")
        return EXIT_FATAL
    if not scan_cmd.emit_result(result, args.format, args.output, out, err):
        return EXIT_FATAL
    return EXIT_OK
