"""Fuzzing every extractor and the image path: no crash, no hang, bounded memory.

Hypothesis feeds arbitrary bytes under every document suffix, and mutations (bit flips,
byte overwrites, truncations, deletions, insertions, duplicated runs) of real DOCX, PDF,
ODT, EPUB, RTF, HTML, Markdown and rst files and of the XML parts inside the zip
containers; and mutated PNG, JPEG, GIF, WebP, TIFF, BMP and HEIC files to the image path.
The only exceptions allowed out of ``extract_text`` and ``image_fingerprint`` are
``FileProblem`` subclasses (and ``OSError`` from the file system), and the scan worker's
``fingerprint_file`` never raises and always returns a value or a reason.

Examples per test are modest in CI; see tests/fuzz_profiles.py for a long campaign.
"""

from __future__ import annotations

import io
import json
import os
import signal
import struct
import subprocess
import sys
import textwrap
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from document_samples import (
    write_docx,
    write_epub,
    write_html,
    write_markdown,
    write_odt,
    write_pdf,
    write_rst,
    write_rtf,
)
from fuzz_profiles import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from scan_helpers import essay, picture, write
from test_hostile_corpus import IMAGE_FORMATS, image_bytes

from dupfinder.core import extract
from dupfinder.core.errors import CorruptFile, FileProblem
from dupfinder.core.extract import extract_text
from dupfinder.core.fingerprints import worker as fingerprint
from dupfinder.core.fingerprints.worker import (
    FingerprintOutcome,
    Task,
    fingerprint_batch,
    fingerprint_file,
)
from dupfinder.core.image.perceptual import image_fingerprint
from dupfinder.core.model import Kind, ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan

DOCUMENT_WRITERS: dict[str, Callable[[Path], Path]] = {
    "docx": write_docx,
    "pdf": write_pdf,
    "odt": write_odt,
    "epub": write_epub,
    "rtf": write_rtf,
    "html": write_html,
    "md": write_markdown,
    "rst": write_rst,
}
ZIP_FORMATS = ("docx", "odt", "epub")
TEXT_SUFFIXES = ("txt", "md", "rst", "html", "pdf", "docx", "odt", "epub", "rtf", "csv")
#: Starts that steer arbitrary bytes past content sniffing into each reader.
MAGIC = (
    b"",
    b"%PDF-1.7\n",
    b"PK\x03\x04",
    b"{\\rtf1 ",
    b"<html><body>",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
)
IMAGE_SUFFIXES = (*IMAGE_FORMATS, "bmp")


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """One real file of every document and image format, as bytes."""
    folder = tmp_path_factory.mktemp("seeds")
    found = {
        name: writer(folder / f"seed.{name}").read_bytes()
        for name, writer in DOCUMENT_WRITERS.items()
    }
    for suffix, fmt in IMAGE_FORMATS.items():
        found[suffix] = image_bytes(fmt, seed=3, size=(96, 72))
    buffer = io.BytesIO()
    picture(4, (64, 48)).save(buffer, format="BMP")
    found["bmp"] = buffer.getvalue()
    return found


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


Edit = tuple[str, int, int, bytes]
EDIT_KINDS = ("flip", "byte", "truncate", "delete", "insert", "repeat")
STRONG_BYTES = (0, 0xFF, 0x7F, 0x80, ord("<"), ord("{"), ord("\\"))


def edits() -> st.SearchStrategy[list[Edit]]:
    """One to eight edits of the kinds real damage produces; positions are taken modulo
    the data's length, so failing cases print as a few short tuples."""
    edit = st.tuples(
        st.sampled_from(EDIT_KINDS),
        st.integers(0, 2**31),
        st.integers(0, 255),
        st.binary(max_size=16),
    )
    return st.lists(edit, min_size=1, max_size=8)


def apply_edits(data: bytes, changes: list[Edit]) -> bytes:
    out = bytearray(data)
    for kind, position, amount, blob in changes:
        if not out:
            break
        at = position % len(out)
        match kind:
            case "flip":
                out[at] ^= 1 << (amount % 8)
            case "byte":
                out[at] = STRONG_BYTES[amount % len(STRONG_BYTES)]
            case "truncate":
                del out[at:]
            case "delete":
                del out[at : at + 1 + amount % 64]
            case "insert":
                out[at:at] = blob or b"\x00"
            case "repeat":
                out[at:at] = bytes(out[at : at + 1 + amount]) * (1 + amount % 64)
    return bytes(out)


