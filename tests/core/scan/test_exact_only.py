"""A scan for byte-identical files alone: the lean path gives the pipeline's answer, without numpy.

Every comparison runs both on the same real folder: ``exact_only.find_exact`` (no cache, no
numpy) and ``pipeline.run`` with a cache of its own (the full path: columns, numpy, the
identical pass and its digest cache). Groups, keepers, reasons, per-file errors and counts must
be the same.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dupfinder.cli import EXIT_OK, main
from dupfinder.core.model import Kind, Phase, Progress, ScanOptions, ScanResult
from dupfinder.core.results.report import result_to_dict, write_json
from dupfinder.core.scan import byte_reads, compiled, exact_only, pipeline, walk

#: Heavy modules a scan for identical files never needs.
_NEVER_FOR_EXACT = ("numpy", "scipy", "PIL", "numba")


@pytest.fixture(autouse=True, params=["compiled", "python"])
def listing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test twice: with the compiled listing and first reads, and with the Python walk
    and reads that answer where they are not built (Windows, no compiler)."""
    if request.param == "python":
        monkeypatch.setattr(walk, "walk_kernels", None)
        monkeypatch.setattr(byte_reads, "walk_kernels", None)
        monkeypatch.setenv(compiled.VARIABLE, "python")  # and in the programs tests start
    elif compiled.walk_kernels is None:
        pytest.skip("the compiled listing is not built here")
    return str(request.param)


#: What the compiled comparison answers for a piece of a set: (set, sets, failures).
_Piece = tuple[int, list[tuple[list[int], bytes]], list[tuple[int, int]]]


