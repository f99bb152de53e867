"""The comparison for music and videos: every member of the group, one above the other.

A music group lines up each file's tags, length and quality in columns (what differs from the
kept file in bold), with a waveform strip per file (the matched part shaded, all strips on one
time scale) and Play, which plays a few seconds of each at the same moment. A video group
shows each file's length, size and quality and a row of frames at the same moments of the
matched part. What the panel decodes (waveforms, frames, clips) is decoded by FFmpeg on a
worker thread, one file at a time, and kept per file; a new selection drops what is still
queued. Without FFmpeg a one-line hint stands where the previews would be.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QProcess, Qt, QTemporaryDir, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices, QFont, QImage, QPixmap
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dupfinder.app.i18n import translate
from dupfinder.app.media_preview import (
    CLIP_S,
    MediaCard,
    MediaView,
    Playback,
    ffplay_arguments,
    ffplay_beside,
    file_key,
    media_view,
    playback_hint,
    player_problem,
)
from dupfinder.core.errors import DupfinderError
from dupfinder.core.model import Group, Member, Progress
from dupfinder.core.wording import format_duration
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.image_preview import to_qimage
from dupfinder.gui.thumbnails import LruCache
from dupfinder.gui.waveform_view import WaveformView
from dupfinder.gui.worker import Job

__all__ = ["MediaPreview"]

#: Peaks per waveform: one per pixel of a wide strip.
WAVE_POINTS = 800
#: Long side of a video frame, in pixels.
FRAME_SIDE = 128
#: The most members shown as cards (a group of many copies lists the rest by count).
MAX_CARDS = 12

#: Files whose waveforms or frames are kept for going back to them.
CACHED_FILES = 64

Sink = Callable[[Progress], None]
Key = tuple[object, ...]


@dataclass(frozen=True, slots=True)
class _Decoded:
    """What one task decoded, or why it could not; ``ffmpeg`` None: FFmpeg is missing."""

    key: Key
    value: object
    problem: str | None
    ffmpeg: str | None


def _tools_or_none() -> str | None:
    from dupfinder.core.media.tools import find_tools

    tools = find_tools()
    return tools.ffmpeg if tools is not None else None


def _task(
    key: Key, decode: Callable[[threading.Event], object]
) -> Callable[[Sink, threading.Event], _Decoded]:
    """A worker job around ``decode``: FFmpeg looked up first, problems returned as data."""

    def job(_progress: Sink, cancel: threading.Event) -> _Decoded:
        ffmpeg = _tools_or_none()
        if ffmpeg is None:
            return _Decoded(key, None, None, None)
        try:
            value = decode(cancel)
        except (DupfinderError, OSError, ValueError) as exc:
            return _Decoded(key, None, str(exc) or type(exc).__name__, ffmpeg)
        return _Decoded(key, value, None, ffmpeg)

    return job


def _waveform(path: str) -> Callable[[threading.Event], object]:
    def decode(_cancel: threading.Event) -> npt.NDArray[np.floating]:
        from dupfinder.core.media import waveform  # loaded when a song is first shown

        return np.asarray(waveform.waveform(path, points=WAVE_POINTS), dtype=np.float32)

    return decode


def _frames(path: str, times: tuple[float, ...]) -> Callable[[threading.Event], object]:
    def decode(cancel: threading.Event) -> list[QImage] | None:
        from dupfinder.core.media import video

        if cancel.is_set():  # queued before a new selection came
            return None
        # one call per file: it reads the header once (a call per frame took 1.7 times as long)
        pictures = video.frames_at(path, list(times), size=FRAME_SIDE)
        return [to_qimage(picture.convert("RGBA")) for picture in pictures]

    return decode


def _clip(path: str, start_s: float, folder: str) -> Callable[[threading.Event], object]:
    def decode(_cancel: threading.Event) -> str:
        from dupfinder.core.media import waveform

        data = waveform.clip_wav(path, start_s, CLIP_S)
        stem = os.path.splitext(os.path.basename(path))[0]
        target = os.path.join(folder, f"{stem} ({format_duration(start_s).replace(':', '.')}).wav")
        with open(target, "wb") as out:
            out.write(data)
        return target

    return decode


def _label(text: str = "", *, bold: bool = False, wrap: bool = True) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    if bold:
        font = QFont(label.font())
        font.setBold(True)
        label.setFont(font)
    return label


class _FrameRow(QWidget):
    """A member's frames at the shared moments, each with its time under it."""

    def __init__(self, times: tuple[float, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.pictures: list[QLabel] = []
        for at in times:
            cell = QVBoxLayout()
            cell.setSpacing(2)
            picture = QLabel(translate("Media", "…"))
            picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
            picture.setFixedSize(FRAME_SIDE, FRAME_SIDE * 3 // 4)
            picture.setStyleSheet("background: palette(base); border: 1px solid palette(mid);")
            caption = QLabel(format_duration(at))
            caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
            cell.addWidget(picture)
            cell.addWidget(caption)
            layout.addLayout(cell)
            self.pictures.append(picture)

    def set_images(self, images: list[QImage] | None, problem: str | None) -> None:
        for i, picture in enumerate(self.pictures):
            if images is not None and i < len(images):
                pixmap = QPixmap.fromImage(images[i])
                picture.setPixmap(
                    pixmap.scaled(
                        picture.size(),
                        Qt.AspectRatioMode.KeepAspectRatio,
                        Qt.TransformationMode.SmoothTransformation,
                    )
                )
            else:
                picture.setText(problem or "—")
                picture.setWordWrap(True)
                picture.setToolTip(problem or "")


@dataclass
class _CardWidgets:
    card: MediaCard
    waveform: WaveformView | None = None
    frames: _FrameRow | None = None
    play: QPushButton | None = None


class MediaPreview(QWidget):
    """A music or video group, every member in columns that line up."""

    #: Emitted when every preview of the shown group is drawn (tests and screenshots wait).
    rendered = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = _label()
        self.hint = _label()
        self.hint.hide()
        self.body = QWidget()
        self.grid = QGridLayout(self.body)
        self.grid.setContentsMargins(4, 4, 4, 4)
        self.grid.setHorizontalSpacing(12)
        self.grid.setVerticalSpacing(4)
        self.grid.setColumnMinimumWidth(0, 180)  # a file's name and role never squeezed out
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.body)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.hint)
        layout.addWidget(scroll, 1)
        self.view: MediaView | None = None
        self.cards: list[_CardWidgets] = []
        # what was decoded, per file (its path, size and time): going back shows it at once
        self.waves: LruCache[Key, npt.NDArray[np.floating]] = LruCache(CACHED_FILES)
        self.frames: LruCache[Key, list[QImage]] = LruCache(CACHED_FILES)
        self._problems: LruCache[Key, str] = LruCache(CACHED_FILES)
        self._queue: deque[tuple[Key, Callable[[threading.Event], object]]] = deque()
        self._job: Job | None = None
        self._ffmpeg: str | None = None
        self._missing = False
        self.playback = Playback.NONE
        self._player: QProcess | None = None
        self._playing: QPushButton | None = None
        self._clips = QTemporaryDir()

    # --- showing a group ---------------------------------------------------------------------

    def show_group(self, group: Group, keeper: Member, selected: Member, reason: str) -> None:
        """Show ``group`` with ``keeper`` kept and ``selected`` chosen in the list."""
        view = media_view(group, keeper, selected, reason)
        self.summary.setText(reason)  # a rule may keep the same file for another reason
        if self.view is not None and _same(self.view, view):
            return
        self._queue.clear()  # what the previous selection still wanted
        if self._job is not None:
            self._job.cancel()
        self.view = view
        self._rebuild(view)
        self._queue_decodes()
        self._next()

    def clear(self) -> None:
        self._queue.clear()
        if self._job is not None:
            self._job.cancel()
        self.stop_playing()
        self.view = None
        self.summary.clear()
        self._rebuild(None)

    def stop(self) -> None:
        """Stop the worker and any playing clip (the window closes)."""
        self._queue.clear()
        self.stop_playing()
        if self._job is not None:
            self._job.stop()

    def busy(self) -> bool:
        return self._job is not None or bool(self._queue)

    def _rebuild(self, view: MediaView | None) -> None:
        self.stop_playing()
        while self.grid.count():
            item = self.grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()  # gone at once, not when the event loop next runs
                widget.deleteLater()
        self.cards = []
        for column in range(self.grid.columnCount()):  # the previous group's layout
            self.grid.setColumnStretch(column, 0)
        for row in range(self.grid.rowCount()):
            self.grid.setRowStretch(row, 0)
        if view is None:
            return
        headers = (
            [translate("Media", "File"), translate("Media", "Frames at the same moments")]
            if view.is_video
            else [
                translate("Media", "File"),
                translate("Media", "Title"),
                translate("Media", "Artist"),
                translate("Media", "Album"),
                translate("Media", "Length"),
                translate("Media", "Format"),
            ]
        )
        for column, text in enumerate(headers):
            self.grid.addWidget(_label(text, bold=True), 0, column)
        row = 1
        for card in view.cards[:MAX_CARDS]:
            widgets = _CardWidgets(card)
            if view.is_video:  # what a person weighs beside the frames that show the copy
                facts = translate("Media", "{length} · {size} · {quality}").format(
                    length=card.length, size=card.resolution, quality=card.quality
                )
                name = _label(
                    f"<b>{card.role_text}</b><br>{_escape(card.name)}<br>{_escape(facts)}"
                    f"<br>{_escape(card.match)}"
                )
                name.setTextFormat(Qt.TextFormat.RichText)
                name.setToolTip(card.member.path)
                self.grid.addWidget(name, row, 0, Qt.AlignmentFlag.AlignTop)
                widgets.frames = _FrameRow(card.frame_times)
                self.grid.addWidget(widgets.frames, row, 1, Qt.AlignmentFlag.AlignTop)
            else:
                name = _label(f"<b>{card.role_text}</b><br>{_escape(card.name)}")
                name.setTextFormat(Qt.TextFormat.RichText)
                name.setToolTip(card.member.path)
                self.grid.addWidget(name, row, 0)
                for column, field in enumerate(("title", "artist", "album"), start=1):
                    text = getattr(card, field) or "—"
                    self.grid.addWidget(_label(text, bold=field in card.differs), row, column)
                self.grid.addWidget(_label(card.length), row, 4)
                self.grid.addWidget(_label(card.quality), row, 5)
                widgets.play = QPushButton(translate("Media", "Play"))
                widgets.play.setAccessibleName(
                    translate("Media", "Play {name}").format(name=card.name)
                )
                widgets.play.setToolTip(
                    translate("Media", "Play {seconds} seconds from {time}").format(
                        seconds=f"{CLIP_S:g}", time=format_duration(card.play_from_s)
                    )
                )
                widgets.play.clicked.connect(lambda _=False, w=widgets: self.toggle_play(w))
                self.grid.addWidget(widgets.play, row + 1, 0, Qt.AlignmentFlag.AlignTop)
                widgets.waveform = WaveformView()
                widgets.waveform.setAccessibleName(
                    translate("Media", "Waveform of {name}").format(name=card.name)
                )
                widgets.waveform.set_timing(
                    card.duration_s, view.timeline, card.offset_s, card.matched, card.play_from_s
                )
                widgets.waveform.set_peaks(None, translate("Media", "Loading…"))
                self.grid.addWidget(widgets.waveform, row + 1, 1, 1, 3)
                self.grid.addWidget(_label(card.match), row + 1, 4, 1, 2)
            self.cards.append(widgets)
            row += 1 if view.is_video else 2
        hidden = len(view.cards) - MAX_CARDS
        if hidden > 0:
            more = translate("Media", "and %n more file(s) in this group", None, hidden)
            self.grid.addWidget(_label(more), row, 0, 1, len(headers))
            row += 1
        for column in range(len(headers)):
            self.grid.setColumnStretch(column, 1)
        if view.is_video:  # the frames take what they need, the facts the rest
            self.grid.setColumnStretch(1, 0)
        self.grid.setRowStretch(row, 1)
        self._show_tools_state()

    # --- decoding ------------------------------------------------------------------------------

    def _key(self, widgets: _CardWidgets) -> Key:
        card = widgets.card
        if widgets.frames is not None:
            return file_key(card.member, ("frames", card.frame_times, FRAME_SIDE))
        return file_key(card.member, ("waveform", WAVE_POINTS))

    def _queue_decodes(self) -> None:
        if self._missing:
            return
        for widgets in self.cards:
            key = self._key(widgets)
            if self._draw(widgets, key):
                continue
            path = widgets.card.member.path
            if widgets.frames is not None:
                self._queue.append((key, _frames(path, widgets.card.frame_times)))
            else:
                self._queue.append((key, _waveform(path)))

    def _draw(self, widgets: _CardWidgets, key: Key) -> bool:
        """Draw what the cache holds for ``widgets``; False when it must still be decoded."""
        problem = self._problems.get(key)
        if widgets.frames is not None:
            images = self.frames.get(key)
            if images is None and problem is None:
                return False
            widgets.frames.set_images(images, problem)
            return True
        assert widgets.waveform is not None
        peaks = self.waves.get(key)
        if peaks is None and problem is None:
            return False
        if peaks is not None:
            widgets.waveform.set_peaks(peaks)
        else:
            widgets.waveform.set_peaks(
                None, translate("Media", "Cannot show: {problem}").format(problem=problem)
            )
            widgets.waveform.setToolTip(problem or "")
        return True

    def _next(self) -> None:
        if self._job is not None:
            return
        if not self._queue:
            if self.view is not None:
                self.rendered.emit()
            return
        key, decode = self._queue.popleft()
        job = Job(_task(key, decode))
        job.finished.connect(self._on_decoded)
        job.failed.connect(lambda message, key=key: self._on_failed(key, message))
        job.done.connect(self._on_done)
        self._job = job
        job.start()

    @Slot()
    def _on_done(self) -> None:
        self._job = None
        self._next()

    def _on_failed(self, key: Key, message: str) -> None:
        self._problems.put(key, message)
        self._redraw(key)

    @Slot(object)
    def _on_decoded(self, decoded: _Decoded) -> None:
        if decoded.ffmpeg is None:
            self._missing = True
            self._queue.clear()
            self._show_tools_state()
            return
        self._ffmpeg = decoded.ffmpeg
        self._show_tools_state()
        if decoded.problem is not None:
            self._problems.put(decoded.key, decoded.problem)
        elif isinstance(decoded.value, str):  # a clip written for the system's player
            QDesktopServices.openUrl(QUrl.fromLocalFile(decoded.value))
            return
        elif isinstance(decoded.value, np.ndarray):
            self.waves.put(decoded.key, decoded.value)
        elif isinstance(decoded.value, list):
            self.frames.put(decoded.key, decoded.value)
        else:  # cancelled part way: decoded again when shown again
            return
        self._redraw(decoded.key)

    def _redraw(self, key: Key) -> None:
        for widgets in self.cards:
            if self._key(widgets) == key:
                self._draw(widgets, key)

    def _show_tools_state(self) -> None:
        """The hint line: FFmpeg missing (no previews), else what Play does."""
        from dupfinder.core.media.tools import MISSING_TOOLS_HINT

        music = self.view is not None and not self.view.is_video
        if self._missing:
            self.hint.setText(MISSING_TOOLS_HINT)
            self.hint.show()
            for widgets in self.cards:
                for widget in (widgets.waveform, widgets.frames, widgets.play):
                    if widget is not None:
                        widget.hide()
            return
        if self._ffmpeg is not None:
            self.playback = (
                Playback.FFPLAY if ffplay_beside(self._ffmpeg) else Playback.SYSTEM_PLAYER
            )
        self.hint.setText(playback_hint(self.playback) if music else "")
        self.hint.setVisible(music and self.playback is not Playback.NONE)

    # --- playing -------------------------------------------------------------------------------

    def toggle_play(self, widgets: _CardWidgets) -> None:
        """Play a few seconds of a member from the shared moment, or stop it playing."""
        if widgets.play is not None and widgets.play is self._playing:
            self.stop_playing()
            return
        self.stop_playing()
        card = widgets.card
        if self._ffmpeg is None:  # clicked before the first decode came back
            self._ffmpeg = _tools_or_none()
        ffplay = ffplay_beside(self._ffmpeg)
        if ffplay is not None:
            player = QProcess(self)
            player.finished.connect(self._player_finished)
            player.errorOccurred.connect(self._player_finished)
            player.start(ffplay, ffplay_arguments(card.member.path, card.play_from_s))
            self._player = player
            self._playing = widgets.play
            if widgets.play is not None:
                widgets.play.setText(translate("Media", "Stop"))
            return
        key = file_key(card.member, ("clip", card.play_from_s))
        self._queue.appendleft((key, _clip(card.member.path, card.play_from_s, self._clips.path())))
        self._next()

    @Slot()
    def _player_finished(self) -> None:
        """ffplay ended: the clip played out, or it could not play (said in the hint line)."""
        player = self._player
        if player is None:
            return
        said = bytes(player.readAllStandardError().data()).decode("utf-8", "replace")
        problem = player_problem(said) or (
            player.errorString() if player.error() is not QProcess.ProcessError.UnknownError else ""
        )
        self.stop_playing()
        if problem:
            self.hint.setText(
                translate("Media", "ffplay could not play the file: {problem}").format(
                    problem=problem
                )
            )
            self.hint.show()

    @Slot()
    def stop_playing(self) -> None:
        player, self._player = self._player, None
        button, self._playing = self._playing, None
        if player is not None:
            player.finished.disconnect(self._player_finished)
            player.errorOccurred.disconnect(self._player_finished)
            if player.state() is not QProcess.ProcessState.NotRunning:
                player.kill()
                player.waitForFinished(2000)
            player.deleteLater()
        if button is not None:
            button.setText(translate("Media", "Play"))

    def playing(self) -> bool:
        return self._player is not None


def _same(a: MediaView, b: MediaView) -> bool:
    """The same cards in the same roles: a click on the selected row again redraws nothing."""
    return a.kind is b.kind and [(c.member.path, c.role) for c in a.cards] == [
        (c.member.path, c.role) for c in b.cards
    ]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
