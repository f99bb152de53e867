"""What the window remembers between runs, stored with QSettings.

One small typed wrapper instead of string keys scattered over the widgets: every key is read
here with a type and a default, so a damaged or old settings file can only fall back to the
defaults, never crash the app. Tests pass their own ``QSettings`` (an INI file in a temp dir).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from dupfinder.app.scan_settings import AdvancedSettings, FolderEntry, ScanSettings
from dupfinder.core.model import (
    DEFAULT_IMAGE_SIMILARITY,
    DEFAULT_TEXT_SIMILARITY,
    FINGERPRINTED_KINDS,
    Grouping,
    Kind,
)

__all__ = ["AdvancedSettings", "FolderEntry", "ScanSettings", "Settings"]


def _as_bool(value: Any, default: bool) -> bool:
    if value is None:
        return default
    return str(value).lower() in ("true", "1")


#: What versions before music and videos saved for their "Documents and pictures", which
#: then compared everything (other files by their bytes too): now "Everything".
_EVERYTHING_BEFORE = frozenset({Kind.TEXT, Kind.IMAGE})


def _as_kinds(value: Any) -> frozenset[Kind]:
    """The kinds the panel compares: one kind, or everything (also for anything else)."""
    known = {str(kind): kind for kind in FINGERPRINTED_KINDS}
    kinds = frozenset(known[k] for k in str(value or "").split(",") if k in known)
    if len(kinds) == 1:
        return kinds
    return FINGERPRINTED_KINDS if not kinds or kinds == _EVERYTHING_BEFORE else kinds


def _as_grouping(value: Any, default: Grouping) -> Grouping:
    try:
        return Grouping(str(value))
    except ValueError:
        return default


def _as_int(value: Any, default: int, low: int, high: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return number if low <= number <= high else default


#: The radius, in bits, that earlier versions stored for both kinds as their default.
_OLD_DEFAULT_BITS = 8


def _similarity(store: QSettings, kind: str, default: int) -> int:
    """The kind's similarity threshold in percent.

    Settings from before it existed kept a radius in bits (``scan/<kind>_threshold``). The
    old default becomes the new default; a radius the person changed keeps its direction
    and its measure: 0 bits (identical fingerprints) is 100 %, and the percent moves in
    even steps from there to the default at 8 bits and beyond (12 bits, looser, is below
    the default), never under 50 %."""
    stored = store.value(f"scan/{kind}_similarity")
    if stored is None:
        bits = _as_int(store.value(f"scan/{kind}_threshold"), _OLD_DEFAULT_BITS, 0, 64)
        step = (100 - default) / _OLD_DEFAULT_BITS
        return max(50, min(100, round(100 - bits * step)))
    return _as_int(stored, default, 50, 100)


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
                folders.append(FolderEntry(str(path), reference))
        s.endArray()
        kinds = _as_kinds(s.value("scan/kinds", ""))
        return ScanSettings(
            folders=tuple(folders),
            include=str(s.value("scan/include", "")),
            exclude=str(s.value("scan/exclude", "")),
            kinds=kinds,
            text_similarity=_similarity(s, "text", round(DEFAULT_TEXT_SIMILARITY * 100)),
            image_similarity=_similarity(s, "image", round(DEFAULT_IMAGE_SIMILARITY * 100)),
            advanced=self._load_advanced(),
        )

    def _load_advanced(self) -> AdvancedSettings:
        s = self._store
        default = AdvancedSettings()
        max_size = _as_int(s.value("scan/max_size"), 0, 0, 2**62)
        return AdvancedSettings(
            include_hidden=_as_bool(s.value("scan/hidden"), default.include_hidden),
            follow_symlinks=_as_bool(s.value("scan/follow_symlinks"), default.follow_symlinks),
            min_size=_as_int(s.value("scan/min_size"), default.min_size, 0, 2**62),
            max_size=max_size or None,
            image_invariance=_as_bool(s.value("scan/mirror_rotate"), default.image_invariance),
            text_grouping=_as_grouping(s.value("scan/text_grouping"), default.text_grouping),
            image_grouping=_as_grouping(s.value("scan/image_grouping"), default.image_grouping),
            jobs=_as_int(s.value("scan/jobs"), 0, 0, 1024),
            use_cache=_as_bool(s.value("scan/cache"), default.use_cache),
            identical=_as_bool(s.value("scan/identical"), default.identical),
            cache_dir=str(s.value("scan/cache_dir", default.cache_dir) or ""),
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
        s.setValue("scan/text_similarity", scan.text_similarity)
        s.setValue("scan/image_similarity", scan.image_similarity)
        a = scan.advanced
        for key, value in (
            ("hidden", a.include_hidden),
            ("follow_symlinks", a.follow_symlinks),
            ("mirror_rotate", a.image_invariance),
            ("cache", a.use_cache),
            ("identical", a.identical),
        ):
            s.setValue(f"scan/{key}", "true" if value else "false")
        s.setValue("scan/min_size", a.min_size)
        s.setValue("scan/max_size", a.max_size or 0)
        s.setValue("scan/text_grouping", str(a.text_grouping))
        s.setValue("scan/image_grouping", str(a.image_grouping))
        s.setValue("scan/jobs", a.jobs)
        s.setValue("scan/cache_dir", a.cache_dir)

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