def _rezip(data: bytes, member: str, content: bytes) -> bytes:
    """The container ``data`` with one part replaced, every other part kept byte for byte."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(buffer, "w") as target:
        for info in source.infolist():
            target.writestr(info, content if info.filename == member else source.read(info))
    return buffer.getvalue()


def _write(folder: Path, suffix: str, data: bytes) -> Path:
    path = folder / f"case.{suffix}"
    path.write_bytes(data)
    return path


def check_extract(path: Path) -> None:
    """Text, or a FileProblem; anything else is a bug in a reader."""
    text: str | None = None
    try:
        text = extract_text(path)
    except FileProblem as problem:
        message = str(problem)
    if text is None:
        assert message  # every refusal says why
        return
    assert text.strip()


def check_image(path: Path) -> None:
    result = None
    try:
        result = image_fingerprint(path, invariant=True)
    except FileProblem as problem:
        message = str(problem)
    if result is None:
        assert message  # every refusal says why
        return
    assert 0 <= result.value < 2**64
    assert result.width >= 1
    assert result.height >= 1
    assert len(result.variants) == 7


def check_worker(path: Path, kind: Kind) -> None:
    """The pool's unit of work: never raises, a value or a reason, never a library leak."""
    outcome = fingerprint_file(Task(7, str(path), kind), image_invariance=True)
    assert outcome.row == 7
    assert (outcome.value is None) != (outcome.error is None), outcome
    assert outcome.code not in {"crashed", "timeout"}, outcome
    if outcome.error is not None:
        assert not outcome.error.startswith("cannot be read: "), outcome  # unhandled exception


@pytest.mark.parametrize("suffix", TEXT_SUFFIXES)
def test_extractors_on_arbitrary_bytes(scratch: Path, suffix: str) -> None:
    @fuzz_settings(40)
    @given(start=st.sampled_from(MAGIC), body=st.binary(max_size=4096))
    def run(start: bytes, body: bytes) -> None:
        check_extract(_write(scratch, suffix, start + body))

    run()


@pytest.mark.parametrize("name", sorted(DOCUMENT_WRITERS))
def test_extractors_on_mutated_documents(seeds: dict[str, bytes], scratch: Path, name: str) -> None:
    @fuzz_settings(40)
    @given(changes=edits())
    def run(changes: list[Edit]) -> None:
        check_extract(_write(scratch, name, apply_edits(seeds[name], changes)))

    run()


@pytest.mark.parametrize("name", ZIP_FORMATS)
def test_extractors_on_mutated_zip_parts(seeds: dict[str, bytes], scratch: Path, name: str) -> None:
    """Valid zips around damaged XML: reaches the XML readers that bit flips cannot (CRC)."""
    with zipfile.ZipFile(io.BytesIO(seeds[name])) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    xml_parts = sorted(
        n for n in members if n.endswith((".xml", ".xhtml", ".opf", ".ncx", "mimetype"))
    )

    @fuzz_settings(40)
    @given(changes=edits(), member=st.sampled_from(xml_parts))
    def run(changes: list[Edit], member: str) -> None:
        content = apply_edits(members[member], changes)
        check_extract(_write(scratch, name, _rezip(seeds[name], member, content)))

    run()


@pytest.mark.parametrize("suffix", IMAGE_SUFFIXES)
def test_image_path_on_mutated_images(seeds: dict[str, bytes], scratch: Path, suffix: str) -> None:
    @fuzz_settings(40)
    @given(changes=edits())
    def run(changes: list[Edit]) -> None:
        check_image(_write(scratch, suffix, apply_edits(seeds[suffix], changes)))

    run()


def test_worker_never_raises_on_mutated_files(seeds: dict[str, bytes], scratch: Path) -> None:
    names = sorted(seeds)

    @fuzz_settings(60)
    @given(
        changes=edits(),
        name=st.sampled_from(names),
        suffix=st.none() | st.sampled_from(TEXT_SUFFIXES + IMAGE_SUFFIXES),
    )
    def run(changes: list[Edit], name: str, suffix: str | None) -> None:
        suffix = suffix or name  # the real suffix, or another format's
        path = _write(scratch, suffix, apply_edits(seeds[name], changes))
        kind = Kind.IMAGE if suffix in IMAGE_SUFFIXES else Kind.TEXT
        check_worker(path, kind)

    run()


