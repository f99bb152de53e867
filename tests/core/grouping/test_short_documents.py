"""Short documents: a page and its edited copy or HTML rendering are found, whatever their
SimHashes say (the densified sketch bands of ``grouping.verify``)."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scan_helpers import essay, write

from dupfinder.core.fingerprints.columns import FileColumns
from dupfinder.core.grouping import verify
from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.scan.pipeline import fingerprint_files
from dupfinder.core.scan.walk import walk_listed
from dupfinder.core.text import sketch

MAN1 = Path("/usr/share/man/man1")


def linked(result_groups: tuple[object, ...], a: Path, b: Path) -> bool:
    for group in result_groups:
        paths = {m.path for m in group.members}  # type: ignore[attr-defined]
        if str(a) in paths and str(b) in paths:
            return True
    return False


def test_densified_sketches_fill_empty_bins_from_the_next_filled_one() -> None:
    rows = np.zeros((3, 8), dtype=np.uint8)
    rows[0] = [0, 5, 0, 0, 9, 0, 0, 0]
    rows[1] = np.arange(1, 9)  # full: unchanged
    dense = verify.densified(rows)
    assert dense[0, 1] == 5  # filled bins keep their value
    assert dense[0, 4] == 9
    assert (dense[0] != 0).all()
    assert dense[0, 0] != dense[0, 2]  # borrowed from different distances: different values
    assert (dense[1] == rows[1]).all()
    assert (dense[2] == 0).all()  # nothing to borrow: still empty, proposes nothing
    again = rows.copy()
    again[0, 4] = 0
    assert verify.densified(again)[0, 2] != dense[0, 2]  # now borrowed from bin 1, wrapping


def test_short_texts_a_word_apart_are_grouped_however_far_their_simhashes(
    tmp_path: Path,
) -> None:
    """Thirty-word notes and their copies with one word changed (80 % of 3-word runs shared):
    their sketches leave most bins empty, and without densified bands many were never
    proposed (62 % of such pairs at 30 words, 15 % at 20)."""
    pairs = []
    for seed in range(24):
        words = essay(seed, words=30).split()[:30]
        changed = list(words)
        changed[15] = "zebra"
        a = write(tmp_path / "notes" / f"note{seed}.txt", " ".join(words) + "\n")
        b = write(tmp_path / "copies" / f"note{seed} (1).txt", " ".join(changed) + "\n")
        pairs.append((a, b))
    options = ScanOptions(roots=(tmp_path,), use_cache=False, jobs=1, identical=False)
    result = scan.run(options)
    missed = [a.name for a, b in pairs if not linked(result.groups, a, b)]
    assert missed == []


def _render(page: Path, out: Path, html: bool) -> None:
    source = gzip.decompress(page.read_bytes())
    command = ["mandoc", "-Thtml"] if html else ["mandoc", "-Tutf8"]
    rendered = subprocess.run(command, input=source, capture_output=True, check=True).stdout
    if not html:
        rendered = subprocess.run(["col", "-bx"], input=rendered, capture_output=True).stdout
    out.write_bytes(rendered)


@pytest.mark.skipif(
    shutil.which("mandoc") is None or shutil.which("col") is None or not MAN1.is_dir(),
    reason="needs mandoc and the man pages",
)
def test_short_man_pages_are_grouped_with_their_html(tmp_path: Path) -> None:
    """Every short real page (under 200 words) whose HTML rendering shares at least the
    scan's 70 % of 3-word runs with its text is grouped with it."""
    pages = sorted(p for p in MAN1.iterdir() if p.name.endswith(".1.gz"))
    chosen: list[tuple[Path, Path]] = []
    for page in pages:
        if len(chosen) == 40:
            break
        if page.stat().st_size > 2_500:  # short pages only; the rest are long or includes
            continue
        stem = page.name.removesuffix(".1.gz")
        text, html = tmp_path / "txt" / f"{stem}.txt", tmp_path / "html" / f"{stem}.html"
        text.parent.mkdir(exist_ok=True)
        html.parent.mkdir(exist_ok=True)
        _render(page, text, html=False)
        words = len(text.read_text(errors="replace").split())
        if not 20 <= words < 200:
            text.unlink()
            continue
        _render(page, html, html=True)
        chosen.append((text, html))
    if len(chosen) < 10:
        pytest.skip("too few short man pages here")
    options = ScanOptions(roots=(tmp_path,), use_cache=False, jobs=1, identical=False)
    result = scan.run(options)
    files = FileColumns()
    for entry in walk_listed([str(p) for pair in chosen for p in pair], options):
        files.append(entry)
    outcomes, _ = fingerprint_files(files, options)
    row = {path: i for i, path in enumerate(files.paths)}
    missed = []
    for text, html in chosen:
        i, j = row[str(text)], row[str(html)]
        both = outcomes.padded_sketches(np.array([i, j]), sketch.BINS)
        alike = float(sketch.pair_similarity(both[0], both[1])[0])
        grouped = any(
            {str(text), str(html)} <= {m.path for m in g.members}
            for g in result.groups
            if g.kind is Kind.TEXT
        )
        if alike >= options.text_similarity and not grouped:
            missed.append((text.stem, round(alike, 2)))
    assert missed == [], os.linesep.join(map(str, missed))
