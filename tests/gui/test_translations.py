"""The Chinese translation: complete, chosen by the locale, shipped in the bundle."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale
from PySide6.QtWidgets import QApplication

from dupfinder.app import i18n
from dupfinder.app.i18n import translate
from dupfinder.gui.translations import install_translations

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "translations" / "dupfinder_zh_CN.ts"
SOURCES = sorted((ROOT / "dupfinder" / "app").glob("*.py")) + sorted(
    (ROOT / "dupfinder" / "gui").glob("*.py")
)


def _messages(path: Path) -> dict[tuple[str, str], ET.Element]:
    found = {}
    for context in ET.parse(path).getroot():
        name = context.findtext("name") or ""
        for message in context.findall("message"):
            found[(name, message.findtext("source") or "")] = message
    return found


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    translators = install_translations(qapp, QLocale("zh_CN"))
    yield
    for translator in translators:
        qapp.removeTranslator(translator)
    i18n.install(None)


def test_the_chinese_translation_is_chosen_by_the_locale(chinese: None) -> None:
    assert translate("Window", "%Ln group(s)", None, 1200) == "1,200 组"
    assert translate("Panel", "Scan") == "扫描"
    assert QCoreApplication.translate("Commands", "&File") == "文件(&F)"


def test_english_without_a_translation(qapp: QApplication) -> None:
    install_translations(qapp, QLocale("en_GB"))
    try:
        assert translate("Window", "%Ln group(s)", None, 1) == "1 group"
        assert translate("Window", "%Ln group(s)", None, 5815) == "5,815 groups"
    finally:
        i18n.install(None)


def _unfinished(message: ET.Element) -> bool:
    """A message whose translation is marked unfinished (or has none)."""
    translation = message.find("translation")
    return translation is None or bool(translation.get("type"))


def test_every_visible_string_is_translated(tmp_path: Path) -> None:
    lupdate = shutil.which("pyside6-lupdate") or str(
        Path(__import__("sys").executable).parent / "pyside6-lupdate"
    )
    fresh = tmp_path / "fresh.ts"
    subprocess.run(
        [lupdate, *map(str, SOURCES), "-ts", str(fresh)], check=True, capture_output=True
    )
    shipped = _messages(TS)
    missing = sorted(set(_messages(fresh)) - set(shipped))
    assert missing == [], "run the .ts workflow of the README"
    unfinished = [key for key, m in shipped.items() if _unfinished(m)]
    assert unfinished == []
    qm = TS.with_suffix(".qm")
    assert qm.exists()
    assert qm.stat().st_mtime >= TS.stat().st_mtime - 1


def test_the_bundle_ships_the_translations() -> None:
    spec = (ROOT / "packaging" / "dupfinder.spec").read_text(encoding="utf-8")
    assert "translations" in spec