def _damage_zip(data: bytes, how: str, member: str) -> bytes:
    """Damage a zip's directory the way the fuzzer found to escape the readers."""
    out = bytearray(data)
    if how == "offset":  # start of the central directory past its real place: negative seeks
        end = out.rindex(b"PK\x05\x06")
        (offset,) = struct.unpack_from("<I", out, end + 16)
        struct.pack_into("<I", out, end + 16, offset + 1000)
        return bytes(out)
    entry = out.index(b"PK\x01\x02" + b"", out.index(b"PK\x01\x02"))
    while out[entry + 46 : entry + 46 + len(member)] != member.encode():
        entry = out.index(b"PK\x01\x02", entry + 4)
    if how == "version":  # "needs zip version 25.5 to extract"
        out[entry + 6] = 255
    elif how == "encrypted":  # the part claims to need a password
        out[entry + 8] |= 1
    return bytes(out)


@pytest.mark.parametrize(
    ("name", "how", "member"),
    [
        ("odt", "offset", ""),
        ("odt", "version", "mimetype"),
        ("odt", "encrypted", "mimetype"),
        ("docx", "offset", ""),
        ("docx", "version", "word/document.xml"),
        ("docx", "encrypted", "word/document.xml"),
        ("epub", "encrypted", "mimetype"),
        ("odt", "encrypted", "content.xml"),
    ],
)
def test_zip_damage_found_by_fuzzing_is_a_corrupt_file(
    seeds: dict[str, bytes], tmp_path: Path, name: str, how: str, member: str
) -> None:
    """Each of these once escaped as OSError(EINVAL), NotImplementedError or RuntimeError."""
    path = _write(tmp_path, name, _damage_zip(seeds[name], how, member))
    with pytest.raises(CorruptFile, match="truncated or damaged"):
        extract_text(path)
    check_worker(path, Kind.TEXT)


def test_html_with_a_control_character_in_its_charset_is_read(tmp_path: Path) -> None:
    """Found by fuzzing: lxml refused the "encoding" named by a damaged <meta charset>."""
    page = b'<html><head><meta charset="utf\x01-8"></head><body><p>'
    path = _write(tmp_path, "html", page + b"Words about harbours and tides. " * 8 + b"</p>")
    assert extract_text(path).startswith("Words about harbours and tides.")


# --- no hang: the per-file time limit -------------------------------------------------


def _slow_reader(path: str | os.PathLike[str], *, max_bytes: int = 0) -> str:
    """extract_text, stuck on the files named so."""
    if "sleep" in os.path.basename(path):
        time.sleep(60)  # a reader stuck in a C call that releases the GIL
    while "spin" in os.path.basename(path):  # a reader stuck in a Python loop
        pass
    return essay(1)


def test_time_limit_stops_a_stuck_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fingerprint, "FILE_TIME_LIMIT_SECONDS", 0.3)
    monkeypatch.setattr(extract, "extract_text", _slow_reader)
    for name in ("sleep.txt", "spin.txt"):
        outcome = fingerprint_file(Task(0, str(write(tmp_path / name, "x")), Kind.TEXT))
        assert outcome.code == "timeout"
        assert outcome.error == "took longer than 0 s to read; skipped"
        assert not outcome.cacheable  # retried on the next scan
    assert fingerprint_file(Task(0, str(write(tmp_path / "ok.txt", "x")), Kind.TEXT)).value


def slow_batch(tasks: list[Task], image_invariance: bool = False) -> list[FingerprintOutcome]:
    """The pool's unit of work with a stuck reader and a short limit (runs in workers). The
    limit leaves room for a worker's first file, which loads the readers and kernels: on a
    busy machine that alone has taken over half a second, and a good file timed out."""
    fingerprint.FILE_TIME_LIMIT_SECONDS = 2.0
    extract.extract_text = _slow_reader
    return fingerprint_batch(tasks, image_invariance)


def test_time_limit_in_pool_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stuck file costs its worker the limit, then the scan goes on with the rest."""
    root = tmp_path / "docs"
    for number in range(60):
        write(root / f"doc{number:02d}.txt", essay(number))
    write(root / "sleep.txt", "x")
    write(root / "spin.txt", "x")
    monkeypatch.setattr(scan, "fingerprint_batch", slow_batch)
    result = scan.run(ScanOptions(roots=(root,), jobs=2, use_cache=False))
    assert {(os.path.basename(e.path), e.code) for e in result.errors} == {
        ("sleep.txt", "timeout"),
        ("spin.txt", "timeout"),
    }
    assert result.stats.files_fingerprinted == 60


def test_small_scan_off_the_main_thread_keeps_the_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The desktop app scans on a worker thread, where no SIGALRM arrives: even a scan of
    two files must read them in the pool's workers, where the limit holds."""
    root = tmp_path / "docs"
    write(root / "sleep.txt", "x")
    write(root / "fine.txt", essay(3))
    monkeypatch.setattr(scan, "fingerprint_batch", slow_batch)
    results: list[ScanResult] = []
    worker = threading.Thread(
        target=lambda: results.append(scan.run(ScanOptions(roots=(root,), jobs=2, use_cache=False)))
    )
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive()
    (result,) = results
    assert [(os.path.basename(e.path), e.code) for e in result.errors] == [("sleep.txt", "timeout")]
    assert result.stats.files_fingerprinted == 1


