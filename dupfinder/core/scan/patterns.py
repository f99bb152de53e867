"""Include and exclude patterns, read the way ``.gitignore`` reads them (through pathspec).

A pattern is matched against a path relative to the scanned folder it was found under, so
a pattern means the same whatever folder is scanned and wherever it lives:

- no slash (``*.tmp``, ``node_modules``): a file or folder name at any depth;
- a slash at the start or in the middle (``build/``, ``/notes.txt``, ``docs/**/draft-*``):
  anchored to the scanned folder; ``**`` spans any number of folders;
- a trailing slash (``cache/``): folders only, with everything inside them;
- ``!`` re-includes what an earlier pattern excluded (the last matching pattern wins).

An excluded folder is not entered at all, so nothing inside it can be re-included. Where the
system's file systems ignore case (Windows, macOS) so do the patterns: ``*.jpg`` matches
``IMG_1.JPG`` there, as the file system itself would find it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

import pathspec

from dupfinder.core import filesystem

__all__ = ["PathPatterns", "path_patterns"]


class PathPatterns:
    """Compiled patterns and the roots that relative paths are measured from."""

    def __init__(
        self, patterns: Sequence[str], roots: Sequence[str], ignore_case: bool = False
    ) -> None:
        self._fold = ignore_case
        self._spec = pathspec.GitIgnoreSpec.from_lines(
            [filesystem.casefolded(p) for p in patterns] if ignore_case else patterns
        )
        # the longest root first, so a path is measured from the deepest root holding it
        self._roots = sorted((os.path.abspath(r) for r in roots), key=len, reverse=True)

    def relative(self, path: str) -> str:
        """``path`` relative to its scanned folder, with ``/`` separators (a lone name else)."""
        absolute = os.path.abspath(path)
        for root in self._roots:
            if absolute == root:
                return os.path.basename(root)
            prefix = root.rstrip(os.sep) + os.sep
            if absolute.startswith(prefix):
                return absolute[len(prefix) :].replace(os.sep, "/")
        return os.path.basename(absolute)

    def matches(self, path: str, is_dir: bool = False) -> bool:
        """Whether the patterns select ``path`` (a folder when ``is_dir``)."""
        relative = self.relative(path)
        if self._fold:
            relative = filesystem.casefolded(relative)
        return self._spec.match_file(relative + "/" if is_dir else relative)


def path_patterns(patterns: tuple[str, ...], roots: tuple[str, ...]) -> PathPatterns:
    """The compiled patterns for one scan, compiled once however many files it meets; they
    ignore case where the system's file systems do."""
    return _compiled(patterns, roots, filesystem.NAMES_IGNORE_CASE)


@functools.lru_cache(maxsize=8)
def _compiled(patterns: tuple[str, ...], roots: tuple[str, ...], ignore_case: bool) -> PathPatterns:
    return PathPatterns(patterns, roots, ignore_case)
