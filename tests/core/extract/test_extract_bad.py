"""Bad, hostile and borderline input: every case ends in text or a clear FileProblem."""

from __future__ import annotations

import io
import os
import random
import struct
import zipfile
from pathlib import Path

import pytest
from document_samples import pdf_bytes, write_docx, write_epub, write_odt
from PIL import Image

from dupfinder.core.errors import (
    CorruptFile,
    EncryptedFile,
    TooLarge,
    TooLittleContent,
    UnsupportedFile,
)
from dupfinder.core.extract import extract_text

KiB = 1024
MiB = 1024 * KiB


def _noise(size: int, seed: int = 7) -> bytes:
    return random.Random(seed).randbytes(size)


def test_empty_file(tmp_path: Path) -> None:
    for name in ("empty.txt", "empty.pdf", "empty.docx"):
        path = tmp_path / name
        path.touch()
        with pytest.raises(TooLittleContent, match="empty file"):
            extract_text(path)


def test_whitespace_only_file(tmp_path: Path) -> None:
    path = tmp_path / "blank.txt"
    path.write_text(" \n\t\n   \r\n")
    with pytest.raises(TooLittleContent, match="only whitespace"):
        extract_text(path)


def test_binary_data_with_text_suffix(tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(_noise(4096) + b"\x00" * 16)
    with pytest.raises(UnsupportedFile, match="binary data, not text"):
        extract_text(path)


def test_binary_without_nul_bytes_is_still_binary(tmp_path: Path) -> None:
    path = tmp_path / "controls.log"
    path.write_bytes(bytes(random.Random(1).choice(range(1, 9)) for _ in range(2000)))
    with pytest.raises(UnsupportedFile, match="binary data"):
        extract_text(path)


def test_image_with_text_suffix_is_named(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "PNG")
    path = tmp_path / "notes.txt"
    path.write_bytes(buffer.getvalue())
    with pytest.raises(UnsupportedFile, match="a PNG image, not text"):
        extract_text(path)


def test_binary_data_with_pdf_suffix(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(b"\x00\x01\x02" * 1000)
    with pytest.raises(UnsupportedFile, match="binary data, not a PDF"):
        extract_text(path)


def test_zip_renamed_docx(tmp_path: Path) -> None:
    path = tmp_path / "report.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes/readme.txt", "not a word document")
    with pytest.raises(UnsupportedFile, match="a zip archive, not a Word document"):
        extract_text(path)


def test_spreadsheet_zip_renamed_docx_is_named(tmp_path: Path) -> None:
    path = tmp_path / "budget.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(UnsupportedFile, match="an Excel workbook, not a Word document"):
        extract_text(path)


def test_truncated_zip_container(tmp_path: Path) -> None:
    data = write_docx(tmp_path / "whole.docx").read_bytes()
    path = tmp_path / "cut.docx"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptFile, match=r"truncated or damaged zip \(a Word document\)"):
        extract_text(path)


def test_docx_without_document_part(tmp_path: Path) -> None:
    source = write_docx(tmp_path / "whole.docx")
    path = tmp_path / "gutted.docx"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(path, "w") as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename == "word/document.xml":
                data = b"<w:document xmlns:w='broken"
            new.writestr(info, data)
    with pytest.raises(CorruptFile, match="damaged Word document"):
        extract_text(path)


def _add_member(source: Path, target: Path, name: str, data: bytes) -> Path:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            new.writestr(info, old.read(info))
        new.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return target


def test_docx_zip_bomb_by_ratio(tmp_path: Path) -> None:
    source = write_docx(tmp_path / "whole.docx")
    path = _add_member(source, tmp_path / "bomb.docx", "word/media/zeros.bin", bytes(8 * MiB))
    with pytest.raises(TooLarge, match=r"expands to more than 200 times its packed size"):
        extract_text(path)


def test_docx_member_with_huge_declared_size(tmp_path: Path) -> None:
    source = write_docx(tmp_path / "whole.docx")
    path = _add_member(source, tmp_path / "liar.docx", "word/media/big.bin", b"small")
    data = bytearray(path.read_bytes())
    entry = data.rindex(b"PK\x01\x02")  # central directory entry of the added member
    assert data[entry + 46 : entry + 46 + 18] == b"word/media/big.bin"
    struct.pack_into("<I", data, entry + 24, 3 * 1024 * MiB)  # declared uncompressed size
    path.write_bytes(bytes(data))
    with pytest.raises(TooLarge, match="expands to more than"):
        extract_text(path)


def test_container_unpacking_to_more_than_the_budget(tmp_path: Path) -> None:
    source = write_odt(tmp_path / "whole.odt")
    vocabulary = ["tide", "harbour", "buoy", "channel", "silt", "pier", "quay", "depth"]
    chooser = random.Random(3)
    prose = " ".join(chooser.choice(vocabulary) for _ in range(100_000)).encode()
    path = _add_member(source, tmp_path / "heavy.odt", "Pictures/notes.txt", prose)
    assert path.stat().st_size < 256 * KiB < len(prose)
    with pytest.raises(TooLarge, match=r"expands to more than 256 KiB when unpacked"):
        extract_text(path, max_bytes=64 * KiB)
    assert "Harbour" in extract_text(path)


