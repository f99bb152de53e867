"""Selecting a member shows it against its group's representative."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from gui_helpers import (
    EDITED_FROM,
    EDITED_TO,
    picture,
    scan_folder,
    write_image_corpus,
    write_text_corpus,
)
from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QTextBrowser
from pytestqt.qtbot import QtBot

from dupfinder.core.model import Kind
from dupfinder.gui.image_preview import ImagePreview, difference_map, load_preview_image
from dupfinder.gui.main_window import MainWindow
from dupfinder.gui.results_model import MEMBER_ROLE
from dupfinder.gui.text_preview import TextPreview


def find_member(window: MainWindow, path: Path) -> QModelIndex:
    index = window.model.index_of_path(str(path))
    assert index.isValid(), path
    return index


def highlighted(html: str, color: str) -> str:
    marker = f'background-color:{color};">'
    return "".join(part.split("<", 1)[0] for part in html.split(marker)[1:])


def test_selecting_a_text_member_shows_the_word_diff(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    files = write_text_corpus(tmp_path / "docs")
    scan_folder(qtbot, window, tmp_path / "docs")
    index = find_member(window, files["edited"])
    group = window.model.group_at(index)
    assert group is not None
    assert group.kind is Kind.TEXT
    other = (
        files["original"]
        if group.representative.path != str(files["original"])
        else files["edited"]
    )
    target = find_member(window, other)
    window.view.setCurrentIndex(QModelIndex())  # the scan selected a pair already: start over
    assert window.preview.currentWidget() is window.preview_hint
    with qtbot.waitSignal(window.text_preview.rendered, timeout=10_000):
        window.view.setCurrentIndex(target)
    assert window.preview.currentWidget() is window.text_preview
    diff = window.text_preview.last_diff
    assert diff is not None
    assert not diff.identical
    left_words = [s.text for r in diff.rows for s in (r.left or ()) if s.changed]
    right_words = [s.text for r in diff.rows for s in (r.right or ()) if s.changed]
    assert {*left_words, *right_words} == {EDITED_FROM, EDITED_TO}
    assert window.text_preview.left.title.toolTip() == group.representative.path
    assert window.text_preview.right.title.toolTip() == str(other)
    assert other.name in window.text_preview.right.title.text()
    # The panes show it: one block per row, the selected file's word on the right.
    right_html = window.text_preview.right.view.toHtml()
    assert window.text_preview.left.view.document().blockCount() == len(diff.rows)
    assert window.text_preview.right.view.document().blockCount() == len(diff.rows)
    assert str(other).endswith("edited.txt") == (EDITED_TO in right_html)
    assert "changed line" in window.text_preview.summary.text()


def test_chinese_pair_and_ignore_toggles(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    files = write_text_corpus(tmp_path / "docs")
    preview = window.text_preview
    with qtbot.waitSignal(preview.rendered, timeout=10_000):
        preview.show_pair(str(files["chinese"]), str(files["chinese_copy"]))
    diff = preview.last_diff
    assert diff is not None
    assert [s.text for r in diff.rows for s in (r.left or ()) if s.changed] == ["红"]
    assert [s.text for r in diff.rows for s in (r.right or ()) if s.changed] == ["黑"]
    # Ignore case on a case-only difference: same text.
    upper = tmp_path / "upper.txt"
    upper.write_text(files["original"].read_text(encoding="utf-8").upper(), encoding="utf-8")
    with qtbot.waitSignal(preview.rendered, timeout=10_000):
        preview.show_pair(str(files["original"]), str(upper))
    assert preview.last_diff is not None
    assert not preview.last_diff.identical
    with qtbot.waitSignal(preview.rendered, timeout=10_000):
        preview.ignore_case.setChecked(True)
    assert preview.last_diff.identical
    assert "Same text" in preview.summary.text()


def test_scrolling_one_text_pane_scrolls_the_other(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    left = tmp_path / "left.txt"
    right = tmp_path / "right.txt"
    lines = [f"line {i} of a long document" for i in range(400)]
    left.write_text("\n".join(lines), encoding="utf-8")
    right.write_text("\n".join([*lines[:200], "an inserted line", *lines[200:]]), encoding="utf-8")
    window.resize(1280, 800)
    window.show()
    preview = window.text_preview
    window.preview.setCurrentWidget(preview)
    with qtbot.waitSignal(preview.rendered, timeout=10_000):
        preview.show_pair(str(left), str(right))
    left_bar = preview.left.view.verticalScrollBar()
    right_bar = preview.right.view.verticalScrollBar()
    assert left_bar.maximum() > 0
    left_bar.setValue(left_bar.maximum() // 2)
    assert right_bar.value() > 0
    assert abs(_top_row(preview.left.view) - _top_row(preview.right.view)) <= 1


def test_an_unreadable_file_is_reported_not_raised(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    files = write_text_corpus(tmp_path / "docs")
    preview = window.text_preview
    with qtbot.waitSignal(preview.rendered, timeout=10_000):
        preview.show_pair(str(files["original"]), str(tmp_path / "gone.txt"))
    assert "Cannot read" in preview.summary.text()


def test_selecting_an_image_member_shows_both_at_one_scale(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    files = write_image_corpus(tmp_path / "pictures")
    scan_folder(qtbot, window, tmp_path / "pictures")
    index = find_member(window, files["small"])
    member = index.data(MEMBER_ROLE)
    group = window.model.group_at(index)
    assert group is not None
    assert group.kind is Kind.IMAGE
    target = (
        index if member.path != group.representative.path else find_member(window, files["marked"])
    )
    window.resize(1280, 800)
    window.show()
    window.view.setCurrentIndex(QModelIndex())
    with qtbot.waitSignal(window.image_preview.rendered, timeout=10_000):
        window.view.setCurrentIndex(target)
    preview = window.image_preview
    assert window.preview.currentWidget() is preview
    captions = preview.left.caption.text() + preview.right.caption.text()
    assert "640 × 400" in captions
    assert "PNG" in captions
    assert preview.left.view.transform().m11() == preview.right.view.transform().m11()
    preview.zoom.setCurrentIndex(preview.zoom.findText("100%"))
    assert preview.scale() == 1.0
    preview.show_difference.setChecked(True)
    assert preview.right.role.text().startswith("Differences")
    assert "Mean difference" in preview.summary.text()


def test_difference_map_and_preview_loading(tmp_path: Path) -> None:
    base = picture(200, 120)
    marked = base.copy()
    marked.paste((255, 0, 0), (10, 10, 40, 40))
    overlay, mean = difference_map(base, marked)
    assert overlay.size == base.size
    assert 0 < mean < 0.2
    red = overlay.getpixel((20, 20))
    assert isinstance(red, tuple)
    assert red[0] > 200  # red where they differ
    _, same = difference_map(base, base)
    assert same == 0
    path = tmp_path / "p.jpg"
    picture(4000, 100).save(path)
    loaded = load_preview_image(str(path), side=1000)
    assert (loaded.width, loaded.height) == (4000, 100)  # the original size for captions
    assert loaded.image is not None
    assert max(loaded.image.size) <= 1000
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    assert load_preview_image(str(broken)).problem


def _top_row(view: QTextBrowser) -> int:
    """The row at the top of ``view``, by the rows' rectangles (laid out as they are asked
    for; a half-laid-out text answers ``cursorForPosition`` with a row far away)."""
    value = view.verticalScrollBar().value()
    layout = view.document().documentLayout()
    block = view.document().firstBlock()
    while block.next().isValid() and layout.blockBoundingRect(block).bottom() <= value:
        block = block.next()
    return block.blockNumber()


def _long_text(paragraphs: int) -> str:
    from gui_helpers import essay

    return "\n".join(essay(seed, 60) for seed in range(paragraphs))


P = TypeVar("P", TextPreview, ImagePreview)


def _on_screen(qtbot: QtBot, preview: P, height: int, left: Path, right: Path) -> P:
    """``preview`` 900 pixels wide on screen, once it has drawn ``left`` against ``right``."""
    qtbot.addWidget(preview)
    preview.resize(900, height)
    preview.show()
    with qtbot.waitSignal(preview.rendered, timeout=10_000):
        preview.show_pair(str(left), str(right))
    return preview


def _shown_preview(qtbot: QtBot, left: Path, right: Path) -> TextPreview:
    """A text preview on screen, showing ``left`` against ``right``."""
    return _on_screen(qtbot, TextPreview(), 300, left, right)


def test_panes_stay_in_step_after_toggling_ignore_case_twice(qtbot: QtBot, tmp_path: Path) -> None:
    left, right = tmp_path / "a.txt", tmp_path / "b.txt"
    text = _long_text(400)
    left.write_text(text, encoding="utf-8")
    right.write_text(text.replace("Kitchen", "KITCHEN").replace("river", "lake", 3), "utf-8")
    preview = _shown_preview(qtbot, left, right)
    bar = preview.right.view.verticalScrollBar()
    bar.setValue(bar.maximum() * 2 // 3)  # the user reads far down the right pane
    assert _top_row(preview.left.view) == _top_row(preview.right.view)
    for _ in range(2):
        with qtbot.waitSignal(preview.rendered, timeout=10_000):
            preview.ignore_case.toggle()
        qtbot.wait(50)
        assert _top_row(preview.left.view) == _top_row(preview.right.view)
    preview.stop()


def test_identical_texts_open_at_the_top_of_both_panes(qtbot: QtBot, tmp_path: Path) -> None:
    """After reading far down one pair, a pair with no change opens both panes at the top."""
    text = _long_text(300)
    changed, same_a, same_b = tmp_path / "changed.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    for path in (same_a, same_b):
        path.write_text(text, encoding="utf-8")
    changed.write_text(text.replace("river", "lake"), encoding="utf-8")
    preview = _shown_preview(qtbot, same_a, changed)
    preview.right.view.verticalScrollBar().setValue(5000)
    with qtbot.waitSignal(preview.rendered, timeout=10_000):
        preview.show_pair(str(same_a), str(same_b))
    assert preview.last_diff is not None
    assert preview.last_diff.identical
    bars = (preview.left.view.verticalScrollBar(), preview.right.view.verticalScrollBar())
    assert [bar.value() for bar in bars] == [0, 0]
    qtbot.wait(100)  # the layout finishes; still at the top
    assert [bar.value() for bar in bars] == [0, 0]
    preview.stop()


def test_a_long_text_opens_at_its_first_change(qtbot: QtBot, tmp_path: Path) -> None:
    """The first changed row is in view when the pair appears, near the top of both panes,
    even when the previous pair was read far down and the text is still being laid out."""
    text = _long_text(300)
    rows = text.split("\n")
    left, right, other = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"
    left.write_text(text, encoding="utf-8")
    right.write_text("\n".join([*rows[:9], "A line only the copy has.", *rows[9:]]), "utf-8")
    other.write_text(text.replace("river", "lake"), encoding="utf-8")
    preview = _shown_preview(qtbot, left, other)
    preview.right.view.verticalScrollBar().setValue(5000)
    with qtbot.waitSignal(preview.rendered, timeout=10_000):
        preview.show_pair(str(left), str(right))
    for _ in range(3):
        assert 5 <= _top_row(preview.left.view) <= 9  # row 9 is the first change
        assert _top_row(preview.left.view) == _top_row(preview.right.view)
        qtbot.wait(100)  # the layout goes on; the rows stay
    preview.stop()


def test_a_small_icon_is_enlarged_to_fit_at_one_scale(qtbot: QtBot, tmp_path: Path) -> None:
    """A 48-pixel icon fills its pane by a whole factor, both sides alike, pixels kept sharp."""
    from PySide6.QtCore import Qt

    from dupfinder.gui.image_preview import fit_scale_shown

    icon = picture(48, 48)
    icon.save(tmp_path / "icon.png")
    icon.save(tmp_path / "icon copy.png")
    preview = _shown_pair(qtbot, tmp_path / "icon.png", tmp_path / "icon copy.png")
    scale = preview.scale()
    assert scale >= 4  # a pane of about 450 by 450 pixels
    assert scale == int(scale)
    assert preview.right.view.transform().m11() == scale
    shown_at = f"48 × 48 px, shown at {scale * 100:.0f} %"
    assert shown_at in preview.left.caption.text()
    assert shown_at in preview.right.caption.text()
    item = preview.left.view._item
    assert item is not None
    assert item.transformationMode() == Qt.TransformationMode.FastTransformation
    preview.zoom.setCurrentIndex(preview.zoom.findText("100%"))  # the real size, and says so
    assert "shown at 100 %" in preview.left.caption.text()
    assert item.transformationMode() == Qt.TransformationMode.SmoothTransformation
    preview.stop()
    assert fit_scale_shown(0.4) == 0.4  # large pictures are reduced to fit
    assert fit_scale_shown(1.7) == 1.0  # no uneven pixels
    assert fit_scale_shown(9.4) == 9.0
    assert fit_scale_shown(300.0) == 16.0


def test_a_transparent_icon_and_its_copy_on_white_do_not_differ() -> None:
    """Transparent parts count as the white page a JPEG copy was flattened onto."""
    from PIL import Image, ImageDraw

    icon = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    ImageDraw.Draw(icon).ellipse((8, 8, 56, 56), fill=(200, 60, 30, 255))
    on_white = Image.new("RGB", icon.size, (255, 255, 255))
    on_white.paste(icon, mask=icon.getchannel("A"))
    _, mean = difference_map(icon, on_white.convert("RGBA"))
    assert mean < 0.01


def test_fit_each_shows_a_small_copy_as_large_as_its_original(qtbot: QtBot, tmp_path: Path) -> None:
    """Fit keeps one scale (sizes compare); Fit each fills both panes (content compares)."""
    big = picture(256, 256)
    big.save(tmp_path / "icon-256.png")
    big.resize((48, 48)).save(tmp_path / "icon-48.png")
    preview = _shown_pair(qtbot, tmp_path / "icon-256.png", tmp_path / "icon-48.png")
    left, right = preview.left.view, preview.right.view
    assert left.transform().m11() == right.transform().m11()  # Fit: one scale
    preview.zoom.setCurrentIndex(preview.zoom.findText("Fit each"))
    assert right.transform().m11() >= 4 * left.transform().m11()
    assert right.transform().m11() == int(right.transform().m11())  # whole, sharp pixels
    percent = f"{right.transform().m11() * 100:.0f}"
    assert f"48 × 48 px, shown at {percent} %" in preview.right.caption.text()
    preview.stop()


def _shown_pair(qtbot: QtBot, left: Path, right: Path) -> ImagePreview:
    """An image preview on screen, showing ``left`` against ``right``."""
    return _on_screen(qtbot, ImagePreview(), 500, left, right)


def test_a_white_icon_on_transparency_shows_over_a_checkerboard(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from PIL import Image

    icon = Image.new("RGBA", (64, 64), (255, 255, 255, 0))
    icon.paste((255, 255, 255, 255), (16, 16, 48, 48))
    left, right = tmp_path / "white.png", tmp_path / "white copy.png"
    icon.save(left)
    icon.save(right)
    preview = _shown_pair(qtbot, left, right)
    loaded = preview._loaded
    assert loaded is not None
    assert loaded.left_image is not None
    corner = loaded.left_image.pixelColor(1, 1)  # transparent: the checkerboard, not white
    assert corner.lightness() < 200
    middle = loaded.left_image.pixelColor(32, 32)  # the icon itself stays white
    assert middle.lightness() == 255
    preview.stop()


def test_a_new_selection_never_shows_the_previous_pair_while_it_loads(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from PIL import Image

    paths = []
    for name, colour in (("a", "red"), ("b", "red"), ("c", "blue"), ("d", "blue")):
        path = tmp_path / f"{name}.png"
        Image.new("RGB", (80, 60), colour).save(path)
        paths.append(path)
    preview = _shown_pair(qtbot, paths[0], paths[1])
    assert preview.left.view._item is not None
    preview.show_pair(str(paths[2]), str(paths[3]))  # not decoded yet
    assert preview.left.view._item is None
    assert preview.right.view._item is None
    assert preview.left.caption.text() == ""
    with qtbot.waitSignal(preview.rendered, timeout=10_000):
        pass
    assert preview.left.view._item is not None
    preview.stop()


def test_captions_wrap_in_a_narrow_pane_instead_of_being_cut(qtbot: QtBot, tmp_path: Path) -> None:
    from PIL import Image

    left, right = tmp_path / "a long name of a wallpaper.png", tmp_path / "b.png"
    Image.new("RGB", (1920, 1080), "navy").save(left)
    Image.new("RGB", (960, 540), "navy").save(right)
    preview = _shown_pair(qtbot, left, right)
    caption = preview.left.caption
    assert caption.text()
    assert caption.wordWrap()
    line = caption.fontMetrics().height()
    assert caption.heightForWidth(60) > line  # wraps to more lines where it does not fit
    preview.stop()
