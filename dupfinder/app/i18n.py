"""Translatable text for the Qt-free layers, routed through Qt's translator when it is there.

Calls are written ``translate("Context", "text", None, n)`` so that ``pyside6-lupdate`` finds
them in these modules as it does in the widgets. Without a translator (tests, or English)
the text is finished here: ``%n`` becomes the count, ``%Ln`` the count with thousands
separators, and ``(s)`` the English plural ending. The desktop app installs Qt's
``QCoreApplication.translate`` with :func:`install`, which is why it is a module-level hook:
the translator, like Qt's, belongs to the process.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["Translator", "english", "install", "translate"]

#: context, source text, disambiguation, count (-1: no count) -> translated text
Translator = Callable[[str, str, str | None, int], str]

_PLURAL = re.compile(r"\((s|es)\)")


def english(text: str, n: int = -1) -> str:
    """Fill in counts and English plural endings: ``"%Ln file(s)"``, 1200 -> ``"1,200 files"``."""
    if n < 0:
        return text
    text = text.replace("%Ln", f"{n:,}").replace("%n", str(n))
    return _PLURAL.sub(lambda m: "" if n == 1 else m.group(1), text)


def _untranslated(_context: str, text: str, _disambiguation: str | None, n: int) -> str:
    return text


_translator: list[Translator] = [_untranslated]


def install(translator: Translator | None) -> None:
    """Route :func:`translate` through ``translator`` (None: back to plain English)."""
    _translator[0] = translator if translator is not None else _untranslated


def translate(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """The translation of ``text`` in ``context``; counts and plurals filled in for ``n``.

    The count is filled in here, not by Qt, so that numbers read the same (``1,200``) in
    every language and under the C locale."""
    return english(_translator[0](context, text, disambiguation, -1), n)
