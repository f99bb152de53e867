"""What the window remembers between runs, stored with QSettings.

One small typed wrapper instead of string keys scattered over the widgets: every key is read
here with a type and a default, so a damaged or old settings file can only fall back to the
defaults, never crash the app. Tests pass their own ``QSettings`` (an INI file in a temp dir).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from dupfinder.core.model import DEFAULT_IMAGE_THRESHOLD, DEFAULT_TEXT_THRESHOLD, Kind

__all__ = ["FolderEntry", "ScanSettings", "Settings"]


@dataclass(frozen=True, slots=True)
class FolderEntry:
    """A folder to scan; files in a ``reference`` folder are always kept."""

    path: str
    reference: bool = False


@dataclass(frozen=True, slots=True)
class ScanSettings:
    """The scan panel's state."""

    folders: tuple[FolderEntry, ...] = ()
    include: str = ""
    exclude: str = ""
    kinds: frozenset[Kind] = field(default_factory=lambda: frozenset({Kind.TEXT, Kind.IMAGE}))
    text_threshold: int = DEFAULT_TEXT_THRESHOLD
    image_threshold: int = DEFAULT_IMAGE_THRESHOLD


def _as_int(value: Any, default: int, low: int, high: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return number if low <= number <= high else default


def _as_bytes(value: Any) -> QByteArray | None:
    if isinstance(value, QByteArray) and not value.isEmpty():
        return value
    if isinstance(value, bytes | bytearray) and value:
        return QByteArray(bytes(value))
    return None


class Settings:
    """Typed access to the app's QSettings."""

    def __init__(self, store: QSettings | None = None) -> None:
        self._store = store if store is not None else QSettings()

    @property
    def store(self) -> QSettings:
        return self._store

    # --- scan options ----------------------------------------------------------------------

    def load_scan(self) -> ScanSettings:
        s = self._store
        folders = []
        size = s.beginReadArray("folders")
        for i in range(size):
            s.setArrayIndex(i)
            path = s.value("path", "", str)
            if path:
                reference = str(s.value("reference", "false")).lower() in ("true", "1")
                folders.append(FolderEntry(path, reference))
        s.endArray()
        kinds_text = str(s.value("scan/kinds", "text,image"))
        kinds = frozenset(Kind(k) for k in kinds_text.split(",") if k in {"text", "image"})
        return ScanSettings(
            folders=tuple(folders),
            include=str(s.value("scan/include", "")),
            exclude=str(s.value("scan/exclude", "")),
            kinds=kinds or frozenset({Kind.TEXT, Kind.IMAGE}),
            text_threshold=_as_int(s.value("scan/text_threshold"), DEFAULT_TEXT_THRESHOLD, 0, 32),
            image_threshold=_as_int(
                s.value("scan/image_threshold"), DEFAULT_IMAGE_THRESHOLD, 0, 32
            ),
        )

    def save_scan(self, scan: ScanSettings) -> None:
        s = self._store
        s.remove("folders")
        s.beginWriteArray("folders", len(scan.folders))
        for i, folder in enumerate(scan.folders):
            s.setArrayIndex(i)
            s.setValue("path", folder.path)
            s.setValue("reference", "true" if folder.reference else "false")
        s.endArray()
        s.setValue("scan/include", scan.include)
        s.setValue("scan/exclude", scan.exclude)
        s.setValue("scan/kinds", ",".join(sorted(str(k) for k in scan.kinds)))
        s.setValue("scan/text_threshold", scan.text_threshold)
        s.setValue("scan/image_threshold", scan.image_threshold)

    # --- window state --------------------------------------------------------------------------

    def load_state(self, name: str) -> QByteArray | None:
        """A saved geometry or header/splitter state, or None when there is none."""
        return _as_bytes(self._store.value(f"window/{name}"))

    def save_state(self, name: str, state: QByteArray) -> None:
        self._store.setValue(f"window/{name}", state)

    def last_directory(self) -> str:
        return str(self._store.value("window/last_directory", ""))

    def set_last_directory(self, path: str) -> None:
        self._store.setValue("window/last_directory", path)

    def sync(self) -> None:
        self._store.sync()
