"""The left-hand panel: what to scan (folders, patterns, kinds), how close counts as a
duplicate (thresholds), and the Scan/Cancel buttons with progress.

It only builds a ``ScanOptions`` and shows progress; running the scan is the window's job.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal, Slot
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QPainter,
    QPaintEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSlider,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dupfinder.app.i18n import translate
from dupfinder.app.scan_settings import (
    AdvancedSettings,
    FolderEntry,
    ScanSettings,
    scan_options,
    split_patterns,
)
from dupfinder.core.model import (
    DEFAULT_IMAGE_SIMILARITY,
    DEFAULT_TEXT_SIMILARITY,
    FINGERPRINTED_KINDS,
    Kind,
    Progress,
    ScanOptions,
)
from dupfinder.gui import qtcompat  # noqa: F401  (before any signal is emitted)
from dupfinder.gui.drops import accept_without_moving
from dupfinder.gui.settings_dialog import SettingsDialog

__all__ = ["FolderList", "ScanPanel", "alike_pictures", "shared_text", "split_patterns"]


def _kind_choices() -> tuple[tuple[str, frozenset[Kind]], ...]:
    return (
        (translate("Panel", "Everything"), FINGERPRINTED_KINDS),
        (translate("Panel", "Documents only"), frozenset({Kind.TEXT})),
        (translate("Panel", "Pictures only"), frozenset({Kind.IMAGE})),
        (translate("Panel", "Music only"), frozenset({Kind.AUDIO})),
        (translate("Panel", "Videos only"), frozenset({Kind.VIDEO})),
    )


def shared_text(percent: int) -> str:
    """What the document threshold means: the share of 3-word runs two texts have in common
    (the verified similarity, not fingerprint bits)."""
    return translate("Panel", "≥ {percent}% of the text shared").format(percent=percent)


def alike_pictures(percent: int) -> str:
    """What the picture threshold means: how alike their thumbnails' layout and colours are
    (the verified similarity, not hash bits)."""
    return translate("Panel", "≥ {percent}% alike").format(percent=percent)


class FolderList(QTreeWidget):
    """Folders to scan, with a "Reference" check box each; folders can be dropped on it."""

    folders_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(2)
        self.setHeaderLabels([translate("Panel", "Folder"), translate("Panel", "Reference")])
        self.setAccessibleName(translate("Panel", "Folders to scan"))
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAcceptDrops(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.headerItem().setToolTip(
            1, translate("Panel", "Files in a reference folder are always kept")
        )
        self.itemChanged.connect(lambda *_: self.folders_changed.emit())

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(300, 140)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self.selectedItems():
            self.remove_selected()
            event.accept()
            return
        super().keyPressEvent(event)

    def add_folder(self, path: str, reference: bool = False) -> bool:
        """Add a folder unless it is already listed; False when it was not added."""
        path = os.path.abspath(path)
        if not os.path.isdir(path) or path in self.paths():
            return False
        item = QTreeWidgetItem([path, ""])
        item.setToolTip(0, path)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(1, Qt.CheckState.Checked if reference else Qt.CheckState.Unchecked)
        self.addTopLevelItem(item)
        self.folders_changed.emit()
        return True

    def remove_selected(self) -> None:
        for item in self.selectedItems():
            self.takeTopLevelItem(self.indexOfTopLevelItem(item))
        self.folders_changed.emit()

    def entries(self) -> tuple[FolderEntry, ...]:
        return tuple(
            FolderEntry(item.text(0), item.checkState(1) == Qt.CheckState.Checked)
            for item in self._items()
        )

    def _items(self) -> list[QTreeWidgetItem]:
        found = (self.topLevelItem(i) for i in range(self.topLevelItemCount()))
        return [item for item in found if item is not None]

    def paths(self) -> list[str]:
        return [item.text(0) for item in self._items()]

    @staticmethod
    def _dropped_folders(event: QDropEvent | QDragEnterEvent | QDragMoveEvent) -> list[str]:
        mime = event.mimeData()
        if not mime.hasUrls():
            return []
        return [
            url.toLocalFile()
            for url in mime.urls()
            if url.isLocalFile() and os.path.isdir(url.toLocalFile())
        ]

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if self._dropped_folders(event):
            accept_without_moving(event)  # a copy or a link: a move deletes the originals
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802
        if self._dropped_folders(event):
            accept_without_moving(event)
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        folders = self._dropped_folders(event)
        if not folders or not accept_without_moving(event):
            event.ignore()
            return
        for folder in folders:
            self.add_folder(folder)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        super().paintEvent(event)
        if self.topLevelItemCount() == 0:
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(
                self.viewport().rect().adjusted(8, 8, -8, -8),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                translate("Panel", "Drop folders here\nor use “Add folder…”"),
            )
            painter.end()


class _ThresholdSlider(QWidget):
    """A slider for a threshold with its meaning spelled out beside it (``describe``)."""

    def __init__(
        self,
        minimum: int,
        maximum: int,
        default: int,
        describe: Callable[[int], str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._default = default
        self._describe = describe
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(minimum, maximum)
        self.slider.setPageStep(2)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(max(1, (maximum - minimum) // 8))
        self.label = QLabel()
        self.label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.slider)
        layout.addWidget(self.label)
        self.slider.valueChanged.connect(self._update_label)
        self.slider.setValue(default)
        self._update_label(default)

    @Slot(int)
    def _update_label(self, value: int) -> None:
        suffix = translate("Panel", " (default)") if value == self._default else ""
        self.label.setText(self._describe(value) + suffix)

    def value(self) -> int:
        return self.slider.value()

    def set_value(self, value: int) -> None:
        self.slider.setValue(value)


class ScanPanel(QWidget):
    """Scan settings and controls; emits ``scan_requested`` and ``cancel_requested``."""

    scan_requested = Signal()
    cancel_requested = Signal()
    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folders = FolderList()
        self.advanced = AdvancedSettings()
        add = QPushButton(translate("Panel", "Add folder…"))
        add.clicked.connect(self.choose_folder)
        self.remove_button = QPushButton(translate("Panel", "Remove"))
        self.remove_button.clicked.connect(self.folders.remove_selected)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(self.remove_button)
        buttons.addStretch()
        folder_box = QGroupBox(translate("Panel", "Folders"))
        folder_layout = QVBoxLayout(folder_box)
        folder_layout.addWidget(self.folders)
        folder_layout.addLayout(buttons)

        self.kinds = QComboBox()
        self._kinds = _kind_choices()
        for label, _ in self._kinds:
            self.kinds.addItem(label)
        self.include = QLineEdit()
        self.include.setPlaceholderText(translate("Panel", "all files, or e.g. *.pdf; *.jpg"))
        self.exclude = QLineEdit()
        self.exclude.setPlaceholderText(
            translate("Panel", "e.g. node_modules/; *.tmp  (as in .gitignore)")
        )
        self.settings_button = QPushButton(translate("Panel", "More settings…"))
        self.settings_button.setToolTip(
            translate(
                "Panel",
                "Hidden files, links, size limits, identical files, rotated pictures, grouping, "
                "the cache",
            )
        )
        self.settings_button.clicked.connect(self.settings_requested)
        files_box = QGroupBox(translate("Panel", "Files"))
        files_form = QFormLayout(files_box)
        files_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        files_form.addRow(translate("Panel", "Compare:"), self.kinds)
        files_form.addRow(translate("Panel", "Include:"), self.include)
        files_form.addRow(translate("Panel", "Exclude:"), self.exclude)
        files_form.addRow(self.settings_button)
        self.kinds.setAccessibleName(translate("Panel", "Compare"))
        self.include.setAccessibleName(translate("Panel", "Include"))
        self.exclude.setAccessibleName(translate("Panel", "Exclude"))

        self.text_similarity = _ThresholdSlider(
            50, 100, round(DEFAULT_TEXT_SIMILARITY * 100), shared_text
        )
        self.image_similarity = _ThresholdSlider(
            50, 100, round(DEFAULT_IMAGE_SIMILARITY * 100), alike_pictures
        )
        self.text_similarity.slider.setAccessibleName(translate("Panel", "Document similarity"))
        self.image_similarity.slider.setAccessibleName(translate("Panel", "Picture similarity"))
        sensitivity_box = QGroupBox(translate("Panel", "Similarity"))
        sensitivity_box.setToolTip(
            translate(
                "Panel",
                "How alike two files must be to count as near-duplicates. Higher finds only "
                "very close copies; lower finds looser matches.",
            )
        )
        sensitivity = QFormLayout(sensitivity_box)
        sensitivity.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        sensitivity.addRow(translate("Panel", "Documents:"), self.text_similarity)
        sensitivity.addRow(translate("Panel", "Pictures:"), self.image_similarity)

        self.scan_button = QPushButton(translate("Panel", "Scan"))
        self.scan_button.setDefault(True)
        self.scan_button.clicked.connect(self.scan_requested)
        self.cancel_button = QPushButton(translate("Panel", "Cancel"))
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.cancel_button.setEnabled(False)
        run_buttons = QHBoxLayout()
        run_buttons.addWidget(self.scan_button, 1)
        run_buttons.addWidget(self.cancel_button)
        self.progress_bar = QProgressBar()
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setVisible(False)
        self.progress_bar.setAccessibleName(translate("Panel", "Progress"))
        self.progress_label = QLabel()
        self.progress_label.setAccessibleName(translate("Panel", "Status"))
        self.progress_label.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.addWidget(folder_box, 1)
        layout.addWidget(files_box)
        layout.addWidget(sensitivity_box)
        layout.addLayout(run_buttons)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.progress_label)
        self.folders.folders_changed.connect(self._update_buttons)
        self._update_buttons()

    # --- folders ------------------------------------------------------------------------------

    @Slot()
    def choose_folder(self) -> None:
        start = self.folders.paths()[-1] if self.folders.paths() else str(Path.home())
        folder = QFileDialog.getExistingDirectory(
            self, translate("Panel", "Add a folder to scan"), start
        )
        if folder:
            self.folders.add_folder(folder)

    def add_folders(self, paths: Iterable[str]) -> None:
        for path in paths:
            self.folders.add_folder(path)

    @Slot()
    def _update_buttons(self) -> None:
        if not self.cancel_button.isEnabled():
            self.scan_button.setEnabled(self.folders.topLevelItemCount() > 0)

    def reference_folders(self) -> tuple[str, ...]:
        return tuple(entry.path for entry in self.folders.entries() if entry.reference)

    # --- options ------------------------------------------------------------------------------

    def scan_options(self, folders_needed: bool = True) -> ScanOptions:
        """The options for a scan; raises ValueError when they are incomplete (no folder,
        unless ``folders_needed`` is False: a search for similar files has defaults)."""
        if not self.folders.paths() and folders_needed:
            raise ValueError(translate("Panel", "Add at least one folder to scan."))
        return scan_options(self.state(), folders_needed)

    def open_settings(self, parent: QWidget | None = None) -> bool:
        """The settings window; True when its changes were taken."""
        dialog = SettingsDialog(self.advanced, parent or self)
        if dialog.exec() != SettingsDialog.DialogCode.Accepted:
            return False
        self.advanced = dialog.settings()
        return True

    def state(self) -> ScanSettings:
        return ScanSettings(
            folders=self.folders.entries(),
            include=self.include.text(),
            exclude=self.exclude.text(),
            kinds=self._kinds[self.kinds.currentIndex()][1],
            text_similarity=self.text_similarity.value(),
            image_similarity=self.image_similarity.value(),
            advanced=self.advanced,
        )

    def set_state(self, state: ScanSettings) -> None:
        self.folders.clear()
        for entry in state.folders:
            self.folders.add_folder(entry.path, entry.reference)
        self.include.setText(state.include)
        self.exclude.setText(state.exclude)
        for i, (_, kinds) in enumerate(self._kinds):
            if kinds == state.kinds:
                self.kinds.setCurrentIndex(i)
        self.text_similarity.set_value(state.text_similarity)
        self.image_similarity.set_value(state.image_similarity)
        self.advanced = state.advanced
        self._update_buttons()

    # --- running ------------------------------------------------------------------------------

    def set_running(self, running: bool) -> None:
        """Lock the settings while a scan or an action runs."""
        for box in self.findChildren(QGroupBox):
            box.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.scan_button.setEnabled(not running and self.folders.topLevelItemCount() > 0)
        self.progress_bar.setVisible(running)
        self.settings_button.setEnabled(not running)
        if running:
            self.progress_bar.setRange(0, 0)

    def show_progress(self, text: str, sample: Progress) -> None:
        if sample.total:
            self.progress_bar.setRange(0, sample.total)
            self.progress_bar.setValue(min(sample.done, sample.total))
        else:
            self.progress_bar.setRange(0, 0)
        self.progress_label.setText(text)

    def show_message(self, text: str) -> None:
        self.progress_label.setText(text)
