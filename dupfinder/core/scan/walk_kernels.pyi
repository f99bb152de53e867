"""Types of the compiled listing and first reads (``walk_kernels.pyx``)."""

from dupfinder.core.model import Kind
from dupfinder.core.scan import walk

#: A first read's answer for a file that is no longer the one the walk listed.
CHANGED: int

def folder_by_size(
    folder: str,
    hidden: bool,
    min_size: int,
    max_size: int,
    by_device: dict[int, bool],
    seen_files: set[tuple[int, int | str]],
    by_size: walk.Sized,
    kind: Kind,
) -> tuple[list[tuple[str, str, walk.FileStat]], int, int, int] | None: ...
def first_reads(
    files: list[tuple[str, walk.FileStat, Kind]], start: int, stop: int, small: int, partial: int
) -> list[bytes | int]: ...
def batch_sets(
    sizes: list[list[tuple[str, walk.FileStat, Kind]]],
    pieces: list[tuple[int, int, int]],
    small: int,
    partial: int,
) -> tuple[list[tuple[int, list[tuple[list[int], bytes]], list[tuple[int, int]]]], int]: ...
