"""Readers: per-format read speed, PDF fidelity and a cold scan, against a previous release.

The previous release is checked out in a temporary git worktree with a venv of its own;
both versions then read the same files in the same run, one file at a time on one core
(speed is bytes over the reading process's CPU seconds, so other load on a shared
machine barely moves it). Fidelity is the SimHash distance (bits of 64) between a PDF's
text and the text it was made from. The cold scan runs ``dupfinder scan`` with an empty
cache over a copy of /usr/share/doc plus the generated documents.

    python -m bench.bench_readers [--old 208809b] [--release-python PATH] [--repeat N] [--no-scan]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench.reader_corpus import PdfSample, make_documents

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
DOCS = Path("/usr/share/doc")
FORMATS = {"html": (".html", ".htm"), "pdf": (".pdf",), "docx": (".docx",), "odt": (".odt",)}
FORMATS |= {"epub": (".epub",), "md": (".md",), "txt": (".txt",)}

#: Runs inside each version's interpreter: reads the paths on stdin, one JSON line each.
PROBE = """
import json, sys, time
from dupfinder.core.text import simhash as textsim
from dupfinder.core.extract import extract_text
for line in sys.stdin:
    path = line.rstrip("\\n")
    start = time.process_time()
    try:
        text, error = extract_text(path), None
    except Exception as exc:
        text, error = "", f"{type(exc).__name__}: {exc}"[:160]
    seconds = time.process_time() - start
    try:
        value = textsim.simhash(text) if text else None
    except Exception:  # too few words to fingerprint
        value = None
    print(json.dumps({"path": path, "seconds": seconds, "simhash": value, "error": error}))
