"""Text SimHash: normalisation, tokens in every script, exact feature hashing, pinned fingerprints."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dupfinder.core.errors import FileProblem, TooLittleContent
from dupfinder.core.text import simhash as textsim

MASK = (1 << 64) - 1

ENGLISH = (
    "The quick brown fox jumps over the lazy dog while the farmer watches from the porch. "
    "Every morning he walks to the river, fills two buckets with cold water and carries them "
    "back up the hill to the garden, where tomatoes, beans and sunflowers grow in long rows."
)
CHINESE = (
    "北京是中华人民共和国的首都，也是全国的政治中心和文化中心。这座城市有三千多年的建城史，"
    "保存着故宫、天坛和长城等许多世界文化遗产。每年都有大量游客来这里参观和学习。"
)
JAPANESE = (
    "東京は日本の首都であり、世界でも有数の大都市です。「江戸」と呼ばれていた時代から、"
    "政治と経済の中心として発展してきました。春には多くの人が桜を見に公園へ出かけます。"
)
MIXED = (
    "Python 是一种广泛使用的编程语言。It was created by Guido van Rossum, "
    "最初は1991年に公開されました。서울에서도 많은 개발자가 Python을 사용합니다."
)
OTHER = (
    "Invoices must be submitted within thirty days of delivery. Late submissions are paid in "
    "the following quarter, and disputed amounts are held until the accounts team confirms the "
    "order number, the delivery note and the signed acceptance form from the warehouse."
)


def distance(a: int, b: int) -> int:
    return (a ^ b).bit_count()


# --- normalisation ---------------------------------------------------------------------------


def test_normalize_nfkc_fullwidth_and_ligatures() -> None:
    assert textsim.normalize("ＡＢＣ　１２３ ﬁle") == "abc 123 file"


def test_normalize_casefold_is_full_not_lower() -> None:
    assert textsim.normalize("STRASSE Straße ΣΊΣΥΦΟΣ") == "strasse strasse σίσυφοσ"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello, world! (yes) — “quoted” ‘single’ ...", "hello world yes quoted single"),
        ("¿Qué? ¡Sí! «Bonjour» „Hallo“", "qué sí bonjour hallo"),
        ("你好。世界、「引用」『二重』（括弧）【見出し】！？", "你好 世界 引用 二重 括弧 見出し"),
        ("مرحبا، كيف حالك؟", "مرحبا كيف حالك"),
        ("नमस्ते। धन्यवाद॥", "नमस्ते धन्यवाद"),
        ("price: 5 € + 3 $ = 8 © ☺ → ∑ ™", "price 5 3 8 tm"),  # NFKC spells ™ as TM
        ("tab\tnew\nline\r\nnbsp\u00a0ideo\u3000space  end ", "tab new line nbsp ideo space end"),
    ],
)
def test_normalize_removes_punctuation_and_symbols_of_every_script(
    text: str, expected: str
) -> None:
    assert textsim.normalize(text) == expected


def test_normalize_drops_invisible_format_characters_inside_words() -> None:
    assert textsim.normalize("soft\u00adhyphen zero\u200bwidth join\u200der \ufeffbom") == (
        "softhyphen zerowidth joiner bom"
    )


def test_normalize_survives_lone_surrogates_and_high_planes() -> None:
    assert textsim.normalize("a\ud800b \U000e0041 \U0010fffd c") == "a b c"


# --- tokens ----------------------------------------------------------------------------------


def test_tokens_words_for_spaced_scripts() -> None:
    assert textsim.tokens("Don't stop — it's 3.11!") == ["don", "t", "stop", "it", "s", "3", "11"]
    assert textsim.tokens("Привет, мир") == ["привет", "мир"]


def test_tokens_one_per_cjk_character() -> None:
    assert textsim.tokens("我爱北京。") == ["我", "爱", "北", "京"]
    assert textsim.tokens("カタカナとひらがな") == list("カタカナとひらがな")
    assert textsim.tokens("ｶﾀｶﾅ") == list("カタカナ")  # halfwidth folded by NFKC
    assert textsim.tokens("한국어 문장") == list("한국어문장")


def test_tokens_mixed_scripts_split_at_script_change() -> None:
    assert textsim.tokens("iPhone手机2024年 version 3") == [
        "iphone",
        "手",
        "机",
        "2024",
        "年",
        "version",
        "3",
    ]


def test_tokens_unsegmented_thai_is_per_character() -> None:
    assert textsim.tokens("สวัสดี") == list("สวัสดี")


# --- features and the tally, defined exactly -------------------------------------------------


def _fmix64(h: int) -> int:
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & MASK
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & MASK
    return h ^ (h >> 33)


def _reference_features(text: str, shingle: int) -> dict[int, int]:
    """The documented scheme in plain Python ints: Horner polynomials and fmix64."""
    token_hashes = []
    for token in textsim.tokens(text):
        h = 0
        for ch in token:
            h = (h * 0x9E3779B97F4A7C15 + ord(ch)) & MASK
        token_hashes.append(_fmix64(h))
    counts: dict[int, int] = {}
    for i in range(max(1, len(token_hashes) - shingle + 1)):
        h = 0
        for t in token_hashes[i : i + shingle]:
            h = (h * 0xC2B2AE3D27D4EB4F + t) & MASK
        key = _fmix64(h)
        counts[key] = counts.get(key, 0) + 1
    return counts


def _long_text() -> str:
    """Longer than one segment of the token pass, with a token longer than a segment too."""
    words = [f"w{i % 977}x{'é' * (i % 5)}" for i in range(12_000)]
    words[7_000] = "z" * (textsim._SEGMENT + 123)
    return " ".join(words)


def _reference_simhash(weighted: dict[int, float]) -> int:
    value = 0
    for bit in range(64):
        vote = sum(w if (h >> bit) & 1 else -w for h, w in weighted.items())
        value |= (vote > 0) << bit
    return value


@pytest.mark.parametrize(
    "text", [ENGLISH, CHINESE, MIXED, "one two one two one two one", _long_text()]
)
def test_features_match_a_plain_python_reference(text: str) -> None:
    hashes, weights = textsim.features(text)
    expected = _reference_features(text, textsim.SHINGLE)
    assert hashes.dtype == np.uint64
    assert weights.dtype == np.float64
    assert list(hashes) == sorted(expected)
    counts = np.array([expected[h] for h in sorted(expected)], dtype=np.float64)
    assert np.allclose(weights, textsim._WEIGHTINGS[textsim.WEIGHTING](counts))


def test_simhash_matches_reference_tally() -> None:
    hashes, weights = textsim.features(ENGLISH)
    weighted = dict(zip(hashes.tolist(), weights.tolist(), strict=True))
    assert textsim.simhash(ENGLISH) == _reference_simhash(weighted)


def test_single_feature_contribution_is_its_own_bits_whatever_the_byte_order() -> None:
    h = 0x8000_0000_0000_0001  # bit 63 and bit 0: a byte swap would move both
    assert textsim.simhash_features(np.array([h], dtype=np.uint64), [1.0]) == h
    big_endian = np.array([h], dtype=">u8")
    assert textsim.simhash_features(big_endian, [1.0]) == h


def test_heavier_feature_wins_each_bit() -> None:
    a, b = 0x00000000FFFFFFFF, 0x0F0F0F0F0F0F0F0F
    assert textsim.simhash_features(np.array([a, b], dtype=np.uint64), [3.0, 1.0]) == a
    assert textsim.simhash_features(np.array([a, b], dtype=np.uint64), [1.0, 2.0]) == b
    # A tie leaves the bit clear: only bits set in both survive.
    assert textsim.simhash_features(np.array([a, b], dtype=np.uint64), [1.0, 1.0]) == a & b


def test_simhash_features_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="2 hashes but 1 weights"):
        textsim.simhash_features(np.array([1, 2], dtype=np.uint64), [1.0])
    with pytest.raises(ValueError, match="negative"):
        textsim.simhash_features(np.array([1], dtype=np.uint64), [-1.0])
    with pytest.raises(ValueError, match="weighting"):
        textsim.features(ENGLISH, weighting="cubic")


def test_features_of_empty_text_are_empty() -> None:
    hashes, weights = textsim.features("!!! ??? ...")
    assert hashes.size == 0
    assert weights.size == 0
    assert textsim.simhash_features(hashes, weights) == 0


# --- fingerprints ----------------------------------------------------------------------------


def test_near_duplicates_are_close_and_unrelated_texts_are_not() -> None:
    base = textsim.simhash(ENGLISH)
    rewrapped = ENGLISH.upper().replace(" ", "\n  ").replace(",", " ;")
    assert textsim.simhash(rewrapped) == base
    one_word = ENGLISH.replace("buckets", "pails")
    assert distance(textsim.simhash(one_word), base) <= 12
    assert 16 <= distance(textsim.simhash(OTHER), base) <= 48


def test_cjk_punctuation_changes_do_not_move_the_fingerprint() -> None:
    swapped = CHINESE.replace("，", ", ").replace("。", ".").replace("、", ",")
    assert textsim.simhash(swapped) == textsim.simhash(CHINESE)
    assert 16 <= distance(textsim.simhash(CHINESE), textsim.simhash(JAPANESE)) <= 48


def test_too_little_content_says_how_much_is_needed() -> None:
    with pytest.raises(TooLittleContent, match=r"too little text to compare \(7 words; at least"):
        textsim.simhash("just seven words in this short line")
    with pytest.raises(FileProblem):
        textsim.simhash("")


def test_fingerprint_is_an_unsigned_64_bit_int() -> None:
    value = textsim.simhash(MIXED)
    assert isinstance(value, int)
    assert 0 <= value <= MASK


def test_same_value_in_a_fresh_interpreter_with_another_hash_seed() -> None:
    code = "from dupfinder.core.text.simhash import simhash; import sys; print(simhash(sys.stdin.read()))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=JAPANESE,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PYTHONIOENCODING": "utf-8", "PATH": ""},
    )
    assert int(out.stdout) == textsim.simhash(JAPANESE)


GOLDEN = {
    "english": (ENGLISH, 0x63B0E9710C637E99),
    "chinese": (CHINESE, 0x7FD790D1DAB11565),
    "japanese": (JAPANESE, 0xB0DEA403EB7B8175),
    "mixed": (MIXED, 0xE286B6A88DB3DEBB),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_fingerprints_never_drift(name: str) -> None:
    """A change here breaks every cache: bump ALGORITHM_VERSION and update the values."""
    text, expected = GOLDEN[name]
    assert f"{textsim.simhash(text):016x}" == f"{expected:016x}"
    assert textsim.ALGORITHM_VERSION == "textsim-1"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_arbitrary_unicode_never_crashes(text: str) -> None:
    normalized = textsim.normalize(text)
    assert "  " not in normalized
    toks = textsim.tokens(text)
    hashes, weights = textsim.features(text)
    assert hashes.size == weights.size <= max(1, len(toks))
    try:
        value = textsim.simhash(text)
    except TooLittleContent:
        assert len(toks) < textsim.MIN_TOKENS
    else:
        assert 0 <= value <= MASK
