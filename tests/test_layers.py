"""The core and the CLI never load Qt: headless use must work without Qt's libraries."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

import pytest
from import_graph import (
    PACKAGE_ROOT,
    PackageRules,
    core_rules,
    import_edges,
    modules_loaded_by,
    qt_modules,
    read_sources,
    violations,
)

import dupfinder.core.errors as errors


def test_core_and_cli_do_not_import_qt() -> None:
    code = (
        "import dupfinder.cli, dupfinder.cli.scan_cmd, dupfinder.core.scan.pipeline, "
        "dupfinder.core.results.report, dupfinder.core.scan.cache\n"
        "dupfinder.cli.build_parser()"
    )
    assert qt_modules(modules_loaded_by(code)) == []


def test_error_tree_is_exported_and_rooted() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.DupfinderError)
    assert issubclass(errors.ResultFormatError, ValueError)


def test_every_import_keeps_the_written_rules() -> None:
    found = violations(import_edges(read_sources()), core_rules())
    assert found == []


def test_core_has_few_entries_at_its_top_level() -> None:
    entries = [
        p.name
        for p in (PACKAGE_ROOT / "core").iterdir()
        if p.name != "__pycache__" and (p.suffix == ".py" or (p / "__init__.py").exists())
    ]
    assert len(entries) <= 16, sorted(entries)
    core = importlib.import_module("dupfinder.core")
    assert sorted(entries) == sorted(
        ["__init__.py", *(f"{m}.py" for m in core.ROOT_MODULES), *core.PACKAGES]
    )


@pytest.mark.parametrize(
    ("module", "planted", "expected"),
    [
        # results never imports scan (what is on disk never depends on how files were found)
        ("dupfinder.core.results.report", "from dupfinder.core.scan import walk", "may not import"),
        # actions never imports scan
        ("dupfinder.core.actions.apply", "import dupfinder.core.scan.pipeline", "may not import"),
        # index never imports grouping
        ("dupfinder.core.index.pairs", "from dupfinder.core.grouping import groups", "may not"),
        # a root module imports nothing else in core
        ("dupfinder.core.model", "from dupfinder.core.text import sketch", "root modules"),
        # only a package's face is imported from outside it
        ("dupfinder.core.scan.pipeline", "from dupfinder.core.grouping import cluster", "face"),
        # the engine never reaches into a shell
        ("dupfinder.core.scan.walk", "from dupfinder.app import controller", "outside"),
        # the app state never imports its Qt shell
        ("dupfinder.app.controller", "from dupfinder.gui import app", "may not import"),
    ],
)
def test_a_planted_violation_is_caught(module: str, planted: str, expected: str) -> None:
    sources = read_sources()
    sources[module] += f"\n\ndef _planted() -> None:\n    {planted}\n"
    found = violations(import_edges(sources), core_rules())
    assert any(module in line and expected in line for line in found), found


def test_a_planted_cycle_is_caught_even_when_type_only() -> None:
    sources = read_sources()
    sources["dupfinder.core.wording"] += (
        "\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from dupfinder.core.errors import DupfinderError\n"
    )
    sources["dupfinder.core.errors"] += "\nfrom dupfinder.core import wording\n"
    found = violations(import_edges(sources), core_rules())
    assert any(line.startswith("import cycle") and "wording" in line for line in found), found


def test_a_planted_package_cycle_is_caught() -> None:
    sources = read_sources()
    sources["dupfinder.core.text.sketch"] += "\nfrom dupfinder.core.index import layout\n"
    sources["dupfinder.core.index.layout"] += "\nfrom dupfinder.core.text import chars\n"
    rules = dict(core_rules())
    rules["text"] = PackageRules(rules["text"].face, (*rules["text"].may_import, "index"))
    rules["index"] = PackageRules((*rules["index"].face,), (*rules["index"].may_import, "text"))
    found = violations(import_edges(sources), rules)
    assert any(line.startswith("package cycle") for line in found), found


def test_the_written_map_says_what_the_packages_declare() -> None:
    layers = _load_script("layers")
    assert layers.written() == layers.table(), "run: python scripts/layers.py --write"


def _load_script(name: str) -> ModuleType:
    path = PACKAGE_ROOT.parent / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"scripts_{name}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
