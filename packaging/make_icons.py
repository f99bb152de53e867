"""Render the app icon SVG into the files each platform wants.

``resources/icons/dupfinder.svg`` is the one source. From it this script writes, next to
it, ``dupfinder-<N>.png`` for N in 16..512 (Linux icon themes, the window icon), a
multi-size ``dupfinder.ico`` (Windows executables) and ``dupfinder.icns`` (the macOS app
bundle). Every size is rendered from the vector image rather than scaled down from a big
bitmap, so 16 and 24 pixel icons stay sharp. The outputs are committed; run this again
after editing the SVG::

    .venv/bin/python packaging/make_icons.py
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

from PIL import Image

ICON_DIR = Path(__file__).resolve().parents[1] / "resources" / "icons"
SVG = ICON_DIR / "dupfinder.svg"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # 256 is the largest size an ICO entry can hold
ICNS_SIZES = (16, 32, 64, 128, 256, 512, 1024)  # 1024 is the 512@2x Retina icon


def png_path(size: int) -> Path:
    return ICON_DIR / f"dupfinder-{size}.png"


def outputs() -> list[Path]:
    """Every file this script writes."""
    return [*map(png_path, PNG_SIZES), ICON_DIR / "dupfinder.ico", ICON_DIR / "dupfinder.icns"]


def render(svg: Path, sizes: tuple[int, ...]) -> dict[int, Image.Image]:
    """The SVG drawn at each size with Qt's SVG renderer, as RGBA Pillow images."""
    # Qt needs a platform plugin even to paint into an image; offscreen needs no display.
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: cannot read {svg}")
    images: dict[int, Image.Image] = {}
    for size in sizes:
        canvas = QImage(size, size, QImage.Format.Format_ARGB32)
        canvas.fill(0)
        painter = QPainter(canvas)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        canvas.save(buffer, b"PNG")
        buffer.close()
        images[size] = Image.open(io.BytesIO(data.data())).convert("RGBA")
    del app
    return images


def write_icons(svg: Path = SVG) -> list[Path]:
    """Write the PNG set, the ICO and the ICNS; returns the paths written."""
    images = render(svg, tuple(sorted({*PNG_SIZES, *ICO_SIZES, *ICNS_SIZES})))
    written = []
    for size in PNG_SIZES:
        # No timestamps or software tags in the PNGs: the same SVG gives the same bytes.
        images[size].save(png_path(size), optimize=True)
        written.append(png_path(size))
    largest_ico = images[max(ICO_SIZES)]
    ico = ICON_DIR / "dupfinder.ico"
    largest_ico.save(
        ico,
        format="ICO",
        sizes=[(s, s) for s in ICO_SIZES],
        append_images=[images[s] for s in ICO_SIZES if s != max(ICO_SIZES)],
    )
    written.append(ico)
    icns = ICON_DIR / "dupfinder.icns"
    images[max(ICNS_SIZES)].save(
        icns,
        format="ICNS",
        append_images=[images[s] for s in ICNS_SIZES if s != max(ICNS_SIZES)],
    )
    written.append(icns)
    return written


def main() -> int:
    for path in write_icons():
        print(f"{path.relative_to(ICON_DIR.parents[1])}  {path.stat().st_size:>8,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
