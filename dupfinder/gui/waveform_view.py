"""One member's waveform: peaks over the file's length, its matched part shaded.

Every strip of a group shares one time scale (the longest member's length fills the width),
so a trimmed copy or a clip is drawn shorter than its original, under the same moments.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

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
        self._longest = 0.0
        self._matched: tuple[float, float] | None = None
        self._marker: float | None = None
        self._text = ""

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, self.HEIGHT)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(120, self.HEIGHT)

    def set_timing(
        self,
        duration_s: float | None,
        longest_s: float,
        matched: tuple[float, float] | None,
        marker_s: float | None,
    ) -> None:
        """The file's length on the group's scale, the part that matched and where Play
        starts."""
        self._duration = duration_s or longest_s
        self._longest = max(longest_s, self._duration)
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
        return width * seconds / self._longest if self._longest > 0 else 0.0

    def paintEvent(self, _event: object) -> None:  # noqa: N802
        painter = QPainter(self)
        palette = self.palette()
        width, height = float(self.width()), float(self.height())
        file_width = self._x(self._duration, width) if self._longest else width
        painter.fillRect(QRectF(0, 0, file_width, height), palette.color(QPalette.ColorRole.Base))
        if self._matched is not None and self._longest > 0:
            left = self._x(self._matched[0], width)
            right = self._x(self._matched[1], width)
            shade = QColor(palette.color(QPalette.ColorRole.Highlight))
            shade.setAlpha(60)
            painter.fillRect(QRectF(left, 0, max(1.0, right - left), height), shade)
        peaks = self._peaks
        if peaks is not None and len(peaks) and file_width >= 1:
            pen = QPen(palette.color(QPalette.ColorRole.Text))
            painter.setPen(pen)
            middle = height / 2
            columns = max(1, int(file_width))
            index = np.minimum((np.arange(columns) * len(peaks)) // columns, len(peaks) - 1)
            for x, value in enumerate(peaks[index]):
                half = max(0.5, float(value) * (middle - 2))
                painter.drawLine(x, int(middle - half), x, int(middle + half))
        elif self._text:
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(
                QRectF(4, 0, width - 8, height),
                int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                self._text,
            )
        if self._marker is not None and self._longest > 0:
            marker = QPen(palette.color(QPalette.ColorRole.Highlight))
            marker.setWidth(2)
            painter.setPen(marker)
            at = int(self._x(self._marker, width))
            painter.drawLine(at, 0, at, int(height))
        painter.setPen(palette.color(QPalette.ColorRole.Mid))
        painter.drawRect(QRectF(0, 0, file_width - 1, height - 1))
        painter.end()