def _refuse(locked: Callable[[str], bool], monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a file ``locked`` names fails with a permission error (the tests run as any
    user, root too): Python's ``os.open``, and the compiled first reads' answer for it."""
    real_open = os.open

    def refusing(path: str | os.PathLike[str], flags: int, *args: object, **kw: object) -> int:
        if locked(os.fspath(path)):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refusing)
    kernels = vars(byte_reads)["walk_kernels"]  # None where the test runs the Python reads
    if kernels is None:
        return
    real_reads = kernels.first_reads

    def refused(
        files: list[tuple[str, object, Kind]], start: int, stop: int, small: int, partial: int
    ) -> list[bytes | int]:
        answers = real_reads(files, start, stop, small, partial)
        return [13 if locked(files[start + i][0]) else a for i, a in enumerate(answers)]

    monkeypatch.setattr(kernels, "first_reads", refused)
    real_sets = kernels.batch_sets

    def refused_sets(
        sizes: list[list[tuple[str, object, Kind]]],
        pieces: list[tuple[int, int, int]],
        small: int,
        partial: int,
    ) -> tuple[list[_Piece], int]:
        found: list[_Piece] = []
        total = 0
        for position, start, stop in pieces:  # each piece as read, less the locked files
            answer, read = real_sets(sizes, [(position, start, stop)], small, partial)
            sets, failed = (answer[0][1], answer[0][2]) if answer else ([], [])
            files = sizes[position]
            shut = {i for i in range(start, stop) if locked(files[i][0])}
            failing = {i for i, _ in failed}
            kept = [([i for i in positions if i not in shut], data) for positions, data in sets]
            sets = sorted((s for s in kept if len(s[0]) > 1), key=lambda s: s[0][0])
            failed = sorted([*failed, *((i, 13) for i in shut - failing)])
            total += read - len(shut - failing)
            if sets or failed:
                found.append((position, sets, failed))
        return found, total

    monkeypatch.setattr(kernels, "batch_sets", refused_sets)


def _options(root: Path, **kwargs: object) -> ScanOptions:
    kwargs.setdefault("jobs", 1)
    return ScanOptions(
        roots=(root,),
        near_duplicates=False,
        use_cache=False,
        **kwargs,  # type: ignore[arg-type]
    )


def _full(options: ScanOptions, cache: Path, progress: Callable[[Progress], None]) -> ScanResult:
    """The pipeline's answer: with a cache of its own, so the lean path never stands in."""
    return pipeline.run(dataclasses.replace(options, use_cache=True, cache_dir=cache), progress)


def _answer(result: ScanResult) -> dict[str, object]:
    """What a user sees, less the seconds it took."""
    data = result_to_dict(result)
    data["stats"].pop("seconds")
    return data


def _both(
    options: ScanOptions,
    during: Callable[[], None] = lambda: None,
    between: Callable[[], None] = lambda: None,
) -> tuple[ScanResult, ScanResult]:
    """The lean and the full answer; ``during`` runs in each once the walk is over, before
    any file is read, ``between`` after the lean scan (to undo what ``during`` did)."""
    lean = exact_only.find_exact(options, _before(during))
    between()
    with tempfile.TemporaryDirectory() as cache:
        full = _full(options, Path(cache), _before(during))
    return lean, full


@pytest.fixture
def copies(tmp_path: Path) -> Path:
    """A folder with the copies below."""
    root = tmp_path / "files"
    root.mkdir()
    _copies(root)
    return root


def _copies(root: Path) -> None:
    """Copies of several kinds: small, large (head and tail alike, middles not), linked."""
    (root / "docs" / "old").mkdir(parents=True)
    (root / "pics").mkdir()
    text = b"A short note.\n" * 40
    (root / "docs" / "note.txt").write_bytes(text)
    (root / "docs" / "old" / "note (1).txt").write_bytes(text)
    (root / "docs" / "COPYING").write_bytes(text)  # a document by its name, with a .txt twin
    big = os.urandom(300_000)
    (root / "pics" / "big.png").write_bytes(big)
    (root / "pics" / "big copy.png").write_bytes(big)
    middle = bytearray(big)
    middle[150_000] ^= 1  # same size, head and tail: only the whole content tells
    (root / "pics" / "nearly.png").write_bytes(bytes(middle))
    (root / "archive.bin").write_bytes(b"\x00\x01" * 5000)
    os.link(root / "archive.bin", root / "docs" / "archive-link.bin")  # one file, two names
    (root / "docs" / "archive copy.bin").write_bytes(b"\x00\x01" * 5000)
    (root / "empty-a").write_bytes(b"")
    (root / "empty-b").write_bytes(b"")


def test_the_lean_path_finds_what_the_pipeline_finds(copies: Path) -> None:
    root = copies
    lean, full = _both(_options(root))
    assert _answer(lean) == _answer(full)
    sets = sorted(sorted(os.path.relpath(m.path, root) for m in g.members) for g in lean.groups)
    assert sets == [
        ["archive.bin", "docs/archive copy.bin"],  # its hard link is the same file
        ["docs/COPYING", "docs/note.txt", "docs/old/note (1).txt"],
        ["pics/big copy.png", "pics/big.png"],  # not the one that differs in the middle
    ]
    kinds = {os.path.basename(g.representative.path): g.kind for g in lean.groups}
    assert kinds == {"archive.bin": Kind.OTHER, "note.txt": Kind.TEXT, "big.png": Kind.IMAGE}
    assert lean.stats.files_bytes_only == lean.stats.files_seen == 8  # no link, no empty file


def test_a_scan_for_identical_files_imports_no_numpy(copies: Path, tmp_path: Path) -> None:
    root = copies
    script = (
        "import json, sys\n"
        "from dupfinder.cli import main\n"
        f"code = main(['scan', {str(root)!r}, '--exact-only', '--no-cache', '--format', 'json',"
        f" '-o', {str(tmp_path / 'out.json')!r}])\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == EXIT_OK
    assert "dupfinder.core.scan.exact_only" in modules
    heavy = [m for m in modules if any(m == h or m.startswith(h + ".") for h in _NEVER_FOR_EXACT)]
    assert heavy == []
    assert len(json.loads((tmp_path / "out.json").read_text())["groups"]) == 3


def test_the_pipeline_hands_exact_scans_without_the_cache_to_the_lean_path(
    copies: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copies
    lean = exact_only.find_exact(_options(root))
    handed: list[ScanOptions] = []

    def lean_path(options: ScanOptions, *_: object) -> ScanResult:
        handed.append(options)
        return lean

    monkeypatch.setattr(exact_only, "find_exact", lean_path)
    assert pipeline.run(_options(root)) is lean
    cached = dataclasses.replace(_options(root), use_cache=True, cache_dir=tmp_path / "cache")
    first = pipeline.run(cached)  # the pipeline's own path, digests kept
    again = pipeline.run(cached)  # from the cache: nothing read again
    assert handed == [_options(root)]
    assert _answer(first) == _answer(again) == _answer(lean)
    assert not exact_only.serves(dataclasses.replace(_options(root), near_duplicates=True))


def test_unreadable_and_vanishing_files_are_per_file_errors(
    copies: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copies
    (root / "locked.txt").write_bytes(b"A short note.\n" * 40)  # a fourth copy, never opened
    gone = root / "pics" / "big copy.png"
    content = gone.read_bytes()

    def vanish() -> None:
        if gone.exists():
            gone.unlink()

    _refuse(lambda path: path.endswith("locked.txt"), monkeypatch)
    lean = exact_only.find_exact(_options(root), _before(vanish))
    assert {(os.path.basename(e.path), e.code) for e in lean.errors} == {
        ("locked.txt", "unreadable"),
        ("big copy.png", "unreadable"),  # gone before it was read
    }
    assert not any(m.path.endswith("big.png") for g in lean.groups for m in g.members)
    gone.write_bytes(content)
    lean, full = _both(_options(root), vanish, lambda: _put_back(gone, content))
    assert _answer(lean) == _answer(full)


def _put_back(path: Path, content: bytes) -> None:
    path.write_bytes(content)


def test_a_file_replaced_after_the_walk_is_reported_changed(copies: Path) -> None:
    root = copies
    note = root / "docs" / "note.txt"

    def replace() -> None:  # same bytes, another inode: no longer the file the walk saw
        other = note.with_name("new.tmp")
        other.write_bytes(note.read_bytes())
        other.replace(note)

    lean = exact_only.find_exact(_options(root), _before(replace))
    assert [(os.path.basename(e.path), e.code) for e in lean.errors] == [("note.txt", "changed")]
    (text,) = [g for g in lean.groups if g.kind is Kind.TEXT]
    assert len(text.members) == 2


def test_cancel_returns_an_empty_flagged_result(copies: Path) -> None:
    root = copies
    cancel = threading.Event()
    result = exact_only.find_exact(
        _options(root), lambda s: cancel.set() if s.phase is Phase.IDENTICAL else None, cancel
    )
    assert result.stats.cancelled
    assert result.groups == ()
    assert result.stats.files_seen == 8


def test_progress_runs_from_walking_to_done(copies: Path) -> None:
    root = copies
    samples: list[Progress] = []
    exact_only.find_exact(_options(root), samples.append)
    phases = [s.phase for s in samples]
    assert phases[0] is Phase.WALKING
    assert phases[-1] is Phase.DONE
    last = [s for s in samples if s.phase is Phase.IDENTICAL][-1]
    assert last.total is not None
    assert last.done == last.total > 0


def test_near_duplicates_are_not_its_job() -> None:
    with pytest.raises(ValueError, match="near_duplicates"):
        exact_only.find_exact(ScanOptions(roots=(Path("."),), use_cache=False))


@pytest.mark.parametrize("from_disk", [False, True])
@pytest.mark.parametrize(("held", "batch"), [(byte_reads._HELD_BYTES, 128), (1, 128), (1 << 20, 2)])
def test_reads_find_each_set_of_equal_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, from_disk: bool, held: int, batch: int
) -> None:
    """One thread from the page cache, several once a batch read from a disk; first reads
    compared as bytes, or by digest where a size is shared too widely to hold them, or where
    a set is too large for one batch and read in parts: the same sets, each in the order its
    files came, with its whole content's digest."""
    from dupfinder.core.fingerprints.digest import digest_of

    monkeypatch.setattr(byte_reads, "_HELD_BYTES", held)
    monkeypatch.setattr(byte_reads, "_BATCH_FILES", batch)
    if from_disk:  # every batch says it read blocks from a disk
        counter = iter(range(1_000_000))
        monkeypatch.setattr(byte_reads, "_blocks_read", lambda: next(counter))
    sizes: list[list[byte_reads.Target]] = []
    copies: set[frozenset[str]] = set()
    for number in range(200):
        content = os.urandom(number * 7 + 1 if number % 20 else 70_000 + number)
        other = bytearray(content)
        other[len(other) // 2] ^= 1  # same size; head and tail alike where the file is large
        paths = [tmp_path / f"{number}-{name}.bin" for name in ("a", "b", "c")]
        for path, data in zip(paths, (content, bytes(other), content), strict=True):
            path.write_bytes(data)
        if number % 3:  # the copy is left out: the two left differ in one byte
            paths[2].unlink()
        else:
            copies.add(frozenset(str(p) for p in (paths[0], paths[2])))
        sizes.append([(str(p), p.stat(), Kind.OTHER) for p in paths if p.exists()])

    order_of = {target[0]: number for number, target in enumerate(t for s in sizes for t in s)}

    def read(files: list[list[byte_reads.Target]], whole: bool) -> list[byte_reads.Alike]:
        found = byte_reads.read_sets(files, whole, 4, threading.Event(), lambda *_: None)
        assert found is not None
        assert found.failed == []
        for alike in found.sets:
            order = [order_of[path] for path, *_ in alike.files]
            assert order == sorted(order)
            if alike.digest is not None:
                contents = {digest_of(Path(path).read_bytes()) for path, *_ in alike.files}
                assert contents == {alike.digest}
        return found.sets

    def names(sets: list[byte_reads.Alike]) -> set[frozenset[str]]:
        return {frozenset(path for path, *_ in alike.files) for alike in sets}

    first = read(sizes, whole=False)
    complete = [alike for alike in first if alike.digest is not None]
    partial = [alike for alike in first if alike.digest is None]
    assert all(alike.files[0][1].st_size <= byte_reads.SMALL_FILE for alike in complete)
    large = [files for files in sizes if files[0][1].st_size > byte_reads.SMALL_FILE]
    assert names(partial) == names([byte_reads.Alike(files, None) for files in large])
    whole = read([alike.files for alike in partial], whole=True)
    assert names(complete) | names(whole) == copies


def test_the_cli_writes_every_member_on_a_line_of_its_own(copies: Path) -> None:
    root = copies
    out, err = io.StringIO(), io.StringIO()
    code = main(["scan", str(root), "--exact-only", "--no-cache", "--format", "json"], out, err)
    assert code == EXIT_OK
    assert "Traceback" not in err.getvalue()
    text = out.getvalue()
    data = json.loads(text)
    paths = [m["path"] for g in data["groups"] for m in g["members"]]
    members = [line.strip() for line in text.splitlines() if line.strip().startswith('{"path"')]
    assert [json.loads(line.rstrip(","))["path"] for line in members] == paths
    buffer = io.StringIO()
    write_json(exact_only.find_exact(_options(root)), buffer)
    again = json.loads(buffer.getvalue())
    for found in (data, again):
        found["stats"].pop("seconds")
    assert data == again


# -- random folders: copies, hard links, symlinks, empty files, hidden files, sizes either
#    side of the whole-file read, files that cannot be opened or vanish before they are read


_NAMES = ("a.txt", "b.png", "c.bin", "COPYING", "d", ".hidden.txt", "e (1).txt", "copy of f")
_CONTENTS = (b"", b"x", b"one line\n", b"\x00" * 70_000, b"ab" * 40_000, b"A" * 65_536)


@st.composite
def _trees(draw: st.DrawFn) -> list[tuple[str, int, str]]:
    """(relative path, content index, how: file, link, symlink, locked, vanish), one entry a
    path (a file both locked and vanished would have no one answer: which refusal comes
    first is the test's doing, not the system's)."""
    count = draw(st.integers(1, 14))
    entries = []
    seen: set[str] = set()
    for _ in range(count):
        folder = draw(st.sampled_from(("", "x/", "x/y/", "old/", "x/.cache/")))
        name = draw(st.sampled_from(_NAMES))
        how = draw(st.sampled_from(("file", "file", "file", "link", "symlink", "locked", "vanish")))
        content = draw(st.integers(0, len(_CONTENTS) + 2))
        if folder + name not in seen:
            seen.add(folder + name)
            entries.append((folder + name, content, how))
    return entries


def _content(index: int) -> bytes:
    if index < len(_CONTENTS):
        return _CONTENTS[index]
    big = bytearray(b"H" * 4096 + b"m" * 100_000 + b"T" * 4096)  # head and tail alike
    big[50_000] = index  # middles differ
    return bytes(big)


#: Options besides hidden files and links: kinds, sizes, patterns, a reference folder.
_CHOICES = st.fixed_dictionaries(
    {},
    optional={
        "kinds": st.sets(st.sampled_from(tuple(Kind)), min_size=1).map(frozenset),
        "min_size": st.sampled_from((0, 2, 5000)),
        "max_size": st.sampled_from((10, 70_000)),
        "include": st.sampled_from((("*.txt",), ("x/",))),
        "exclude": st.sampled_from((("old/",), ("*.png", "COPYING"))),
        "references": st.just(("old",)),
    },
)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(tree=_trees(), hidden=st.booleans(), follow=st.booleans(), choices=_CHOICES)
def test_random_folders_give_the_same_answer_both_ways(
    tree: list[tuple[str, int, str]],
    hidden: bool,
    follow: bool,
    choices: dict[str, object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "root"
        root.mkdir()
        vanishing = _build(root, tree)
        locked = {str(root / path) for path, _, how in tree if how == "locked"}

        def vanish() -> None:
            for path, _content in vanishing:
                if path.exists():
                    path.unlink()

        def restore() -> None:
            for path, content in vanishing:
                path.write_bytes(content)

        with monkeypatch.context() as patched:
            _refuse(locked.__contains__, patched)
            if "references" in choices:
                choices["references"] = (root / "old",)
            options = _options(root, include_hidden=hidden, follow_symlinks=follow, **choices)
            lean, full = _both(options, vanish, restore)
        assert _answer(lean) == _answer(full)
        for group in lean.groups:
            identities = {(m.dev, m.ino) for m in group.members}
            assert len(identities) == len(group.members)  # never a file beside itself


def _before(action: Callable[[], None]) -> Callable[[Progress], None]:
    """A progress sink that runs ``action`` once the walk is over, before any file is read."""

    def sink(sample: Progress) -> None:
        if sample.phase is Phase.IDENTICAL and sample.total is None:
            action()

    return sink


def _build(root: Path, tree: list[tuple[str, int, str]]) -> list[tuple[Path, bytes]]:
    """The folder; returns the files to remove once the walk has listed them."""
    made: list[Path] = []
    vanishing = []
    for relative, index, how in tree:
        path = root / relative
        if path.exists() or path.is_symlink():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if how in ("link", "symlink") and made:
            target = made[index % len(made)]
            if how == "link":
                os.link(target, path)
            else:  # to a file, or to a folder (a loop, where it is one above)
                path.symlink_to(target if index % 2 else target.parent)
            continue
        path.write_bytes(_content(index))
        if how == "vanish":  # put back between the runs as a new file: no link may share it
            vanishing.append((path, _content(index)))
        else:
            made.append(path)
    return vanishing


def test_the_cli_reports_odd_files_one_by_one(tmp_path: Path) -> None:
    """A pipe with a document's name, a broken link, a link loop, a name that is not UTF-8:
    each is a line of the result or passed over, the copies are found, no traceback."""
    root = tmp_path / "odd"
    (root / "sub").mkdir(parents=True)
    os.mkfifo(root / "pipe.txt")
    (root / os.fsdecode(b"caf\xe9.bin")).write_bytes(b"same")
    (root / "sub" / "b.bin").write_bytes(b"same")
    (root / "broken.txt").symlink_to(root / "nowhere")
    (root / "sub" / "loop").symlink_to(root)
    out, err = io.StringIO(), io.StringIO()
    argv = ["scan", str(root), "--exact-only", "--no-cache", "--follow-symlinks", "--format"]
    assert main([*argv, "json"], out, err) == EXIT_OK
    assert "Traceback" not in err.getvalue()
    data = json.loads(out.getvalue())
    assert [len(g["members"]) for g in data["groups"]] == [2]
    assert {(os.path.basename(e["path"]), e["code"]) for e in data["errors"]} == {
        ("broken.txt", "unreadable"),
        ("pipe.txt", "unsupported"),
    }
