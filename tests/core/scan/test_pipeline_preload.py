"""A pool's fork server imports the readers of the kinds a run reads, so each worker starts
with them instead of importing them again."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

import pytest
import scan_helpers

from dupfinder.core.fingerprints.worker import reader_modules
from dupfinder.core.model import Kind
from dupfinder.core.scan import pipeline

PICTURES = "dupfinder.core.image.perceptual"
DOCUMENTS = "dupfinder.core.extract"
WARM = "dupfinder.core.fingerprints.warm"


def test_each_kind_names_its_readers() -> None:
    assert reader_modules([Kind.IMAGE])[0] == "dupfinder.core.fingerprints.worker"
    assert PICTURES in reader_modules([Kind.IMAGE])
    assert DOCUMENTS not in reader_modules([Kind.IMAGE])
    both = reader_modules([Kind.TEXT, Kind.IMAGE, Kind.VIDEO, Kind.OTHER])
    assert {PICTURES, DOCUMENTS} <= set(both)
    assert len(both) == len(set(both))  # video's picture reader named once
    assert reader_modules([Kind.OTHER]) == ["dupfinder.core.fingerprints.worker"]
    assert both[-1] == WARM  # after the readers it warms
    assert reader_modules([Kind.IMAGE])[-1] == WARM


@pytest.fixture
def fresh_fork_server() -> Iterator[None]:
    """No fork server left from an earlier test (its imports were fixed when it started)."""
    if pipeline._mp_context().get_start_method() != "forkserver":
        pytest.skip("workers start by spawn here: nothing is imported before they start")
    pipeline._stop_fork_server()
    yield
    pipeline._stop_fork_server()


def _loaded_in_a_worker(readers: list[str]) -> list[bool]:
    with ProcessPoolExecutor(1, mp_context=pipeline._mp_context(readers)) as pool:
        return pool.submit(scan_helpers.loaded, [PICTURES, DOCUMENTS]).result(timeout=120)


def test_workers_start_with_the_readers_of_the_kinds_read(fresh_fork_server: None) -> None:
    assert _loaded_in_a_worker(reader_modules([Kind.IMAGE])) == [True, False]


def test_without_readers_a_worker_starts_without_them(fresh_fork_server: None) -> None:
    assert _loaded_in_a_worker([]) == [False, False]


def _warm_in_a_worker(readers: list[str]) -> bool:
    with ProcessPoolExecutor(1, mp_context=pipeline._mp_context(readers)) as pool:
        return pool.submit(scan_helpers.pictures_warm).result(timeout=120)


def test_workers_start_with_what_a_first_picture_makes(fresh_fork_server: None) -> None:
    """The fork server had the picture reader make its kernels, plans and tables: a worker
    forked from it starts with them."""
    assert _warm_in_a_worker(reader_modules([Kind.IMAGE]))


def test_without_warming_a_worker_makes_them_on_its_first_picture(
    fresh_fork_server: None,
) -> None:
    assert not _warm_in_a_worker([name for name in reader_modules([Kind.IMAGE]) if name != WARM])
