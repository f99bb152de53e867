"""Zip documents are read by what their parts really unpack to, never by what they declare."""

from __future__ import annotations

import struct
import subprocess
import sys
import textwrap
import zipfile
import zlib
from pathlib import Path

import pytest
from document_samples import write_docx, write_epub, write_odt

from dupfinder.core.errors import CorruptFile
from dupfinder.core.extract import extract_text

MiB = 1024 * 1024
_PARAGRAPH = b"<w:p><w:r><w:t>harbour tide buoy channel</w:t></w:r></w:p>"


def _deflated_document(size: int) -> tuple[bytes, int]:
    """A raw-deflated document.xml of about ``size`` bytes, and its CRC, made in pieces."""
    start = (
        b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w='
        b'"http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
    )
    end = b"</w:body></w:document>"
    block = _PARAGRAPH * (MiB // len(_PARAGRAPH))
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    pieces = [packer.compress(start)]
    crc = zlib.crc32(start)
    for _ in range(size // len(block)):
        pieces.append(packer.compress(block))
        crc = zlib.crc32(block, crc)
    pieces += [packer.compress(end), packer.flush()]
    return b"".join(pieces), zlib.crc32(end, crc)


def _lying_docx(tmp_path: Path, unpacked: int, declared: int) -> Path:
    """A real Word document whose document.xml unpacks to ``unpacked`` bytes but declares
    ``declared`` (in its local header and in the central directory alike)."""
    source = write_docx(tmp_path / "source.docx")
    packed, crc = _deflated_document(unpacked)
    path = tmp_path / "liar.docx"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(path, "w") as new:
        for info in old.infolist():
            if info.filename != "word/document.xml":
                new.writestr(info, old.read(info))
        info = zipfile.ZipInfo("word/document.xml", date_time=(2024, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED  # written raw below, then relabelled
        new.writestr(info, packed)
    data = bytearray(path.read_bytes())
    name = b"word/document.xml"
    for signature, method_at, crc_at, size_at, name_at in (
        (b"PK\x03\x04", 8, 14, 22, 30),
        (b"PK\x01\x02", 10, 16, 24, 46),
    ):
        at = 0
        while True:
            at = data.index(signature, at)
            if data[at + name_at : at + name_at + len(name)] == name:
                break
            at += 4
        struct.pack_into("<H", data, at + method_at, zipfile.ZIP_DEFLATED)
        struct.pack_into("<I", data, at + crc_at, crc)
        struct.pack_into("<I", data, at + size_at, declared)
    path.write_bytes(bytes(data))
    return path


def test_part_declaring_a_small_size_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """Reading a whole part at once unpacked all of it before trimming to the declared size."""
    path = _lying_docx(tmp_path, unpacked=512 * MiB, declared=40_000)
    assert path.stat().st_size < 2 * MiB
    child = textwrap.dedent(
        """
        import resource, sys
        from dupfinder.core.errors import FileProblem
        from dupfinder.core.extract import extract_text
        import dupfinder.core.extract.docx
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            extract_text(sys.argv[1])
            outcome = "read"
        except FileProblem as exc:
            outcome = type(exc).__name__
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(outcome, (peak - base) // 1024)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    outcome, grown_mib = done.stdout.split()
    assert outcome == "CorruptFile"  # the part does not end where it says
    assert int(grown_mib) < 64


def test_part_with_an_unusual_compression_method_is_refused(tmp_path: Path) -> None:
    source = write_odt(tmp_path / "source.odt")
    path = tmp_path / "bzip2.odt"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(path, "w") as new:
        for info in old.infolist():
            method = zipfile.ZIP_BZIP2 if info.filename == "content.xml" else info.compress_type
            new.writestr(info.filename, old.read(info), compress_type=method)
    with pytest.raises(CorruptFile, match=r"'content\.xml' uses an unusual compression method"):
        extract_text(path)


def test_epub_chapter_path_relative_to_the_package_document(tmp_path: Path) -> None:
    """Chapters are found through container.xml and the package's folder, also escaped."""
    source = write_epub(tmp_path / "book.epub")
    path = tmp_path / "moved.epub"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(path, "w") as new:
        for info in old.infolist():
            data = old.read(info)
            name = info.filename.replace("EPUB/text/one.xhtml", "OPS/chapter one.xhtml")
            name = name.replace("EPUB/", "OPS/")
            if name.endswith(".opf"):
                data = data.replace(b"text/one.xhtml", b"chapter%20one.xhtml#start")
            if name.endswith("container.xml"):
                data = data.replace(b"EPUB/", b"OPS/")
            new.writestr(name, data)
    assert extract_text(path) == extract_text(source)
