"""A rescan names each picture's edits from the comparisons the last scan kept in the library:
the same groups and edits, and not one member compared with its kept picture again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageEnhance, ImageOps

from dupfinder.core.image import check as imagecheck
from dupfinder.core.model import Kind, ScanOptions, ScanResult
from dupfinder.core.scan import pipeline as scan

SAMPLE = Path(__file__).resolve().parents[3] / "resources" / "sample" / "photos" / "hills.jpg"


def _folder(root: Path) -> Path:
    """A photo and three edited copies of it: grey, brighter, cropped."""
    folder = root / "pictures"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "hills.jpg")
    photo = Image.open(SAMPLE).convert("RGB")
    ImageOps.grayscale(photo).save(folder / "hills-grey.png")
    ImageEnhance.Brightness(photo).enhance(1.3).save(folder / "hills-bright.jpg", quality=90)
    w, h = photo.size
    photo.crop((w // 20, h // 20, w, h)).save(folder / "hills-crop.png")
    return folder


def _edits(result: ScanResult) -> dict[str, tuple[str, ...]]:
    return {
        Path(m.path).name: tuple(e.label() for e in m.edits)
        for g in result.groups
        for m in g.members
    }


def test_a_rescan_names_edits_without_comparing_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = ScanOptions(
        roots=(_folder(tmp_path),),
        kinds=frozenset({Kind.IMAGE}),
        cache_dir=tmp_path / "cache",
        jobs=1,
    )
    first = scan.run(options)
    named = _edits(first)
    assert named["hills-grey.png"], "the grey copy's edits are named"
    assert sum(1 for edits in named.values() if edits) >= 3

    compared: list[int] = []
    compare = imagecheck.compare

    def counting(a: object, b: object) -> imagecheck.Comparison:
        found = compare(a, b)  # type: ignore[arg-type]
        compared.append(len(found.similarity))
        return found

    monkeypatch.setattr(imagecheck, "compare", counting)
    again = scan.run(options)
    assert _edits(again) == named
    assert [[m.path for m in g.members] for g in again.groups] == [
        [m.path for m in g.members] for g in first.groups
    ]
    assert sum(compared) == 0


def test_without_a_library_every_pair_is_compared(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    options = ScanOptions(roots=(folder,), kinds=frozenset({Kind.IMAGE}), use_cache=False, jobs=1)
    assert _edits(scan.run(options)) == _edits(scan.run(options))
