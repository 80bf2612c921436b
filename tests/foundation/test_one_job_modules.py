"""The host modules that did several jobs are packages of one-job modules
(docs/development.md, "The host's modules"): ``vocab/``, ``deploy/`` and
``hardware/`` (and ``records/``, ``enroll/`` before them). Read from the source:
no module of the old name is left beside its package; the new packages'
``__init__.py`` hold their docs only (no names to import: every importer
names the module that does the job); and the modules, in the order the docs'
table lists them, never import one listed after them (no cycle inside)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host" / "tractor_table"
SPLIT = ("vocab", "deploy", "hardware")
ORDERED = ("records", "enroll", "vocab", "deploy", "hardware")


def docs_order(package: str) -> list[str]:
    """The modules of ``package`` in the order of its row in docs/development.md's table."""
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith(f"| `{package}/`"))
    cell = row.split("|")[2]
    return [m for m in re.findall(r"`(\w+)\.py`", cell)]


def package_imports(package: str, module: str) -> set[str]:
    """The modules of ``package`` that ``module`` imports at run time (TYPE_CHECKING ones aside)."""
    tree = ast.parse((HOST / package / f"{module}.py").read_text(encoding="utf-8"))
    skip = {
        id(sub)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for sub in ast.walk(node)
    }
    mods = {p.stem for p in (HOST / package).glob("*.py")}
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip or not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 1 and node.module:
            out.add(node.module.split(".")[0])
        elif node.level == 1:
            out |= {a.name for a in node.names}
        elif node.level == 0 and node.module and node.module.startswith(f"tractor_table.{package}."):
            out.add(node.module.split(".")[2])
    return out & mods


def test_no_module_of_the_old_name_is_left() -> None:
    for name in SPLIT:
        assert not (HOST / f"{name}.py").exists(), f"{name}.py is the package {name}/ now"
        assert (HOST / name / "__init__.py").is_file()


def test_the_split_packages_init_holds_its_docs_only() -> None:
    for name in SPLIT:
        tree = ast.parse((HOST / name / "__init__.py").read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{name}/__init__.py: say which module does what"
        assert len(tree.body) == 1, f"{name}/__init__.py defines or imports names: import them from their module"


def test_each_module_has_its_docs_and_a_row_in_the_table() -> None:
    for name in ORDERED:
        listed = docs_order(name)
        files = sorted(p.stem for p in (HOST / name).glob("*.py") if not p.stem.startswith("__"))
        assert sorted(listed) == files, f"docs/development.md's row for {name}/ lists {listed}, the folder has {files}"
        for m in files:
            assert ast.get_docstring(ast.parse((HOST / name / f"{m}.py").read_text(encoding="utf-8"))), f"{name}/{m}.py"


def test_no_module_imports_one_listed_after_it() -> None:
    for name in ORDERED:
        order = docs_order(name)
        for i, m in enumerate(order):
            later = package_imports(name, m) & set(order[i + 1 :])
            assert later == set(), f"{name}/{m}.py imports {sorted(later)}, listed after it in docs/development.md"
