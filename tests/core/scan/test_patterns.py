"""Include and exclude patterns read as .gitignore reads them, relative to the scanned folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dupfinder.core.model import Kind, ScanOptions
from dupfinder.core.scan.patterns import PathPatterns
from dupfinder.core.scan.walk import walk

ROOT = os.path.abspath("/data/project")


def _selected(patterns: list[str], relative: str, is_dir: bool = False) -> bool:
    return PathPatterns(patterns, [ROOT]).matches(os.path.join(ROOT, relative), is_dir)


@pytest.mark.parametrize(
    ("pattern", "relative", "is_dir", "expected"),
    [
        # no slash: a name at any depth, file or folder
        ("*.tmp", "a.tmp", False, True),
        ("*.tmp", "deep/er/a.tmp", False, True),
        ("node_modules", "web/node_modules", True, True),
        ("node_modules", "web/node_modules/x.js", False, True),
        # a slash in the middle or at the end of ** anchors to the scanned folder
        ("node_modules/**", "node_modules", True, True),
        ("node_modules/**", "node_modules/lib/x.js", False, True),
        ("node_modules/**", "web/node_modules/x.js", False, False),
        ("**/node_modules/**", "web/node_modules/x.js", False, True),
        ("/notes.txt", "notes.txt", False, True),
        ("/notes.txt", "sub/notes.txt", False, False),
        ("docs/**/draft-*", "docs/a/b/draft-1.md", False, True),
        # a trailing slash: folders only, with what they hold
        ("cache/", "cache", True, True),
        ("cache/", "cache", False, False),
        ("cache/", "x/cache/y.jpg", False, True),
        # * stops at a slash
        ("*/thumbnails/*", "a/thumbnails/x.jpg", False, True),
        ("*/thumbnails/*", "a/b/thumbnails/x.jpg", False, False),
        # case matters, as in git
        ("*.JPG", "a.jpg", False, False),
    ],
)
def test_patterns_read_like_gitignore(
    pattern: str, relative: str, is_dir: bool, expected: bool
) -> None:
    assert _selected([pattern], relative, is_dir) is expected


def test_the_last_matching_pattern_wins() -> None:
    patterns = ["*.md", "!keep.md"]
    assert _selected(patterns, "a.md")
    assert not _selected(patterns, "x/keep.md")


def test_paths_are_measured_from_the_deepest_root_holding_them() -> None:
    patterns = PathPatterns(["/b/**"], ["/r", "/r/a"])
    assert patterns.relative("/r/a/b/c.txt") == "b/c.txt"
    assert patterns.matches("/r/a/b/c.txt")
    assert not patterns.matches("/r/b2/c.txt")
    # a root that is a file is its own name; a path under no root is its name alone
    assert PathPatterns([], ["/r/one.txt"]).relative("/r/one.txt") == "one.txt"
    assert PathPatterns([], ["/r"]).relative("/elsewhere/x.txt") == "x.txt"


def _tree(root: Path) -> None:
    for relative in (
        "node_modules/lib/readme.md",
        "web/node_modules/lib/readme.md",
        "src/readme.md",
        "src/draft.tmp.md",
        "build/out.md",
    ):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("some words in a file\n")


def _walked(root: Path, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> set[str]:
    options = ScanOptions(
        roots=(root,), kinds=frozenset({Kind.TEXT}), include=include, exclude=exclude
    )
    return {Path(e.path).relative_to(root).as_posix() for e in walk(options)}


def test_walk_excludes_like_gitignore(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert _walked(tmp_path, exclude=("node_modules/**",)) == {
        "web/node_modules/lib/readme.md",
        "src/readme.md",
        "src/draft.tmp.md",
        "build/out.md",
    }
    assert _walked(tmp_path, exclude=("node_modules/", "build/", "*.tmp.md")) == {"src/readme.md"}


def test_walk_includes_like_gitignore(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert _walked(tmp_path, include=("src/",)) == {"src/readme.md", "src/draft.tmp.md"}
    assert _walked(tmp_path, include=("readme.md",), exclude=("**/node_modules/**",)) == {
        "src/readme.md"
    }


def test_an_excluded_folder_is_not_entered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    listed: list[str] = []
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        listed.append(Path(path).relative_to(tmp_path).as_posix())
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    _walked(tmp_path, exclude=("node_modules/", "build"))
    assert sorted(listed) == [".", "src", "web"]
