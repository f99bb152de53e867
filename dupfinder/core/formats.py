"""Which files dupfinder compares, and as what kind, decided by suffix first.

The walk uses this to skip files cheaply; extractors then sniff the content, so a file
whose bytes disagree with its suffix gets a clear per-file error instead of garbage.
"""

from __future__ import annotations

from pathlib import PurePath

from dupfinder.core.model import Kind

__all__ = [
    "DOCUMENT_SUFFIXES",
    "IMAGE_SUFFIXES",
    "PLAIN_TEXT_SUFFIXES",
    "kind_for_path",
]

#: Plain text and source code: read with encoding detection.
PLAIN_TEXT_SUFFIXES = frozenset(
    """
    .txt .text .md .markdown .rst .csv .tsv .log .tex .org .adoc .asciidoc .nfo .srt .vtt
    .ini .cfg .conf .toml .yaml .yml .json .xml
    .py .pyi .c .h .cc .cpp .cxx .hpp .hh .cs .java .kt .kts .scala .go .rs .swift .m .mm
    .js .mjs .cjs .ts .tsx .jsx .vue .svelte .css .scss .less .php .rb .pl .pm .lua .r
    .sh .bash .zsh .fish .ps1 .bat .cmd .sql .hs .ml .ex .exs .erl .clj .dart .jl .f90 .vb
    """.split()
)
#: Formats with markup or a container: text is extracted by a format-specific reader.
DOCUMENT_SUFFIXES = frozenset(".html .htm .xhtml .pdf .docx .odt .rtf .epub".split())
IMAGE_SUFFIXES = frozenset(
    ".jpg .jpeg .jpe .jfif .png .webp .gif .bmp .dib .tif .tiff .heic .heif .avif".split()
)


def kind_for_path(path: str | PurePath) -> Kind | None:
    """The kind a file is compared as, from its suffix; None for files dupfinder ignores."""
    suffix = PurePath(path).suffix.lower()
    if suffix in PLAIN_TEXT_SUFFIXES or suffix in DOCUMENT_SUFFIXES:
        return Kind.TEXT
    if suffix in IMAGE_SUFFIXES:
        return Kind.IMAGE
    return None