def test_epub_zip_bomb(tmp_path: Path) -> None:
    source = write_epub(tmp_path / "book.epub")
    path = _add_member(source, tmp_path / "bomb.epub", "EPUB/zeros.bin", bytes(8 * MiB))
    with pytest.raises(TooLarge, match="zip bomb"):
        extract_text(path)


def _pdf_with_text() -> bytes:
    return pdf_bytes([f"Line {n} of a document about harbours and tides." for n in range(30)])


def test_truncated_pdf(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    data = _pdf_with_text()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptFile, match="truncated or damaged PDF: "):
        extract_text(path)
    assert capfd.readouterr().err == ""  # pypdf's complaints stay out of the terminal


def test_pdf_with_garbage_body(tmp_path: Path) -> None:
    path = tmp_path / "garbage.pdf"
    path.write_bytes(b"%PDF-1.7\n" + _noise(5000) + b"\n%%EOF\n")
    with pytest.raises(CorruptFile, match="truncated or damaged PDF"):
        extract_text(path)


def test_password_protected_pdf(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(_pdf_with_text())))
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    path = tmp_path / "locked.pdf"
    with path.open("wb") as stream:
        writer.write(stream)
    with pytest.raises(EncryptedFile, match="password-protected PDF"):
        extract_text(path)


def test_pdf_without_text_layer(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.image(Image.new("RGB", (200, 100), "gray"), x=10, y=10, w=100)
    path = tmp_path / "scan.pdf"
    pdf.output(str(path))
    with pytest.raises(TooLittleContent, match=r"no text layer \(scanned PDF\?\)"):
        extract_text(path)


def test_pdf_over_the_character_cap(tmp_path: Path) -> None:
    path = tmp_path / "long.pdf"
    path.write_bytes(_pdf_with_text())
    with pytest.raises(TooLarge, match="characters of text"):
        extract_text(path, max_bytes=500)


def test_huge_sparse_text_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as stream:
        stream.write(b"Plain words at the start of a very large log file.\n" * 400)
        stream.truncate(2 * 1024 * MiB)  # sparse: costs no disk
    with pytest.raises(TooLarge, match="larger than the 64 MiB limit for text documents"):
        extract_text(path)


def test_huge_sparse_file_of_zeros_is_binary(tmp_path: Path) -> None:
    path = tmp_path / "zeros.txt"
    with path.open("wb") as stream:
        stream.truncate(2 * 1024 * MiB)
    with pytest.raises(UnsupportedFile, match="binary data, not text"):
        extract_text(path)


def test_huge_sparse_pdf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.pdf"
    with path.open("wb") as stream:
        stream.write(_pdf_with_text())
        stream.truncate(2 * 1024 * MiB)
    with pytest.raises(TooLarge, match="larger than the 1 GiB limit for PDF files"):
        extract_text(path)


def test_text_over_a_small_budget(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("word " * 1000)
    with pytest.raises(TooLarge, match="larger than the 1 KiB limit"):
        extract_text(path, max_bytes=1024)
    assert extract_text(path, max_bytes=5000).startswith("word word")


def test_invalid_max_bytes(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("words")
    with pytest.raises(ValueError, match="max_bytes"):
        extract_text(path, max_bytes=0)


def test_missing_file_raises_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        extract_text(tmp_path / "gone.txt")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_not_opened(tmp_path: Path) -> None:
    path = tmp_path / "pipe.txt"
    os.mkfifo(path)
    with pytest.raises(UnsupportedFile, match="not a regular file"):
        extract_text(path)


def test_directory_is_not_a_document(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFile, match="not a regular file"):
        extract_text(tmp_path)


def test_damaged_rtf_still_yields_its_words(tmp_path: Path) -> None:
    path = tmp_path / "broken.rtf"
    path.write_text("{\\rtf1\\ansi {\\b unclosed group with words\\par} more words \\u}}}", "ascii")
    assert "unclosed group with words" in extract_text(path)


def test_rtf_without_text(tmp_path: Path) -> None:
    path = tmp_path / "blank.rtf"
    path.write_text("{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}\\pard\\par}", "ascii")
    with pytest.raises(TooLittleContent, match="no text"):
        extract_text(path)


def test_html_that_is_only_script(tmp_path: Path) -> None:
    path = tmp_path / "app.html"
    path.write_text("<html><head><script>render()</script></head><body></body></html>")
    with pytest.raises(TooLittleContent, match="no text"):
        extract_text(path)


def test_deeply_nested_html_is_read_or_refused_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "nested.html"
    path.write_text("<div>" * 5000 + "deep words" + "</div>" * 5000)
    try:
        text = extract_text(path)
    except CorruptFile:
        return
    assert "deep words" in text
