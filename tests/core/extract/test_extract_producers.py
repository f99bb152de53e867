"""Documents made by the programs people use: pandoc, LibreOffice, groff, Ghostscript, pdfTeX.

Each test makes its document on the spot and is skipped when the producer is not
installed (Debian: pandoc, libreoffice-writer-nogui, groff, ghostscript, texlive-latex-base).
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest
from document_samples import PARAGRAPHS, TITLE, expected_words, words, write_markdown

from dupfinder.core.extract import extract_text

#: The passage in ASCII: groff and pdfTeX's default fonts would build "é" from two glyphs.
ASCII_PARAGRAPHS = [p.replace("é", "e") for p in PARAGRAPHS]


def _needs(*programs: str) -> None:
    for program in programs:
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed")


def _run(command: list[str], cwd: Path, feed: bytes = b"") -> bytes:
    return subprocess.run(command, input=feed, cwd=cwd, capture_output=True, check=True).stdout


def _similar(pdf_words: list[str], source_words: list[str]) -> float:
    return difflib.SequenceMatcher(None, source_words, pdf_words, autojunk=False).ratio()


@pytest.fixture(scope="module")
def pandoc_documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    _needs("pandoc")
    folder = tmp_path_factory.mktemp("pandoc")
    source = write_markdown(folder / "report.md")
    made = {}
    for suffix in ("odt", "docx", "epub"):
        made[suffix] = folder / f"report.{suffix}"
        _run(["pandoc", "--quiet", str(source), "-o", str(made[suffix])], folder)
    return made


@pytest.mark.parametrize("suffix", ["odt", "docx", "epub"])
def test_pandoc_documents(pandoc_documents: dict[str, Path], suffix: str) -> None:
    assert words(extract_text(pandoc_documents[suffix])) == expected_words()


@pytest.mark.slow
def test_libreoffice_conversions(pandoc_documents: dict[str, Path], tmp_path: Path) -> None:
    """LibreOffice rewrites pandoc's files its own way: Word to ODT, ODT to Word and PDF."""
    _needs("soffice")
    convert = ["soffice", "--headless", "--convert-to"]
    _run([*convert, "odt", "--outdir", str(tmp_path), str(pandoc_documents["docx"])], tmp_path)
    (tmp_path / "report.odt").rename(tmp_path / "from-word.odt")
    _run([*convert, "docx", "--outdir", str(tmp_path), str(pandoc_documents["odt"])], tmp_path)
    _run([*convert, "pdf", "--outdir", str(tmp_path), str(pandoc_documents["odt"])], tmp_path)
    for name in ("from-word.odt", "report.docx"):
        assert words(extract_text(tmp_path / name)) == expected_words(), name
    assert _similar(words(extract_text(tmp_path / "report.pdf")), expected_words()) > 0.97


def _manual_page() -> bytes:
    paragraphs = "\n.PP\n".join(ASCII_PARAGRAPHS)
    return f".TH SURVEY 1\n.SH NAME\n{TITLE}\n.SH DESCRIPTION\n{paragraphs}\n".encode()


def test_groff_pdf(tmp_path: Path) -> None:
    _needs("groff", "gropdf")  # gropdf: groff's PDF device (Debian: groff, not groff-base)
    path = tmp_path / "survey.pdf"
    path.write_bytes(_run(["groff", "-man", "-Tpdf"], tmp_path, _manual_page()))
    text = extract_text(path)
    assert words(text)[-80:] == words(" ".join(ASCII_PARAGRAPHS))[-80:]  # hyphenations joined
    assert text.count("General Commands Manual") == 1  # the running head, once


def test_ghostscript_pdf(tmp_path: Path) -> None:
    _needs("groff", "ps2pdf")
    postscript = _run(["groff", "-man", "-Tps"], tmp_path, _manual_page())
    _run(["ps2pdf", "-", "survey.pdf"], tmp_path, postscript)
    pdf_words = words(extract_text(tmp_path / "survey.pdf"))
    assert _similar(pdf_words, words(" ".join([TITLE, *ASCII_PARAGRAPHS]))) > 0.9


def test_pdftex_pdf(tmp_path: Path) -> None:
    _needs("pdflatex")
    body = "\n\n".join(ASCII_PARAGRAPHS)
    source = f"\\documentclass{{article}}\\begin{{document}}\\section*{{{TITLE}}}\n{body}\n"
    (tmp_path / "survey.tex").write_text(source + "\\end{document}\n")
    _run(["pdflatex", "-interaction=batchmode", "survey.tex"], tmp_path)
    pdf_words = words(extract_text(tmp_path / "survey.pdf"))
    assert pdf_words == words(" ".join([TITLE, *ASCII_PARAGRAPHS]))  # hyphenations joined
