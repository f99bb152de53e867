"""Every command of the window as a QAction, with its menu, shortcut and toolbar place.

The actions only carry text, keys and icons; the window connects them to the app and enables
them from one ``Enabled`` (see ``dupfinder.app.enabled``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QStyle, QToolBar, QToolButton, QWidget

from dupfinder.app.enabled import Enabled
from dupfinder.app.i18n import translate
from dupfinder.app.keeping import RULES, rule_title
from dupfinder.gui.icons import themed

__all__ = ["KEEP_RULES", "Commands", "build_commands"]

SP = QStyle.StandardPixmap


def keep_rules() -> tuple[tuple[str, str], ...]:
    """(menu text, core rule name) for the Mark menu; reference folders always come first."""
    return tuple((rule_title(name), name) for name in RULES)


KEEP_RULES = tuple(name for _, name in keep_rules())


@dataclass
class Commands:
    open: QAction
    save: QAction
    export_csv: QAction
    export_json: QAction
    settings: QAction
    quit: QAction
    filter: QAction
    copy: QAction
    open_file: QAction
    open_folder: QAction
    remove: QAction
    toggle: QAction
    mark_all: QAction
    mark_suggested: QAction
    mark_none: QAction
    invert: QAction
    mark_folder: QAction
    keep_this: QAction
    keep_reference: QAction
    trash: QAction
    move: QAction
    hardlink: QAction
    symlink: QAction
    undo: QAction
    not_pair: QAction
    not_member: QAction
    decisions: QAction
    similar: QAction
    find_similar: QAction
    back: QAction
    show_panel: QAction
    expand: QAction
    collapse: QAction
    next_group: QAction
    previous_group: QAction
    expert_column: QAction
    help: QAction
    about: QAction
    rules: tuple[QAction, ...] = ()

    def all(self) -> list[QAction]:
        found: list[QAction] = []
        for field in fields(self):
            value = getattr(self, field.name)
            found.extend(value if isinstance(value, tuple) else [value])
        return found

    def enable(self, on: Enabled) -> None:
        groups = {
            on.mark: (
                self.mark_all,
                self.mark_suggested,
                self.mark_none,
                self.invert,
                self.mark_folder,
                self.keep_reference,
                *self.rules,
            ),
            on.act: (self.trash, self.move, self.hardlink, self.symlink),
        }
        for enabled, actions in groups.items():
            for action in actions:
                action.setEnabled(enabled)
        self.undo.setEnabled(on.undo)
        self.not_pair.setEnabled(on.not_pair)
        self.not_member.setEnabled(on.not_member)
        self.keep_this.setEnabled(on.keep_this)
        self.remove.setEnabled(on.remove)
        for action in (self.open_file, self.open_folder, self.copy, self.toggle):
            action.setEnabled(on.file)
        self.mark_folder.setEnabled(on.mark and on.file)
        for action in (self.save, self.export_csv, self.export_json):
            action.setEnabled(on.save)
        self.open.setEnabled(on.open)
        self.settings.setEnabled(on.open)
        self.decisions.setEnabled(on.decisions)
        self.similar.setEnabled(on.similar)
        self.find_similar.setEnabled(on.find_similar)
        self.back.setEnabled(on.back)


def _action(
    parent: QWidget,
    text: str,
    shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    icon: tuple[str, QStyle.StandardPixmap] | None = None,
    tip: str = "",
) -> QAction:
    action = QAction(text, parent)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    if icon is not None:
        action.setIcon(themed(*icon))
    if tip:
        action.setToolTip(tip)
        action.setStatusTip(tip)
    parent.addAction(action)
    return action


def build_commands(window: QMainWindow) -> Commands:
    """The window's actions (each added to ``window`` so its shortcut works everywhere)."""
    a = _action
    w = window
    standard = QKeySequence.StandardKey
    commands = Commands(
        open=a(w, translate("Commands", "&Open results…"), standard.Open),
        save=a(w, translate("Commands", "&Save results…"), standard.Save),
        export_csv=a(w, translate("Commands", "Export as &CSV…")),
        export_json=a(w, translate("Commands", "Export as &JSON…")),
        settings=a(w, translate("Commands", "Scan se&ttings…"), "Ctrl+,"),
        quit=a(w, translate("Commands", "&Quit"), "Ctrl+Q"),
        filter=a(w, translate("Commands", "&Filter…"), standard.Find),
        copy=a(w, translate("Commands", "&Copy path"), standard.Copy),
        open_file=a(
            w, translate("Commands", "Open &file"), "Ctrl+Return", ("document-open", SP.SP_FileIcon)
        ),
        open_folder=a(
            w,
            translate("Commands", "Show in f&older"),
            "Ctrl+Shift+Return",
            ("folder-open", SP.SP_DirOpenIcon),
        ),
        remove=a(
            w,
            translate("Commands", "&Remove from results"),
            None,
            None,
            translate(
                "Commands", "Take the selected files out of this list (nothing on disk changes)"
            ),
        ),
        toggle=a(w, translate("Commands", "&Toggle mark")),
        mark_all=a(
            w,
            translate("Commands", "Mark &all but the kept file"),
            "Ctrl+Shift+A",
            None,
            translate("Commands", "In every group shown, mark each file except the bold one"),
        ),
        mark_suggested=a(
            w,
            translate("Commands", "&Suggested: keep each original"),
            None,
            None,
            translate(
                "Commands",
                "In every group shown, keep the file the scan suggests (the original) and mark "
                "the others",
            ),
        ),
        mark_none=a(
            w,
            translate("Commands", "Mark &none"),
            "Ctrl+Shift+N",
            None,
            translate(
                "Commands", "Unmark every file of the groups shown; each keeps its original again"
            ),
        ),
        invert=a(w, translate("Commands", "&Invert marks"), "Ctrl+Shift+I"),
        mark_folder=a(
            w,
            translate("Commands", "Mark every file in this &folder"),
            None,
            None,
            translate(
                "Commands",
                "Mark the files of the shown groups that are in the selected file's folder",
            ),
        ),
        keep_this=a(
            w,
            translate("Commands", "&Keep this file"),
            "K",
            ("emblem-default", SP.SP_DialogApplyButton),
            translate("Commands", "Make the selected file the one its group keeps (bold)"),
        ),
        keep_reference=a(w, translate("Commands", "Keep files in reference folders")),
        trash=a(
            w,
            translate("Commands", "Move marked to &trash"),
            standard.Delete,
            ("user-trash", SP.SP_TrashIcon),
            translate("Commands", "Send the marked files to the trash (after showing the plan)"),
        ),
        move=a(
            w,
            translate("Commands", "&Move marked to…"),
            None,
            ("go-next", SP.SP_ArrowForward),
            translate(
                "Commands", "Move the marked files to a folder, keeping their relative paths"
            ),
        ),
        hardlink=a(
            w,
            translate("Commands", "Replace with &hard links"),
            None,
            ("insert-link", SP.SP_FileLinkIcon),
            translate("Commands", "Replace each marked file with a hard link to the kept file"),
        ),
        symlink=a(w, translate("Commands", "Replace with &symbolic links")),
        undo=a(
            w,
            translate("Commands", "&Undo last action"),
            standard.Undo,
            ("edit-undo", SP.SP_ArrowBack),
            translate("Commands", "Put back the files of the last action"),
        ),
        not_pair=a(
            w,
            translate("Commands", "Not a duplicate of the &kept file"),
            None,
            ("list-remove", SP.SP_DialogNoButton),
            translate(
                "Commands", "Remember that the selected file is not a duplicate of the bold one"
            ),
        ),
        not_member=a(
            w,
            translate("Commands", "Not a duplicate: take it &out of the group"),
            None,
            None,
            translate(
                "Commands", "Remember that the selected file belongs to no file of its group"
            ),
        ),
        decisions=a(w, translate("Commands", "Remembered &decisions…")),
        similar=a(
            w,
            translate("Commands", "Find files &like this"),
            "Ctrl+L",
            ("edit-find", SP.SP_FileDialogContentsView),
        ),
        find_similar=a(w, translate("Commands", "Find files l&ike…"), "Ctrl+Shift+L"),
        back=a(
            w,
            translate("Commands", "&Back to the scan results"),
            QKeySequence.StandardKey.Back,
            ("go-previous", SP.SP_ArrowLeft),
        ),
        show_panel=a(w, translate("Commands", "Scan &panel"), "F9"),
        expand=a(w, translate("Commands", "&Expand all groups")),
        collapse=a(w, translate("Commands", "&Collapse all groups")),
        next_group=a(w, translate("Commands", "&Next group"), "Alt+Down"),
        previous_group=a(w, translate("Commands", "&Previous group"), "Alt+Up"),
        expert_column=a(w, translate("Commands", "Show &bits differing")),
        help=a(w, translate("Commands", "dupfinder &help"), standard.HelpContents),
        about=a(w, translate("Commands", "&About dupfinder")),
        rules=tuple(a(w, text) for text, _ in keep_rules()),
    )
    commands.show_panel.setCheckable(True)
    commands.show_panel.setChecked(True)
    commands.expert_column.setCheckable(True)
    # Space, Delete and K are handled by the results view (see ResultsView): the shortcuts
    # only label the menu entries; their context never matches the window itself, so they
    # never fire while the user types in the filter or the folder list.
    for action in (commands.toggle, commands.trash, commands.keep_this):
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
    commands.toggle.setShortcut(QKeySequence("Space"))
    return commands


