"""Which file of a group a person would keep: the representative the scan suggests.

The rule, in order (the first difference decides):

1. a file in a reference folder of the scan;
2. a file that looks like an original: fewer copy marks in its name ("copy", "Kopie", "(1)",
   "backup", "副本", "コピー", a parenthesised note such as " (my notes)", an edit suffix
   such as "-grey", "_small", "-rotated", "-800x600", "~", ".bak") and in its folders
   ("Backup 2023", "old", "copies");
3. for pictures, more pixels (the full-size original over its resize);
4. a shallower path (the file in the main folder over the one filed away deeper);
5. the older modification time (the copy is made after the original);
6. the larger file, then the path (so the choice never depends on the order files were found).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

__all__ = ["copy_marks", "keeper_key"]

_WORD_MARKS = re.compile(
    r"(?:^|[\s._\-(\[])(?:copy|copie|kopie|copia|backup|bak|duplicate|dup|edited|"
    r"draft|thumb|thumbnail|small|resized|rotated|cropped|scaled|compressed|modified|"
    r"preview|grey|gray|bw)(?:$|[\s._\-)\]\d])",
    re.IGNORECASE,
)
#: The same in Chinese and Japanese, where words are not spaced: copy (副本, 拷贝, 复制,
#: 複製, コピー), backup (备份, バックアップ), modified (修改, 変更).
_CJK_MARKS = re.compile("副本|拷贝|复制|複製|コピー|备份|バックアップ|修改|変更")
_NUMBERED = re.compile(r"(?:\(\d+\)|\[\d+\])$")
_NOTE = re.compile(r"\s\([^)]*\)$")
_SIZE_SUFFIX = re.compile(r"[\s_\-@]\d{2,5}x\d{2,5}$|@\dx$", re.IGNORECASE)
_BACKUP_SUFFIXES = (".bak", ".orig", ".old", "~")
_FOLDER_MARKS = re.compile(
    r"(?:^|[\s._\-])(?:copy|copies|kopie|backup|backups|bak|old|duplicates|trash|archive)"
    r"(?:$|[\s._\-\d])",
    re.IGNORECASE,
)


def copy_marks(path: str) -> int:
    """How many signs of being a copy or an edit the path carries (0: looks original)."""
    folder, name = os.path.split(path)
    marks = 0
    if name.endswith(_BACKUP_SUFFIXES):
        marks += 1
        name = name.rstrip("~")
        for suffix in _BACKUP_SUFFIXES:
            name = name.removesuffix(suffix)
    stem = os.path.splitext(name)[0] if "." in name[1:] else name
    marks += len(_WORD_MARKS.findall(stem)) + len(_CJK_MARKS.findall(stem))
    if _NUMBERED.search(stem) or _NOTE.search(stem):
        marks += 1
    if _SIZE_SUFFIX.search(stem):
        marks += 1
    marks += sum(1 for part in folder.split(os.sep) if part and _FOLDER_MARKS.search(part))
    return marks


def _in_folder(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def keeper_key(
    path: str, size: int, mtime_ns: int, pixels: int, references: Sequence[str] = ()
) -> tuple[int, int, int, int, int, int, str]:
    """Sort key of a file as the one to keep: smaller is better (see the module's rule)."""
    referenced = any(_in_folder(path, folder) for folder in references)
    return (
        0 if referenced else 1,
        copy_marks(path),
        -pixels,
        path.count(os.sep),
        mtime_ns,
        -size,
        path,
    )
