"""Builders for the hostile-input tests: every strange file a disk can hold, made on the spot.

``build_corpus(root)`` writes the corpus and returns what each file should become: a
fingerprint (``OK``) or a per-file error with one of a few codes. ``snapshot(root)`` records
every file's bytes, mode and mtime so a test can prove that a scan modified nothing. This
module holds no tests; it is named so that it belongs to the hostile-input tests.
"""

from __future__ import annotations

import hashlib
import io
import os
import random
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from document_samples import pdf_bytes
from PIL import Image
from scan_helpers import essay, picture

#: The outcome a file may have: fingerprinted (and grouped with its twin), or one of these codes.
OK = "ok"
MiB = 1024 * 1024


@dataclass
class Corpus:
    """The corpus root and, per file (bytes path), the outcomes the scan may give it."""

    root: Path
    expected: dict[bytes, frozenset[str]] = field(default_factory=dict)
    #: Files whose twin makes a group, so a correct fingerprint is visible in the result.
    grouped: set[bytes] = field(default_factory=set)

    def add(self, path: Path | bytes, data: bytes, *outcomes: str) -> bytes:
        raw = os.fsencode(path)
        os.makedirs(os.path.dirname(raw), exist_ok=True)
        with open(raw, "wb") as handle:
            handle.write(data)
        self.expected[raw] = frozenset(outcomes)
        return raw

    def pair(self, path: Path | bytes, data: bytes) -> None:
        """A file and an identical twin: both must be fingerprinted and grouped together."""
        raw = os.fsencode(path)
        stem, suffix = os.path.splitext(raw)
        for name in (raw, stem + b"-twin" + suffix):
            self.grouped.add(self.add(name, data, OK))


