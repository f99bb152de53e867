"""The settings window: the scan options the command line has beyond the panel's.

Hidden files, symbolic links, size limits, identical files of every type, mirrored and
rotated pictures, how pairs become groups, worker processes and the cache (its folder, and
clearing it): each the same option as ``dupfinder scan``'s flag.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from dupfinder.app.cache_folder import cache_bytes, clear_cache, folder_of
from dupfinder.app.i18n import translate
from dupfinder.app.scan_settings import AdvancedSettings
from dupfinder.core.model import Grouping
from dupfinder.core.wording import format_size

__all__ = ["SettingsDialog"]

_KIB = 1024
_MIB = 1024 * 1024


def _grouping_box(value: Grouping) -> QComboBox:
    box = QComboBox()
    box.addItem(translate("Settings", "Linked through any chain of matches"), Grouping.CONNECTED)
    box.addItem(translate("Settings", "Every file matches the group's first"), Grouping.STAR)
    box.setCurrentIndex(box.findData(value))
    return box


class SettingsDialog(QDialog):
    """Edits an ``AdvancedSettings``; ``settings()`` gives the result after ``exec()``."""

    def __init__(self, current: AdvancedSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("Settings", "Scan settings"))
        self.hidden = QCheckBox(translate("Settings", "Include hidden files and folders"))
        self.hidden.setChecked(current.include_hidden)
        self.symlinks = QCheckBox(translate("Settings", "Follow symbolic links"))
        self.symlinks.setChecked(current.follow_symlinks)
        self.min_size = QSpinBox()
        self.min_size.setRange(0, 1_000_000)
        self.min_size.setSuffix(" KB")
        self.min_size.setValue(current.min_size // _KIB)
        self.min_size.setSpecialValueText(translate("Settings", "any size"))
        self.max_size = QSpinBox()
        self.max_size.setRange(0, 1_000_000)
        self.max_size.setSuffix(" MB")
        self.max_size.setValue((current.max_size or 0) // _MIB)
        self.max_size.setSpecialValueText(translate("Settings", "no limit"))
        files = QGroupBox(translate("Settings", "Files"))
        files_form = QFormLayout(files)
        files_form.addRow(self.hidden)
        files_form.addRow(self.symlinks)
        files_form.addRow(translate("Settings", "Smallest file:"), self.min_size)
        files_form.addRow(translate("Settings", "Largest file:"), self.max_size)

        self.mirror = QCheckBox(translate("Settings", "Match mirrored and 90°-rotated pictures"))
        self.mirror.setChecked(current.image_invariance)
        self.text_grouping = _grouping_box(current.text_grouping)
        self.image_grouping = _grouping_box(current.image_grouping)
        self.identical = QCheckBox(translate("Settings", "Find byte-identical files of every type"))
        self.identical.setToolTip(
            translate(
                "Settings",
                "Copies with exactly the same bytes. When documents and pictures are both "
                "compared, other files too (archives, audio, video, programs…), compared by "
                "their bytes only.",
            )
        )
        self.identical.setChecked(current.identical)
        matching = QGroupBox(translate("Settings", "Matching"))
        matching_form = QFormLayout(matching)
        matching_form.addRow(self.identical)
        matching_form.addRow(self.mirror)
        matching_form.addRow(translate("Settings", "Documents grouped:"), self.text_grouping)
        matching_form.addRow(translate("Settings", "Pictures grouped:"), self.image_grouping)

        self.jobs = QSpinBox()
        self.jobs.setRange(0, 256)
        self.jobs.setValue(current.jobs)
        self.jobs.setSpecialValueText(translate("Settings", "one per processor"))
        self.cache = QCheckBox(translate("Settings", "Remember fingerprints between scans (cache)"))
        self.cache.setChecked(current.use_cache)
        work = QGroupBox(translate("Settings", "Work"))
        work_form = QFormLayout(work)
        work_form.addRow(translate("Settings", "Worker processes:"), self.jobs)
        work_form.addRow(self.cache)
        self.cache_dir = QLineEdit(current.cache_dir)
        self.cache_dir.setPlaceholderText(str(folder_of("")))
        self.cache_dir.setToolTip(translate("Settings", "Empty: the usual cache folder"))
        self.cache_dir.textChanged.connect(self._show_usage)
        choose = QPushButton(translate("Settings", "Choose…"))
        choose.clicked.connect(self.choose_cache_dir)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.cache_dir, 1)
        folder_row.addWidget(choose)
        work_form.addRow(translate("Settings", "Cache folder:"), folder_row)
        self.cache_usage = QLabel()
        self.cache_usage.setWordWrap(True)
        self.clear_button = QPushButton(translate("Settings", "Clear cache"))
        self.clear_button.clicked.connect(self.clear_cache)
        usage_row = QHBoxLayout()
        usage_row.addWidget(self.cache_usage, 1)
        usage_row.addWidget(self.clear_button)
        work_form.addRow(usage_row)
        self._show_usage()

        for widget, name in (
            (self.min_size, translate("Settings", "Smallest file")),
            (self.max_size, translate("Settings", "Largest file")),
            (self.text_grouping, translate("Settings", "Documents grouped")),
            (self.image_grouping, translate("Settings", "Pictures grouped")),
            (self.jobs, translate("Settings", "Worker processes")),
            (self.cache_dir, translate("Settings", "Cache folder")),
            (choose, translate("Settings", "Choose the cache folder")),
            (self.cache_usage, translate("Settings", "Cache size")),
        ):
            widget.setAccessibleName(name)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        defaults = buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        defaults.clicked.connect(self.restore_defaults)
        layout = QVBoxLayout(self)
        for box in (files, matching, work):
            layout.addWidget(box)
        layout.addWidget(buttons)

    def restore_defaults(self) -> None:
        default = AdvancedSettings()
        self.hidden.setChecked(default.include_hidden)
        self.symlinks.setChecked(default.follow_symlinks)
        self.min_size.setValue(0)
        self.max_size.setValue(0)
        self.mirror.setChecked(default.image_invariance)
        self.text_grouping.setCurrentIndex(self.text_grouping.findData(default.text_grouping))
        self.image_grouping.setCurrentIndex(self.image_grouping.findData(default.image_grouping))
        self.jobs.setValue(0)
        self.cache.setChecked(default.use_cache)
        self.identical.setChecked(default.identical)
        self.cache_dir.setText(default.cache_dir)

    def settings(self) -> AdvancedSettings:
        max_mb = self.max_size.value()
        return AdvancedSettings(
            include_hidden=self.hidden.isChecked(),
            follow_symlinks=self.symlinks.isChecked(),
            min_size=max(1, self.min_size.value() * _KIB),
            max_size=max_mb * _MIB if max_mb else None,
            image_invariance=self.mirror.isChecked(),
            text_grouping=Grouping(self.text_grouping.currentData()),
            image_grouping=Grouping(self.image_grouping.currentData()),
            jobs=self.jobs.value(),
            use_cache=self.cache.isChecked(),
            identical=self.identical.isChecked(),
            cache_dir=self.cache_dir.text().strip(),
        )

    # --- the cache folder ------------------------------------------------------------------

    def _folder(self) -> str:
        return str(folder_of(self.cache_dir.text().strip()))

    def choose_cache_dir(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, translate("Settings", "Cache folder"), self._folder()
        )
        if folder:
            self.cache_dir.setText(folder)

    def _show_usage(self) -> None:
        used = cache_bytes(folder_of(self.cache_dir.text().strip()))
        self.cache_usage.setText(
            translate("Settings", "The cache holds {size}.").format(size=format_size(used))
        )
        self.clear_button.setEnabled(used > 0)

    def clear_cache(self) -> None:
        """Remove the cache's files and say how much that freed."""
        cleared = clear_cache(folder_of(self.cache_dir.text().strip()))
        text = translate("Settings", "Cache cleared: {size} freed.").format(
            size=format_size(cleared.freed)
        )
        if cleared.problems:
            amount = len(cleared.problems)
            text += " " + translate("Settings", "%Ln file(s) could not be removed:", None, amount)
            text += " " + "; ".join(cleared.problems)
        self.cache_usage.setText(text)
        self.clear_button.setEnabled(False)
