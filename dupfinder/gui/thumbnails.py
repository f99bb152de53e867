"""Small pictures for the results list, decoded off the GUI thread and kept in memory.

The list asks for a thumbnail only when it paints a row (``ResultsModel.data`` with the
decoration role), so only the rows on screen are ever decoded. A request made while the
picture is not known yet queues it and answers with a placeholder; two pool threads take
the newest requests first (rows scrolled past are not waited for, and the oldest requests
are dropped when many pile up), decode through the preview's path (drafted JPEG decode,
EXIF orientation, HEIF), and hand a ``QImage`` back; ``ready`` then tells the model which file
to repaint. A file that cannot be decoded gets a "cannot read" picture and its reason.
Thumbnails are sized in device pixels (sharp on a 2× screen) and kept in an LRU cache.
A picture with transparent parts is shown over a grey checkerboard, the usual sign of
transparency: a white symbolic icon drawn on nothing would vanish on a white row.
"""

from __future__ import annotations

import enum
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from PySide6.QtCore import QObject, QRunnable, QSize, Qt, QThreadPool, Signal, Slot
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QApplication

from dupfinder.core.model import Member
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.image_preview import (
    heif_support,
    load_preview_image,
    on_checkerboard,
    to_qimage,
)

__all__ = [
    "THUMBNAIL_SIDE",
    "LruCache",
    "ThumbState",
    "Thumbnails",
    "decode_thumbnail",
    "on_checkerboard",
]

#: The thumbnail's side in the list, in device-independent pixels.
THUMBNAIL_SIDE = 32
#: Thumbnails kept in memory (at 2× scale about 16 KB each).
CAPACITY = 2_000
#: Requests waiting at most; older ones were scrolled past and are dropped.
MAX_PENDING = 256
WORKERS = 2

K = TypeVar("K")
V = TypeVar("V")
_Key = tuple[str, int, int]  # path, size, mtime_ns: a changed file gets a new thumbnail


class ThumbState(enum.Enum):
    """What the list shows for a picture."""

    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"


class LruCache(Generic[K, V]):
    """A mapping that forgets its least recently used entries beyond ``capacity``."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items


@dataclass(frozen=True, slots=True)
class Decoded:
    """A decode's outcome, made in a pool thread."""

    key: _Key
    image: QImage | None
    problem: str | None = None


def decode_thumbnail(path: str, side: int) -> tuple[QImage | None, str | None]:
    """``path`` upright and at most ``side`` device pixels long (transparent parts over a
    checkerboard), or (None, the reason)."""
    heif_support()
    loaded = load_preview_image(path, side)
    if loaded.image is None:
        return None, loaded.problem or "unreadable"
    return to_qimage(on_checkerboard(loaded.image)), None


class _Task(QRunnable):
    """Decodes queued requests, newest first, until none is left."""

    def __init__(self, owner: Thumbnails) -> None:
        super().__init__()
        self._owner = owner

    def run(self) -> None:
        owner = self._owner
        try:
            while (request := owner.take()) is not None:
                key, side = request
                try:
                    image, problem = owner.decode(key[0], side)
                except Exception as exc:  # a decoder bug must not kill the pool thread
                    image, problem = None, f"{type(exc).__name__}: {exc}"
                owner.decoded.emit(Decoded(key, image, problem))
            owner.finished_task()
        except RuntimeError:  # the list was closed meanwhile (its pool waits for this task)
            return


