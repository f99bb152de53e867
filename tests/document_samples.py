"""Real documents for the extraction, fuzz and hostile-file tests, generated with each
format's own library.

One passage (a running head, a title, paragraphs, a table, a closing line) is written as
DOCX, PDF, HTML, Markdown, reStructuredText, ODT, RTF and EPUB, so the tests can check
that every conversion of a document extracts to the same words. It lives in tests/, on
every test's sys.path: a test in another folder can import it whichever tests run.
"""

from __future__ import annotations

import html
import io
import re
import zipfile
from pathlib import Path

HEAD = "Quarterly report"
TITLE = "Harbour Survey Results"
PARAGRAPHS = (
    "The survey team measured the water depth at every mooring in the old harbour during "
    "the spring tides of April. Readings were taken twice a day, at high and at low water, "
    "and each reading was checked against the tide tables published by the port authority. "
    "The café on the north quay lent us its terrace as a base for the instruments.",
    "Most moorings were deeper than the charts suggested, because the dredging finished last "
    "autumn removed nearly a metre of silt from the inner basin. Two moorings near the slipway "
    "were shallower than expected, and the harbour master has asked for a second survey there "
    "before the summer season brings the larger yachts back to the town.",
    "We recommend new buoys along the channel, a notice to mariners about the slipway, and a "
    "yearly survey so that the charts stay accurate as the sediment moves.",
)
TABLE = (("Site", "Depth"), ("North pier", "12 metres"), ("South basin", "7 metres"))
CLOSING = "Prepared by the harbour survey volunteers."


def expected_words() -> list[str]:
    """The passage's words in reading order, casefolded."""
    cells = [cell for row in TABLE for cell in row]
    return words("\n".join([HEAD, TITLE, *PARAGRAPHS[:2], *cells, PARAGRAPHS[2], CLOSING]))


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _wrap(text: str, width: int = 72) -> list[str]:
    """Hard-wrapped source lines, as people write Markdown and rst."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return [*lines, current]


def write_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = HEAD
    document.add_heading(TITLE, level=1)
    for paragraph in PARAGRAPHS[:2]:
        document.add_paragraph(paragraph)
    table = document.add_table(rows=len(TABLE), cols=2)
    for row, values in zip(table.rows, TABLE, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_paragraph(PARAGRAPHS[2])
    document.add_paragraph(CLOSING)
    document.save(str(path))
    return path


def write_pdf(path: Path) -> Path:
    """Three pages with a running head and 'Page N' footers, justified paragraphs, a table."""
    from fpdf import FPDF

    class Report(FPDF):
        def header(self) -> None:
            self.set_font("Helvetica", size=9)
            self.cell(0, 8, HEAD, new_x="LMARGIN", new_y="NEXT")

        def footer(self) -> None:
            self.set_y(-15)
            self.set_font("Helvetica", size=9)
            self.cell(0, 8, f"Page {self.page_no()}", align="C")

    pdf = Report()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 10, TITLE, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=12)
    for paragraph in PARAGRAPHS[:2]:
        pdf.multi_cell(0, 6, paragraph, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
    pdf.add_page()
    with pdf.table() as table:
        for values in TABLE:
            row = table.row()
            for value in values:
                row.cell(value)
    pdf.add_page()
    pdf.multi_cell(0, 6, PARAGRAPHS[2], new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.multi_cell(0, 6, CLOSING, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


def passage_html(*, with_head: bool = True) -> str:
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(value)}</td>" for value in values) + "</tr>\n"
        for values in TABLE
    )
    paragraphs = [f"<p>{html.escape(text)}</p>\n" for text in PARAGRAPHS]
    head = (
        "<head><meta charset='utf-8'><title>Survey (draft)</title>"
        "<style>p { margin: 0 }</style><script>var tracker = 'hidden words';</script></head>"
        if with_head
        else ""
    )
    return (
        f"<!DOCTYPE html>\n<html>{head}<body>\n"
        f"<header>{HEAD}</header>\n<h1>{TITLE}</h1>\n{''.join(paragraphs[:2])}"
        f"<table>{rows}</table>\n{paragraphs[2]}<footer><p>{CLOSING}</p></footer>\n"
        "<!-- a comment nobody sees --></body></html>\n"
    )


def write_html(path: Path) -> Path:
    path.write_text(passage_html(), encoding="utf-8")
    return path


def write_markdown(path: Path) -> Path:
    lines = [HEAD, "", f"# {TITLE}", ""]
    for paragraph in PARAGRAPHS[:2]:
        lines += [*_wrap(paragraph), ""]
    lines += [f"| {TABLE[0][0]} | {TABLE[0][1]} |", "|---|---|"]
    lines += [f"| {a} | {b} |" for a, b in TABLE[1:]] + [""]
    lines += [*_wrap(PARAGRAPHS[2]), "", f"*{CLOSING}*", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def write_rst(path: Path) -> Path:
    lines = [HEAD, "", TITLE, "=" * len(TITLE), ""]
    for paragraph in PARAGRAPHS[:2]:
        lines += [*_wrap(paragraph), ""]
    width = max(len(cell) for row in TABLE for cell in row)
    rule = f"{'=' * width}  {'=' * width}"
    lines += [rule, *(f"{a.ljust(width)}  {b}" for a, b in TABLE[:1]), rule]
    lines += [f"{a.ljust(width)}  {b}" for a, b in TABLE[1:]] + [rule, ""]
    lines += [*_wrap(PARAGRAPHS[2]), "", f"**{CLOSING}**", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def write_odt(path: Path) -> Path:
    from odf.opendocument import OpenDocumentText
    from odf.style import Header, MasterPage, PageLayout
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import H, P

    document = OpenDocumentText()
    layout = PageLayout(name="Layout1")
    document.automaticstyles.addElement(layout)
    master = MasterPage(name="Standard", pagelayoutname=layout)
    header = Header()
    header.addElement(P(text=HEAD))
    master.addElement(header)
    document.masterstyles.addElement(master)
    document.text.addElement(H(outlinelevel=1, text=TITLE))
    for paragraph in PARAGRAPHS[:2]:
        document.text.addElement(P(text=paragraph))
    table = Table(name="Depths")
    table.addElement(TableColumn(numbercolumnsrepeated=2))
    for values in TABLE:
        row = TableRow()
        for value in values:
            cell = TableCell()
            cell.addElement(P(text=value))
            row.addElement(cell)
        table.addElement(row)
    document.text.addElement(table)
    document.text.addElement(P(text=PARAGRAPHS[2]))
    document.text.addElement(P(text=CLOSING))
    document.save(str(path))
    return path


def rtf_escape(text: str) -> str:
    """RTF source for ``text``: ASCII as is, everything else as ``\\uN?`` (signed 16-bit)."""
    out: list[str] = []
    for char in text:
        if char in "\\{}":
            out.append("\\" + char)
        elif ord(char) < 128:
            out.append(char)
        else:
            for unit in _utf16_units(char):
                out.append(f"\\u{unit - 0x10000 if unit > 0x7FFF else unit}?")
    return "".join(out)


def _utf16_units(char: str) -> list[int]:
    data = char.encode("utf-16-le")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def rtf_document(paragraphs: list[str]) -> str:
    body = "".join(f"\\pard {rtf_escape(text)}\\par\n" for text in paragraphs)
    return (
        "{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0 Times New Roman;}}\n"
        "{\\header \\pard Running head\\par}\n"
        f"{body}}}\n"
    )


def write_rtf(path: Path) -> Path:
    rows = "".join(
        "\\trowd\\cellx3000\\cellx6000\n"
        + "".join(f"\\pard\\intbl {rtf_escape(value)}\\cell " for value in values)
        + "\\row\n"
        for values in TABLE
    )
    source = rtf_document([HEAD, TITLE, *PARAGRAPHS[:2]])
    source = source[: source.rindex("}")] + rows
    source += "".join(f"\\pard {rtf_escape(text)}\\par\n" for text in (PARAGRAPHS[2], CLOSING))
    path.write_text(source + "}\n", encoding="ascii")
    return path


_EPUB_CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="EPUB/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
"""
_EPUB_PACKAGE = """<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">harbour-survey</dc:identifier>
    <dc:title>{title}</dc:title>
    <dc:language>en</dc:language>
  </metadata>
  <manifest>
    <item id="chapter_2" href="text/two.xhtml" media-type="application/xhtml+xml"/>
    <item id="chapter_1" href="text/one.xhtml" media-type="application/xhtml+xml"/>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
  </manifest>
  <spine>
    <itemref idref="nav"/>
    <itemref idref="chapter_1"/>
    <itemref idref="chapter_2"/>
  </spine>
</package>
"""
_EPUB_NAV = """<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>{title}</title></head>
<body><nav epub:type="toc"><ol>
<li><a href="text/one.xhtml">Part one</a></li><li><a href="text/two.xhtml">Part two</a></li>
</ol></nav></body></html>
"""


