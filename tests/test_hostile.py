"""Hostile input end to end: every strange file gets a clear per-file error or a correct
fingerprint, the scan always completes, and no file is ever modified.

The corpus (tests/test_hostile_corpus.py) is generated here: empty, binary, mis-encoded and
2 GiB sparse documents; encrypted, image-only and broken PDFs; zips posing as Word files;
truncated, bit-flipped and garbage JPEG/PNG/WebP/GIF/TIFF/HEIC; decompression bombs; 1-pixel
and 20,000 x 20,000 pictures; names that are not UTF-8 or hold newlines; paths near and past
PATH_MAX; symlink loops, a FIFO and character devices dressed as ``.txt``.

Pillow refuses any image over 2 x ``Image.MAX_IMAGE_PIXELS`` (~179 Mpx) at open and
dupfinder turns its warning range (over ~89 Mpx) into the same refusal: the 400 Mpx picture
is "too-large" without a pixel decoded. Tests run as root, which ignores permission bits, so
an unreadable folder is simulated by a ``scandir`` that raises EACCES (a real ``chmod 000``
is used as well when not root).
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scan_helpers import essay, write
from test_hostile_corpus import (
    OK,
    Corpus,
    add_too_long_path,
    build_corpus,
    halves_png,
    snapshot,
)

from dupfinder.cli import EXIT_OK, main
from dupfinder.cli.scan_cmd import write_result
from dupfinder.core import extract
from dupfinder.core.fingerprints.formats import kind_for_path
from dupfinder.core.fingerprints.worker import Task, fingerprint_file
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.model import ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan

#: Outcomes that mean a reader escaped its error handling; never acceptable for a file.
FAILURE_CODES = {"crashed", "timeout"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build_corpus(tmp_path_factory.mktemp("hostile") / "corpus")


def _options(root: Path, cache: Path, **changes: Any) -> ScanOptions:
    """Options for the corpus; ``changes`` are ScanOptions's fields, "jobs" among them."""
    settings: dict[str, Any] = {"roots": (root,), "cache_dir": cache, "jobs": 1}
    settings.update(changes)
    return ScanOptions(**settings)


def _outcomes(result: ScanResult) -> dict[bytes, str]:
    """Each file the result names: its error code, or OK when it is a group member.

    A file that cannot be read as a document or picture may still be a byte-identical copy
    of another: then it has both, and its error is what counts here."""
    found = {os.fsencode(m.path): OK for group in result.groups for m in group.members}
    found.update({os.fsencode(e.path): e.code for e in result.errors})
    return found


def _check_identical(result: ScanResult) -> None:
    """Members marked identical hold the same bytes as every member with their hash."""
    for group in result.groups:
        first: dict[str, bytes] = {}
        for member in group.members:
            if member.content_hash is None:
                continue
            with open(os.fsencode(member.path), "rb") as handle:
                data = handle.read()
            assert first.setdefault(member.content_hash, data) == data, member.path


def _check_result(corpus: Corpus, result: ScanResult, *, links_followed: bool) -> None:
    found = _outcomes(result)
    for path, allowed in corpus.expected.items():
        is_link = os.path.islink(path)
        if is_link and not links_followed:
            assert path not in found, path  # links are skipped, silently, by default
            continue
        outcome = found.get(path, OK)  # fingerprinted but without a near-duplicate
        assert outcome in allowed, (path, outcome, allowed)
    unexpected = set(found) - set(corpus.expected)
    assert not unexpected, unexpected
    for path in corpus.grouped:
        assert found.get(path) == OK, path
    for group in result.groups:  # twins are identical: they must share a group at distance 0
        members = {os.fsencode(m.path): m for m in group.members}
        for path in members:
            stem, suffix = os.path.splitext(path)
            twin = members.get(stem + b"-twin" + suffix)
            if twin is not None:
                assert twin.fingerprint == members[path].fingerprint
    _check_identical(result)
    assert not FAILURE_CODES & {e.code for e in result.errors}
    assert all(e.error and e.error[0].islower() for e in result.errors)
    # the walk reports links, FIFOs and devices itself; every regular file it yields ends
    # fingerprinted or with exactly one error
    read_errors = [e for e in result.errors if _regular(e.path)]
    assert result.stats.files_seen == result.stats.files_fingerprinted + len(read_errors)


def _regular(path: str) -> bool:
    raw = os.fsencode(path)
    return os.path.isfile(raw) and not os.path.islink(raw)


@pytest.mark.parametrize(("follow", "jobs"), [(False, 2), (True, 1)])
def test_scan_of_the_corpus_completes_and_modifies_nothing(
    corpus: Corpus, tmp_path: Path, follow: bool, jobs: int
) -> None:
    before = snapshot(corpus.root)
    options = _options(corpus.root, tmp_path / "cache", follow_symlinks=follow, jobs=jobs)
    result = scan.run(options)
    _check_result(corpus, result, links_followed=follow)
    again = scan.run(options)  # every answer now comes from the cache, and is the same
    assert again.stats.files_from_cache > 0
    assert _outcomes(again) == _outcomes(result)
    assert snapshot(corpus.root) == before


