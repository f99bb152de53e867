"""Files like this one, in the app without Qt: the search's list, its words, acting on it
through the one action path, and the way back to the scan's list."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from fake_view import FakeView, enabled, make_app, member
from PIL import Image

from dupfinder.app.controller import App
from dupfinder.app.jobs import JobKind
from dupfinder.app.similar import (
    SearchScope,
    SimilarQuery,
    SimilarStatus,
    banner_text,
    empty_hint,
    similar_job,
)
from dupfinder.core.actions import Action, ActionKind
from dupfinder.core.model import (
    FINGERPRINTED_KINDS,
    Fingerprint,
    Kind,
    Member,
    Progress,
    ProgressCallback,
    ScanOptions,
)
from dupfinder.core.results.decisions import DecisionStore
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.scan.similar import SimilarResult

WORDS = (
    "river bridge garden window morning evening kitchen market letter station winter summer "
    "harbour village mountain forest valley meadow orchard library teacher doctor painter"
).split()


def essay(seed: int, words: int = 400) -> list[str]:
    return [WORDS[(seed * 7 + i * i + i // 5) % len(WORDS)] + str(i % 17) for i in range(words)]


def edited(words: list[str], every: int) -> str:
    """``words`` with one word in ``every`` changed."""
    return " ".join("changed" if i % every == 3 else w for i, w in enumerate(words))


@pytest.fixture
def docs(tmp_path: Path) -> dict[str, Path]:
    """A report, a close copy and a looser draft of it; an unrelated pair."""
    folder = tmp_path / "docs"
    folder.mkdir()
    report = essay(1)
    files = {
        "report": folder / "report.txt",
        "copy": folder / "report-copy.txt",
        "draft": folder / "report-draft.txt",
        "other": folder / "other.txt",
        "other_copy": folder / "other-copy.txt",
    }
    files["report"].write_text(" ".join(report), encoding="utf-8")
    files["copy"].write_text(edited(report, 97), encoding="utf-8")
    files["draft"].write_text(edited(report, 31), encoding="utf-8")
    files["other"].write_text(" ".join(essay(5)), encoding="utf-8")
    files["other_copy"].write_text(edited(essay(5), 89), encoding="utf-8")
    return files


def options(tmp_path: Path, *roots: Path) -> ScanOptions:
    return ScanOptions(roots=roots, jobs=1, cache_dir=tmp_path / "cache")


def scanned_then_like(tmp_path: Path, docs: dict[str, Path], name: str) -> tuple[App, FakeView]:
    """An app that scanned the documents, then looked for files like ``docs[name]``."""
    app, view = make_app(tmp_path)
    folder = docs["report"].parent
    app.scan(options(tmp_path, folder), ())
    app.find_similar(str(docs[name]), [str(folder)], options(tmp_path))
    return app, view


def test_files_like_one_replace_the_list_and_back_restores_the_scan(
    tmp_path: Path, docs: dict[str, Path]
) -> None:
    app, view = make_app(tmp_path)
    folder = docs["report"].parent
    assert app.scan(options(tmp_path, folder), ())
    assert app.totals()[0] == 2
    app.toggle([str(docs["other_copy"])])
    app.set_filter("other")
    assert len(app.listing.order) == 1
    assert enabled(app).find_similar
    assert not enabled(app).back

    assert app.find_similar(str(docs["report"]), [str(folder)], options(tmp_path))
    mode = app.similar
    assert mode is not None
    assert mode.query.scope is SearchScope.FOLDERS
    (group,) = app.listing.groups
    assert len(app.listing.order) == 1  # the scan's filter does not hide the search's group
    names = [Path(m.path).name for m in group.members]
    assert names == ["report.txt", "report-copy.txt", "report-draft.txt"]  # best first
    assert app.keeper(0).path == str(docs["report"])  # the query file is kept
    similarities = [m.similarity for m in group.members]
    assert similarities == sorted(similarities, reverse=True)
    assert "2 files like report.txt in " + str(folder) in view.message
    assert not app.marks.paths()
    banner = banner_text(mode, app.totals()[1])
    assert banner == f"Documents like report.txt: 2 found · in {folder}"
    assert enabled(app).back
    assert view.told == []

    app.leave_similar()
    assert app.similar is None
    assert app.totals()[0] == 2
    assert app.marks.paths() == {str(docs["other_copy"])}  # the scan's marks come back
    assert app.listing.terms == ("other",)  # and its filter
    assert view.message == "Back to the scan results."
    assert not enabled(app).back


def test_marked_matches_go_through_the_plan_and_undo_and_stay_gone_from_the_scan(
    tmp_path: Path, docs: dict[str, Path]
) -> None:
    app, view = scanned_then_like(tmp_path, docs, "report")
    app.mark_all()
    assert app.marks.paths() == {str(docs["copy"]), str(docs["draft"])}
    assert app.act(Action(ActionKind.TRASH))
    (review,) = view.reviews  # the same confirmation as for a scan's groups
    assert {Path(f.path).name for f in review.plan.files} == {"report-copy.txt", "report-draft.txt"}
    assert not docs["copy"].exists()
    assert not docs["draft"].exists()
    assert app.similar is not None
    assert app.totals()[0] == 0  # every match is gone; the search's list stays
    assert banner_text(app.similar, 0).startswith("Documents like report.txt: none left in the")
    assert empty_hint(app.similar) == "No file like report.txt is left in this list."

    app.undo()
    assert docs["copy"].exists()
    assert docs["draft"].exists()
    assert app.totals()[1] == 3  # the list shows them again
    app.mark_none()
    app.toggle([str(docs["draft"])])
    assert app.act(Action(ActionKind.TRASH))
    app.leave_similar()
    scanned = {m.path for g in app.listing.groups for m in g.members}
    assert str(docs["draft"]) not in scanned  # trashed while searching: not in the scan's list
    assert str(docs["copy"]) in scanned


def test_a_search_before_any_scan_goes_back_to_an_empty_list(
    tmp_path: Path, docs: dict[str, Path]
) -> None:
    app, _view = make_app(tmp_path)
    app.find_similar(str(docs["other"]), [str(docs["other"].parent)], options(tmp_path))
    assert app.similar is not None
    assert app.totals()[1] == 2
    app.leave_similar()
    assert not app.has_result
    assert app.totals() == (0, 0, 0)


def test_a_search_from_a_search_still_goes_back_to_the_scan(
    tmp_path: Path, docs: dict[str, Path]
) -> None:
    app, _view = scanned_then_like(tmp_path, docs, "report")
    folder = docs["report"].parent
    app.find_similar(str(docs["other"]), [str(folder)], options(tmp_path))
    assert app.similar is not None
    assert app.similar.query.name == "other.txt"
    app.leave_similar()
    assert app.similar is None
    assert app.totals()[0] == 2


def test_a_scan_ends_the_search_and_keeps_group_numbers(
    tmp_path: Path, docs: dict[str, Path]
) -> None:
    app, _view = make_app(tmp_path)
    folder = docs["report"].parent
    app.scan(options(tmp_path, folder), ())
    numbers = sorted(app.listing.prepared.numbers)
    app.find_similar(str(docs["other"]), [str(folder)], options(tmp_path))
    assert app.listing.prepared.numbers == (1,)
    app.scan(options(tmp_path, folder), ())
    assert app.similar is None
    assert sorted(app.listing.prepared.numbers) == numbers


def test_without_folders_the_last_scan_is_searched_and_said(
    tmp_path: Path, docs: dict[str, Path]
) -> None:
    app, view = make_app(tmp_path)
    folder = docs["report"].parent
    app.find_similar(str(docs["report"]), [], options(tmp_path))
    assert app.similar is None
    assert view.told[-1][0] == "Nowhere to search"
    assert "scan once with the cache on" in view.told[-1][1]
    scan.run(options(tmp_path, folder))  # remembered in the cache folder
    app.find_similar(str(docs["report"]), [], options(tmp_path))
    assert app.similar is not None
    assert app.similar.query.scope is SearchScope.LAST_SCAN
    assert "(the last scan’s folders)" in view.message


def test_nothing_similar_unsupported_and_unreadable_files_are_told(
    tmp_path: Path, docs: dict[str, Path]
) -> None:
    app, view = make_app(tmp_path)
    folder = docs["report"].parent
    alone = tmp_path / "alone.txt"
    alone.write_text(" ".join(essay(11)), encoding="utf-8")
    archive = tmp_path / "bundle.zip"
    archive.write_bytes(b"PK\x05\x06" + bytes(18))
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("three short words", encoding="utf-8")
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    expected = {
        alone: ("Nothing similar found", "No file like alone.txt in " + str(folder)),
        archive: ("Not a kind dupfinder compares", "bundle.zip is not a document, a picture"),
        tiny: ("Cannot compare this file", "tiny.txt cannot be compared: too little text"),
        broken: ("Cannot compare this file", "broken.png cannot be compared: not an image"),
    }
    for path, (title, start) in expected.items():
        app.find_similar(str(path), [str(folder)], options(tmp_path))
        assert app.similar is None, path
        assert view.told[-1][0] == title
        assert view.told[-1][1].startswith(start), view.told[-1][1]
        assert not app.busy()
    assert not app.has_result


def test_the_search_can_be_cancelled(tmp_path: Path, docs: dict[str, Path]) -> None:
    def search(
        target: str,
        folders: Sequence[str],
        wanted: ScanOptions,
        progress: ProgressCallback,
        cancel: threading.Event,
    ) -> SimilarResult:
        assert wanted.kinds == FINGERPRINTED_KINDS  # whatever the scan compares
        cancel.set()  # the user pressed Cancel while it ran
        return SimilarResult(target, None, tuple(folders), (), ())

    query = SimilarQuery(str(docs["report"]), (str(tmp_path),))
    scan_options = ScanOptions(roots=(), kinds=frozenset({Kind.IMAGE}))
    job = similar_job(query, scan_options, (), DecisionStore(tmp_path / "d.json"), search=search)
    found = job(lambda _sample: None, threading.Event())
    assert found.outcome is SimilarStatus.CANCELLED


def test_the_app_runs_it_as_a_similar_job_with_progress(
    tmp_path: Path, docs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, view = make_app(tmp_path)
    kinds: list[JobKind | None] = []
    original = app.view.show_progress

    def progress(text: str, sample: Progress) -> None:
        kinds.append(app.job)
        original(text, sample)

    monkeypatch.setattr(app.view, "show_progress", progress)
    app.find_similar(str(docs["report"]), [str(docs["report"].parent)], options(tmp_path))
    assert kinds
    assert set(kinds) == {JobKind.SIMILAR}
    assert "Looking for similar files…" in view.messages


def test_only_documents_and_pictures_can_be_searched_for(tmp_path: Path) -> None:
    app, _view = make_app(tmp_path)
    text = member("/a.txt", 1)
    other = Member("/a.bin", 10, 0, 0, Fingerprint(Kind.OTHER, 7))
    assert enabled(app, 0, text).similar
    assert not enabled(app, 0, other).similar
    assert not enabled(app).similar  # no current file


def test_pictures_like_a_picture(tmp_path: Path) -> None:
    folder = tmp_path / "pictures"
    folder.mkdir()
    base = Image.linear_gradient("L").resize((320, 240)).convert("RGB")
    base.save(folder / "sky.png")
    base.resize((160, 120)).save(folder / "sky-small.jpg", quality=90)
    app, view = make_app(tmp_path)
    app.find_similar(str(folder / "sky.png"), [str(folder)], options(tmp_path))
    assert app.similar is not None
    assert banner_text(app.similar, app.totals()[1]).startswith("Pictures like sky.png: 1 found")
    assert app.listing.groups[0].kind is Kind.IMAGE
    assert view.told == []
