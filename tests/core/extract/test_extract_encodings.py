"""Plain text in every common encoding decodes to the same str."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from dupfinder.core.extract import extract_text

CHINESE_SIMPLIFIED = (
    "敏捷的棕色狐狸跳过了懒狗。这是一个用于测试编码检测的中文段落，包含常见的汉字和标点符号。"
    "我们希望程序能够正确识别文本的编码方式，并且把它转换成统一的字符串。"
)
CHINESE_TRADITIONAL = (
    "敏捷的棕色狐狸跳過了懶狗。這是一個用於測試編碼檢測的中文段落，包含常見的漢字和標點符號。"
    "我們希望程式能夠正確識別文字的編碼方式，並且把它轉換成統一的字串。"
)
JAPANESE = (
    "素早い茶色の狐が怠け者の犬を飛び越えた。これは文字コードの判定を試すための日本語の段落です。"
    "プログラムが正しく文字コードを認識して、統一された文字列に変換できることを期待しています。"
)
FRENCH = (
    "Le cœur déçu mais l'âme plutôt naïve, Louÿs rêva de crapaüter en canoë au delà des îles, "
    "près du mälström où brûlent les novæ. « Ça coûte très cher », dit-il à l'été."
)
GERMAN = (
    "Falsches Üben von Xylophonmusik quält jeden größeren Zwerg. Die Straße führt über die "
    "Brücke nach Köln, wo die Bäckerei frische Brötchen verkauft."
)
MIXED = "Grüße — naïve café 中文 and plain ASCII words"


@pytest.mark.parametrize(
    ("text", "encoding", "bom"),
    [
        (MIXED, "utf-8", b""),
        (MIXED, "utf-8", codecs.BOM_UTF8),
        (MIXED, "utf-16-le", codecs.BOM_UTF16_LE),
        (MIXED, "utf-16-be", codecs.BOM_UTF16_BE),
        (MIXED, "utf-16-le", b""),
        (FRENCH, "utf-16-be", b""),
        (MIXED, "utf-32-le", codecs.BOM_UTF32_LE),
        (CHINESE_SIMPLIFIED, "gb18030", b""),
        (CHINESE_TRADITIONAL, "big5", b""),
        (JAPANESE, "shift_jis", b""),
        (JAPANESE, "euc_jp", b""),
        (FRENCH, "cp1252", b""),
        (GERMAN, "latin-1", b""),
    ],
)
def test_encodings_round_trip(tmp_path: Path, text: str, encoding: str, bom: bytes) -> None:
    path = tmp_path / "sample.txt"
    path.write_bytes(bom + f"{text}\n{text}\n".encode(encoding))
    assert extract_text(path) == f"{text}\n{text}"


def test_newlines_are_normalised(tmp_path: Path) -> None:
    path = tmp_path / "windows.txt"
    path.write_bytes(b"first line\r\nsecond line  \r\n\r\n\r\n\r\nthird\rfourth\r\n")
    assert extract_text(path) == "first line\nsecond line\n\nthird\nfourth"


def test_source_code_keeps_its_indentation(tmp_path: Path) -> None:
    path = tmp_path / "module.py"
    path.write_text("def f():\n    return 'ünïcode'\n", encoding="utf-8")
    assert extract_text(path) == "def f():\n    return 'ünïcode'"


def test_invalid_utf8_mixed_with_valid_keeps_the_valid_text(tmp_path: Path) -> None:
    good = "Grüße aus Köln, naïve café, 中文字符. "
    path = tmp_path / "damaged.txt"
    path.write_bytes(good.encode() * 5 + b"\x80\xff broken \xc3" + good.encode() * 5)
    text = extract_text(path)
    assert text.count(good.strip()) == 10
    assert "\ufffd" in text
    assert "broken" in text


def test_markdown_and_rst_are_decoded_like_plain_text(tmp_path: Path) -> None:
    md = tmp_path / "legacy.md"
    md.write_bytes(f"# Titre\n\n{FRENCH}\n".encode("cp1252"))
    assert extract_text(md).splitlines() == ["Titre", FRENCH]
    rst = tmp_path / "chinese.rst"
    rst.write_bytes(f"标题\n====\n\n{CHINESE_SIMPLIFIED}\n".encode("gb18030"))
    assert extract_text(rst).splitlines() == ["标题", CHINESE_SIMPLIFIED]
