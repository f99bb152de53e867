"""The desktop entry and the AppStream metainfo installed beside it agree with the package."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dupfinder import __version__

ROOT = Path(__file__).resolve().parents[1]
METAINFO = ROOT / "resources" / "io.github.dupfinder.metainfo.xml"
DESKTOP = ROOT / "resources" / "dupfinder.desktop"


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_metainfo_names_the_desktop_file_the_binaries_and_this_version() -> None:
    component = ET.parse(METAINFO).getroot()
    assert component.findtext("id") == "io.github.dupfinder"
    assert (ROOT / "resources" / component.findtext("launchable", "")).resolve() == DESKTOP
    assert component.findtext("project_license") == _pyproject()["project"]["license"]
    binaries = {b.text for b in component.iter("binary")}
    project = _pyproject()["project"]
    assert binaries == set(project["scripts"]) | set(project["gui-scripts"])
    assert __version__ in {r.get("version") for r in component.iter("release")}


def test_desktop_entry_starts_the_gui_script() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(DESKTOP, encoding="utf-8")
    command = entry["Desktop Entry"]["Exec"].split()[0]
    assert command in _pyproject()["project"]["gui-scripts"]


def test_wheel_installs_them_where_desktops_look() -> None:
    data_files = _pyproject()["tool"]["setuptools"]["data-files"]
    installed = {Path(f).name: folder for folder, files in data_files.items() for f in files}
    assert installed[METAINFO.name] == "share/metainfo"
    assert installed[DESKTOP.name] == "share/applications"
    for files in data_files.values():
        for name in files:
            assert (ROOT / name).is_file(), name


def test_metainfo_passes_appstream_validation() -> None:
    if shutil.which("appstreamcli") is None:
        pytest.skip("appstreamcli is not installed")
    done = subprocess.run(
        ["appstreamcli", "validate", "--no-net", str(METAINFO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
