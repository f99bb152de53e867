"""One member's waveform: peaks over the file's length, its matched part shaded.

Every strip of a group is drawn on one shared timeline, each file placed where its matched
part meets the first file's: a copy cut 8 s later starts 8 s to the right, a clip sits under
the part of the song it was cut from, and the same moment stands at the same x in every strip.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from dupfinder.app.i18n import translate

__all__ = ["WaveformView"]


class WaveformView(QWidget):
    """Peaks (0..1) drawn as bars mirrored about the middle line."""

    HEIGHT = 44

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(120)
        self._peaks: npt.NDArray[np.floating] | None = None
        self._duration = 0.0
        self._timeline = (0.0, 0.0)
        self._offset = 0.0
        self._matched: tuple[float, float] | None = None
        self._marker: float | None = None
        self._text = ""
        self.setToolTip(
            translate(
                "Media",
                "Shaded: the part that matched. The line: where Play starts. Every file of "
                "the group on one timeline, the same moment at the same place.",
            )
        )

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, self.HEIGHT)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(120, self.HEIGHT)

    def set_timing(
        self,
        duration_s: float | None,
        timeline: tuple[float, float],
        offset_s: float,
        matched: tuple[float, float] | None,
        marker_s: float | None,
    ) -> None:
        """The file on the group's shared ``timeline`` (its start at ``offset_s``), the part
        of it that matched and where Play starts (seconds of this file)."""
        self._duration = duration_s or 0.0
        self._timeline = timeline
        self._offset = offset_s
        self._matched = matched
        self._marker = marker_s
        self.update()

    def set_peaks(self, peaks: npt.NDArray[np.floating] | None, text: str = "") -> None:
        """The peaks to draw, or none with a word instead ("Loading…", a problem)."""
        self._peaks = None if peaks is None else np.clip(np.asarray(peaks, float), 0.0, 1.0)
        self._text = text
        self.update()

    def peaks(self) -> npt.NDArray[np.floating] | None:
        return self._peaks

    def _x(self, seconds: float, width: float) -> float:
        """Where a time of this file lies across the strip."""
        start, end = self._timeline
        if end <= start:
            return 0.0
        return width * (self._offset + seconds - start) / (end - start)

    def paintEvent(self, _event: object) -> None:  # noqa: N802
        painter = QPainter(self)
        palette = self.palette()
        width, height = float(self.width()), float(self.height())
        known = self._duration > 0 and self._timeline[1] > self._timeline[0]
        left = self._x(0.0, width) if known else 0.0
        right = self._x(self._duration, width) if known else width
        file_width = max(1.0, right - left)
        painter.fillRect(
            QRectF(left, 0, file_width, height), palette.color(QPalette.ColorRole.Base)
        )
        if self._matched is not None and known:
            start = self._x(self._matched[0], width)
            end = self._x(self._matched[1], width)
            shade = QColor(palette.color(QPalette.ColorRole.Highlight))
            shade.setAlpha(60)
            painter.fillRect(QRectF(start, 0, max(1.0, end - start), height), shade)
        peaks = self._peaks
        if peaks is not None and len(peaks) and file_width >= 1:
            # the matched part in the text's colour, the rest (a longer file's extra) greyed
            inside = QPen(palette.color(QPalette.ColorRole.Text))
            outside = QPen(palette.color(QPalette.ColorRole.Mid))
            if self._matched is not None and known:
                start = self._x(self._matched[0], width)
                end = self._x(self._matched[1], width)
            else:
                start, end = left, right
            middle = height / 2
            columns = max(1, int(file_width))
            index = np.minimum((np.arange(columns) * len(peaks)) // columns, len(peaks) - 1)
            for x, value in enumerate(peaks[index]):
                half = max(0.5, float(value) * (middle - 2))
                at = int(left) + x
                painter.setPen(inside if start - 1 <= at <= end + 1 else outside)
                painter.drawLine(at, int(middle - half), at, int(middle + half))
        elif self._text:
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(
                QRectF(4, 0, width - 8, height),
                int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                self._text,
            )
        if self._marker is not None and known:
            marker = QPen(palette.color(QPalette.ColorRole.Highlight))
            marker.setWidth(2)
            painter.setPen(marker)
            at = int(self._x(self._marker, width))
            painter.drawLine(at, 0, at, int(height))
        painter.setPen(palette.color(QPalette.ColorRole.Mid))
        painter.drawRect(QRectF(left, 0, file_width - 1, height - 1))
        painter.end()
