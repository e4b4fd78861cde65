"""The seam's layering, checked on the source (AST) and in a fresh interpreter: the core knows no
model family and no run, the family contract imports neither numba nor scipy, and the run reads
no private attribute of ``Dynamics`` or of the system (``docs/seam.md`` sections 1, 2 and R10)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "nonsmooth"

#: The model families' packages, and the old import paths of the planar and generalized
#: families' modules (``nonsmooth/_moved.py``).
FAMILIES = ("planar", "generalized", "spatial")
OLD_PATHS = ("tables", "kernels", "dop853", "fixed_step", "planar_family", "bodies", "joints",
             "forces", "inertia", "clutch", "sliding_contact", "generated", "generated_family",
             "events", "recorder", "dense")
#: What the core must not import (model families, the run, Dynamics).
CORE_FORBIDDEN = (*FAMILIES, *OLD_PATHS, "system", "simulate", "dynamics")
#: What the run must not import: a family's modules (it calls the contract).
RUN_FORBIDDEN = (*FAMILIES, *OLD_PATHS)
#: The modules that see every family only through the contract (``family.py``,
#: ``System``'s methods): the evaluator, the result, the failure diagnosis, the model.
CONTRACT_USERS = ("family.py", "dynamics.py", "result.py", "diagnose.py", "model.py")
#: The planar tables' names (``tables.PlanarTables``), which the core and the run never use.
TABLE_NAMES = ("tables", "ints", "floats", "pair_rows", "it", "ft")
#: What the family contract must not import.
FAMILY_FORBIDDEN = ("numba", "scipy", "planar", "generalized")
#: The names by which the run holds Dynamics and the system.
HOLDERS = ("dyn", "dynamics", "system", "sysm")


def imported_modules(path: Path) -> list[str]:
    """Every module an ``import`` or ``from ... import`` of the file names (relative imports
    resolved against the ``nonsmooth`` package), anywhere in the file (lazy imports too)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names.append(prefix)
            names += [f"{prefix}.{alias.name}" for alias in node.names]
    return names


def forbidden_imports(path: Path, forbidden) -> list[str]:
    """The imports of ``path`` that name one of ``forbidden`` as a top-level package or as a
    module of ``nonsmooth``."""
    bad = []
    for name in imported_modules(path):
        parts = name.split(".")
        if parts[0] in forbidden or (parts[0] == "nonsmooth" and len(parts) > 1
                                     and parts[1] in forbidden):
            bad.append(name)
    return bad


