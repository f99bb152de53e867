"""``dupfinder --install-desktop-entry``: the menu entry and icon for a pip, pipx or tarball install.

A wheel cannot put files where desktops look (``~/.local/share`` or ``/usr/share``): pip keeps
its data files inside the environment, and pipx inside its own. This writes the desktop entry,
with the absolute path of this install's ``dupfinder-gui`` in it, and the icon into the user's
data folder (``$XDG_DATA_HOME``, else ``~/.local/share``) following the freedesktop
specifications; ``--uninstall-desktop-entry`` removes both. The Debian package installs its
own system-wide entry instead. Linux and other freedesktop systems only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TextIO

__all__ = ["install", "uninstall"]

_ENTRY = "dupfinder.desktop"
_ICON = "dupfinder.svg"


def _data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def _resources() -> list[Path]:
    """Where this install keeps the entry and the icon: a bundle's folder, the environment's
    ``share`` (wheels), the source tree."""
    places = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        places += [Path(bundle) / "resources", Path(sys.executable).resolve().parent / "share"]
    places += [Path(sys.prefix) / "share", Path(__file__).resolve().parents[2] / "resources"]
    return places


def _find(*names: str) -> Path | None:
    for place in _resources():
        for name in names:
            if (place / name).is_file():
                return place / name
    return None


def _gui_command() -> str:
    """The absolute command that opens the window from this install."""
    if getattr(sys, "frozen", False):
        return str(Path(sys.executable).resolve().parent / "dupfinder-gui")
    here = Path(sys.executable).parent  # the environment's scripts are beside its Python
    for name in ("dupfinder-gui", "dupfinder"):
        if (here / name).is_file():
            return str(here / name) + (" gui" if name == "dupfinder" else "")
    found = shutil.which("dupfinder-gui")
    return found if found else f"{sys.executable} -m dupfinder gui"


def install(out: TextIO) -> int:
    """Write the desktop entry and the icon for this user; returns an exit code."""
    if sys.platform in ("win32", "darwin"):
        out.write("dupfinder: desktop entries are for Linux; use the installer of your system\n")
        return 2
    entry = _find("applications/" + _ENTRY, _ENTRY)
    icon = _find("icons/hicolor/scalable/apps/" + _ICON, "icons/" + _ICON)
    if entry is None or icon is None:
        out.write("dupfinder: this install has no desktop entry or icon to copy\n")
        return 1
    data = _data_home()
    command = _gui_command()
    text = entry.read_text(encoding="utf-8")
    lines = [
        f"Exec={command} %F" if line.startswith("Exec=") else line for line in text.splitlines()
    ]
    target = data / "applications" / _ENTRY
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    icon_target = data / "icons" / "hicolor" / "scalable" / "apps" / _ICON
    icon_target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(icon, icon_target)
    _refresh(data)
    out.write(f"dupfinder: added {target} (runs {command}) and {icon_target}\n")
    return 0


def uninstall(out: TextIO) -> int:
    """Remove what :func:`install` wrote; returns an exit code."""
    data = _data_home()
    removed = []
    for path in (data / "applications" / _ENTRY, data / "icons/hicolor/scalable/apps" / _ICON):
        if path.is_file():
            path.unlink()
            removed.append(str(path))
    _refresh(data)
    out.write(f"dupfinder: removed {', '.join(removed) or 'nothing (no entry was installed)'}\n")
    return 0


def _refresh(data: Path) -> None:
    """Tell the menu and the icon cache, where their tools are installed (optional)."""
    for tool, folder in (
        ("update-desktop-database", data / "applications"),
        ("gtk-update-icon-cache", data / "icons" / "hicolor"),
    ):
        path = shutil.which(tool)
        if path and folder.is_dir():
            subprocess.run([path, "-q", str(folder)], check=False, capture_output=True)
