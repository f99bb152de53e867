"""Every library the package imports is declared in pyproject.toml (and so reaches users)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
#: Extras for developers; every other extra is something a user installs to run the product.
DEVELOPER_EXTRAS = {"test", "bench", "package"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_top_levels() -> set[str]:
    names = set()
    for path in (ROOT / "dupfinder").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"dupfinder", "__future__"}


def _declared() -> set[str]:
    """Distributions the product's dependencies name, with those their extras name
    (``dask[distributed]`` declares ``distributed``)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra, requirements in project["optional-dependencies"].items():
        if extra not in DEVELOPER_EXTRAS:
            lines += requirements
    names = set()
    for line in lines:
        requirement = Requirement(line)
        names |= {_normal(requirement.name), *map(_normal, requirement.extras)}
    return names


def test_every_import_is_a_declared_dependency() -> None:
    owners = importlib.metadata.packages_distributions()
    # a module that is not installed here is taken to come from the distribution of its name
    undeclared = {
        module: owners.get(module, [module])
        for module in _imported_top_levels()
        if not {_normal(d) for d in owners.get(module, [module])} & _declared()
    }
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


#: What the app must not pull into a user's install or a bundle: numba with its LLVM (171 MB),
#: scipy (53 MB) and what brought it (imagehash, PyWavelets), Cython (a build tool).
HEAVY = {"numba", "llvmlite", "scipy", "imagehash", "pywavelets", "cython"}


def test_a_fresh_install_pulls_in_no_numba_llvmlite_or_scipy() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    todo = [*project["dependencies"]]
    for extra, requirements in project["optional-dependencies"].items():
        if extra not in DEVELOPER_EXTRAS:
            todo += requirements
    seen: set[str] = set()
    while todo:
        requirement = Requirement(todo.pop())
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = _normal(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            todo += importlib.metadata.requires(requirement.name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # an extra not installed here (distributed): its own names still count
    assert not seen & HEAVY, f"the install would pull in {sorted(seen & HEAVY)}"


def test_the_kernels_were_compiled_with_this_install() -> None:
    """CI builds them (DUPFINDER_NATIVE=required); an install made with DUPFINDER_NATIVE=0 has
    none by choice, and the numpy path answers."""
    import os

    from dupfinder.core.jit import engine

    if os.environ.get("DUPFINDER_NATIVE") == "0":
        return
    missing = [kernel.label for kernel in engine.Kernel if engine.load(kernel) is None]
    assert not missing, f"not compiled: {missing} (a C compiler and Cython build them)"