class Thumbnails(QObject):
    """Thumbnails of pictures by path, loaded lazily; ``ready(path)`` when one is known."""

    ready = Signal(str)
    decoded = Signal(object)  # Decoded, from a pool thread (queued to this object's thread)

    def __init__(
        self,
        parent: QObject | None = None,
        side: int = THUMBNAIL_SIDE,
        capacity: int = CAPACITY,
        workers: int = WORKERS,
        decode: Callable[[str, int], tuple[QImage | None, str | None]] = decode_thumbnail,
    ) -> None:
        super().__init__(parent)
        self.side = side
        self.ratio = 1.0
        self.decode = decode
        self.requested = 0  # how many decodes were ever asked for (tests, figures)
        self._cache: LruCache[_Key, QIcon] = LruCache(capacity)
        self._problems: LruCache[_Key, str] = LruCache(capacity)
        self._pending: OrderedDict[_Key, None] = OrderedDict()
        self._lock = threading.Lock()
        self._tasks = 0
        self._workers = workers
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(workers)
        self._placeholder: QIcon | None = None
        self._broken: QIcon | None = None
        self._blank: QIcon | None = None
        self.decoded.connect(self._on_decoded, Qt.ConnectionType.QueuedConnection)

    # --- what the list shows -----------------------------------------------------------------

    def set_ratio(self, ratio: float) -> bool:
        """Device pixels per logical pixel of the screen the list is on; True when that
        changed, and the thumbnails made for the old screen are forgotten (blurred on a
        sharper screen, oversized on a coarser one): rows ask for them again as they paint."""
        if ratio <= 0 or ratio == self.ratio:
            return False
        self.ratio = ratio
        self._placeholder = self._broken = self._blank = None
        self._cache = LruCache(self._cache.capacity)
        return True

    def device_side(self) -> int:
        return max(1, round(self.side * self.ratio))

    def state(self, member: Member) -> ThumbState:
        key = _key(member)
        if key in self._cache:
            return ThumbState.READY
        if key in self._problems:
            return ThumbState.FAILED
        return ThumbState.LOADING

    def problem(self, member: Member) -> str | None:
        return self._problems.get(_key(member))

    def icon(self, member: Member) -> QIcon:
        """The thumbnail, or a placeholder (and a request) while it loads, or "cannot read".

        An icon whose selected look is its normal one: a style would tint a plain pixmap
        with the selection colour, and a picture is compared by its colours."""
        key = _key(member)
        found = self._cache.get(key)
        if found is not None:
            return found
        if key in self._problems:
            return self._broken_icon()
        self._request(key)
        return self._placeholder_icon()

    def pixmap(self, member: Member) -> QPixmap:
        """What ``icon`` shows, at the thumbnail's size."""
        return self.icon(member).pixmap(QSize(self.side, self.side), self.ratio)

    def blank(self) -> QIcon:
        """Nothing, as wide as a thumbnail: keeps names in line beside rows with one."""
        if self._blank is None:
            pixmap, painter, _ = self._canvas()
            painter.end()
            self._blank = _icon(pixmap, self.ratio)
        return self._blank

    # --- loading -----------------------------------------------------------------------------

    def _request(self, key: _Key) -> None:
        with self._lock:
            if key in self._pending:
                self._pending.move_to_end(key)
                return
            self._pending[key] = None
            self.requested += 1
            while len(self._pending) > MAX_PENDING:
                self._pending.popitem(last=False)
            start = self._tasks < self._workers
            if start:
                self._tasks += 1
        if start:
            self._pool.start(_Task(self))

    def take(self) -> tuple[_Key, int] | None:
        """The newest request (called by pool threads)."""
        with self._lock:
            if not self._pending:
                return None
            key, _ = self._pending.popitem(last=True)
            return key, self.device_side()

    def finished_task(self) -> None:
        with self._lock:
            self._tasks -= 1
            restart = bool(self._pending) and self._tasks < self._workers
            if restart:  # a request came in after this task found the queue empty
                self._tasks += 1
        if restart:
            self._pool.start(_Task(self))

    @Slot(object)
    def _on_decoded(self, done: Decoded) -> None:
        if done.image is None:
            self._problems.put(done.key, done.problem or "unreadable")
        else:
            self._cache.put(done.key, _icon(QPixmap.fromImage(done.image), self.ratio))
        self.ready.emit(done.key[0])

    def busy(self) -> bool:
        """Whether decodes are waiting or under way."""
        with self._lock:
            return bool(self._pending) or self._tasks > 0

    def forget_requests(self) -> None:
        """Drop what is still waiting (a new result is shown)."""
        with self._lock:
            self._pending.clear()

    def stop(self) -> None:
        """Drop the waiting requests and wait for the decodes under way (on close)."""
        self.forget_requests()
        self._pool.waitForDone()

    # --- pictures for the two other states ---------------------------------------------------

    def _canvas(self) -> tuple[QPixmap, QPainter, int]:
        side = self.device_side()
        pixmap = QPixmap(QSize(side, side))
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        return pixmap, painter, side

    def _placeholder_icon(self) -> QIcon:
        if self._placeholder is None:
            pixmap, painter, side = self._canvas()
            color = QApplication.palette().color(QPalette.ColorRole.Mid)
            color.setAlpha(90)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            inset = side // 8
            painter.drawRoundedRect(inset, inset, side - 2 * inset, side - 2 * inset, 3, 3)
            painter.end()
            self._placeholder = _icon(pixmap, self.ratio)
        return self._placeholder

    def _broken_icon(self) -> QIcon:
        if self._broken is None:
            pixmap, painter, side = self._canvas()
            inset = side // 8
            pen = QPen(QColor(200, 40, 40), max(1.5, side / 16))
            painter.setPen(pen)
            painter.drawRect(inset, inset, side - 2 * inset, side - 2 * inset)
            painter.drawLine(inset * 2, inset * 2, side - inset * 2, side - inset * 2)
            painter.drawLine(side - inset * 2, inset * 2, inset * 2, side - inset * 2)
            painter.end()
            self._broken = _icon(pixmap, self.ratio)
        return self._broken


def _icon(pixmap: QPixmap, ratio: float) -> QIcon:
    pixmap.setDevicePixelRatio(ratio)
    icon = QIcon()
    for mode in (QIcon.Mode.Normal, QIcon.Mode.Selected, QIcon.Mode.Active):
        icon.addPixmap(pixmap, mode)
    return icon


def _key(member: Member) -> _Key:
    return (member.path, member.size, member.mtime_ns)
