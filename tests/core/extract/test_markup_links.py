"""Markdown's link targets are thrown away unparsed, and the text reads as before."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt
from markdown_it.common import normalize_url

from dupfinder.core.extract import markup

DOCUMENTS = [
    'See [the manual](https://exämple.org/a%20b/ü?q=1&r=2 "title") and ![a logo](logo.png).',
    "[unsafe](javascript:alert(1)) and [file](FILE:///etc/passwd) and [data](data:image/png;x)",
    "Auto <https://xn--exmple-cua.org/päth> and <mailto:someone@exämple.org> stay as text.",
    "[ref][1] and [other]\n\n[1]: https://exämple.org/ünïcode\n[other]: </a b> 'x'\n",
    "*emphasis* and `code [x](y)` and \\[escaped](link) and [nested [x](y)](z)",
]


def _normalising(source: str) -> list[str]:
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    return [
        child.content
        for token in parser.parse(source)
        if token.type == "inline"
        for child in token.children or []
        if child.type in ("text", "text_special", "code_inline")
    ]


@pytest.mark.parametrize("source", DOCUMENTS)
def test_text_is_the_normalising_parsers(source: str) -> None:
    words = " ".join(markup.markdown_to_text(source).split())
    assert words == " ".join("".join(_normalising(source)).split())


def test_link_targets_are_not_normalised(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(url: str) -> str:
        raise AssertionError(f"normalised a link target: {url}")

    monkeypatch.setattr(normalize_url, "normalizeLink", refuse)
    text = markup.markdown_to_text(DOCUMENTS[0] + "\n\n" + DOCUMENTS[3])
    assert "the manual" in text
    assert "exämple" not in text