def build_menus(window: QMainWindow, c: Commands) -> QMenu:
    """The menu bar; returns the Mark menu (the toolbar's Mark button opens it too)."""
    bar = window.menuBar()
    file_menu = bar.addMenu(translate("Commands", "&File"))
    file_menu.addActions([c.open, c.save])
    file_menu.addSeparator()
    file_menu.addActions([c.export_csv, c.export_json])
    file_menu.addSeparator()
    file_menu.addAction(c.settings)
    file_menu.addSeparator()
    file_menu.addAction(c.quit)
    edit_menu = bar.addMenu(translate("Commands", "&Edit"))
    edit_menu.addActions([c.filter, c.copy])
    edit_menu.addSeparator()
    edit_menu.addActions([c.open_file, c.open_folder])
    edit_menu.addSeparator()
    edit_menu.addActions([c.similar, c.find_similar])
    edit_menu.addSeparator()
    edit_menu.addAction(c.remove)
    mark_menu = bar.addMenu(translate("Commands", "&Mark"))
    mark_menu.addActions(list(c.rules))
    mark_menu.addAction(c.keep_reference)
    mark_menu.addSeparator()
    mark_menu.addActions([c.mark_suggested, c.mark_all, c.mark_none, c.invert, c.mark_folder])
    mark_menu.addSeparator()
    mark_menu.addActions([c.toggle, c.keep_this])
    actions_menu = bar.addMenu(translate("Commands", "&Actions"))
    actions_menu.addActions([c.trash, c.move, c.hardlink, c.symlink])
    actions_menu.addSeparator()
    actions_menu.addAction(c.undo)
    actions_menu.addSeparator()
    actions_menu.addActions([c.not_pair, c.not_member, c.decisions])
    view_menu = bar.addMenu(translate("Commands", "&View"))
    view_menu.addAction(c.show_panel)
    view_menu.addSeparator()
    view_menu.addAction(c.back)
    view_menu.addSeparator()
    view_menu.addActions([c.next_group, c.previous_group, c.expand, c.collapse])
    view_menu.addSeparator()
    view_menu.addAction(c.expert_column)
    help_menu = bar.addMenu(translate("Commands", "&Help"))
    help_menu.addActions([c.help, c.about])
    return mark_menu