def test_every_corpus_file_through_the_worker_directly(corpus: Corpus) -> None:
    """The worker's unit never raises and always returns a value or a reason, never both."""
    for path in corpus.expected:
        kind = kind_for_path(os.fsdecode(path))
        assert kind is not None
        outcome = fingerprint_file(Task(0, os.fsdecode(path), kind))
        assert (outcome.value is None) != (outcome.error is None), path
        assert outcome.code not in FAILURE_CODES, (path, outcome)


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def test_cli_json_stays_valid_and_names_round_trip(corpus: Corpus, tmp_path: Path) -> None:
    before = snapshot(corpus.root)
    code, out, err = _cli(
        "scan", str(corpus.root), "--format", "json", "--follow-symlinks", "--no-cache", "-j", "1"
    )
    assert code == EXIT_OK, err
    data = json.loads(out)
    out.encode("ascii")  # undecodable names force \\udcXX escapes: valid UTF-8 JSON
    paths = [m["path"] for g in data["groups"] for m in g["members"]]
    paths += [e["path"] for e in data["errors"]]
    assert {os.fsencode(p) for p in paths} >= corpus.grouped
    for path in paths:
        os.lstat(os.fsencode(path))  # every reported name leads back to its file
    assert snapshot(corpus.root) == before


def test_cli_json_on_real_stdout_is_utf8(corpus: Corpus) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dupfinder", "scan", str(corpus.root / "names"), "--format", "json"],
        capture_output=True,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == EXIT_OK, done.stderr
    data = json.loads(done.stdout.decode("utf-8"))
    names = {os.path.basename(os.fsencode(m["path"])) for g in data["groups"] for m in g["members"]}
    assert b"caf\xe9-latin1.txt" in names
    assert b"line\nbreak.txt" in names


