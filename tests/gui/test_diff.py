"""The text diff behind the preview, tested headless (no Qt)."""

from __future__ import annotations

import re

import pytest

from dupfinder.gui.diff import DiffColors, DiffOptions, Row, diff_texts, side_html, tokenize


def changed(rows: tuple[Row, ...], side: str) -> list[str]:
    """Every highlighted run of text on one side, in order."""
    out = []
    for row in rows:
        for segment in (row.left if side == "left" else row.right) or ():
            if segment.changed:
                out.append(segment.text)
    return out


def joined(rows: tuple[Row, ...], side: str) -> list[str | None]:
    result = []
    for row in rows:
        segments = row.left if side == "left" else row.right
        result.append(None if segments is None else "".join(s.text for s in segments))
    return result


def test_tokens_join_back_to_the_text() -> None:
    text = "It's 2024 — naïve café, 中文测试 and かな\ttabs  spaces\n"
    assert "".join(tokenize(text)) == text
    assert "It's" in tokenize(text)
    assert {"中", "文", "測", "试"} & set(tokenize(text)) == {"中", "文", "试"}


def test_word_level_highlight_marks_only_the_changed_word() -> None:
    diff = diff_texts(
        "The quick brown fox jumps.\nSame line.", "The quick red fox jumps.\nSame line."
    )
    assert changed(diff.rows, "left") == ["brown"]
    assert changed(diff.rows, "right") == ["red"]
    assert [row.tag for row in diff.rows] == ["replace", "equal"]
    assert (diff.removed_words, diff.added_words) == (1, 1)
    assert not diff.identical


def test_identical_texts_have_no_highlight() -> None:
    diff = diff_texts("one\ntwo\n", "one\ntwo\n")
    assert diff.identical
    assert all(row.tag == "equal" for row in diff.rows)
    assert diff.changed_rows == 0


def test_inserted_and_deleted_lines_get_a_filler_on_the_other_side() -> None:
    diff = diff_texts("a\nb\nc", "a\nc\nd")
    assert joined(diff.rows, "left") == ["a", "b", "c", None]
    assert joined(diff.rows, "right") == ["a", None, "c", "d"]
    assert changed(diff.rows, "left") == ["b"]
    assert changed(diff.rows, "right") == ["d"]


def test_chinese_is_compared_character_by_character() -> None:
    diff = diff_texts("我们今天去公园散步。", "我们明天去公园散步。")
    assert changed(diff.rows, "left") == ["今"]
    assert changed(diff.rows, "right") == ["明"]


def test_japanese_kana_and_kanji_are_single_tokens() -> None:
    diff = diff_texts("朝の散歩はとても気持ちがいい。", "朝の散歩はとても気分がいい。")
    assert changed(diff.rows, "left") == ["持ち"]
    assert changed(diff.rows, "right") == ["分"]


@pytest.mark.parametrize("ignore", [False, True])
def test_ignore_whitespace(ignore: bool) -> None:
    diff = diff_texts(
        "alpha  beta\tgamma", "alpha beta gamma", DiffOptions(ignore_whitespace=ignore)
    )
    if ignore:
        assert diff.identical
        assert [row.tag for row in diff.rows] == ["equal"]
    else:
        assert [row.tag for row in diff.rows] == ["replace"]
        assert changed(diff.rows, "left") == []  # spacing only: the line is marked, no word is


@pytest.mark.parametrize("ignore", [False, True])
def test_ignore_case(ignore: bool) -> None:
    diff = diff_texts("Hello World", "hello world", DiffOptions(ignore_case=ignore))
    assert diff.identical is ignore
    if not ignore:
        assert changed(diff.rows, "left") == ["Hello", "World"]
        assert changed(diff.rows, "right") == ["hello", "world"]


def test_rewrapped_text_highlights_only_real_changes() -> None:
    # A PDF extraction wraps lines; the DOCX of the same document has one line per paragraph.
    pdf = "The committee approved the budget\nfor the new library roof\nin March."
    docx = "The committee approved the budget for the new chapel roof in March."
    diff = diff_texts(pdf, docx)
    assert changed(diff.rows, "left") == ["library"]
    assert changed(diff.rows, "right") == ["chapel"]
    assert len(diff.rows) == 3  # the three PDF lines face the one DOCX paragraph and two fillers


def test_case_and_whitespace_together_on_extracted_text() -> None:
    diff = diff_texts(
        "ANNUAL  Report\nline two", "Annual report\nline two", DiffOptions(True, True)
    )
    assert diff.identical


def test_long_texts_are_cut_and_say_so() -> None:
    diff = diff_texts("word " * 1000, "word " * 1000, limit=100)
    assert diff.truncated
    assert diff_texts("a", "a").truncated is False


def test_html_has_one_paragraph_per_row_on_both_sides() -> None:
    diff = diff_texts("a\n<b>&\nc", "a\nc\nd")
    colors = DiffColors.for_theme(dark=False)
    left = side_html(diff, "left", colors)
    right = side_html(diff, "right", colors)
    assert left.count("<p ") == right.count("<p ") == len(diff.rows)
    assert "&lt;b&gt;&amp;" in left  # text is escaped, never interpreted as markup
    assert re.search(rf"background-color:{colors.removed};\">&lt;b&gt;&amp;", left)
    assert f'background-color:{colors.added};">d<' in right


def test_side_must_be_left_or_right() -> None:
    with pytest.raises(ValueError, match="side"):
        side_html(diff_texts("a", "b"), "middle", DiffColors.for_theme(dark=True))


def test_rewrapping_is_no_change_when_whitespace_is_ignored() -> None:
    pdf = "The committee approved the budget\nfor the new library roof\nin March."
    docx = "The committee approved the budget for the new library roof in March."
    loose = diff_texts(pdf, docx, DiffOptions(ignore_whitespace=True))
    assert loose.identical
    assert loose.changed_rows == 0
    strict = diff_texts(pdf, docx)
    assert strict.identical  # no word differs...
    assert strict.changed_rows == 3  # ...but the lines are wrapped differently
