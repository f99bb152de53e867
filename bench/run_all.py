"""Run every benchmark, each in its own process, and print their tables in one report.

    python -m bench.run_all [--quick] [--only NAME ...]

Figures are machine-dependent: run on an otherwise idle machine. Each benchmark also
writes its figures as JSON to bench/out/NAME.json.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

BENCHMARKS = (
    "bench_index",  # permuted-table all-pairs and queries vs simhash-cpp and 1e0ng simhash
    "bench_textsim",  # text fingerprinting MB/s vs 1e0ng simhash
    "text_accuracy",  # precision/recall/F1 per edit on real third-party text
    "bench_imagesim",  # ms per 6 MP JPEG vs plain imagehash
    "image_accuracy",  # precision/recall/F1 per edit on real pictures
    "peer_czkawka",  # image accuracy and scan speed vs Czkawka's engine (czkawka_core)
    "picture_themes",  # look-alike icons grouped in Debian's icon themes vs Czkawka
    "picture_probe",  # edits the picture corpus never made: copies found, non-copies refused
    "bench_readers",  # per-format read speed, PDF fidelity, cold scan vs the previous release
    "bench_scan",  # end-to-end cold and warm scan of ~20,000 files
    "bench_profile",  # a whole scan's phases x kinds vs the first release and peers
    "bench_growth",  # time and memory of all processes at 10k, 100k and 1M files
    "bench_identical",  # exact duplicates of every file vs jdupes, rdfind, fdupes
    "bench_scale",  # 1,000,000-file scan memory and time, 10,000,000-fingerprint index
    "gui_responsiveness",  # event-loop stalls of the desktop app during a scan
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a quick look")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, default=None)
    args = parser.parse_args(argv)
    failed = []
    for name in args.only or BENCHMARKS:
        print(f"\n=== {name} " + "=" * (60 - len(name)), flush=True)
        started = time.perf_counter()
        command = [sys.executable, "-m", f"bench.{name}"] + (["--quick"] if args.quick else [])
        code = subprocess.call(command)
        print(f"--- {name}: exit {code}, {time.perf_counter() - started:.0f} s", flush=True)
        if code:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