def private_reads(path: Path, holders=HOLDERS) -> list[str]:
    """``holder._name`` attribute reads in the file (``run.dyn._plan``, ``system._user`` ...),
    with their line numbers; dunders are not private reads."""
    tree = ast.parse(path.read_text(), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            continue
        value = node.value
        holder = (value.id if isinstance(value, ast.Name)
                  else value.attr if isinstance(value, ast.Attribute) else None)
        if holder in holders:
            out.append(f"{path.name}:{node.lineno}: {holder}.{node.attr}")
    return out


@pytest.mark.parametrize("path", sorted((PACKAGE / "core").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_core_imports_no_family_and_no_run(path):
    assert forbidden_imports(path, CORE_FORBIDDEN) == []


@pytest.mark.parametrize("name", ["__init__.py", "layout.py", "status.py"])
def test_the_core_layouts_and_statuses_import_no_numba(name):
    """The layouts and the status codes are numpy only (the compiled core's modules import
    numba; these are what the Python path and the family contract read)."""
    assert forbidden_imports(PACKAGE / "core" / name, ("numba", "scipy")) == []


def test_the_family_contract_imports_no_numba_scipy_or_family():
    assert forbidden_imports(PACKAGE / "family.py", FAMILY_FORBIDDEN) == []


@pytest.mark.parametrize("name", CONTRACT_USERS)
def test_the_evaluator_result_diagnosis_and_model_import_no_family(name):
    assert forbidden_imports(PACKAGE / name, (*FAMILIES, *OLD_PATHS)) == []


@pytest.mark.parametrize("path", sorted(p for p in PACKAGE.rglob("*.py")
                                        if "_prebuilt" not in p.parts),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_an_old_path(path):
    """The package itself uses the new places; the old paths are for users' scripts."""
    if path.parent == PACKAGE and path.stem in OLD_PATHS:
        return  # the old path's own module
    assert forbidden_imports(path, OLD_PATHS) == []


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """``module -> the package's modules it imports`` (every import, lazy ones too, except
    those under ``if TYPE_CHECKING:``, which are not imports at run time); ``nonsmooth.models``
    (the bundled models' folder) included."""
    files = {".".join(p.relative_to(package.parent).with_suffix("").parts): p
             for p in package.rglob("*.py") if "_prebuilt" not in p.parts}
    files.update({f"nonsmooth.models.{p.stem}": p for p in
                  (package.parent / "models").glob("*.py")})
    modules = {name.removesuffix(".__init__"): path for name, path in files.items()}

    def owner(name: str) -> str | None:  # the module a dotted name lives in
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                node.body = []
        package_parts = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets |= {owner(a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = (package_parts[:len(package_parts) - node.level + 1] if node.level
                        else [])
                prefix = ".".join(base + ([node.module] if node.module else []))
                targets |= {owner(f"{prefix}.{a.name}") for a in node.names}
        graph[name] = {t for t in targets if t and t != name}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_anywhere_in_the_package():
    assert import_circles(import_graph()) == []


def test_the_circle_check_finds_a_circle(tmp_path):
    pkg = tmp_path / "nonsmooth"
    (pkg / "sub").mkdir(parents=True)
    (tmp_path / "models").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("from .. import a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from . import a\n")
    (pkg / "d.py").write_text("import nonsmooth.c\n")
    assert import_circles(import_graph(pkg)) == [["nonsmooth.a", "nonsmooth.sub.b"]]


#: The run's modules: ``simulate`` and ``nonsmooth/run/``.
RUN_MODULES = [PACKAGE / "simulate.py", *sorted((PACKAGE / "run").glob("*.py"))]


@pytest.mark.parametrize("path", RUN_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_run_reads_no_private_attribute_of_dynamics_or_the_system(path):
    assert private_reads(path) == []


def table_names(path: Path) -> list[str]:
    """The planar tables' names used in ``path`` as variables, attributes or arguments."""
    tree = ast.parse(path.read_text(), filename=str(path))
    out = []
    for node in ast.walk(tree):
        name = (node.id if isinstance(node, ast.Name) else node.attr
                if isinstance(node, ast.Attribute) else node.arg
                if isinstance(node, ast.arg) else None)
        if name in TABLE_NAMES:
            out.append(f"{path.name}:{node.lineno}: {name}")
    return out


@pytest.mark.parametrize("path", [*sorted((PACKAGE / "core").rglob("*.py")), *RUN_MODULES],
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_core_and_the_run_know_no_planar_table(path):
    """Issue 20: the planar tables' names appear in no core or run module, and the run imports
    no family module (it calls ``Dynamics`` and ``CompiledFamily``)."""
    assert table_names(path) == []
    if path in RUN_MODULES:
        assert forbidden_imports(path, RUN_FORBIDDEN) == []


def test_the_checks_find_what_they_look_for(tmp_path):
    """The checks above can fail: each finds its kind of line in a file made to have it."""
    core = tmp_path / "nonsmooth" / "core"
    core.mkdir(parents=True)
    bad = core / "bad.py"
    bad.write_text("from ..planar import PlanarSystem\nimport numba\n"
                   "def f(run):\n    from .. import dynamics\n"
                   "    return run.dyn._plan, run.system._user, dyn.__class__\n")
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "nonsmooth"
    try:
        assert forbidden_imports(bad, CORE_FORBIDDEN) == [
            "nonsmooth.planar", "nonsmooth.planar.PlanarSystem", "nonsmooth.dynamics"]
        assert forbidden_imports(bad, ("numba",)) == ["numba"]
        assert private_reads(bad) == ["bad.py:5: dyn._plan", "bad.py:5: system._user"]
        bad.write_text("def f(it, system):\n    return system.tables.ints\n")
        assert table_names(bad) == ["bad.py:1: it", "bad.py:2: ints", "bad.py:2: tables"]
    finally:
        PACKAGE = saved


def test_importing_the_package_the_core_and_the_contract_loads_no_numba():
    code = ("import sys, nonsmooth, nonsmooth.core.layout, nonsmooth.core.status, "
            "nonsmooth.family; print(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('numba', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout
