"""``dupfinder --install-desktop-entry`` gives a pip or pipx install a menu entry and an icon."""

from __future__ import annotations

import configparser
import io
import shlex
import sys
from pathlib import Path

import pytest

from dupfinder.cli import main

pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="freedesktop menus")


def test_install_writes_an_entry_that_runs_this_install_and_uninstall_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    out = io.StringIO()
    assert main(["--install-desktop-entry"], out=out) == 0
    entry_path = tmp_path / "applications" / "dupfinder.desktop"
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(entry_path, encoding="utf-8")
    command = shlex.split(entry["Desktop Entry"]["Exec"])
    assert Path(command[0]).is_absolute()
    assert Path(command[0]).exists()
    assert command[-1] == "%F"
    assert entry["Desktop Entry"]["Icon"] == "dupfinder"
    icon = tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "dupfinder.svg"
    assert icon.read_bytes().lstrip().startswith(b"<")
    assert str(entry_path) in out.getvalue()

    assert main(["--uninstall-desktop-entry"], out=io.StringIO()) == 0
    assert not entry_path.exists()
    assert not icon.exists()
