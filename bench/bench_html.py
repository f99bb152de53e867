"""HTML to text: CPU and output of ``html_to_text`` against an earlier commit's, same run.

Reads every HTML/XHTML file under the given folders (default: the mixed folder's and this
machine's documentation), decodes each once, then times both versions' ``html_to_text``
on the decoded text, alternating rounds (CPU seconds of this process; the best round of
each counts), and compares their output file by file.

    python -m bench.bench_html [--old 20c44c8] [--repeat 3] [--show 5] [FOLDER ...]
"""

from __future__ import annotations

import argparse
import difflib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from bench.old_source import module_at
from dupfinder.core.extract import html

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = (
    ROOT / "bench" / "out" / "mixed",
    Path("/usr/share/doc"),
    Path("/usr/share/gtk-doc"),
    *sorted(Path("/usr/lib").glob("python3*")),
)
SUFFIXES = {".html", ".htm", ".xhtml"}


def _old_module(commit: str) -> ModuleType:
    """``dupfinder/core/extract/html.py`` as it was at ``commit``, loaded beside this one."""
    return module_at(commit, "dupfinder/core/extract/html.py", "html_old")


def _pages(folders: list[Path]) -> dict[Path, tuple[int, str]]:
    found = sorted(
        path
        for folder in folders
        if folder.is_dir()
        for path in folder.rglob("*")
        if path.suffix.lower() in SUFFIXES and path.is_file() and not path.is_symlink()
    )
    return {path: (path.stat().st_size, html.decode_html(path.read_bytes())) for path in found}


def _run(convert: Callable[[str], str], pages: dict[Path, tuple[int, str]]) -> tuple[float, dict]:
    outputs = {}
    start = time.process_time()
    for path, (_, text) in pages.items():
        try:
            outputs[path] = convert(text)
        except Exception as exc:  # a page either version cannot read is reported, not fatal
            outputs[path] = f"error: {type(exc).__name__}: {exc}"
    return time.process_time() - start, outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=list(FOLDERS))
    parser.add_argument("--old", default="20c44c8", help="commit whose html_to_text to compare")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--show", type=int, default=5, help="differences to print")
    args = parser.parse_args()
    old = _old_module(args.old)
    groups: dict[str, dict[Path, tuple[int, str]]] = {}
    for folder in args.folders:
        pages = _pages([folder])
        if pages:
            groups[str(folder)] = pages
    for name, pages in groups.items():
        size = sum(size for size, _ in pages.values()) / 1e6
        best = {"old": float("inf"), "new": float("inf")}
        for _ in range(args.repeat):
            seconds, before = _run(old.html_to_text, pages)
            best["old"] = min(best["old"], seconds)
            seconds, after = _run(html.html_to_text, pages)
            best["new"] = min(best["new"], seconds)
        differ = [path for path in pages if before[path] != after[path]]
        print(
            f"{name}: {len(pages)} files, {size:.1f} MB; CPU s old {best['old']:.2f} "
            f"({size / best['old']:.1f} MB/s), new {best['new']:.2f} "
            f"({size / best['new']:.1f} MB/s), {best['old'] / best['new']:.2f}x; "
            f"identical {len(pages) - len(differ)}, differ {len(differ)}"
        )
        for path in differ[: args.show]:
            print(f"  {path}")
            diff = difflib.unified_diff(
                before[path].splitlines(), after[path].splitlines(), lineterm="", n=0
            )
            for line in list(diff)[2:12]:
                print(f"    {line[:160]!r}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
