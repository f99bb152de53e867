"""Real documents for the reader benchmark, made on this machine by their usual producers.

Each PDF comes with the text it was made from, so extraction fidelity can be measured as
the SimHash distance between the two. Producers missing on the machine are skipped and
named. Debian packages: groff, ghostscript, texlive-latex-base, libreoffice-writer-nogui,
pandoc, fonts-wqy-microhei.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PdfSample", "make_documents"]

MARKDOWN_SOURCES = (
    "/usr/share/doc/nodejs/README.md",
    "/usr/share/doc/nodejs/BUILDING.md",
    "/usr/share/doc/nodejs/api/process.md",
    "/usr/share/doc/nodejs/api/url.md",
    "/usr/share/doc/nodejs/api/net.md",
)
LICENCE = Path("/usr/share/common-licenses/GPL-3")
CJK_SOURCES = ("gb18030", "big5", "euc_jp", "cp949", "shift_jis")
CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
_LATEX_SPECIALS = re.compile(r"([\\{}$&#^_%~<>])")


@dataclass(frozen=True)
class PdfSample:
    producer: str
    pdf: Path
    source: Path  # the text the PDF was made from


def _run(command: list[str], *, cwd: Path | None = None, feed: bytes = b"") -> bytes | None:
    """The command's output, or None when it is missing or fails."""
    if shutil.which(command[0]) is None:
        print(f"  (skipped: {command[0]} is not installed)")
        return None
    done = subprocess.run(command, input=feed, capture_output=True, cwd=cwd, check=False)
    return done.stdout if done.returncode == 0 else None


def _bash_manual(out: Path) -> list[PdfSample]:
    """groff's own PDF device and groff → PostScript → Ghostscript, of the bash manual."""
    page = subprocess.run(["man", "-w", "bash"], capture_output=True, text=True).stdout.strip()
    if not page:
        return []
    source = Path(page).read_bytes()
    source = gzip.decompress(source) if page.endswith(".gz") else source
    text = _run(["groff", "-man", "-Tutf8", "-rHY=0", "-P-cbou"], feed=source)  # unhyphenated
    if text is None:
        return []
    (out / "bash.txt").write_bytes(text)
    samples = []
    pdf = _run(["groff", "-man", "-Tpdf", "-P-e"], feed=source)
    if pdf:
        (out / "bash-groff.pdf").write_bytes(pdf)
        samples.append(PdfSample("groff (gropdf)", out / "bash-groff.pdf", out / "bash.txt"))
    postscript = _run(["groff", "-man", "-Tps"], feed=source)
    if postscript and _run(["ps2pdf", "-", str(out / "bash-gs.pdf")], feed=postscript) is not None:
        samples.append(PdfSample("Ghostscript (ps2pdf)", out / "bash-gs.pdf", out / "bash.txt"))
    return samples


def _latex(out: Path) -> list[PdfSample]:
    """pdfTeX typesetting the GPL-3 text as an article."""
    paragraphs = [" ".join(p.split()) for p in LICENCE.read_text().split("\n\n") if p.strip()]
    body = "\n\n".join(_LATEX_SPECIALS.sub(r"\\char`\\\1", p) for p in paragraphs)
    tex = out / "gpl-3.tex"
    tex.write_text("\\documentclass{article}\n\\begin{document}\n" + body + "\n\\end{document}\n")
    shutil.copy(LICENCE, out / "gpl-3.txt")
    if _run(["pdflatex", "-interaction=batchmode", tex.name], cwd=out) is not None:
        return [PdfSample("pdfTeX", out / "gpl-3.pdf", out / "gpl-3.txt")]
    return []


def _office(out: Path) -> list[PdfSample]:
    """pandoc: Markdown → ODT, DOCX, EPUB; LibreOffice: ODT → PDF and DOCX, DOCX → ODT."""
    samples = []
    office = out / "libreoffice"
    office.mkdir(exist_ok=True)
    for number, name in enumerate(MARKDOWN_SOURCES, 1):
        if not Path(name).exists():
            continue
        source = out / f"doc{number}.md"
        shutil.copy(name, source)
        for suffix in ("odt", "docx", "epub"):
            target = out / f"doc{number}.{suffix}"
            _run(
                [
                    "pandoc",
                    "--quiet",
                    f"--metadata=title:Document {number}",
                    str(source),
                    "-o",
                    str(target),
                ]
            )
    odts = sorted(str(p) for p in out.glob("doc*.odt"))
    docxs = sorted(str(p) for p in out.glob("doc*.docx"))
    convert = ["soffice", "--headless", "--convert-to"]
    if odts and _run([*convert, "pdf", "--outdir", str(office), *odts[:2]]) is not None:
        samples += [
            PdfSample("LibreOffice", office / f"doc{n}.pdf", out / f"doc{n}.md") for n in (1, 2)
        ]
        _run([*convert, "docx", "--outdir", str(office), *odts[2:]])
        _run([*convert, "odt", "--outdir", str(office), *docxs[:2]])
    return [s for s in samples if s.pdf.exists()]


def _cjk(out: Path) -> list[PdfSample]:
    """fpdf2 with a CJK TrueType font, of CPython's Chinese, Japanese and Korean samples."""
    import test  # CPython's test package holds the samples

    folder = Path(test.__file__).parent / "cjkencodings"
    texts = [(folder / f"{name}-utf8.txt").read_text() for name in CJK_SOURCES]
    if not CJK_FONT.exists() or not all(texts):
        print("  (skipped: CJK PDF needs fonts-wqy-microhei)")
        return []
    from fpdf import FPDF

    source = out / "cjk.txt"
    source.write_text("\n".join(texts))
    pdf = FPDF()
    pdf.add_page()
    pdf.add_font("WenQuanYi", fname=str(CJK_FONT))
    pdf.set_font("WenQuanYi", size=11)
    for text in texts:
        pdf.multi_cell(0, 7, " ".join(text.split()), new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(out / "cjk.pdf"))
    return [PdfSample("fpdf2 (CJK, TrueType)", out / "cjk.pdf", source)]


def make_documents(out: Path) -> list[PdfSample]:
    """Write the documents under ``out`` (once); the PDFs and their sources."""
    out.mkdir(parents=True, exist_ok=True)
    samples: list[PdfSample] = []
    for make in (_bash_manual, _latex, _office, _cjk):
        print(f"  making {make.__name__.strip('_')} documents", flush=True)
        samples += make(out)
    return samples