def test_cli_scan_applies_the_time_limit_to_files_read_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small scan reads its files in the CLI's own process: a stuck one must time out
    there too (it used to run on a helper thread, where no SIGALRM arrives)."""
    from dupfinder.cli import EXIT_OK, main

    monkeypatch.setattr(fingerprint, "FILE_TIME_LIMIT_SECONDS", 0.3)
    monkeypatch.setattr(extract, "extract_text", _slow_reader)
    write(tmp_path / "docs" / "sleep.txt", "x")
    write(tmp_path / "docs" / "fine.txt", "x")
    out, err = io.StringIO(), io.StringIO()
    code = main(["scan", str(tmp_path / "docs"), "--format", "json", "--no-cache"], out, err)
    assert code == EXIT_OK, err.getvalue()
    assert [e["code"] for e in json.loads(out.getvalue())["errors"]] == ["timeout"]


def test_cli_ctrl_c_cancels_a_scan_on_the_main_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dupfinder.cli import EXIT_CANCELLED, main

    pressed: list[str] = []

    def interrupted(path: str, **_: object) -> str:
        if not pressed:  # the user presses Ctrl-C once, while a file is read
            pressed.append(path)
            signal.raise_signal(signal.SIGINT)
        return essay(1)

    monkeypatch.setattr(extract, "extract_text", interrupted)
    for number in range(20):
        write(tmp_path / "docs" / f"d{number}.txt", "x")
    out, err = io.StringIO(), io.StringIO()
    code = main(["scan", str(tmp_path / "docs"), "--no-cache", "-j", "1"], out, err)
    assert code == EXIT_CANCELLED
    assert "cancelling" in err.getvalue()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# --- bounded memory ---------------------------------------------------------------------

MEMORY_CHILD = textwrap.dedent(
    """
    import random, resource, sys, traceback
    from pathlib import Path
    from dupfinder.core.errors import CorruptFile, FileProblem
    from dupfinder.core.extract import extract_text
    from dupfinder.core.image.perceptual import image_fingerprint, _register_heif

    _register_heif()
    limit = int(sys.argv[2]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    rng = random.Random(int(sys.argv[3]))
    failures = 0
    for seed in sorted(Path(sys.argv[1]).iterdir()):
        data = seed.read_bytes()
        for case in range(int(sys.argv[4])):
            out = bytearray(data)
            for _ in range(rng.randint(1, 6)):
                at = rng.randrange(len(out))
                if rng.random() < 0.2:
                    out[at:at] = out[at : at + 200] * rng.randint(1, 5000)  # inflate a run
                else:
                    out[at] ^= 1 << rng.randrange(8)
            target = seed.parent.parent / ("case" + seed.suffix)
            target.write_bytes(out)
            image = seed.suffix[1:] in {"png", "jpg", "gif", "webp", "tiff", "heic", "bmp"}
            try:
                image_fingerprint(target) if image else extract_text(target)
            except FileProblem:
                pass
            except BaseException:
                failures += 1
                print(seed.name, case, file=sys.stderr)
                traceback.print_exc()
    # This process's own peak: ru_maxrss on Linux keeps the peak of the process it was
    # forked from (the test runner, which may be past 1 GiB), VmHWM is this program's.
    status = Path("/proc/self/status")
    if status.exists():
        line = next(l for l in status.read_text().splitlines() if l.startswith("VmHWM:"))
        peak = int(line.split()[1]) // 1024
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(failures, peak)
    """
)


def test_mutated_files_fit_in_bounded_memory(seeds: dict[str, bytes], tmp_path: Path) -> None:
    """Every extractor and the image path under a 1 GiB address-space limit: a reader that
    tried to allocate without bound would die with MemoryError here."""
    folder = tmp_path / "seeds"
    folder.mkdir()
    for name, data in seeds.items():
        (folder / f"seed.{name}").write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_CHILD, str(folder), "1024", "7", "4"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    failures, peak_mib = map(int, done.stdout.split())
    assert failures == 0, done.stderr[-3000:]
    assert peak_mib < 1024
