"""The import graph of ``dupfinder`` read from source (every import: top level, inside functions,
under ``TYPE_CHECKING``), and the layer rules checked against it; and the modules a fresh
interpreter has loaded after some code, the rules as they hold at run time."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent / "dupfinder"
CORE = "dupfinder.core"

#: The shells around the engine and what each may import inside ``dupfinder``.
SHELLS: Mapping[str, tuple[str, ...]] = {
    "dupfinder.app": ("dupfinder.core",),
    # ``dupfinder gui`` opens the window and the distributed commands run their jobs, both
    # imported only when such a command runs
    "dupfinder.cli": ("dupfinder.core", "dupfinder.gui", "dupfinder.distributed"),
    "dupfinder.distributed": ("dupfinder.core",),
    "dupfinder.gui": ("dupfinder.core", "dupfinder.app"),
}


def module_name(path: Path, root: Path = PACKAGE_ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_sources(root: Path = PACKAGE_ROOT) -> dict[str, str]:
    """Every module's source, by dotted name."""
    return {module_name(p, root): p.read_text(encoding="utf-8") for p in root.rglob("*.py")}


def _targets(node: ast.Import | ast.ImportFrom, name: str, is_package: bool) -> Iterable[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = name.split(".") if is_package else name.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        module = ".".join([*base, *([node.module] if node.module else [])])
    else:
        module = node.module or ""
    return [module, *(f"{module}.{alias.name}" for alias in node.names)]


def import_edges(sources: Mapping[str, str]) -> dict[str, set[str]]:
    """Module → the modules of ``dupfinder`` it imports (a name imported from a module counts
    as the module; a submodule imported from a package counts as the submodule)."""
    known = set(sources)
    edges: dict[str, set[str]] = {}
    for name, text in sources.items():
        is_package = any(other.startswith(name + ".") for other in known)
        found: set[str] = set()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            targets = list(_targets(node, name, is_package))
            module, names = targets[0], targets[1:]
            if isinstance(node, ast.Import):
                names, module = targets, ""
            for target in [*names] if names else [module]:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name and target.startswith("dupfinder"):
                    found.add(target)
        edges[name] = found
    return edges


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@dataclass(frozen=True)
class PackageRules:
    face: tuple[str, ...]
    may_import: tuple[str, ...]


def core_rules() -> dict[str, PackageRules]:
    """Each core package's ``FACE`` and ``MAY_IMPORT``, as the packages write them."""
    core = importlib.import_module(CORE)
    rules = {}
    for package in core.PACKAGES:
        module = importlib.import_module(f"{CORE}.{package}")
        rules[package] = PackageRules(tuple(module.FACE), tuple(module.MAY_IMPORT))
    return rules


def core_part(module: str) -> str | None:
    """The core package a module belongs to, ``root`` for the root modules, None outside."""
    if module == CORE:
        return "root"
    if not module.startswith(CORE + "."):
        return None
    first = module.split(".")[2]
    return first if "." in module[len(CORE) + 1 :] or first in _packages() else "root"


def _packages() -> tuple[str, ...]:
    return tuple(importlib.import_module(CORE).PACKAGES)


def violations(edges: Mapping[str, set[str]], rules: Mapping[str, PackageRules]) -> list[str]:
    """Every import that breaks a written rule, as 'importer -> imported: why'."""
    found = []
    for source, targets in sorted(edges.items()):
        source_part = core_part(source)
        for target in sorted(targets):
            target_part = core_part(target)
            why = _why(source, source_part, target, target_part, rules)
            if why:
                found.append(f"{source} -> {target}: {why}")
    for component in cycles(edges):
        found.append("import cycle: " + " -> ".join(component))
    part_edges: dict[str, set[str]] = {}
    for source, targets in edges.items():
        source_part = core_part(source)
        if source_part is None:
            continue
        for target in targets:
            target_part = core_part(target)
            if target_part is not None and target_part != source_part:
                part_edges.setdefault(source_part, set()).add(target_part)
    for component in cycles(part_edges):
        found.append("package cycle in core: " + " -> ".join(component))
    return found


def _why(
    source: str,
    source_part: str | None,
    target: str,
    target_part: str | None,
    rules: Mapping[str, PackageRules],
) -> str | None:
    if source_part is None:  # a shell, or dupfinder's own top level
        if target_part is None:
            shell = next((s for s in SHELLS if source == s or source.startswith(s + ".")), None)
            target_shell = next(
                (s for s in SHELLS if target == s or target.startswith(s + ".")), None
            )
            if shell and target_shell and target_shell not in (shell, *SHELLS[shell]):
                return f"{shell} may not import {target_shell}"
            return None
        shell = next((s for s in SHELLS if source == s or source.startswith(s + ".")), None)
        if shell is not None and CORE not in SHELLS[shell]:
            return f"{shell} may not import the engine"
        return _outside_face(target, target_part, rules)
    if target_part is None:
        if target != "dupfinder":
            return "the engine imports nothing outside dupfinder.core"
        return None
    if source_part == target_part:
        return None
    if source_part == "root":
        return "root modules import nothing else in core"
    if target_part != "root" and target_part not in rules[source_part].may_import:
        return f"{source_part} may not import {target_part}"
    if target_part == "root" and "root" not in rules[source_part].may_import:
        return f"{source_part} may not import the root modules"
    return _outside_face(target, target_part, rules)


def _outside_face(target: str, part: str, rules: Mapping[str, PackageRules]) -> str | None:
    if part == "root":
        return None
    rest = target[len(f"{CORE}.{part}") :].lstrip(".")
    if not rest or rest.split(".")[0] in rules[part].face:
        return None
    return f"{part}.{rest} is not in {part}'s face {rules[part].face}"


def modules_loaded_by(code: str) -> list[str]:
    """The modules (sorted) that a fresh interpreter holds after running ``code``."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return modules


def qt_modules(modules: Iterable[str]) -> list[str]:
    """Qt's own among ``modules``: what headless use must never load."""
    return [m for m in modules if m.startswith(("PySide6", "shiboken6"))]
