"""Extraction of each document format, and the same words from every conversion of a document."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest
from document_samples import (
    CLOSING,
    HEAD,
    PARAGRAPHS,
    TITLE,
    WRITERS,
    expected_words,
    passage_html,
    pdf_bytes,
    rtf_document,
    words,
    write_docx,
    write_odt,
    write_pdf,
)

import dupfinder.core.extract as extract
from dupfinder.core.extract import Format, detect_format, extract_text

CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
LATIN_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def test_public_api() -> None:
    assert set(extract.__all__) == {
        "DEFAULT_MAX_BYTES",
        "EXTRACTOR_VERSION",
        "Format",
        "detect_format",
        "extract_text",
    }
    assert isinstance(extract.EXTRACTOR_VERSION, str)
    assert extract.EXTRACTOR_VERSION
    assert extract.DEFAULT_MAX_BYTES == 64 * 1024 * 1024


@pytest.mark.parametrize("fmt", list(Format))
def test_every_format_has_a_reader(fmt: Format) -> None:
    assert callable(extract._reader(fmt))


@pytest.fixture(scope="module")
def conversions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("conversions")
    return {suffix: write(folder / f"report.{suffix}") for suffix, write in WRITERS.items()}


@pytest.mark.parametrize("suffix", list(WRITERS))
def test_every_conversion_extracts_the_same_words(
    conversions: dict[str, Path], suffix: str
) -> None:
    assert words(extract_text(conversions[suffix])) == expected_words()


def test_conversions_agree_after_text_normalisation(conversions: dict[str, Path]) -> None:
    textsim = pytest.importorskip("dupfinder.core.text.simhash")
    normalised = {s: textsim.normalize(extract_text(p)).split() for s, p in conversions.items()}
    reference = normalised["docx"]
    assert all(value == reference for value in normalised.values()), normalised


@pytest.mark.parametrize(
    ("suffix", "fmt"),
    [
        ("docx", Format.DOCX),
        ("pdf", Format.PDF),
        ("html", Format.HTML),
        ("md", Format.MARKDOWN),
        ("rst", Format.RST),
        ("odt", Format.ODT),
        ("rtf", Format.RTF),
        ("epub", Format.EPUB),
    ],
)
def test_detect_format(conversions: dict[str, Path], suffix: str, fmt: Format) -> None:
    assert detect_format(conversions[suffix]) is fmt


@pytest.mark.parametrize(("real", "fake"), [("docx", "pdf"), ("pdf", "txt"), ("rtf", "doc")])
def test_content_wins_over_a_wrong_suffix(
    conversions: dict[str, Path], tmp_path: Path, real: str, fake: str
) -> None:
    renamed = tmp_path / f"report.{fake}"
    renamed.write_bytes(conversions[real].read_bytes())
    assert words(extract_text(renamed)) == expected_words()


def test_source_code_mentioning_magic_numbers_stays_text(tmp_path: Path) -> None:
    path = tmp_path / "sniff.py"
    path.write_text('MAGIC = b"%PDF-"\nZIP = b"PK"\n', encoding="utf-8")
    assert detect_format(path) is Format.PLAIN
    assert extract_text(path) == 'MAGIC = b"%PDF-"\nZIP = b"PK"'


def test_pdf_with_junk_before_its_header(tmp_path: Path) -> None:
    path = tmp_path / "mail-attachment.pdf"
    path.write_bytes(b"junk from a mail gateway\r\n" + pdf_bytes(["Body of the letter"]))
    assert extract_text(path) == "Body of the letter"


def test_html_page_saved_as_txt_is_read_as_html(tmp_path: Path) -> None:
    path = tmp_path / "page.txt"
    path.write_text(passage_html(), encoding="utf-8")
    assert detect_format(path) is Format.HTML
    assert words(extract_text(path)) == expected_words()


def test_html_shows_only_visible_text(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<!DOCTYPE html><html><head><title>Tab title</title>"
        "<style>body { color: red }</style><script>alert('script words')</script></head>"
        "<body><h2>Visible &amp; heading</h2><p>One <b>bold</b>\n   word<br>next line</p>"
        "<div hidden>hidden div</div><p style='display: none'>invisible</p>"
        "<noscript>enable scripts</noscript><img alt='alt words' src='x.png'>"
        "<a href='https://example.invalid/target'>link text</a>"
        "<ul><li>first</li><li>second</li></ul><pre>  keep\n  lines</pre>"
        "<template>template words</template><!-- comment words --></body></html>",
        encoding="utf-8",
    )
    assert extract_text(path).splitlines() == [
        "Visible & heading",
        "One bold word",
        "next line",
        "link text",
        "first",
        "second",
        "keep",
        "lines",
    ]


def test_html_meta_charset_is_honoured(tmp_path: Path) -> None:
    text = "日本語のウェブページです。文字コードはシフトJISで宣言されています。"
    path = tmp_path / "sjis.html"
    page = f"<html><head><meta charset='shift_jis'></head><body><p>{text}</p></body></html>"
    path.write_bytes(page.encode("shift_jis"))
    assert extract_text(path) == text


def test_markdown_loses_markup_but_keeps_words(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "# Heading *one*\n\nSome **strong** and `code` words with a [link](https://x.invalid)\n"
        "wrapped onto a second line.![alt words](pic.png)\n\n- item one\n- item two\n\n"
        "```python\nprint('fenced')\n```\n\n<div>raw <b>html</b> block</div>\n\n"
        "> quoted &amp; escaped\n",
        encoding="utf-8",
    )
    assert extract_text(path).splitlines() == [
        "Heading one",
        "Some strong and code words with a link wrapped onto a second line.",
        "item one",
        "item two",
        "print('fenced')",
        "raw html block",
        "quoted & escaped",
    ]


def test_rst_loses_markup_and_stays_quiet(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.rst"
    path.write_text(
        "Title\n=====\n\nSome *emphasis* and ``literal`` with a `link <https://x.invalid>`_\n"
        "wrapped onto a second line.\n\n.. a comment nobody sees\n\n"
        ".. include:: /etc/passwd\n\n.. raw:: html\n\n   <b>raw</b>\n\n"
        "Broken `markup and\n   a bad indent\n\n.. unknown-directive:: x\n\n"
        "Short\n==\n\n- item one\n- item two\n",
        encoding="utf-8",
    )
    lines = extract_text(path).splitlines()
    assert lines[:2] == [
        "Title",
        "Some emphasis and literal with a link wrapped onto a second line.",
    ]
    assert "item one" in lines
    assert "item two" in lines
    text = "\n".join(lines)
    assert "root:" not in text
    assert "comment" not in text
    assert "raw" not in text
    assert "ERROR" not in text
    assert "Broken `markup" in text
    captured = capfd.readouterr()
    assert captured.out == ""
    assert captured.err == ""


def test_docx_reads_tables_nested_tables_headers_and_footers(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    section = document.sections[0]
    section.header.paragraphs[0].text = "Running head"
    section.footer.paragraphs[0].text = "Confidential footer"
    section.footer.add_paragraph("7")  # a page number is not text to compare
    document.add_paragraph("Before the table.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "a1"
    table.cell(0, 1).text = "b1"
    table.cell(1, 0).text = "a2"
    inner = table.cell(1, 1).add_table(rows=1, cols=2)
    inner.cell(0, 0).text = "inner1"
    inner.cell(0, 1).text = "inner2"
    document.add_paragraph("After the table.")
    path = tmp_path / "layout.docx"
    document.save(str(path))
    assert words(extract_text(path)) == words(
        "Running head Before the table a1 b1 a2 inner1 inner2 After the table Confidential footer"
    )


def test_odt_reads_spaces_tabs_breaks_and_skips_note_citations(tmp_path: Path) -> None:
    from odf.opendocument import OpenDocumentText
    from odf.text import LineBreak, Note, NoteBody, NoteCitation, P, S, Span, Tab

    document = OpenDocumentText()
    paragraph = P(text="Alpha")
    paragraph.addElement(S(c=3))
    span = Span(text="beta")
    paragraph.addElement(span)
    paragraph.addElement(Tab())
    paragraph.addText("gamma")
    paragraph.addElement(LineBreak())
    paragraph.addText("delta")
    note = Note(id="ftn1", noteclass="footnote")
    note.addElement(NoteCitation(text="1"))
    body = NoteBody()
    body.addElement(P(text="The footnote body."))
    note.addElement(body)
    paragraph.addElement(note)
    document.text.addElement(paragraph)
    path = tmp_path / "inline.odt"
    document.save(str(path))
    assert extract_text(path).splitlines() == [
        "Alpha   beta\tgamma",
        "delta",
        "The footnote body.",
    ]


def test_rtf_unicode_escapes_and_code_page_bytes(tmp_path: Path) -> None:
    texts = [
        "Ελληνικά και русский текст",
        "中文段落和日本語のテキスト",
        "emoji 😀 outside the basic plane",
    ]
    source = rtf_document(texts)
    source = source.replace("\\par\n}", "\\par\n\\pard Caf\\'e9 cr\\'e8me \\'93quoted\\'94\\par\n}")
    path = tmp_path / "unicode.rtf"
    path.write_text(source, encoding="ascii")
    assert extract_text(path).splitlines() == [*texts, "Café crème “quoted”"]


def test_epub_follows_the_spine(conversions: dict[str, Path]) -> None:
    text = extract_text(conversions["epub"])
    assert text.index(TITLE) < text.index("North pier") < text.index(CLOSING)
    assert "Part one" not in text  # the table of contents is not read


def test_pdf_drops_page_numbers_and_keeps_running_head_once(conversions: dict[str, Path]) -> None:
    lines = extract_text(conversions["pdf"]).splitlines()
    assert lines[0] == HEAD
    assert lines.count(HEAD) == 1
    assert not any(line.startswith("Page ") for line in lines)
    assert lines[-1] == CLOSING


def test_pdf_joins_words_hyphenated_at_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "hyphen.pdf"
    path.write_bytes(pdf_bytes(["The measure-", "ments were well-", "Known results."]))
    assert extract_text(path).splitlines() == ["The measurements were well-", "Known results."]


def test_pdf_with_non_latin_text(tmp_path: Path) -> None:
    lines = ["Ελληνικά γράμματα", "Русский текст здесь"]
    path = tmp_path / "greek.pdf"
    path.write_bytes(pdf_bytes(lines, font=("DejaVu", LATIN_FONT)))
    assert extract_text(path).splitlines() == lines


@pytest.mark.skipif(
    not os.path.exists(CJK_FONT), reason="CJK PDF test needs fonts-wqy-microhei (apt)"
)
def test_pdf_with_cjk_text(tmp_path: Path) -> None:
    lines = ["中文文本的提取测试", "日本語のテキスト抽出", "한국어 텍스트"]
    path = tmp_path / "cjk.pdf"
    path.write_bytes(pdf_bytes(lines, font=("WenQuanYi", CJK_FONT)))
    assert extract_text(path).splitlines() == lines


def test_pdf_encrypted_with_empty_user_password_opens(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(["Readable words"]))))
    writer.encrypt(user_password="", owner_password="owner secret", algorithm="RC4-128")
    path = tmp_path / "restricted.pdf"
    with path.open("wb") as stream:
        writer.write(stream)
    assert extract_text(path) == "Readable words"


def test_docx_odt_and_pdf_of_one_document_share_their_lines(tmp_path: Path) -> None:
    docx_lines = extract_text(write_docx(tmp_path / "a.docx")).splitlines()
    odt_lines = extract_text(write_odt(tmp_path / "a.odt")).splitlines()
    assert docx_lines == odt_lines
    assert docx_lines[:2] == [HEAD, TITLE]
    assert docx_lines[2] == PARAGRAPHS[0]
    pdf_text = extract_text(write_pdf(tmp_path / "a.pdf"))
    assert " ".join(pdf_text.split()).startswith(" ".join([HEAD, TITLE, PARAGRAPHS[0]]))


def test_zip_container_sniffed_by_mimetype_not_suffix(tmp_path: Path) -> None:
    odt = write_odt(tmp_path / "real.odt")
    renamed = tmp_path / "renamed.zip"
    renamed.write_bytes(odt.read_bytes())
    assert detect_format(renamed) is Format.ODT
    with zipfile.ZipFile(odt) as archive:
        assert archive.read("mimetype") == b"application/vnd.oasis.opendocument.text"


def test_rtf_pictures_and_objects_are_skipped_whole(tmp_path: Path) -> None:
    picture = "{\\*\\shppict{\\pict\\pngblip\\picw10\\pich10 " + "89504e470d0a1a0a" * 4000 + "}}"
    binary = "{\\pict\\bin6 }{x}{ }"  # six raw bytes that include braces
    obj = "{\\object\\objemb{\\*\\objdata 01050000020000000b000000}}"
    source = rtf_document(["Before the picture.", "After the picture."]).replace(
        "\\pard After", f"{picture}{binary}{obj}\\pard After"
    )
    path = tmp_path / "pictures.rtf"
    path.write_text(source, encoding="ascii")
    assert extract_text(path).splitlines() == ["Before the picture.", "After the picture."]
