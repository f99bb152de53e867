"""A scan imports only what it does: byte-identical files alone need no grouping, index or scipy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scan_helpers import essay, write

_NEVER_FOR_COPIES = (
    "scipy",
    "numba",
    "PIL",
    "dupfinder.core.grouping.groups",  # the keeper's rules (grouping.keeper) are welcome
    "dupfinder.core.grouping.cluster",
    "dupfinder.core.grouping.verify",
    "dupfinder.core.index",
    "dupfinder.core.image",
)


def test_a_scan_for_byte_identical_files_imports_no_grouping(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    write(folder / "a.txt", essay(1))
    write(folder / "copy" / "a.txt", essay(1))
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from dupfinder.core.model import ScanOptions\n"
        "from dupfinder.core.scan.pipeline import run\n"
        f"result = run(ScanOptions(roots=(Path({str(folder)!r}),), near_duplicates=False,"
        " use_cache=False))\n"
        "print(json.dumps([len(result.groups), sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    groups, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert groups == 1
    heavy = [m for m in modules if any(m == h or m.startswith(h + ".") for h in _NEVER_FOR_COPIES)]
    assert heavy == []


def test_pair_finder_is_still_importable_from_the_pipeline() -> None:
    from dupfinder.core.grouping.groups import PairFinder
    from dupfinder.core.scan import pipeline

    assert pipeline.PairFinder is PairFinder
