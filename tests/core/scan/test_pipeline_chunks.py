"""Files go to the workers costliest first, in chunks of about equal work."""

from __future__ import annotations

import numpy as np

from dupfinder.core.fingerprints.columns import FileColumns
from dupfinder.core.model import FileEntry, Kind
from dupfinder.core.scan import pipeline


def _files(sizes: list[tuple[str, int, Kind]]) -> FileColumns:
    files = FileColumns()
    for number, (name, size, kind) in enumerate(sizes):
        files.append(FileEntry(f"/f/{number:04d}-{name}", size, 0, kind, dev=1, ino=number + 1))
    return files


def test_every_file_once_costly_first_and_chunks_of_equal_work() -> None:
    rng = np.random.default_rng(5)
    listed = [(f"n{i}.txt", int(rng.integers(100, 20_000)), Kind.TEXT) for i in range(2000)]
    listed += [("big.md", 30_000_000, Kind.TEXT), ("photo.jpg", 8_000_000, Kind.IMAGE)]
    listed += [("book.pdf", 40_000_000, Kind.TEXT)]
    files = _files(listed)
    rows = np.arange(len(files))
    ordered, chunks = pipeline._balanced(files, rows, jobs=4)
    assert sorted(ordered.tolist()) == rows.tolist()
    assert [chunk for chunk in chunks if chunk[1] <= chunk[0]] == []
    assert [start for start, _ in chunks] == [0] + [stop for _, stop in chunks[:-1]]
    assert chunks[-1][1] == len(files)
    names = [files.paths[row].rsplit("-", 1)[1] for row in ordered[:2].tolist()]
    assert names == ["big.md", "book.pdf"]  # the costliest first (Markdown parses slowly)
    cost = pipeline._estimated_seconds(files, ordered)
    work = [float(cost[a:b].sum()) for a, b in chunks]
    budget = float(cost.sum()) / (4 * pipeline._CHUNKS_PER_WORKER)
    assert all(w <= budget or b - a == 1 for w, (a, b) in zip(work, chunks, strict=True))
    assert all(b - a <= pipeline._MAX_CHUNK_FILES for a, b in chunks)
    light = ordered[3:].tolist()
    assert light == sorted(light)  # the rest keep the walk's order


def test_no_files_no_chunks() -> None:
    ordered, chunks = pipeline._balanced(FileColumns(), np.arange(0), jobs=2)
    assert len(ordered) == 0
    assert chunks == []
