"""Folding by table gives exactly NFKC + casefold, character by character and in context."""

from __future__ import annotations

import random
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dupfinder.core.text import chars as textchars

# characters that exercise every kind of table entry and every way back to the exact path
TRICKY = (
    "aZé\u00c5ßſ\ufb01\u2126\u212a\u2122\u2026\u00bd\u3000ＡＢｶﾞ"  # one, several, fullwidth
    "\u00ad\u200b\u200d\ufeff\ufe0f"  # dropped
    "\u0301\u0308\u0323\u1161\u11a8\u09be\u0b3e"  # no boundary before: exact path
    "가각한国語テスト\U00020000\U000e0001\U000f0000\ud800"  # syllables, high planes, surrogate
    "ΣσςΐΰǰŉᾈẞİI "
)


def _same(text: str) -> None:
    """Same classes, same token characters (a separator may stand for another one)."""
    cps, cls = textchars.code_points(text)
    ref_cps, ref_cls = textchars.code_points_exact(text)
    assert cls.tolist() == ref_cls.tolist()
    token = cls >= textchars.WORD
    assert cps[token].tolist() == ref_cps[token].tolist()


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(TRICKY), max_size=40))
def test_tricky_texts_fold_as_unicodedata_does(text: str) -> None:
    _same(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=60))
def test_arbitrary_texts_fold_as_unicodedata_does(text: str) -> None:
    _same(text)


def test_every_code_point_of_the_table_in_context() -> None:
    """Each character of the table path, between others, equals the exact rule."""
    everything = np.arange(0x40000, dtype=np.uint32)
    textchars.code_points("".join(chr(c) for c in range(0x80, 0x40000)))  # fills the table
    lengths = textchars._fold().lengths[everything]
    tabled = everything[lengths != 0xFE].tolist()
    assert len(tabled) > 200_000
    rng = random.Random(5)
    rng.shuffle(tabled)
    text = "".join(chr(c) for c in tabled)
    for start in range(0, len(text), 997):
        chunk = text[start : start + 997]
        assert textchars._fold().apply(textchars.utf32(chunk)) is not None
        _same(chunk)


@pytest.mark.parametrize(
    ("text", "same_as"),
    [
        ("cafe\u0301", "café"),  # a combining accent composes with the letter before it
        ("\u1100\u1161\u11a8", "각"),  # Hangul jamo compose into a syllable
        ("ﬁle ＡＢＣ Straße", "file abc strasse"),
    ],
)
def test_composition_and_expansion(text: str, same_as: str) -> None:
    cps, _ = textchars.code_points(text)
    expected = unicodedata.normalize("NFKC", same_as).casefold()
    assert cps.tolist() == [ord(c) for c in expected]


def test_known_backward_starters_are_those_of_this_unicode_version() -> None:
    assert textchars._composes_backward() == textchars._backward_starters()
