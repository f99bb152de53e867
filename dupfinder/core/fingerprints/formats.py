"""Which files dupfinder compares, and as what kind, decided by suffix first.

The walk uses this to skip files cheaply; extractors then sniff the content, so a file
whose bytes disagree with its suffix gets a clear per-file error instead of garbage.

Music and videos are named by their suffix (``--kind audio`` chooses them either way), but
compared by content only where FFmpeg is found (:func:`content_kinds`); without it a scan
compares them by their bytes, as other files, and says so once.
"""

from __future__ import annotations

import os
from pathlib import PurePath

from dupfinder.core.media.tools import AUDIO_SUFFIXES, VIDEO_SUFFIXES
from dupfinder.core.model import FINGERPRINTED_KINDS, MEDIA_KINDS, Kind

__all__ = [
    "AUDIO_SUFFIXES",
    "DOCUMENT_SUFFIXES",
    "IMAGE_SUFFIXES",
    "NEVER_TEXT_SUFFIXES",
    "PLAIN_TEXT_SUFFIXES",
    "TEXT_NAMES",
    "VIDEO_SUFFIXES",
    "content_kinds",
    "kind_for_path",
    "may_be_text",
    "suffix_of",
    "untold_may_be_text",
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


#: Files that are never documents, so their content is not sniffed: archives, disk images,
#: programs, audio, video, fonts, office formats dupfinder does not read, other pictures.
NEVER_TEXT_SUFFIXES = frozenset(
    """
    .gz .tgz .bz2 .tbz .tbz2 .xz .txz .zst .lz .lz4 .lzma .z .zip .7z .rar .tar .cpio .ar
    .jar .war .apk .deb .rpm .whl .egg .cab .msi .iso .img .dmg .vdi .vmdk .qcow2 .vhd .vhdx
    .exe .dll .so .a .o .obj .lib .dylib .bin .elf .pyc .pyo .class .wasm .mo .gmo .gpg .sig
    .db .sqlite .sqlite3 .dat .pack .idx .bc .debug .jmod .ko .node .pyd .qm .pak .cache
    .tfm .pfm .vf .pk .ott .ots .otp .odb
    .mp3 .flac .ogg .oga .opus .wav .aac .m4a .wma .aif .aiff .mid .midi
    .mp4 .m4v .mkv .webm .avi .mov .wmv .flv .mpg .mpeg .3gp
    .ttf .otf .ttc .woff .woff2 .pfb .pcf
    .doc .xls .ppt .xlsx .pptx .ods .odp .odg .pages .numbers .key
    .ico .icns .svg .svgz .psd .xcf .raw .cr2 .nef .dng .arw .orf .jxl .jp2 .eps
    """.split()
)


#: Names that are plain text by convention though no suffix says so (Debian's ``copyright``
#: and ``README.Debian``, a project's ``COPYING``, ``NEWS``...): documents by their name, so
#: ``--kind other`` never lists them among the files compared by bytes only.
TEXT_NAMES = frozenset(
    """
    readme copying copyright license licence authors changelog changes news notice thanks
    todo install contributing contributors maintainers credits history
    """.split()
)
#: Debian's suffix for its own notes beside a package's (README.Debian, NEWS.Debian).
_DEBIAN_NOTE = ".debian"


def _text_by_name(name: str, suffix: str) -> bool:
    if suffix == _DEBIAN_NOTE:
        return True
    stem = name.lower().split(".", 1)[0]
    return stem in TEXT_NAMES and suffix not in NEVER_TEXT_SUFFIXES


def suffix_of(path: str | PurePath) -> str:
    """``PurePath(path).suffix.lower()`` without building a path object (the walk asks this
    of every file): the last dot of the name, neither first nor last, starts the suffix."""
    name = os.path.basename(os.fspath(path))
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""


#: The kind each telling suffix names; where two sets share a suffix, documents come before
#: pictures, pictures before music, music before videos.
_KIND_OF_SUFFIX: dict[str, Kind] = {
    **dict.fromkeys(VIDEO_SUFFIXES, Kind.VIDEO),
    **dict.fromkeys(AUDIO_SUFFIXES, Kind.AUDIO),
    **dict.fromkeys(IMAGE_SUFFIXES, Kind.IMAGE),
    **dict.fromkeys(PLAIN_TEXT_SUFFIXES | DOCUMENT_SUFFIXES, Kind.TEXT),
}


def kind_for_path(path: str | PurePath) -> Kind | None:
    """The kind a file is compared as, from its suffix; None for files dupfinder ignores.
    (The walk asks this of every file: one look-up in one table.)"""
    name = os.path.basename(os.fspath(path))
    dot = name.rfind(".")
    suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""
    kind = _KIND_OF_SUFFIX.get(suffix)
    if kind is None and _text_by_name(name, suffix):
        return Kind.TEXT
    return kind


def may_be_text(path: str | PurePath) -> bool:
    """No telling suffix (``COPYING``, ``Makefile``, ``.bashrc``, ``README.Debian``): the
    content decides whether it is text, so the scan sniffs its first bytes."""
    return kind_for_path(path) is None and untold_may_be_text(os.path.basename(os.fspath(path)))


def untold_may_be_text(name: str) -> bool:
    """``may_be_text`` of a file ``name`` whose suffix names no kind (the walk knows it has
    asked ``kind_for_path`` already)."""
    if suffix_of(name) in NEVER_TEXT_SUFFIXES:
        return False
    return ".so." not in name  # libfoo.so.6: a shared library


def content_kinds() -> frozenset[Kind]:
    """The kinds a scan compares by content now: music and videos only where FFmpeg is
    found (asked once per scan: finding it may run the program)."""
    from dupfinder.core.media import tools

    if tools.find_tools() is None:
        return FINGERPRINTED_KINDS - MEDIA_KINDS
    return FINGERPRINTED_KINDS
