"""The image preview: representative and selected member side by side at the same scale.

Decoding happens off the GUI thread (Pillow, with EXIF orientation, reduced to a preview size);
only the finished ``QImage`` crosses over. Both views always share one zoom factor measured in
*original* pixels, so a 4000-pixel photo and its 1000-pixel copy show their real size ratio.
"Show differences" replaces the member with a map of where the two images differ.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageOps
from PySide6.QtCore import QRectF, Qt, Signal, Slot
from PySide6.QtGui import QImage, QPainter, QPixmap, QTransform
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from dupfinder.app.i18n import translate
from dupfinder.core.model import Edit, Progress
from dupfinder.core.wording import format_size
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.worker import Job

__all__ = [
    "ImagePreview",
    "LoadedImage",
    "difference_map",
    "fit_scale_shown",
    "heif_support",
    "load_preview_image",
    "on_checkerboard",
    "to_qimage",
]

#: Longest side of the decoded preview; enough for a sharp view on a 4K screen.
PREVIEW_SIDE = 3000
_ORIENTATION = 0x0112  # the EXIF tag
#: The most a small picture is enlarged to fit (a 16-pixel icon fills a 256-pixel pane).
MAX_ENLARGE = 16
#: Zoom choices: both fitted at one scale, each fitted on its own, or a fixed scale.
FIT, FIT_EACH = 0.0, -1.0
_ZOOMS = (FIT, FIT_EACH, 0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True, slots=True)
class LoadedImage:
    """A decoded preview and what the captions show about the original file."""

    path: str
    image: Image.Image | None
    width: int
    height: int
    format: str
    size: int
    problem: str | None = None

    def caption(self, scale: float | None = None) -> str:
        """Name, real pixel size, the scale it is shown at, format and file size."""
        name = os.path.basename(self.path)
        if self.problem:
            return translate("Preview", "{name} — cannot show: {problem}").format(
                name=name, problem=self.problem
            )
        pixels = translate("Preview", "{width} × {height} px").format(
            width=self.width, height=self.height
        )
        if scale is not None:
            pixels = translate("Preview", "{pixels}, shown at {percent} %").format(
                pixels=pixels, percent=f"{scale * 100:.0f}"
            )
        return f"{name} — {pixels} · {self.format} · {format_size(self.size)}"


@functools.cache
def heif_support() -> None:
    """Let Pillow open HEIF/HEIC pictures (once per process)."""
    try:
        from pi_heif import register_heif_opener  # decoders only (no GPL encoder)
    except ImportError:
        return
    register_heif_opener()


def load_preview_image(path: str, side: int = PREVIEW_SIDE) -> LoadedImage:
    """Decode ``path`` upright and at most ``side`` pixels long; problems become data."""
    try:
        size = os.path.getsize(path)
        with Image.open(path) as opened:
            fmt = opened.format or os.path.splitext(path)[1].lstrip(".").upper()
            width, height = opened.size
            if opened.getexif().get(_ORIENTATION, 1) in (5, 6, 7, 8):  # rotated a quarter turn
                width, height = height, width
            opened.draft("RGB", (side, side))  # JPEG decodes reduced, several times faster
            upright = ImageOps.exif_transpose(opened)
            upright.thumbnail((side, side))
            image = upright.convert("RGBA")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        return LoadedImage(path, None, 0, 0, "", 0, str(exc) or type(exc).__name__)
    return LoadedImage(path, image, width, height, fmt, size)


def flattened(image: Image.Image) -> Image.Image:
    """RGB, transparent parts over white: as the picture looks on a page, and as the scan
    compares it (an icon with alpha matches its copy saved as JPEG on white)."""
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        page = Image.new("RGB", rgba.size, (255, 255, 255))
        page.paste(rgba, mask=rgba.getchannel("A"))
        return page
    return image.convert("RGB")


def difference_map(a: Image.Image, b: Image.Image) -> tuple[Image.Image, float]:
    """Where ``b`` differs from ``a``: red over a dimmed ``b``; and the mean difference 0..1."""
    base = flattened(b).resize(a.size, Image.Resampling.BILINEAR)
    diff = ImageChops.difference(flattened(a), base).convert("L")
    histogram = diff.histogram()
    mean = sum(i * n for i, n in enumerate(histogram)) / max(1, sum(histogram)) / 255
    # Scale so that the largest difference is fully red: small edits must stay visible.
    peak = max(diff.getextrema()[1], 24)
    strength = diff.point(lambda v: min(255, v * 255 // peak))
    dimmed = ImageOps.grayscale(base).point(lambda v: 40 + v * 2 // 5).convert("RGB")
    red = Image.new("RGB", a.size, (230, 20, 20))
    return Image.composite(red, dimmed, strength).convert("RGBA"), mean


def _zoom_label(value: float) -> str:
    if value == FIT:
        return translate("Preview", "Fit")
    if value == FIT_EACH:
        return translate("Preview", "Fit each")
    return f"{value:.0%}"


def fit_scale_shown(fits: float) -> float:
    """The scale "Fit" shows at, given the largest that fits both pictures in their panes.

    Larger pictures are reduced to fit. Smaller ones are enlarged by a whole factor, and
    drawn with nearest-neighbour (see ``_ImageView.apply_scale``): every original pixel
    becomes the same square, so a 48-pixel icon's pixels can be compared one by one, where a
    smooth enlargement would blur the very edges two copies differ by. Under twice its size
    a picture is shown at its real size: one and a half pixels per pixel would make some
    pixels wider than others.
    """
    if fits < 1.0:
        return fits
    if fits < 2.0:
        return 1.0
    return float(min(math.floor(fits), MAX_ENLARGE))


#: The checkerboard behind transparent parts: two greys a white and a black icon both show
#: on, in squares of this many pixels.
CHECKER_GREYS = (118, 178)
CHECKER_CELL = 4


def on_checkerboard(image: Image.Image) -> Image.Image:
    """``image`` over a grey checkerboard where it is transparent (unchanged when opaque)."""
    if image.mode != "RGBA" or image.getchannel("A").getextrema()[0] == 255:
        return image
    width, height = image.size
    cells = Image.frombytes(
        "L",
        (2, 2),
        bytes((CHECKER_GREYS[0], CHECKER_GREYS[1], CHECKER_GREYS[1], CHECKER_GREYS[0])),
    )
    board = cells.resize((2 * CHECKER_CELL, 2 * CHECKER_CELL), Image.Resampling.NEAREST)
    tiled = Image.new("L", (width, height))
    for top in range(0, height, board.height):
        for left in range(0, width, board.width):
            tiled.paste(board, (left, top))
    page = tiled.convert("RGBA")
    page.alpha_composite(image)
    return page


def to_qimage(image: Image.Image) -> QImage:
    data = image.tobytes("raw", "RGBA")
    qimage = QImage(data, image.width, image.height, image.width * 4, QImage.Format.Format_RGBA8888)
    return qimage.copy()  # own the pixels: ``data`` is freed with this frame


@dataclass(frozen=True, slots=True)
class _Loaded:
    left: LoadedImage
    right: LoadedImage
    left_image: QImage | None
    right_image: QImage | None
    difference: QImage | None
    mean_difference: float


def _load_pair(
    left_path: str, right_path: str
) -> Callable[[Callable[[Progress], None], threading.Event], _Loaded]:
    def job(_progress: Callable[[Progress], None], _cancel: threading.Event) -> _Loaded:
        heif_support()
        loaded = []
        for path in (left_path, right_path):
            loaded.append(load_preview_image(path))
        left, right = loaded
        difference = None
        mean = 0.0
        if left.image is not None and right.image is not None:
            overlay, mean = difference_map(left.image, right.image)
            difference = to_qimage(overlay)
        return _Loaded(
            left,
            right,
            to_qimage(on_checkerboard(left.image)) if left.image is not None else None,
            to_qimage(on_checkerboard(right.image)) if right.image is not None else None,
            difference,
            mean,
        )

    return job


class _ImageView(QGraphicsView):
    """One image, drawn at ``scale`` original pixels per screen pixel."""

    #: The view's size changed (a line shown or hidden below it, the splitter moved): a
    #: fitted zoom is fitted again, or it would leave scroll bars on a picture that fitted.
    resized = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._item: QGraphicsPixmapItem | None = None
        self._original = (0, 0)

    def set_image(self, image: QImage | None, original: tuple[int, int]) -> None:
        self.scene().clear()
        self._item = None
        self._original = original
        if image is None or image.isNull():
            return
        self._item = self.scene().addPixmap(QPixmap.fromImage(image))
        self._item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        # Stretch the (possibly reduced) preview to the original size in scene units.
        if image.width() and original[0]:
            factor = original[0] / image.width()
            self._item.setTransform(QTransform.fromScale(factor, factor))
        self.scene().setSceneRect(QRectF(0, 0, original[0], original[1]))

    def resizeEvent(self, event: object) -> None:  # noqa: N802
        super().resizeEvent(event)  # type: ignore[arg-type]
        self.resized.emit()

    def fit_scale(self) -> float | None:
        width, height = self._original
        if not width or not height:
            return None
        viewport = self.viewport().size()
        return min((viewport.width() - 4) / width, (viewport.height() - 4) / height)

    def apply_scale(self, scale: float) -> None:
        """Show at ``scale``: enlargements with nearest-neighbour (the pixels as they are),
        reductions smoothed (averaged, so fine detail does not turn into noise)."""
        smooth = scale <= 1.0
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, smooth)
        if self._item is not None:
            mode = (
                Qt.TransformationMode.SmoothTransformation
                if smooth
                else Qt.TransformationMode.FastTransformation
            )
            self._item.setTransformationMode(mode)
        self.setTransform(QTransform.fromScale(scale, scale))


class _Side(QWidget):
    def __init__(self, role: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = QLabel(role)
        self.role.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.view = _ImageView()
        self.caption = QLabel()
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # a narrow pane (the window at its default size) wraps the caption, never cuts it
        self.role.setWordWrap(True)
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.role)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)


class ImagePreview(QWidget):
    """Two images at one scale, with zoom and a difference overlay."""

    #: Emitted after both images are shown (tests and screenshots wait for it).
    rendered = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.zoom = QComboBox()
        for value in _ZOOMS:
            self.zoom.addItem(_zoom_label(value))
        self.zoom.setToolTip(
            translate(
                "Preview",
                "Fit: both pictures at one scale, so their sizes compare. Fit each: each as "
                "large as its pane, to compare what they show.",
            )
        )
        self.show_difference = QCheckBox(translate("Preview", "Show differences"))
        self.show_difference.setToolTip(
            "Red where the selected image differs from the representative"
        )
        self.summary = QLabel()
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        toolbar = QHBoxLayout()
        toolbar.addWidget(self.summary, 1)
        toolbar.addWidget(QLabel(translate("Preview", "Zoom:")))
        toolbar.addWidget(self.zoom)
        toolbar.addWidget(self.show_difference)
        self.left = _Side(translate("Preview", "Kept"))
        self.right = _Side(translate("Preview", "Selected"))
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.left)
        splitter.addWidget(self.right)
        splitter.setChildrenCollapsible(False)
        #: What the selected picture changed from the kept one, named (``Member.edits``).
        self.changes = QLabel()
        self.changes.setWordWrap(True)
        self.changes.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.changes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.changes.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(toolbar)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.changes)
        for a, b in ((self.left.view, self.right.view), (self.right.view, self.left.view)):
            a.horizontalScrollBar().valueChanged.connect(b.horizontalScrollBar().setValue)
            a.verticalScrollBar().valueChanged.connect(b.verticalScrollBar().setValue)
        self.zoom.currentIndexChanged.connect(self._apply_zoom)
        self.left.view.resized.connect(self._refit)
        self.right.view.resized.connect(self._refit)
        self.show_difference.toggled.connect(self._show_right)
        self._job: Job | None = None
        self._pending: tuple[str, str] | None = None
        self._paths: tuple[str, str] | None = None
        self._loaded: _Loaded | None = None

    def show_pair(self, representative: str, member: str, edits: Sequence[Edit] = ()) -> None:
        """Show ``member`` beside the kept ``representative``, and ``edits``, what changed
        from it, in a line under both (none: the line is hidden)."""
        self.show_edits(edits)
        if self._loaded is not None and (representative, member) != self._paths:
            # never the previous pair under a new selection while a large picture decodes
            self._loaded = None
            for side in (self.left, self.right):
                side.view.set_image(None, (0, 0))
                side.caption.clear()
        self._paths = (representative, member)
        self.summary.setText(translate("Preview", "Loading…"))
        if self._job is not None:
            self._pending = self._paths
            return
        self._start(self._paths)

    def show_edits(self, edits: Sequence[Edit]) -> None:
        """The line naming what changed ("greyscale · cropped 6 % (left, top)")."""
        if not edits:
            self.changes.clear()
            self.changes.hide()
            return
        named = " · ".join(edit.label() for edit in edits)
        self.changes.setText(translate("Preview", "What changed: {edits}").format(edits=named))
        self.changes.show()

    def clear(self) -> None:
        self.show_edits(())
        self._paths = None
        self._pending = None
        self._loaded = None
        for side in (self.left, self.right):
            side.view.set_image(None, (0, 0))
            side.caption.clear()
        self.summary.clear()

    def stop(self) -> None:
        self._pending = None
        if self._job is not None:
            self._job.stop()

    def _start(self, paths: tuple[str, str]) -> None:
        job = Job(_load_pair(*paths))
        job.finished.connect(self._on_loaded)
        job.failed.connect(
            lambda message: self.summary.setText(
                translate("Preview", "Cannot show: {message}").format(message=message)
            )
        )
        job.done.connect(self._on_done)
        self._job = job
        job.start()

    @Slot()
    def _on_done(self) -> None:
        self._job = None
        pending, self._pending = self._pending, None
        if pending is not None:
            self._start(pending)

    @Slot(object)
    def _on_loaded(self, loaded: _Loaded) -> None:
        if self._pending is not None or self._paths != (loaded.left.path, loaded.right.path):
            return
        self._loaded = loaded
        self.left.view.set_image(loaded.left_image, (loaded.left.width, loaded.left.height))
        self._show_right()
        if loaded.difference is not None:
            self.summary.setText(
                translate("Preview", "Mean difference {value}").format(
                    value=f"{loaded.mean_difference:.1%}"
                )
            )
        else:
            self.summary.setText("")
        self.rendered.emit()

    @Slot()
    def _show_right(self) -> None:
        loaded = self._loaded
        if loaded is None:
            return
        if self.show_difference.isChecked() and loaded.difference is not None:
            # The map has the representative's size: show it at the representative's scale.
            self.right.role.setText(
                translate("Preview", "Differences (red) over the selected image")
            )
            self.right.view.set_image(loaded.difference, (loaded.left.width, loaded.left.height))
        else:
            self.right.role.setText(translate("Preview", "Selected"))
            self.right.view.set_image(loaded.right_image, (loaded.right.width, loaded.right.height))
        self._apply_zoom()

    @Slot()
    def _apply_zoom(self) -> None:
        choice = _ZOOMS[self.zoom.currentIndex()]
        sides = (self.left, self.right)
        if choice == FIT_EACH:
            scales = [fit_scale_shown(side.view.fit_scale() or 1.0) for side in sides]
        elif choice == FIT:
            fits = [s for s in (self.left.view.fit_scale(), self.right.view.fit_scale()) if s]
            scales = [fit_scale_shown(min(fits)) if fits else 1.0] * 2
        else:
            scales = [choice] * 2
        for side, scale in zip(sides, scales, strict=True):
            side.view.apply_scale(scale)
        loaded = self._loaded
        if loaded is not None:
            self.left.caption.setText(loaded.left.caption(scales[0]))
            self.right.caption.setText(loaded.right.caption(scales[1]))

    @Slot()
    def _refit(self) -> None:
        if _ZOOMS[self.zoom.currentIndex()] in (FIT, FIT_EACH):
            self._apply_zoom()

    def scale(self) -> float:
        """The current scale of the kept side (screen pixels per original pixel); both sides
        share it unless the zoom is "Fit each"."""
        return self.left.view.transform().m11()