def write_epub(path: Path) -> Path:
    """Two chapters listed in the manifest in reverse, so only the spine gives the order.

    Written part by part as the EPUB 3 specification lays it out (the ``mimetype`` first
    and stored), so the test needs no e-book library.
    """
    full = passage_html(with_head=False)
    split = full.index("<table>")
    parts = {
        "META-INF/container.xml": _EPUB_CONTAINER,
        "EPUB/content.opf": _EPUB_PACKAGE.format(title=TITLE),
        "EPUB/nav.xhtml": _EPUB_NAV.format(title=TITLE),
        "EPUB/text/one.xhtml": full[:split] + "</body></html>",
        "EPUB/text/two.xhtml": "<html><body>" + full[split:],
    }
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        for name, text in parts.items():
            archive.writestr(name, text, compress_type=zipfile.ZIP_DEFLATED)
    return path


WRITERS = {
    "docx": write_docx,
    "pdf": write_pdf,
    "html": write_html,
    "md": write_markdown,
    "rst": write_rst,
    "odt": write_odt,
    "rtf": write_rtf,
    "epub": write_epub,
}


def pdf_bytes(lines: list[str], *, font: tuple[str, str] | None = None) -> bytes:
    """A one-page PDF with one line per cell, in a core font or a given TTF/TTC."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    if font is None:
        pdf.set_font("Helvetica", size=12)
    else:
        name, file = font
        pdf.add_font(name, fname=file)
        pdf.set_font(name, size=12)
    for line in lines:
        pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    buffer = io.BytesIO()
    pdf.output(buffer)
    return buffer.getvalue()
