"""A folder of near-duplicate documents and pictures for the distributed tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from scan_helpers import edit, essay, picture, write

from dupfinder.core.model import ScanOptions


def near_duplicate_corpus(root: Path) -> Path:
    """Drafts of a few documents, copies, pictures and their resized copies, a file with too
    little text (an error), a name that is not UTF-8 and a file that is neither."""
    for doc in range(4):
        text = essay(doc)
        write(root / f"doc{doc}" / "final.txt", text)
        write(root / f"doc{doc}" / "draft.txt", edit(text, doc, 3))
        write(root / f"doc{doc}" / "copy.md", text)
    write(root / "alone.txt", essay(99))
    write(root / "tiny.txt", "hi")
    for seed in range(3):
        image = picture(seed)
        image.save(root / f"pic{seed}.png")
        image.resize((160, 120)).save(root / f"pic{seed}-small.jpg", quality=90)
    (root / os.fsdecode(b"caf\xe9-notes.txt")).write_bytes(essay(2).encode())
    (root / "archive.bin").write_bytes(bytes(range(256)) * 64)  # compared only byte for byte
    return root


def scan_options(root: Path, **extra: Any) -> ScanOptions:  # more of ScanOptions's fields
    """The scan without its byte-identical pass, which stored fingerprints do not cover."""
    return ScanOptions(roots=(root,), identical=False, jobs=1, use_cache=False, **extra)
