"""Before Qt loads, every missing system library and font is named with its Debian package."""

from __future__ import annotations

import shutil
import sys
import sysconfig
from pathlib import Path

import pytest

from dupfinder.gui import system_check

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF and sonames")


def test_needed_libraries_are_read_from_the_elf_headers(tmp_path: Path) -> None:
    library = Path(sysconfig.get_config_var("LIBDIR") or "/") / str(
        sysconfig.get_config_var("LDLIBRARY")
    )
    if not library.is_file() or library.suffix == ".a":
        library = Path(sys.executable).resolve()
    # alone in a folder: libraries beside a binary count as its own (as in a bundle), and
    # Debian's libpython sits beside libc
    alone = tmp_path / library.resolve().name
    shutil.copyfile(library.resolve(), alone)
    needed = dict(system_check.needed_libraries([alone]))
    assert any(name.startswith("libc.so") for name in needed)


def test_the_xcb_plugin_asks_for_the_libraries_qt_names(monkeypatch: pytest.MonkeyPatch) -> None:
    qt = system_check._qt_folder()
    if qt is None:
        pytest.skip("PySide6 is not installed")
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    plugins = system_check._platform_plugins(qt)
    assert [p.name for p in plugins] == ["libqxcb.so"]
    needed = {name for name, _ in system_check.needed_libraries([*plugins])}
    assert {"libxcb-cursor.so.0", "libxkbcommon-x11.so.0"} <= needed
    assert not any(name.startswith("libQt6") for name in needed)  # those are beside it


def test_every_missing_library_and_font_is_named_with_its_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if system_check._qt_folder() is None:
        pytest.skip("PySide6 is not installed")
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    gone = {"libxcb-cursor.so.0", "libEGL.so.1"}
    monkeypatch.setattr(system_check, "_loads", lambda soname: soname not in gone)
    monkeypatch.setattr(system_check, "FONT_FOLDERS", (str(tmp_path),))
    missing = system_check.check()
    assert set(missing.libraries) == gone
    assert missing.no_fonts
    message = system_check.describe(missing)
    assert "libxcb-cursor0" in message
    assert "libegl1" in message
    assert "fonts-dejavu-core" in message
    assert "Traceback" not in message
    (tmp_path / "DejaVuSans.ttf").write_bytes(b"")
    assert not system_check.check().no_fonts


def test_nothing_is_missing_where_the_tests_run() -> None:
    missing = system_check.check()
    assert not missing, system_check.describe(missing)
