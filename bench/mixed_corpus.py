"""A mixed real folder from this machine's packages: documents, photos, icons, programs.

    python -m bench.mixed_corpus [--scale S] [--out DIR]

What a person's disk holds, built from what Debian installed here, copied (never linked, so
every file is its own inode): the documentation under /usr/share/doc (text, Markdown, HTML,
reStructuredText, compressed changelogs), Markdown from installed packages under /usr/lib,
HTML from installed toolchains' manuals, man pages as troff source (no suffix a reader knows: sniffed as text), photos from the
desktop wallpapers, icons from the icon themes (PNG and SVG), and programs from /usr/bin.
Near copies are planted the way they arise: documents with a paragraph cut, photos
re-encoded at a smaller size, icons re-saved, and byte copies in other folders. The choice
is deterministic (sorted paths, a fixed seed); ``--scale`` multiplies every share.
"""

from __future__ import annotations

import argparse
import gzip
import random
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from PIL import Image

OUT = Path(__file__).resolve().parent / "out" / "mixed"
VERSION = 2
#: (folder in the corpus, where from, suffixes taken, how many at scale 1)
SOURCES = (
    ("doc", Path("/usr/share/doc"), None, 4200),
    ("markdown", Path("/usr/lib"), (".md",), 600),
    ("html", Path("/root/.rustup/toolchains"), (".html",), 1500),
    ("icons", Path("/usr/share/icons"), (".png", ".svg"), 5000),
    ("photos", Path("/usr/share/wallpapers"), (".jpg", ".png", ".webp"), 200),
    ("backgrounds", Path("/usr/share/backgrounds"), (".jpg", ".png", ".webp"), 100),
    ("bin", Path("/usr/bin"), None, 500),
)
MAN_PAGES = 1500


def _files(root: Path, suffixes: tuple[str, ...] | None) -> list[Path]:
    found = []
    if not root.is_dir():
        return []
    for path in root.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        if suffixes is None or path.suffix.lower() in suffixes:
            found.append(path)
    return sorted(found)


def _sample(paths: list[Path], count: int, rng: random.Random) -> list[Path]:
    if len(paths) <= count:
        return paths
    return sorted(rng.sample(paths, count))


def _flat(name: str, index: int, source: Path) -> str:
    """A short unique name that keeps the file's own name and suffix."""
    return f"{index // 400:03d}/{index:05d}-{source.name[-60:]}"


def _copy(source: Path, target: Path) -> bool:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    except OSError:
        return False
    return True


def _cut_paragraph(text: str, rng: random.Random) -> str:
    paragraphs = text.split("\n\n")
    if len(paragraphs) > 3:
        del paragraphs[rng.randrange(1, len(paragraphs) - 1)]
    else:
        lines = text.splitlines()
        if len(lines) > 4:
            del lines[rng.randrange(1, len(lines) - 1)]
        text = "\n".join(lines)
        return text
    return "\n\n".join(paragraphs)


def _man_pages(count: int, rng: random.Random) -> Iterator[tuple[str, bytes]]:
    pages = sorted(Path("/usr/share/man").glob("man[1-8]/*.gz"))
    for page in _sample(pages, count, rng):
        try:
            yield page.name.removesuffix(".gz"), gzip.decompress(page.read_bytes())
        except (OSError, EOFError):
            continue


def build(out: Path = OUT, scale: float = 1.0) -> Path:
    """Build the corpus once (a marker file says it is complete) and return its folder."""
    marker = out / f".complete-v{VERSION}-x{scale:g}"
    if marker.exists():
        return out
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    rng = random.Random(27)
    documents: list[Path] = []
    pictures: list[Path] = []
    for name, root, suffixes, count in SOURCES:
        for index, source in enumerate(_sample(_files(root, suffixes), int(count * scale), rng)):
            target = out / name / _flat(name, index, source)
            if _copy(source, target):
                if name in ("photos", "backgrounds"):
                    pictures.append(target)
                elif name not in ("bin", "icons") and source.suffix not in (".gz", ""):
                    documents.append(target)
    for index, (name, data) in enumerate(_man_pages(int(MAN_PAGES * scale), rng)):
        target = out / "man" / f"{index // 400:03d}" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    _plant(out, documents, pictures, scale, rng)
    marker.write_text("ok")
    return out


def _plant(
    out: Path, documents: list[Path], pictures: list[Path], scale: float, rng: random.Random
) -> None:
    """Near copies and byte copies, as a person's folders gather them."""
    edited = out / "edited"
    for index, source in enumerate(_sample(documents, int(300 * scale), rng)):
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        target = edited / f"{index // 400:03d}" / f"{source.stem}-edited{source.suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_cut_paragraph(text, rng), encoding="utf-8")
    smaller = out / "resized"
    smaller.mkdir(exist_ok=True)
    for index, source in enumerate(_sample(pictures, int(60 * scale), rng)):
        try:
            with Image.open(source) as opened:
                picture = opened.convert("RGB")
                picture.thumbnail((picture.width // 2, picture.height // 2))
                picture.save(smaller / f"{index:04d}-{source.stem}.jpg", quality=80)
        except OSError:
            continue
    backup = out / "backup"
    everything = sorted(p for p in out.rglob("*") if p.is_file() and backup not in p.parents)
    for index, source in enumerate(_sample(everything, int(400 * scale), rng)):
        _copy(source, backup / f"{index // 400:03d}" / f"{index:05d}-{source.name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    folder = build(args.out, args.scale)
    files = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".complete")]
    print(f"{folder}: {len(files):,} files, {sum(p.stat().st_size for p in files) / 1e6:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
