"""The bundles ship under MIT: every bundled package's licence is checked (packaging/notices.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packaging"))

import notices  # noqa: E402


@pytest.mark.parametrize(
    "licence",
    [
        "MIT",
        "BSD-3-Clause AND 0BSD AND MIT",
        "LGPL-3.0-only",
        "LGPL-3.0-only OR GPL-2.0-only OR GPL-3.0",
        "GPL-3.0-or-later WITH GCC-exception-3.1",
        "BSD-3-clause or GPL-2",
        "GPL-2+ or AFL-2.1, and Expat and Tcl-BSDish",
        "(MIT OR GPL-2.0) AND Zlib",
    ],
)
def test_licences_the_mit_bundle_may_carry(licence: str) -> None:
    assert notices.refused(licence) is None


@pytest.mark.parametrize(
    "licence",
    [
        "GPL-3.0-or-later",
        "AGPL-3.0-or-later",
        "MIT AND GPL-2.0-only",
        "GPL-2.0-only WITH Classpath-exception-2.0 AND MIT",
        "(MIT OR GPL-2.0) AND AGPL-3.0",
        "",
    ],
)
def test_licences_it_may_not(licence: str) -> None:
    assert notices.refused(licence)


def _component(licence: str, reason: str = "", files: tuple[str, ...] = ()) -> notices.Component:
    return notices.Component(
        "pkg", "1.0", "python", licence, reason, {"LICENSE": "..."}, list(files)
    )


def test_problems_name_gpl_packages_unexplained_lgpl_and_gpl_libraries() -> None:
    assert notices.problems([_component("MIT")]) == []
    assert notices.problems([_component("LGPL-3.0-only", "a shared library")]) == []
    assert "copyleft" in notices.problems([_component("AGPL-3.0-or-later")])[0]
    assert "without a stated reason" in notices.problems([_component("LGPL-2.1-or-later")])[0]
    vendored = _component("BSD-3-Clause", files=("pillow_heif.libs/libx265-4883ecb5.so.217",))
    assert "is GPL" in notices.problems([vendored])[0]
    assert "no known package" in notices.problems([], ["mystery.so"])[0]


def test_every_reviewed_copyleft_licence_says_why() -> None:
    for name, (licence, reason) in notices.REVIEWED.items():
        assert notices.refused(licence) is None, name
        assert reason, name


def test_python_packages_are_traced_to_their_licence_and_texts() -> None:
    import importlib.metadata

    dist = importlib.metadata.distribution("numpy")
    files = [f for f in dist.files or () if str(f).endswith(".py")][:3]
    sources = [(str(f), str(dist.locate_file(f))) for f in files]
    (component,), unowned = notices.collect(sources)
    assert unowned == []
    assert (component.name, component.origin) == ("numpy", "python")
    assert "BSD-3-Clause" in component.licence
    assert "LICENSE.txt" in component.texts
    assert component.files == sorted(str(f) for f in files)


def _runtime_closure() -> set[str]:
    """The distributions a user's install pulls in: what the bundles are built from."""
    import importlib.metadata
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    todo = [*project["dependencies"], *project["optional-dependencies"]["gui"]]
    todo += project["optional-dependencies"]["heif"]
    seen: set[str] = set()
    while todo:
        requirement = Requirement(todo.pop())
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = notices._normal(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        todo += importlib.metadata.requires(requirement.name) or []
    return seen


def test_every_runtime_dependency_may_ship_under_mit() -> None:
    import importlib.metadata

    sources = []
    for name in sorted(_runtime_closure()):
        dist = importlib.metadata.distribution(name)
        sources += [(str(f), str(dist.locate_file(f))) for f in dist.files or ()]
    components, _ = notices.collect(sources)
    assert {c.name for c in components} >= {"numpy", "pillow", "pyside6-essentials", "pi-heif"}
    assert notices.problems(components) == []


def test_debians_own_python_is_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    stdlib = "/usr/lib/python3.11/os.py"
    monkeypatch.setattr(notices, "_python_owners", dict)
    monkeypatch.setattr(notices, "_dpkg_owners", lambda: {stdlib: "libpython3.11-minimal"})
    (component,), _ = notices.collect([("os.pyc", stdlib)])
    assert (component.name, component.origin, component.licence) == (
        "libpython3.11-minimal",
        "system",
        "PSF-2.0",
    )
    assert notices.refused(component.licence) is None


def test_notices_name_the_sources_of_lgpl_and_mpl_parts_and_how_to_replace_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = [
        notices.Component("pyside6-essentials", "6.11.3", "python", "LGPL-3.0-only", "why"),
        notices.Component("pathspec", "1.1.1", "python", "MPL-2.0"),
        notices.Component("numpy", "2.4.6", "python", "BSD-3-Clause"),
    ]
    monkeypatch.delenv("DUPFINDER_QT_ATTRIBUTIONS", raising=False)
    text = notices.render(parts, "dupfinder")
    assert "qt-everywhere-src-6.11.3.tar.xz" in text
    assert "/official_releases/qt/6.11/6.11.3/" in text
    assert "PySide6-6.11.3-src" in text
    assert "pypi.org/project/pathspec/1.1.1/" in text
    assert "numpy 2.4.6:" in text  # listed, but no source needed for BSD
    assert "Replacing the LGPL libraries" in text
    assert "licenses-used-in-qt" in text
    (tmp_path / "zlib").mkdir()
    (tmp_path / "zlib" / "LICENSE").write_text("zlib licence text here\n")
    (tmp_path / "zlib" / "qt_attribution.json").write_text(
        '{"Name": "zlib", "Version": "1.3", "License": "Zlib", '
        '"Copyright": "Copyright (C) Jean-loup Gailly and Mark Adler", "LicenseFile": "LICENSE"}'
    )
    monkeypatch.setenv("DUPFINDER_QT_ATTRIBUTIONS", str(tmp_path))
    text = notices.render(parts, "dupfinder")
    assert "--- zlib 1.3 (Zlib) ---" in text
    assert "zlib licence text here" in text


def test_libraries_compiled_into_a_wheel_bring_their_texts() -> None:
    for name, files in notices.ADDED_TEXTS.items():
        licence, reason = notices.REVIEWED[name]
        assert notices.refused(licence) is None
        assert reason
        for file in files:
            text = (notices.TEXTS / file).read_text().lower()
            # a permissive licence's grant: BSD's and zlib's words, or MIT's
            assert "redistribut" in text or "permission is hereby granted" in text