def test_cli_csv_and_text_do_not_crash(corpus: Corpus, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    code, _, err = _cli(
        "scan", str(corpus.root), "--format", "csv", "--no-cache", "-j", "1", "-o", str(target)
    )
    assert code == EXIT_OK, err
    text = target.read_bytes().decode("utf-8", "surrogateescape")  # names keep their bytes
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert {os.fsencode(row["path"]) for row in rows} >= corpus.grouped  # CR/LF stay inside
    result = scan.run(_options(corpus.root, tmp_path / "cache"))
    for fmt in ("text", "csv", "json"):
        buffer = io.StringIO()
        write_result(result, fmt, buffer)
        assert buffer.getvalue()
        with open(tmp_path / f"out.{fmt}", "w", encoding="utf-8", errors="surrogateescape") as out:
            out.write(buffer.getvalue())
    last = (tmp_path / "out.text").read_bytes().splitlines()[-1]
    assert last.startswith(b"%d groups in " % len(result.groups))


def test_path_beyond_path_max_is_a_folder_error(tmp_path: Path) -> None:
    corpus = Corpus(tmp_path / "corpus")
    top = add_too_long_path(corpus)
    write(tmp_path / "corpus" / "a.txt", essay(1))
    write(tmp_path / "corpus" / "b.txt", essay(1))
    result = scan.run(_options(corpus.root, tmp_path / "cache"))
    assert len(result.groups) == 1
    (error,) = result.errors
    assert os.fsencode(error.path).startswith(top)
    assert error.error == "cannot read folder: file name too long"


def test_unreadable_folder_is_reported_and_the_rest_is_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    write(root / "locked" / "secret.txt", essay(2))
    write(root / "open" / "a.txt", essay(3))
    write(root / "open" / "b.txt", essay(3))
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    if os.geteuid() == 0:  # root reads anything: simulate what chmod 000 does to others
        monkeypatch.setattr(os, "scandir", scandir)
    else:
        os.chmod(root / "locked", 0)
    try:
        result = scan.run(_options(root, tmp_path / "cache"))
    finally:
        os.chmod(root / "locked", 0o755)
    assert [(os.path.basename(e.path), e.error) for e in result.errors] == [
        ("locked", "cannot read folder: permission denied")
    ]
    assert len(result.groups) == 1


def test_entries_vanishing_between_listing_and_stat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file or folder deleted after its folder was listed is one error, not a crash."""
    root = tmp_path / "root"
    for name in ("keep1.txt", "keep2.txt", "gone.txt", "sub/inner.txt"):
        write(root / name, essay(4))
    real_scandir = os.scandir

    class Listing:
        def __init__(self, path: str) -> None:
            with real_scandir(path) as entries:
                self.entries = list(entries)
            if path == str(root):
                os.unlink(root / "gone.txt")
                os.unlink(root / "sub" / "inner.txt")
                os.rmdir(root / "sub")

        def __enter__(self) -> Iterator[os.DirEntry[str]]:
            return iter(self.entries)

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(os, "scandir", Listing)
    result = scan.run(_options(root, tmp_path / "cache"))
    assert {(os.path.basename(e.path), e.error) for e in result.errors} == {
        ("gone.txt", "the file vanished during the scan"),
        ("sub", "cannot read folder: the file vanished during the scan"),
    }
    (group,) = result.groups
    assert {os.path.basename(m.path) for m in group.members} == {"keep1.txt", "keep2.txt"}


def test_files_vanishing_or_changing_while_being_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deleted, grown, swapped to binary, or replaced by a folder just before their reader
    opens them: each gets the answer its content at that moment deserves, and a rescan
    never serves a fingerprint cached for content that has changed since."""
    from test_hostile_corpus import noise_image

    root = tmp_path / "root"
    for name in ("a", "b", "deleted", "grown", "binary", "folder"):
        write(root / f"{name}.txt", essay(5))
    for name in ("p", "q", "deleted-image"):
        noise_image(6).save(root / f"{name}.png")
    real_text, real_image = extract.extract_text, imagesim.image_fingerprint

    def sabotage(path: str) -> None:
        name = os.path.basename(path)
        if name.startswith("deleted"):
            os.unlink(path)
        elif name == "grown.txt":
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(essay(50))  # a different document from now on
        elif name == "binary.txt":
            Path(path).write_bytes(bytes(range(256)) * 20)
        elif name == "folder.txt":
            os.unlink(path)
            os.mkdir(path)

    def text(path: str, **kwargs: int) -> str:
        sabotage(path)
        return real_text(path, **kwargs)

    def image(path: str, **kwargs: bool) -> imagesim.ImageFingerprint:
        sabotage(path)
        return real_image(path, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(extract, "extract_text", text)
        patch.setattr(imagesim, "image_fingerprint", image)
        first = scan.run(_options(root, tmp_path / "cache"))
    errors = {os.path.basename(e.path): (e.code, e.error) for e in first.errors}
    assert errors == {
        "deleted.txt": ("unreadable", "the file vanished during the scan"),
        "deleted-image.png": ("unreadable", "cannot read file: No such file or directory"),
        "binary.txt": ("unsupported", "binary data, not text"),
        "folder.txt": ("unsupported", "not a regular file"),
        # its size is no longer the walk's when the copies of that size are compared
        "grown.txt": ("changed", "changed during the scan"),
    }
    groups = sorted(sorted(os.path.basename(m.path) for m in g.members) for g in first.groups)
    assert groups == [["a.txt", "b.txt"], ["p.png", "q.png"]]
    os.rmdir(root / "folder.txt")
    second = scan.run(_options(root, tmp_path / "cache"))  # grown.txt's stat changed: re-read
    fresh = scan.run(_options(root, tmp_path / "cache", use_cache=False))
    assert second.groups == fresh.groups
    assert {e.path: e.code for e in second.errors} == {e.path: e.code for e in fresh.errors}


def test_largest_allowed_image_is_hashed_in_bounded_memory(tmp_path: Path) -> None:
    """An 88 Mpx RGB picture (just under Pillow's limit) decodes in a few hundred MB."""
    path = tmp_path / "huge.png"
    path.write_bytes(halves_png(9400, 9400, colour_type=2))
    child = textwrap.dedent(
        """
        import resource, sys
        from dupfinder.core.image import perceptual as imagesim
        imagesim._register_heif()
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result = imagesim.image_fingerprint(sys.argv[1])
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(result.width, result.height, (peak - base) // 1024)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    width, height, grown_mib = map(int, done.stdout.split())
    assert (width, height) == (9400, 9400)
    assert grown_mib < 600  # ~3.4 bytes a pixel: the RGBX decode plus its greyscale copy


def test_csv_keeps_a_name_with_a_carriage_return_in_one_row() -> None:
    """The csv module quotes only its own line terminator; a bare CR used to split the row."""
    from dupfinder.core.model import Fingerprint, Group, Kind, Member
    from dupfinder.core.results.report import write_csv

    names = ["/d/a\rb.txt", "/d/plain.txt", "/d/c\r\nd,e.txt"]
    members = tuple(Member(n, 10, 0, 0, Fingerprint(Kind.TEXT, 1)) for n in names)
    buffer = io.StringIO()
    write_csv(ScanResult((Group(Kind.TEXT, members),)), buffer)
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue(), newline="")))
    assert [row["path"] for row in rows] == names
    assert buffer.getvalue().split("\n")[2].startswith("1,text,0,/d/plain.txt,")  # unquoted