"""
MEMORY = """
import resource, sys
from dupfinder.core.extract import extract_text
import dupfinder.core.extract.html
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
extract_text(sys.argv[1])
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)
"""


def _release_python(rev: str, work: Path) -> Path:
    """An interpreter with the release at ``rev`` installed (a worktree and its own venv)."""
    tree = work / f"release-{rev}"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
        check=True,
        capture_output=True,
    )
    subprocess.run([sys.executable, "-m", "venv", str(tree / ".venv")], check=True)
    python = tree / ".venv" / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(tree)], check=True)
    return python


def _environment(root: Path | None) -> dict[str, str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)
    if root is not None:
        env["PYTHONPATH"] = str(root)
    return env


def _probe(python: Path, root: Path | None, paths: list[Path]) -> dict[str, dict[str, object]]:
    """Each path read once, after one warm-up read per format (imports are not reading)."""
    firsts: dict[str, Path] = {}
    for path in paths:
        firsts.setdefault(path.suffix, path)
    feed = "".join(f"{p}\n" for p in [*firsts.values(), *paths])
    done = subprocess.run(
        [str(python), "-c", PROBE],
        input=feed,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        env=_environment(root),
        check=True,
    )
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {str(row["path"]): row for row in rows[len(firsts) :]}


def _files(folders: list[Path]) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = defaultdict(list)
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                for name, suffixes in FORMATS.items():
                    if path.suffix.lower() in suffixes:
                        found[name].append(path)
    return found


def _speed_table(files: dict[str, list[Path]], runs: dict[str, dict[str, dict]]) -> list[dict]:
    rows = []
    for fmt, paths in files.items():
        size = sum(p.stat().st_size for p in paths)
        row: dict[str, object] = {"format": fmt, "files": len(paths), "mb": size / 1e6}
        for version, results in runs.items():
            seconds = sum(float(results[str(p)]["seconds"]) for p in paths)
            failed = sum(1 for p in paths if results[str(p)]["error"])
            row[version] = {"mb_s": size / 1e6 / seconds, "failed": failed}
        rows.append(row)
    return rows


def _fidelity(samples: list[PdfSample], runs: dict[str, dict[str, dict]]) -> list[dict]:
    rows = []
    for sample in samples:
        row: dict[str, object] = {"producer": sample.producer, "pdf": sample.pdf.name}
        for version, results in runs.items():
            pdf, source = results[str(sample.pdf)], results[str(sample.source)]
            pages = _pages(sample.pdf)
            distance = None
            if pdf["simhash"] is not None and source["simhash"] is not None:
                distance = (int(pdf["simhash"]) ^ int(source["simhash"])).bit_count()
            row["pages"] = pages
            row[version] = {"ms_page": 1000 * float(pdf["seconds"]) / pages, "bits": distance}
        rows.append(row)
    return rows


def _pages(path: Path) -> int:
    import pypdfium2

    with pypdfium2.PdfDocument(str(path)) as document:
        return len(document)


def _watch(command: list[str], root: Path | None) -> tuple[int, float, float, float]:
    """Exit code, wall seconds, CPU seconds and peak RSS (MiB, all processes together) of a
    command and every process it starts (workers are not its waited children, so the
    process tree is sampled)."""
    import psutil

    start = time.perf_counter()
    process = psutil.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=tempfile.gettempdir(),
        env=_environment(root),
    )
    cpu: dict[int, float] = {}
    peak = 0
    while process.poll() is None:
        rss = 0
        try:
            tree = [process, *process.children(recursive=True)]
        except psutil.Error:
            continue
        for member in tree:
            try:
                times = member.cpu_times()
                cpu[member.pid] = times.user + times.system + times.children_user
                cpu[member.pid] += times.children_system
                rss += member.memory_info().rss
            except psutil.Error:
                pass
        peak = max(peak, rss)
        time.sleep(0.1)
    wall = time.perf_counter() - start
    if process.returncode not in (0, 1):  # 1: groups were found
        raise RuntimeError(f"{command} failed: {process.stderr.read().decode()[-2000:]}")
    return process.returncode, wall, sum(cpu.values()), peak / 2**20


def _scan(python: Path, root: Path | None, corpus: Path, work: Path) -> dict[str, float]:
    cache = Path(tempfile.mkdtemp(dir=work, prefix="cache-"))
    result = work / "scan.json"
    result.unlink(missing_ok=True)
    command = [str(python), "-m", "dupfinder", "scan", str(corpus), "--format", "json"]
    command += ["--output", str(result), "--cache-dir", str(cache), "--jobs", "2"]
    code, wall, cpu, peak = _watch(command, root)
    report = json.loads(result.read_text())
    shutil.rmtree(cache)
    return {
        "exit": code,
        "wall_s": wall,
        "cpu_s": cpu,
        "peak_mib": peak,
        "groups": len(report["groups"]),
        "errors": len(report.get("errors", [])),
    }


def _memory(python: Path, root: Path | None, page: Path) -> int:
    done = subprocess.run(
        [str(python), "-c", MEMORY, str(page)],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        env=_environment(root),
        check=False,
    )
    return int(done.stdout) if done.returncode == 0 else -1


def _big_page(path: Path, size: int) -> Path:
    """A dense 60 MB page (a tag every ~20 bytes), written once."""
    if not path.exists():
        row = (
            "<div><p>harbour survey <b>tide</b> table</p><ul><li>one</li><li>two</li></ul></div>\n"
        )
        path.write_text("<!DOCTYPE html><html><body>" + row * (size // len(row)) + "</body></html>")
    return path


def _print_tables(report: dict) -> None:
    versions = report["versions"]
    print("\nformat | files | MB | " + " | ".join(f"{v} MB/s" for v in versions))
    for row in report["speed"]:
        cells = [f"{row[v]['mb_s']:.2f} ({row[v]['failed']} failed)" for v in versions]
        print(f"{row['format']} | {row['files']} | {row['mb']:.1f} | " + " | ".join(cells))
    print("\nPDF producer | pages | " + " | ".join(f"{v} ms/page, bits" for v in versions))
    for row in report["fidelity"]:
        cells = [f"{row[v]['ms_page']:.1f}, {row[v]['bits']}" for v in versions]
        print(f"{row['producer']} ({row['pdf']}) | {row['pages']} | " + " | ".join(cells))
    print("\n60 MB HTML page, memory grown (MiB): " + json.dumps(report["html_memory"]))
    for version, scans in report.get("scan", {}).items():
        for scan in scans:
            print(f"cold scan {version}: {json.dumps(scan)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", default="208809b", help="the release to compare with")
    parser.add_argument(
        "--release-python", type=Path, help="an interpreter with that release installed already"
    )
    parser.add_argument("--repeat", type=int, default=1, help="cold scans per version")
    parser.add_argument("--no-scan", action="store_true", help="only the per-format figures")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench-readers-"))
    try:
        print("making documents", flush=True)
        samples = make_documents(work / "generated")
        print(f"installing release {args.old} in a worktree", flush=True)
        release = args.release_python or _release_python(args.old, work)
        pythons: dict[str, tuple[Path, Path | None]] = {args.old: (release, None)}
        pythons["now"] = (Path(sys.executable), ROOT)
        files = _files([DOCS, work / "generated"])
        paths = [p for group in files.values() for p in group]
        paths += [s.source for s in samples if s.source not in paths]
        runs = {}
        for version, (python, root) in pythons.items():
            print(f"reading {len(paths)} files with {version}", flush=True)
            runs[version] = _probe(python, root, paths)
        page = _big_page(work / "big.html", 60_000_000)
        report: dict = {
            "versions": list(pythons),
            "speed": _speed_table(files, runs),
            "fidelity": _fidelity(samples, runs),
            "html_memory": {v: _memory(py, root, page) for v, (py, root) in pythons.items()},
        }
        page.unlink()
        if not args.no_scan:
            corpus = work / "corpus"
            shutil.copytree(DOCS, corpus / "doc", symlinks=True)
            shutil.copytree(work / "generated", corpus / "generated")
            report["scan"] = defaultdict(list)
            for _ in range(args.repeat):
                for version, (python, root) in pythons.items():
                    print(f"cold scan with {version}", flush=True)
                    report["scan"][version].append(_scan(python, root, corpus, work))
        (OUT / "bench_readers.json").write_text(json.dumps(report, indent=1))
        _print_tables(report)
    finally:
        subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "worktree",
                "remove",
                "--force",
                str(work / f"release-{args.old}"),
            ],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
