"""Shared builders for scan tests: realistic documents and pictures written to a folder.

Also worker functions (one dies on purpose), importable by worker processes.
"""

from __future__ import annotations

import dataclasses
import os
import random
import time
from pathlib import Path

import numpy as np
from PIL import Image

from dupfinder.core.actions import make_plan
from dupfinder.core.actions.apply import ApplyReport, apply
from dupfinder.core.actions.journal import Journal
from dupfinder.core.fingerprints.worker import FingerprintOutcome, Task, fingerprint_batch
from dupfinder.core.model import (
    Fingerprint,
    Group,
    Kind,
    Member,
    Phase,
    Progress,
    ProgressCallback,
    ScanResult,
)

WORDS = (
    "river bridge garden window morning evening kitchen market letter station winter "
    "summer harbour village mountain forest valley meadow orchard library teacher doctor "
    "painter baker farmer sailor engine ladder basket candle lantern mirror pocket ribbon "
    "saddle thimble wagon anchor barrel bottle button carpet feather hammer needle pillow "
    "shovel spoon table thread tunnel violin wheel yellow purple silver golden quiet gentle "
    "narrow ancient bright heavy careful sudden"
).split()


def essay(seed: int, words: int = 400) -> str:
    """A document of pseudo-random sentences; different seeds share vocabulary only."""
    rng = random.Random(seed)
    sentences = []
    count = 0
    while count < words:
        length = rng.randint(8, 16)
        sentence = " ".join(rng.choice(WORDS) for _ in range(length))
        sentences.append(sentence.capitalize() + ".")
        count += length
    paragraphs = [" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5)]
    return "\n\n".join(paragraphs) + "\n"


def edit(text: str, seed: int, changes: int = 2) -> str:
    """Change a few words, as a person revising a document would."""
    rng = random.Random(seed)
    words = text.split(" ")
    for _ in range(changes):
        words[rng.randrange(len(words))] = rng.choice(WORDS)
    return " ".join(words)


def picture(seed: int, size: tuple[int, int] = (320, 240)) -> Image.Image:
    """A smooth picture with structure at several scales, like a photo."""
    rng = np.random.default_rng(seed)
    width, height = size
    field = np.zeros((height, width))
    for octave in range(1, 6):
        cells = 2**octave + 1
        small = Image.fromarray((rng.random((cells, cells)) * 255).astype(np.uint8))
        field += np.asarray(small.resize(size, Image.Resampling.BICUBIC), dtype=float) / octave
    field = (field - field.min()) / (np.ptp(field) or 1)
    rgb = np.stack([field, field**2, 1 - field], axis=-1)
    return Image.fromarray((rgb * 255).astype(np.uint8))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def crashing_batch(tasks: list[Task], image_invariance: bool = False) -> list[FingerprintOutcome]:
    """Like the real worker, but the process dies on any file named *crash*."""
    for task in tasks:
        if "crash" in os.path.basename(task.path):
            os._exit(3)
    return fingerprint_batch(tasks, image_invariance)


def counted_sum(values: list[int], *, progress: ProgressCallback) -> int:
    """A call for a worker process: reports each value as progress, returns their sum."""
    for done, _ in enumerate(values):
        progress(Progress(Phase.COMPARING, done, len(values)))
    return sum(values)


def raising(message: str, *, progress: ProgressCallback) -> None:
    raise ValueError(message)


def dying(code: int, *, progress: ProgressCallback) -> None:
    os._exit(code)


def sleeping(seconds: float, *, progress: ProgressCallback) -> None:
    progress(Progress(Phase.COMPARING, 0, 1))
    time.sleep(seconds)


def niceness(*, progress: ProgressCallback) -> int:
    """The scheduling niceness of the process this runs in."""
    return os.nice(0)


def member_at(path: Path, kind: Kind = Kind.TEXT, fingerprint: int = 1) -> Member:
    """A group member for ``path`` as a scan records it now (identity and change stamp)."""
    st = path.stat()
    return Member(
        str(path),
        st.st_size,
        st.st_mtime_ns,
        0,
        Fingerprint(kind, fingerprint),
        dev=st.st_dev,
        ino=st.st_ino,
        ctime_ns=st.st_ctime_ns,
    )


def one_group(paths: tuple[Path, ...] | list[Path], kind: Kind = Kind.TEXT) -> ScanResult:
    """A result of one group holding ``paths``, the first as its representative."""
    return ScanResult((Group(kind, tuple(member_at(p, kind) for p in paths)),))


def loaded(names: list[str]) -> list[bool]:
    """Which of ``names`` the calling process has imported (a worker's call)."""
    import sys

    return [name in sys.modules for name in names]


def pictures_warm() -> bool:
    """Whether the calling process (a worker) holds the picture reader's chroma tables and
    hasher already, made before its first picture."""
    import sys

    direct = sys.modules.get("dupfinder.core.image.direct")
    hashes = sys.modules.get("dupfinder.core.image.hashes")
    if direct is None or hashes is None:
        return False
    made = direct._chroma_tables.cache_info().currsize, hashes._hasher.cache_info().currsize
    return all(made)


def applied_as_copy(keep: Path, other: Path, journal: Path, kind: Kind = Kind.IMAGE) -> ApplyReport:
    """The apply of a results file that calls ``other`` a copy of ``keep`` (similarity 0.95)
    and marks it: what an action's proof makes of a claim it must check."""
    copy = dataclasses.replace(member_at(other, kind), similarity=0.95)
    group = Group(kind, (member_at(keep, kind), copy))
    return apply(make_plan(ScanResult((group,)), {str(other)}), journal=Journal(journal))


def assert_refused_as_copy(keep: Path, other: Path, journal: Path) -> None:
    """A results file that calls ``other`` a copy of ``keep`` is applied: its proof refuses the
    claim, so the removal is skipped and ``other``'s bytes are untouched."""
    before = other.read_bytes()
    report = applied_as_copy(keep, other, journal)
    assert [o.status for o in report.outcomes] == ["skipped"], report
    assert other.read_bytes() == before
