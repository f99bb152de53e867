"""Real SimHashes for the index benchmark: documents of this machine, and their paragraphs.

Uniform random fingerprints are the easy case for permuted tables; SimHashes of real text
share bits (common words, boilerplate, one licence in many packages), which lengthens runs of
equal keys. This fingerprints every readable text under /usr/share/doc, /usr/share/man (gzip)
and /usr/share/common-licenses with dupfinder's own ``textsim.simhash``: once per whole file
and once per paragraph (blank-line separated, at least 200 characters), which gives about a
million real SimHashes. The result is saved in ``bench/out/doc_simhashes.npz`` and reused.

Run ``python -m bench.doc_simhashes`` to build it (a few minutes).
"""

from __future__ import annotations

import gzip
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from dupfinder.core.errors import TooLittleContent
from dupfinder.core.text import simhash as textsim

OUT = Path(__file__).resolve().parent / "out" / "doc_simhashes.npz"
ROOTS = (Path("/usr/share/doc"), Path("/usr/share/man"), Path("/usr/share/common-licenses"))
_PARAGRAPH = re.compile(r"\n\s*\n")
#: Most paragraphs kept (the benchmark's size).
PARAGRAPHS = 1_000_000


def texts() -> Iterator[str]:
    """Every text file under ROOTS, decompressed; binary and unreadable files skipped."""
    for root in ROOTS:
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.is_symlink():
                continue
            try:
                raw = (
                    gzip.decompress(path.read_bytes())
                    if path.suffix == ".gz"
                    else path.read_bytes()
                )
            except (OSError, EOFError, gzip.BadGzipFile):
                continue
            if b"\0" in raw[:4096]:
                continue
            yield raw.decode("utf-8", errors="replace")


def _simhash(text: str) -> int | None:
    try:
        return textsim.simhash(text)
    except TooLittleContent:
        return None


def build() -> tuple[np.ndarray, np.ndarray]:
    """(document SimHashes, paragraph SimHashes), as uint64 arrays."""
    docs: list[int] = []
    paragraphs: list[int] = []
    for text in texts():
        value = _simhash(text)
        if value is not None:
            docs.append(value)
        if len(paragraphs) < PARAGRAPHS:
            for part in _PARAGRAPH.split(text):
                if len(part) >= 200 and (p := _simhash(part)) is not None:
                    paragraphs.append(p)
    return np.array(docs, np.uint64), np.array(paragraphs[:PARAGRAPHS], np.uint64)


def load() -> tuple[np.ndarray, np.ndarray]:
    """The saved sets, built first if missing."""
    if not OUT.exists():
        docs, paragraphs = build()
        OUT.parent.mkdir(parents=True, exist_ok=True)
        np.savez(OUT, docs=docs, paragraphs=paragraphs)
    with np.load(OUT) as saved:
        return saved["docs"], saved["paragraphs"]


if __name__ == "__main__":
    documents, parts = load()
    print(f"{documents.size} documents, {parts.size} paragraphs -> {OUT}", file=sys.stderr)