def png_chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def halves_png(width: int, height: int, colour_type: int = 0) -> bytes:
    """A valid PNG (grey or RGB): white top-left and bottom-right quarters, black elsewhere.

    Tiny on disk (rows repeat, deflate packs them ~1000:1), ``width x height`` when decoded,
    and never flat at any scale.
    """
    channels = 3 if colour_type == 2 else 1
    left = (width // 2) * channels
    right = width * channels - left
    top = b"\x00" + b"\xff" * left + b"\x00" * right
    bottom = b"\x00" + b"\x00" * left + b"\xff" * right
    packer = zlib.compressobj(1)
    chunks = [
        packer.compress(top * (height // 2)),
        packer.compress(bottom * (height - height // 2)),
    ]
    chunks.append(packer.flush())
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", b"".join(chunks))
        + png_chunk(b"IEND", b"")
    )


def declared_bomb_png(side: int = 100_000) -> bytes:
    """A few dozen bytes whose header claims ``side x side`` 8-bit pixels."""
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", zlib.compress(b"\x00" * 4096))
        + png_chunk(b"IEND", b"")
    )


def image_bytes(fmt: str, seed: int = 1, size: tuple[int, int] = (160, 120)) -> bytes:
    """A photo-like picture encoded as ``fmt`` (HEIF through pillow-heif)."""
    im = picture(seed, size)
    buffer = io.BytesIO()
    if fmt == "HEIF":
        from pillow_heif import register_heif_opener

        register_heif_opener()
    im.save(buffer, format=fmt)
    return buffer.getvalue()


IMAGE_FORMATS = {
    "jpg": "JPEG",
    "png": "PNG",
    "webp": "WEBP",
    "gif": "GIF",
    "tiff": "TIFF",
    "heic": "HEIF",
}


def _flip_bytes(data: bytes, seed: int, start: int, count: int = 64) -> bytes:
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(count):
        out[rng.randrange(start, len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def encrypted_pdf() -> bytes:
    from pypdf import PdfReader, PdfWriter

    source = pdf_bytes([f"Line {n} of a confidential note on tides." for n in range(20)])
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(source)))
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def image_only_pdf() -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.image(Image.new("RGB", (200, 100), "gray"), x=10, y=10, w=100)
    buffer = io.BytesIO()
    pdf.output(buffer)
    return buffer.getvalue()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def add_documents(corpus: Corpus) -> None:
    """Empty, binary, mis-encoded, huge, encrypted and broken documents."""
    root = corpus.root / "docs"
    text = essay(11)
    corpus.add(root / "empty.txt", b"")  # below the default min size: never reaches a reader
    del corpus.expected[os.fsencode(root / "empty.txt")]
    corpus.add(root / "one-byte.txt", b"x", "too-little-content")
    corpus.add(root / "whitespace.md", b" \n\t\n " * 40, "too-little-content")
    corpus.add(root / "binary.txt", random.Random(3).randbytes(20_000), "unsupported")
    corpus.add(root / "elf.c", b"\x7fELF\x02\x01\x01" + bytes(4000), "unsupported")
    corpus.add(root / "zeros.log", bytes(5000), "unsupported")
    corpus.add(root / "invalid-utf8.txt", bytes(range(0x80, 0x100)) * 40, "unsupported", OK)
    corpus.pair(
        root / "mixed-encodings.txt", text.encode() + "Café crème à la carte\n".encode("cp1252")
    )
    corpus.pair(root / "latin1.txt", text.replace("river", "rivière").encode("latin-1"))
    corpus.pair(root / "utf16.txt", text.encode("utf-16"))
    corpus.pair(root / "bom-utf8.md", b"\xef\xbb\xbf" + essay(12).encode())
    corpus.pair(root / "crlf.txt", essay(13).replace("\n", "\r\n").encode())
    corpus.add(root / "pdf-encrypted.pdf", encrypted_pdf(), "encrypted")
    good_pdf = pdf_bytes([f"Line {n} of the harbour survey, tide and depth." for n in range(40)])
    corpus.add(root / "pdf-truncated.pdf", good_pdf[: len(good_pdf) // 2], "corrupt", OK)
    corpus.add(
        root / "pdf-garbage.pdf", b"%PDF-1.7\n" + random.Random(5).randbytes(4000), "corrupt"
    )
    corpus.add(root / "pdf-no-text.pdf", image_only_pdf(), "too-little-content")
    corpus.add(root / "pdf-header-only.pdf", b"%PDF-1.4\n%%EOF\n", "corrupt", "too-little-content")
    corpus.add(root / "zip-renamed.docx", _zip({"a.txt": b"hello"}), "unsupported")
    corpus.add(root / "truncated.docx", _zip({"word/document.xml": b"<x/>" * 500})[:300], "corrupt")
    corpus.add(
        root / "docx-without-body.docx",
        _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document"}),
        "corrupt",
    )
    corpus.add(
        root / "odt-garbage.odt", b"PK\x03\x04" + random.Random(6).randbytes(3000), "corrupt"
    )
    corpus.add(
        root / "epub-empty.epub",
        _zip({"mimetype": b"application/epub+zip"}),
        "corrupt",
        "too-little-content",
    )
    corpus.add(
        root / "rtf-unclosed.rtf", b"{\\rtf1\\ansi {\\b bold " * 200, "too-little-content", OK
    )
    corpus.add(
        root / "html-deep.html",
        b"<div>" * 100_000 + b"deep words here " * 50,
        "too-little-content",
        "corrupt",
        OK,
    )
    corpus.add(
        root / "html-script-only.html",
        b"<script>" + b"var x = 1;" * 300 + b"</script>",
        "too-little-content",
    )
    big = root / "huge-sparse.txt"
    corpus.add(big, (text * 4).encode(), "too-large")  # text past the sniffed 8 KiB
    os.truncate(big, 2 * 1024 * MiB)  # 2 GiB, sparse: no disk used


def add_images(corpus: Corpus) -> None:
    """Truncated and corrupt files of every format, bombs, a 1-pixel and a 400 Mpx image."""
    root = corpus.root / "images"
    for suffix, fmt in IMAGE_FORMATS.items():
        data = image_bytes(fmt, seed=2)
        corpus.pair(root / f"good.{suffix}", data)
        corpus.add(root / f"truncated.{suffix}", data[: len(data) // 2], "corrupt", "unsupported")
        corpus.add(root / f"header-only.{suffix}", data[:40], "corrupt", "unsupported")
        # bit flips past the header: a damaged decode, or pixels that hash near the original
        corpus.add(
            root / f"flipped.{suffix}",
            _flip_bytes(data, 9, min(200, len(data) // 3)),
            "corrupt",
            "unsupported",
            "too-little-content",
            OK,
        )
        corpus.add(
            root / f"garbage.{suffix}", random.Random(8).randbytes(3000), "unsupported", "corrupt"
        )
        corpus.add(root / f"empty.{suffix}", b"\x00", "unsupported", "corrupt")
    corpus.add(root / "bomb-declared.png", declared_bomb_png(), "too-large")
    corpus.add(root / "bomb-20000x20000.png", halves_png(20_000, 20_000), "too-large")
    corpus.add(
        root / "one-pixel.png",
        _png_of(Image.new("RGB", (1, 1), (200, 10, 10))),
        "too-little-content",
    )
    corpus.add(
        root / "flat.jpg",
        _jpeg_of(Image.new("RGB", (300, 200), (90, 90, 90))),
        "too-little-content",
    )
    corpus.add(root / "text-as-image.png", essay(14).encode(), "unsupported")
    corpus.add(root / "pdf-as-image.jpg", image_only_pdf(), "unsupported")


def _png_of(im: Image.Image) -> bytes:
    buffer = io.BytesIO()
    im.save(buffer, format="PNG")
    return buffer.getvalue()


def _jpeg_of(im: Image.Image) -> bytes:
    buffer = io.BytesIO()
    im.save(buffer, format="JPEG")
    return buffer.getvalue()


def add_names(corpus: Corpus) -> None:
    """File names that are not UTF-8, hold newlines or sit near PATH_MAX."""
    root = os.fsencode(corpus.root / "names")
    corpus.pair(root + b"/caf\xe9-latin1.txt", essay(21).encode())
    corpus.pair(root + b"/line\nbreak.txt", essay(22).encode())
    corpus.pair(root + b"/tab\tand\rreturn \xff\xfe.md", essay(23).encode())
    corpus.pair(root + "/emoji-😀-ünïcödé.txt".encode(), essay(24).encode())
    corpus.pair(root + b"/-leading-dash.txt", essay(25).encode())
    corpus.pair(root + b"/quote\"'backslash\\.txt", essay(26).encode())
    # Deep folders of 255-byte names, up to just under PATH_MAX (4096 bytes with its NUL).
    deep = root + b"/deep"
    part = 0
    while len(deep) + 256 + 40 < 4095:
        deep += b"/" + (b"%03d" % part) + b"d" * 252
        part += 1
    corpus.pair(deep + b"/near-path-max.txt", essay(27).encode())


def add_too_long_path(corpus: Corpus) -> bytes:
    """A file whose full path exceeds PATH_MAX: only reachable relative to an open folder."""
    top = os.fsencode(corpus.root / "too-long")
    os.makedirs(top, exist_ok=True)
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    length = len(top)
    try:
        while length < 4400:
            name = b"x" * 250
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
            length += 251
        handle = os.open(b"beyond.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(handle, essay(28).encode())
        os.close(handle)
    finally:
        os.close(fd)
    return top


def add_special(corpus: Corpus) -> None:
    """Symlink loops, dangling links, a FIFO and devices dressed as documents."""
    root = corpus.root / "special"
    root.mkdir(parents=True)
    (root / "loop").mkdir()
    (root / "loop" / "back").symlink_to(root)  # a folder loop
    (root / "self.txt").symlink_to(root / "self.txt")  # ELOOP on stat
    (root / "a.txt").symlink_to(root / "b.txt")  # a two-link loop
    (root / "b.txt").symlink_to(root / "a.txt")
    (root / "dangling.md").symlink_to(root / "nowhere.md")
    os.mkfifo(root / "fifo.txt")
    (root / "null.txt").symlink_to("/dev/null")
    (root / "zero.txt").symlink_to("/dev/zero")
    if os.geteuid() == 0:
        os.mknod(root / "device.txt", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
    corpus.pair(root / "real.txt", essay(31).encode())
    # Failures reported only when links are followed; without, links are skipped silently.
    for name in ("self.txt", "a.txt", "b.txt", "dangling.md"):
        corpus.expected[os.fsencode(root / name)] = frozenset({"unreadable", "unsupported"})
    for name in ("fifo.txt", "null.txt", "zero.txt", "device.txt"):
        if (root / name).is_symlink() or (root / name).exists():
            corpus.expected[os.fsencode(root / name)] = frozenset({"unsupported"})


def build_corpus(root: Path) -> Corpus:
    corpus = Corpus(root)
    add_documents(corpus)
    add_images(corpus)
    add_names(corpus)
    add_special(corpus)
    return corpus


@dataclass(frozen=True)
class FileState:
    mode: int
    size: int
    mtime_ns: int
    digest: str | None


def snapshot(root: Path) -> dict[bytes, FileState]:
    """Every entry under ``root`` (links not followed): mode, size, mtime, content digest.

    Regular files are read in full except sparse giants (size and mtime still compared).
    """
    states: dict[bytes, FileState] = {}
    for folder, dirs, files in os.walk(os.fsencode(root)):
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            digest = None
            if stat.S_ISREG(info.st_mode) and info.st_size <= 64 * MiB:
                with open(path, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()
            states[path] = FileState(info.st_mode, info.st_size, info.st_mtime_ns, digest)
    return states


def noise_image(seed: int, size: tuple[int, int] = (96, 96)) -> Image.Image:
    """Random pixels: never flat, cheap to make."""
    rng = np.random.default_rng(seed)
    return Image.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8))
