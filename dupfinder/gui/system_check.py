"""Before Qt loads on Linux: every system library and font the window needs, named when missing.

Qt links to libraries of the desktop session (X11 and xcb, EGL and GL, xkbcommon, fontconfig,
D-Bus) that the bundles leave to the system; when one is missing, importing Qt fails with a
loader error naming only the first, and a missing xcb library makes Qt abort the process. This
module reads what Qt's own libraries and its platform plugin ask for (the ``DT_NEEDED``
entries of their ELF headers), tries to load each one that is not beside them, and looks for
fonts, so that the app can say everything that is missing at once, with the Debian packages
that bring it, and exit without a traceback. It imports no Qt itself.
"""

from __future__ import annotations

import ctypes
import glob
import os
import struct
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

__all__ = ["Missing", "check", "describe", "needed_libraries"]

#: Debian packages (Ubuntu's names are the same) that provide each library Qt asks for.
PACKAGES = {
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libOpenGL.so.0": "libopengl0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-util.so.1": "libxcb-util1",
    "libSM.so.6": "libsm6",
    "libICE.so.6": "libice6",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
}
#: A font that covers Latin, Greek and Cyrillic, and one for Chinese, Japanese and Korean.
FONT_PACKAGES = ("fonts-dejavu-core", "fonts-noto-cjk")
#: Where fontconfig looks for fonts by default.
FONT_FOLDERS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "~/.local/share/fonts",
    "~/.fonts",
)
_FONT_SUFFIXES = (".ttf", ".otf", ".ttc", ".otc", ".pcf", ".pcf.gz", ".pfb", ".woff", ".woff2")


@dataclass(frozen=True, slots=True)
class Missing:
    """What the window needs and this system lacks: libraries (soname -> what asked for it)
    and whether any font at all is installed."""

    libraries: dict[str, str]
    no_fonts: bool

    def __bool__(self) -> bool:
        return bool(self.libraries) or self.no_fonts


def _elf_needed(path: Path) -> list[str]:
    """The ``DT_NEEDED`` entries of a 64- or 32-bit little-endian ELF file ([] otherwise), read
    from its section headers, dynamic section and string table only."""
    try:
        with path.open("rb") as f:
            ident = f.read(64)
            if ident[:4] != b"\x7fELF" or ident[5] != 1:
                return []
            wide = ident[4] == 2
            header = "<16xHHIQQQIHHHHHH" if wide else "<16xHHIIIIIHHHHHH"
            fields = struct.unpack_from(header, ident)
            section_offset, section_size, sections = fields[5], fields[10], fields[11]
            f.seek(section_offset)
            table = f.read(section_size * sections)
            layout = "<IIQQQQIIQQ" if wide else "<IIIIIIIIII"
            headers = [struct.unpack_from(layout, table, i * section_size) for i in range(sections)]
            needed = []
            for values in headers:
                if values[1] != 6:  # SHT_DYNAMIC
                    continue
                f.seek(values[4])
                dynamic = f.read(values[5])
                strings = headers[values[6]]
                f.seek(strings[4])
                names = f.read(strings[5])
                entry = 16 if wide else 8
                for at in range(0, len(dynamic) - entry + 1, entry):
                    tag, value = struct.unpack_from("<qQ" if wide else "<iI", dynamic, at)
                    if tag == 0:
                        break
                    if tag == 1:  # DT_NEEDED
                        needed.append(names[value : names.index(b"\0", value)].decode())
            return needed
    except (OSError, struct.error, ValueError, IndexError):
        return []


def _qt_folder() -> Path | None:
    """PySide6's Qt folder (lib/ and plugins/), found without importing PySide6: in a bundle
    beside the executable's libraries, else where Python finds the package."""
    places = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        places.append(Path(bundle) / "PySide6")
    try:
        spec = find_spec("PySide6")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        places += [Path(p) for p in spec.submodule_search_locations]
    places += [Path(p) / "PySide6" for p in sys.path if p]
    for place in places:
        if (place / "Qt" / "lib").is_dir():
            return place / "Qt"
    return None


def _platform_plugins(qt: Path) -> list[Path]:
    """The platform plugins the window may use here: the one ``QT_QPA_PLATFORM`` names, else
    wayland under Wayland and xcb under X11 (or when neither is known)."""
    named = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0]
    wanted = [f"libq{named.removesuffix('-egl')}*.so"] if named else []
    if not wanted and os.environ.get("WAYLAND_DISPLAY"):
        wanted.append("libqwayland*.so")
    if not wanted or (not named and os.environ.get("DISPLAY")):
        wanted.append("libqxcb.so")
    found = []
    for pattern in wanted:
        found += sorted((qt / "plugins" / "platforms").glob(pattern))
    return found


def needed_libraries(binaries: Iterable[Path]) -> Iterator[tuple[str, str]]:
    """(soname, the file that asks for it) for every library ``binaries`` link to and that is
    not among the files beside them (followed through those), each once."""
    todo = list(binaries)
    local = {p.name: p for b in todo for p in b.parent.glob("*.so*")}
    for b in todo:
        for folder in (b.parent, b.parent.parent / "lib", b.parent.parent.parent / "lib"):
            local.update({p.name: p for p in folder.glob("*.so*")} if folder.is_dir() else {})
    seen: set[str] = set()
    while todo:
        binary = todo.pop()
        for soname in _elf_needed(binary):
            if soname in seen:
                continue
            seen.add(soname)
            if soname in local:
                todo.append(local[soname])
            else:
                yield soname, binary.name


def _loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def _has_fonts() -> bool:
    for folder in FONT_FOLDERS:
        root = os.path.expanduser(folder)
        for suffix in _FONT_SUFFIXES:
            if next(iter(glob.iglob(f"{root}/**/*{suffix}", recursive=True)), None):
                return True
    return False


def check() -> Missing:
    """What the window would lack here (nothing outside Linux, or without PySide6)."""
    if not sys.platform.startswith("linux"):
        return Missing({}, no_fonts=False)
    qt = _qt_folder()
    if qt is None:
        return Missing({}, no_fonts=False)
    binaries = [
        *(
            qt / "lib" / name
            for name in ("libQt6Core.so.6", "libQt6Gui.so.6", "libQt6Widgets.so.6")
        ),
        *_platform_plugins(qt),
    ]
    missing = {
        soname: asker
        for soname, asker in needed_libraries(b for b in binaries if b.is_file())
        if not _loads(soname)
    }
    return Missing(missing, no_fonts=not _has_fonts())


def describe(missing: Missing) -> str:
    """A message for people: what is missing and the command that installs it (Debian and
    Ubuntu package names)."""
    lines = ["dupfinder: the window cannot open; this system lacks what Qt needs to draw it:"]
    packages: list[str] = []
    for soname, asker in sorted(missing.libraries.items()):
        package = PACKAGES.get(soname)
        lines.append(f"  {soname} (for {asker}){f', in the package {package}' if package else ''}")
        if package and package not in packages:
            packages.append(package)
    if missing.no_fonts:
        lines.append("  any font: none is installed (fontconfig finds no font files)")
        packages += FONT_PACKAGES
    if packages:
        lines.append("On Debian or Ubuntu, install them with:")
        lines.append(f"  sudo apt-get install --no-install-recommends {' '.join(packages)}")
    lines.append("The command line works without them: dupfinder scan FOLDER")
    return "\n".join(lines) + "\n"
