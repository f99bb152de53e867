"""What the app scans: the panel's and the settings window's choices, and the scan they ask for.

The widgets only show and edit these values; turning them into the engine's ``ScanOptions``
(which kinds of file, the identical-files search, the cache folder) happens here, once, so a
test can check the scan a choice leads to without any widget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from dupfinder.core.model import (
    DEFAULT_IMAGE_SIMILARITY,
    DEFAULT_TEXT_SIMILARITY,
    FINGERPRINTED_KINDS,
    Grouping,
    Kind,
    ScanOptions,
)

__all__ = ["AdvancedSettings", "FolderEntry", "ScanSettings", "scan_options", "split_patterns"]


@dataclass(frozen=True, slots=True)
class FolderEntry:
    """A folder to scan; files in a ``reference`` folder are always kept."""

    path: str
    reference: bool = False


@dataclass(frozen=True, slots=True)
class AdvancedSettings:
    """The scan options of the settings window (the command line's other flags)."""

    include_hidden: bool = False
    follow_symlinks: bool = False
    min_size: int = 1
    max_size: int | None = None
    image_invariance: bool = False
    text_grouping: Grouping = Grouping.STAR
    image_grouping: Grouping = Grouping.STAR
    jobs: int = 0  # 0: one per processor
    use_cache: bool = True
    #: Find byte-identical files of every type, as ``dupfinder scan --identical`` (the
    #: default): when everything is compared (documents, pictures, music and videos), also
    #: the files that are none of these (archives, programs...), compared by their bytes only.
    identical: bool = True
    #: Where the fingerprint cache lives ("": the user's cache folder), ``--cache-dir``.
    cache_dir: str = ""


@dataclass(frozen=True, slots=True)
class ScanSettings:
    """The scan panel's state."""

    folders: tuple[FolderEntry, ...] = ()
    include: str = ""
    exclude: str = ""
    #: The kinds compared for near-duplicates (the panel's "Compare"): by default everything
    #: (documents, pictures, music, videos), as the command line's ``--kind all``.
    kinds: frozenset[Kind] = FINGERPRINTED_KINDS
    text_similarity: int = round(DEFAULT_TEXT_SIMILARITY * 100)  # percent of the text shared
    image_similarity: int = round(DEFAULT_IMAGE_SIMILARITY * 100)  # percent alike
    advanced: AdvancedSettings = field(default_factory=lambda: AdvancedSettings())


def split_patterns(text: str) -> tuple[str, ...]:
    """``*.pdf; *.docx`` → ('*.pdf', '*.docx'): semicolons, commas and new lines separate."""
    return tuple(p.strip() for p in re.split(r"[;,\n]", text) if p.strip())


def scan_options(settings: ScanSettings, folders_needed: bool = True) -> ScanOptions:
    """The engine's options for ``settings``; ValueError when there is no folder to scan
    (unless ``folders_needed`` is False: a search for files like one has its own)."""
    if not settings.folders and folders_needed:
        raise ValueError("no folder to scan")
    a = settings.advanced
    kinds = settings.kinds
    if a.identical and kinds >= FINGERPRINTED_KINDS:  # the command line's --kind all
        kinds = kinds | {Kind.OTHER}
    options = ScanOptions(
        roots=tuple(Path(entry.path) for entry in settings.folders),
        kinds=frozenset(kinds),
        identical=a.identical,
        text_similarity=settings.text_similarity / 100,
        image_similarity=settings.image_similarity / 100,
        include=split_patterns(settings.include),
        exclude=split_patterns(settings.exclude),
        min_size=a.min_size,
        max_size=a.max_size,
        include_hidden=a.include_hidden,
        follow_symlinks=a.follow_symlinks,
        image_invariance=a.image_invariance,
        text_grouping=a.text_grouping,
        image_grouping=a.image_grouping,
        use_cache=a.use_cache,
        cache_dir=Path(a.cache_dir) if a.cache_dir else None,
    )
    return replace(options, jobs=a.jobs) if a.jobs else options
