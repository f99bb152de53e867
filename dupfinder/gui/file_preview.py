"""The comparison for files that are neither documents nor pictures: what is known of each.

Archives, audio, video and programs are grouped by their bytes alone, so there is no text to
diff or picture to show: the two files' facts stand side by side instead (size, type by name,
content hash, modified date, path), and the line above says whether the bytes are the same.
Everything shown comes from the scan's result, except the type of a file whose name has no
telling suffix: that one is read from its first bytes.
"""

from __future__ import annotations

import os
import time

from PySide6.QtCore import QMimeDatabase, Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dupfinder.app.i18n import translate
from dupfinder.core.model import Member
from dupfinder.core.wording import format_size

__all__ = ["FileInfoPreview", "file_type"]


def file_type(path: str) -> str:
    """The type a file's name says it is, e.g. "Zip archive (application/zip)"; for a name
    that says nothing (``xdotool``, ``notes (1)``), what its first bytes say."""
    database = QMimeDatabase()
    mime = database.mimeTypeForFile(path, QMimeDatabase.MatchMode.MatchExtension)
    if mime.isDefault():
        mime = database.mimeTypeForFile(path, QMimeDatabase.MatchMode.MatchContent)
    if mime.isDefault():
        suffix = os.path.splitext(path)[1]
        return suffix.lstrip(".").upper() or translate("Preview", "unknown (no suffix)")
    return f"{mime.comment()} ({mime.name()})"


def _value_label() -> QLabel:
    label = QLabel()
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label


class _Facts(QGroupBox):
    """One file's facts, one row each."""

    def __init__(self, role: str, parent: QWidget | None = None) -> None:
        super().__init__(role, parent)
        self.name = _value_label()
        self.size_text = _value_label()
        self.type = _value_label()
        self.hash = _value_label()
        self.modified = _value_label()
        self.folder = _value_label()
        form = QFormLayout(self)
        form.addRow(translate("Preview", "Name:"), self.name)
        form.addRow(translate("Preview", "Size:"), self.size_text)
        form.addRow(translate("Preview", "Type:"), self.type)
        form.addRow(translate("Preview", "Content hash:"), self.hash)
        form.addRow(translate("Preview", "Modified:"), self.modified)
        form.addRow(translate("Preview", "Folder:"), self.folder)

    def show_member(self, member: Member) -> None:
        folder, name = os.path.split(member.path)
        self.name.setText(name)
        self.size_text.setText(
            translate("Preview", "{size} ({count} bytes)").format(
                size=format_size(member.size), count=f"{member.size:,}"
            )
        )
        self.type.setText(file_type(member.path))
        self.hash.setText(member.content_hash or translate("Preview", "not computed"))
        self.modified.setText(time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(member.mtime)))
        self.folder.setText(folder)
        self.setToolTip(member.path)

    def clear(self) -> None:
        for label in (self.name, self.size_text, self.type, self.hash, self.modified, self.folder):
            label.clear()


class FileInfoPreview(QWidget):
    """Two files' facts side by side, for groups compared by their bytes only."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel()
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.left = _Facts(translate("Preview", "Kept"))
        self.right = _Facts(translate("Preview", "Selected"))
        sides = QHBoxLayout()
        sides.addWidget(self.left, 1)
        sides.addWidget(self.right, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addLayout(sides)
        layout.addStretch(1)

    def show_pair(self, keeper: Member, member: Member) -> None:
        self.left.show_member(keeper)
        self.right.show_member(member)
        same = keeper.content_hash is not None and keeper.content_hash == member.content_hash
        if same:
            text = translate(
                "Preview", "Byte-identical: the same size and the same BLAKE3 hash of every byte."
            )
        else:
            text = translate("Preview", "Not known to be identical.")
        self.summary.setText(text)

    def clear(self) -> None:
        self.left.clear()
        self.right.clear()
        self.summary.clear()
