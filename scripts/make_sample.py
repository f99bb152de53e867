"""Regenerate resources/sample/reports and resources/sample/photos (run once; outputs are committed).

The report exists as DOCX, PDF, ODT and HTML renderings of one text, and the photo as a
resized, recompressed, WebP and EXIF-rotated copy, so the demo scan shows cross-format
groups. A truncated JPEG and a damaged PDF show per-file errors.
"""

from __future__ import annotations

import html
import io
from pathlib import Path

import numpy as np
from PIL import Image

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
TITLE = "Workshop maintenance report, third quarter"
PARAGRAPHS = [
    "The workshop ran without a serious breakdown this quarter. The band saw was out of use "
    "for two days in July while a new blade guide was fitted, and the dust extractor needed "
    "a replacement filter bag after the busy weeks of August. Both repairs were finished "
    "within the budget agreed in the spring.",
    "Electrical checks were carried out on every fixed machine in September. Two extension "
    "leads failed the test and were cut up and thrown away; all other equipment passed. The "
    "next inspection is due in March, and the booking has already been made with the same "
    "contractor.",
    "Members used the workshop for a little over four hundred hours in total, a quarter more "
    "than in the same months last year. Saturday mornings remain the busiest time, and we "
    "propose opening on Wednesday evenings from October so that the lathe and the bench "
    "drill are easier to book.",
    "Spending on consumables rose because of the higher price of sandpaper and glue. We "
    "suggest buying these in bulk twice a year rather than every month. The committee is "
    "asked to approve the purchase of a second set of clamps and a new first aid kit before "
    "the end of the year.",
]


def write_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading(TITLE, level=1)
    for paragraph in PARAGRAPHS:
        document.add_paragraph(paragraph)
    document.save(str(path))


def write_pdf(path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=15)
    pdf.multi_cell(0, 9, TITLE)
    pdf.ln(3)
    pdf.set_font("Helvetica", size=11)
    for paragraph in PARAGRAPHS:
        pdf.multi_cell(0, 6, paragraph)
        pdf.ln(3)
    pdf.output(str(path))


def write_odt(path: Path) -> None:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text=TITLE))
    for paragraph in PARAGRAPHS:
        document.text.addElement(P(text=paragraph))
    document.save(str(path))


def write_html(path: Path) -> None:
    body = "\n".join(f"    <p>{html.escape(p)}</p>" for p in PARAGRAPHS)
    path.write_text(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n'
        f"  <title>{html.escape(TITLE)}</title>\n"
        "  <style>body { font-family: sans-serif; max-width: 40em; }</style>\n"
        "  <script>console.log('report loaded');</script>\n</head>\n<body>\n"
        f"  <article>\n    <h1>{html.escape(TITLE)}</h1>\n{body}\n  </article>\n"
        "</body>\n</html>\n",
        encoding="utf-8",
    )


def landscape(
    seed: int, width: int = 1200, height: int = 800, waves: float = 3.0, autumn: bool = False
) -> Image.Image:
    """A smooth, photo-like picture: sky, hills and texture from several octaves of noise."""
    rng = np.random.default_rng(seed)
    field = np.zeros((height, width), dtype=np.float64)
    for octave in range(1, 7):
        cells = 2**octave + 1
        coarse = rng.random((cells, cells))
        small = Image.fromarray((coarse * 255).astype(np.uint8)).resize(
            (width, height), Image.Resampling.BICUBIC
        )
        field += np.asarray(small, dtype=np.float64) / 255 / octave
    field /= field.max()
    ys = np.linspace(0, 1, height)[:, None]
    horizon = 0.45 + 0.15 * np.sin(np.linspace(0, waves * np.pi, width) + seed)[None, :]
    ground = ys > horizon - 0.1 * field
    ys = np.broadcast_to(ys, field.shape)
    sky = np.stack([0.45 + 0.3 * ys, 0.6 + 0.3 * ys, 0.95 - 0.1 * ys], axis=-1)
    if autumn:
        land = np.stack([0.55 + 0.4 * field, 0.3 + 0.3 * field, 0.05 + 0.1 * field], axis=-1)
    else:
        land = np.stack([0.2 + 0.4 * field, 0.35 + 0.45 * field, 0.1 + 0.2 * field], axis=-1)
    rgb = np.where(ground[..., None], land, sky + 0.08 * field[..., None])
    return Image.fromarray((np.clip(rgb, 0, 1) * 255).astype(np.uint8))


def write_photos(folder: Path) -> None:
    photo = landscape(7)
    photo.save(folder / "hills.jpg", quality=92)
    photo.resize((600, 400), Image.Resampling.LANCZOS).save(folder / "hills-small.jpg", quality=70)
    photo.save(folder / "hills.webp", quality=80)
    rotated = photo.transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6  # stored rotated; viewers turn it 90 degrees clockwise back upright
    rotated.save(folder / "hills-camera-rotated.jpg", quality=90, exif=exif)
    landscape(21, waves=1.2, autumn=True).save(folder / "autumn-field.jpg", quality=92)
    data = io.BytesIO()
    landscape(3).save(data, format="JPEG", quality=90)
    (folder / "broken.jpg").write_bytes(data.getvalue()[: len(data.getvalue()) // 3])


def main() -> None:
    reports = SAMPLE / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    write_docx(reports / "maintenance-report.docx")
    write_pdf(reports / "maintenance-report.pdf")
    write_odt(reports / "maintenance-report.odt")
    write_html(reports / "maintenance-report.html")
    pdf = (reports / "maintenance-report.pdf").read_bytes()
    (reports / "damaged.pdf").write_bytes(pdf[: len(pdf) // 2])
    photos = SAMPLE / "photos"
    photos.mkdir(parents=True, exist_ok=True)
    write_photos(photos)


if __name__ == "__main__":
    main()
