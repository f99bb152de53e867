"""The translation for the user's language, chosen by the system locale.

dupfinder's own ``.qm`` files are compiled from ``resources/translations/*.ts`` (see the
README); Qt's own (standard buttons) come from the Qt installation when it has them. Both
the widgets and the Qt-free app layer (``dupfinder.app.i18n``) then translate through Qt.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from dupfinder.app import i18n

__all__ = ["install_translations", "translation_folders"]


def translation_folders() -> list[Path]:
    """Where dupfinder's ``.qm`` files may be: the source tree, a bundle, an installed share."""
    folders = [Path(__file__).resolve().parents[2] / "resources" / "translations"]
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        folders.append(Path(bundle) / "resources" / "translations")
    folders.append(Path(sys.prefix) / "share" / "dupfinder" / "translations")
    return folders


def install_translations(app: QCoreApplication, locale: QLocale | None = None) -> list[QTranslator]:
    """Install the translators for ``locale`` (default: the system's); returns those loaded
    (keep them alive as long as the app)."""
    locale = locale if locale is not None else QLocale.system()
    loaded: list[QTranslator] = []
    ours = QTranslator(app)
    if any(ours.load(locale, "dupfinder", "_", str(folder)) for folder in translation_folders()):
        loaded.append(ours)
    qt = QTranslator(app)
    if qt.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        loaded.append(qt)
    for translator in loaded:
        app.installTranslator(translator)
    i18n.install(QCoreApplication.translate)
    return loaded