def build_toolbar(
    window: QMainWindow, c: Commands, mark_menu: QMenu
) -> tuple[QToolBar, QToolButton]:
    toolbar = QToolBar(translate("Commands", "Main"))
    toolbar.setObjectName("main_toolbar")
    toolbar.setMovable(False)
    toolbar.setIconSize(QSize(18, 18))
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    mark_button = QToolButton()
    mark_button.setText(translate("Commands", "Mark"))
    mark_button.setAccessibleName(translate("Commands", "Mark"))
    mark_button.setIcon(themed("object-select", SP.SP_DialogApplyButton))
    mark_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    mark_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    mark_button.setMenu(mark_menu)
    mark_button.setToolTip(translate("Commands", "Mark files by a rule, or all, none, inverted"))
    toolbar.addWidget(mark_button)
    for action, short in (
        (c.trash, translate("Commands", "Trash marked")),
        (c.move, translate("Commands", "Move marked…")),
        (c.hardlink, translate("Commands", "Replace with links")),
        (c.undo, translate("Commands", "Undo")),
        (c.keep_this, translate("Commands", "Keep this")),
        (c.not_pair, translate("Commands", "Not a duplicate")),
        (c.open_file, translate("Commands", "Open")),
        (c.open_folder, translate("Commands", "Show in folder")),
    ):
        action.setIconText(short)
    toolbar.addSeparator()
    toolbar.addActions([c.trash, c.move, c.hardlink])
    toolbar.addSeparator()
    toolbar.addAction(c.undo)
    toolbar.addSeparator()
    toolbar.addActions([c.keep_this, c.not_pair])
    toolbar.addSeparator()
    toolbar.addActions([c.open_file, c.open_folder])
    window.addToolBar(toolbar)
    more = toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
    if more is not None:  # shown when the window is too narrow for every button
        more.setAccessibleName(translate("Commands", "More tools"))
    return toolbar, mark_button
