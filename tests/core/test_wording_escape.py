"""File names shown to people cannot drive the terminal: controls, escape sequences,
bidirectional marks and bytes that are not UTF-8 are shown escaped, the rest as it is."""

from __future__ import annotations

import os
import unicodedata

import pytest

from dupfinder.core.wording import escaped


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("plain name.txt", "plain name.txt"),
        ("日本語のメモ 😀.txt", "日本語のメモ 😀.txt"),
        ("a\x1b[31mred\x1b[0m.txt", "a\\x1b[31mred\\x1b[0m.txt"),
        ("\u202etxt.exe", "\\u202etxt.exe"),
        ("left\u2066isolated\u2069", "left\\u2066isolated\\u2069"),
        ("marks\u200e\u200f", "marks\\u200e\\u200f"),
        ("tab\tline\nreturn\r", "tab\\tline\\nreturn\\r"),
        ("bell\x07del\x7fcsi\x9b", "bell\\x07del\\x7fcsi\\x9b"),
        ("line\u2028separator", "line\\u2028separator"),
        (os.fsdecode(b"caf\xe9 \x9b2J"), "caf\\xe9 \\x9b2J"),
    ],
)
def test_names_are_shown_escaped(name: str, shown: str) -> None:
    assert escaped(name) == shown


def test_an_escaped_name_holds_nothing_a_terminal_acts_on() -> None:
    every = "".join(chr(c) for c in range(0x3000) if not 0xD800 <= c < 0xE000)
    text = escaped(every + os.fsdecode(bytes(range(0x80, 0x100))))
    left = {unicodedata.category(c) for c in text}
    assert not left & {"Cc", "Cs", "Zl", "Zp"}
    assert not any(c in text for c in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e")
    assert not any(c in text for c in "\u2066\u2067\u2068\u2069")


def test_a_message_of_several_lines_keeps_its_lines() -> None:
    assert escaped("first \x1b\nsecond", lines=True) == "first \\x1b\nsecond"
