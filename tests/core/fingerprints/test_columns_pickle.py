"""A scan's columns cross to a worker process whole and compact: every path (any character
a file name can hold), every value and sketch, and only the sketch rows that exist."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from dupfinder.core.fingerprints.columns import FileColumns, OutcomeColumns, PathColumn
from dupfinder.core.fingerprints.worker import FingerprintOutcome
from dupfinder.core.model import FileEntry, Kind

ODD_NAMES = [
    "/plain/report.txt",
    "/spaces and tabs/a\tb.txt",
    "/new\nline.txt",
    "/中文/文件.txt",
    "/undecodable/\udcff\udcfe.bin",  # bytes that are not UTF-8, as os.fsdecode gives them
    "",
]


def _files(paths: list[str]) -> FileColumns:
    files = FileColumns()
    for i, path in enumerate(paths):
        files.append(FileEntry(path, i, 10 * i, Kind.TEXT, dev=1, ino=100 + i, links=1))
    return files


def test_paths_and_stat_values_survive_a_pickle() -> None:
    paths = ODD_NAMES * 3
    again = pickle.loads(pickle.dumps(_files(paths)))
    assert again.paths == paths
    assert [again.entry(row) for row in range(len(paths))] == [
        _files(paths).entry(row) for row in range(len(paths))
    ]


def test_path_column_reads_as_a_list_of_its_paths() -> None:
    paths = PathColumn(ODD_NAMES)
    assert len(paths) == len(ODD_NAMES)
    assert list(paths) == ODD_NAMES
    assert [paths[row] for row in range(len(ODD_NAMES))] == ODD_NAMES
    assert paths[-2] == ODD_NAMES[-2]
    assert paths[1:3] == ODD_NAMES[1:3]
    assert paths == ODD_NAMES
    assert paths != ODD_NAMES[:-1]
    assert {path: row for row, path in enumerate(paths)}[ODD_NAMES[3]] == 3
    with pytest.raises(IndexError):
        paths[len(ODD_NAMES)]


def test_paths_of_folders_listed_again_and_again_come_back_whole() -> None:
    paths = [
        "/a/one.txt",
        "/a/two.txt",
        "/b/one.txt",
        "/a/three.txt",  # a folder seen again after another
        "/a/b/",
        "/a/b/c",
        "no folder",
        "/a\\b.txt",
        "/\udcff/\udcfe",
        "/",
    ]
    column = PathColumn(paths)
    assert list(column) == paths
    assert [column[row] for row in (3, 0, 8, 2, 8)] == [paths[row] for row in (3, 0, 8, 2, 8)]
    again = pickle.loads(pickle.dumps(column))
    assert list(again) == paths


def test_no_files_survive_a_pickle() -> None:
    assert pickle.loads(pickle.dumps(FileColumns())).paths == []


def test_outcomes_pickle_only_the_sketch_rows_that_exist() -> None:
    rows = 200_000
    held = OutcomeColumns(rows)
    held.put(7, FingerprintOutcome(7, value=70, sketch=b"\x01" * 3457, width=16, height=16))
    held.put(9, FingerprintOutcome(9, value=90, sketch=b"\x02" * 128))
    held.put(11, FingerprintOutcome(11, error="unreadable", code="unreadable"))
    data = pickle.dumps(held)
    assert len(data) < rows * 40  # the value columns; the sketch tables would be 717 MB
    again = pickle.loads(data)
    assert again.sketch(7) == b"\x01" * 3457
    assert again.sketch(9) == b"\x02" * 128
    assert again.sketch(8) is None
    assert again.values[[7, 9]].tolist() == [70, 90]
    assert again.errors == {11: ("unreadable", "unreadable")}
    assert (again.widths[7], again.heights[7]) == (16, 16)
    rows_asked = np.array([9, 7, 8])
    assert np.array_equal(
        again.padded_sketches(rows_asked, 3457), held.padded_sketches(rows_asked, 3457)
    )


def test_link_counts_and_picture_sizes_are_kept_as_given() -> None:
    files = FileColumns()
    for links in (1, 2, 70_000, 2**32 + 5):
        files.append(FileEntry("/f/a", 1, 1, Kind.IMAGE, dev=1, ino=links, links=links))
    assert [files.entry(row).links for row in range(4)] == [1, 2, 70_000, 2**32 - 1]
    outcomes = OutcomeColumns(3)
    outcomes.put(0, FingerprintOutcome(0, 5, 640, 480))
    outcomes.put(1, FingerprintOutcome(1, 6))
    outcomes.put(2, FingerprintOutcome(2, 7, 640, 480))
    outcomes.put(2, FingerprintOutcome(2, 7))  # read again: no longer a picture
    assert outcomes.pixels(0) == 640 * 480
    assert outcomes.pixels(1) == outcomes.pixels(2) == 0
