"""No import cycle in firmware/, host/tractor_table or engine/shengji.

The imports are read from the source (``ast``), not run: every ``import`` and
``from ... import`` at module level and inside functions and classes, relative
and absolute, and the firmware's ``__import__("name")`` and its parts tables (a module-level
``PARTS = ("name", ...)``: firmware/table.py's and drules.py's, the modules
loaded by name; tests/support/firmware_parts.py), but not the ones under
``if TYPE_CHECKING:``, which never run. ``from pkg import name`` counts as an
import of ``pkg.name`` when that is a module, else of ``pkg``. A package's
``__init__`` is not counted as imported by its submodules (Python gives them the
half-initialised package), only where a module imports it by name.

A cycle fails the test with its modules in order and the line of each import:
``a -> b (a.py:12) -> a (b.py:40)``. The same graph checks the layering: the
operator console (``tractor_table.console``) does not import a CLI command
(``tractor_table.commands``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from firmware_parts import parts_table

ROOT = Path(__file__).resolve().parents[2]

#: The firmware's table core (table.py, tablebase.py and its parts), layered
#: without a cycle since branch ``tablecore`` (tests/table/test_table_layers.py
#: checks its layers).
TABLE_CORE = "table"
#: The link's two ends: ttlink_host (the host's end) imports ttlink, never the other way
#: round (whoever plays the host imports ttlink_host itself); its own test keeps it so.
LINK = "ttlink"
KNOWN: tuple[str, ...] = ()  # no known cycle left


@dataclass
class Graph:
    """Modules and their imports: ``edges[a][b]`` is where ``a`` imports ``b`` (path:line)."""

    root: Path
    modules: dict[str, Path] = field(default_factory=dict)
    edges: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, a: str, b: str, where: str) -> None:
        if b in self.modules and b != a:  # a package's __init__ naming its own attributes is no cycle
            self.edges.setdefault(a, {}).setdefault(b, where)


def _package_modules(top: Path, package: str) -> dict[str, Path]:
    """``package.sub.mod`` -> its file, for every .py below ``top`` (the package's folder)."""
    found: dict[str, Path] = {}
    for path in sorted(top.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(top).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join([package, *parts])] = path
    return found


def _flat_modules(top: Path) -> dict[str, Path]:
    """The firmware: every top-level .py is a module named by its file (they import each other by name)."""
    return {p.stem: p for p in sorted(top.glob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node below ``tree`` except what sits under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _imported_by_name(node: ast.Call) -> str | None:
    """The module a call imports by a literal name: ``__import__("x")``, ``importlib.import_module("x")``."""
    func = node.func
    named = (isinstance(func, ast.Name) and func.id == "__import__") or (
        isinstance(func, ast.Attribute) and func.attr == "import_module"
    )
    if named and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of ``from <level dots><name> import ...`` written in ``module``."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def build(trees: Iterable[tuple[Path, str | None]], root: Path = ROOT) -> Graph:
    """The import graph of the given trees: (folder, package name), or (folder, None) for firmware/;
    each import's place is written relative to ``root``."""
    graph = Graph(root)
    for top, package in trees:
        graph.modules.update(_package_modules(top, package) if package else _flat_modules(top))
    for module, path in graph.modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        rel = path.relative_to(root)
        for name, line in parts_table(tree):  # the modules it loads by name (firmware: table, drules)
            graph.add(module, name, f"{rel}:{line}")
        for node in sorted(_import_nodes(tree), key=lambda n: getattr(n, "lineno", 0)):
            where = f"{rel}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    graph.add(module, alias.name, where)
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(module, is_package, node.level, node.module)
                for alias in node.names:
                    sub = f"{target}.{alias.name}" if target else alias.name
                    graph.add(module, sub if sub in graph.modules else target, where)
            elif isinstance(node, ast.Call):
                name = _imported_by_name(node)
                if name:
                    graph.add(module, name, where)
    return graph


def strongly_connected(graph: Graph) -> list[list[str]]:
    """The import cycles' strongly connected components (more than one module, or one importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0

    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.edges.get(start, {}))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.edges.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1 or node in graph.edges.get(node, {}):
                    out.append(sorted(comp))
    return sorted(out)


def shortest_cycle(graph: Graph, comp: list[str]) -> list[str]:
    """A shortest cycle inside ``comp``, from its first module back to it."""
    members = set(comp)
    best: list[str] | None = None
    for start in comp:
        parent: dict[str, str] = {}
        frontier = [start]
        seen = {start}
        found = None
        while frontier and found is None:
            nxt = []
            for node in frontier:
                for child in sorted(graph.edges.get(node, {})):
                    if child not in members:
                        continue
                    if child == start:
                        found = node
                        break
                    if child not in seen:
                        seen.add(child)
                        parent[child] = node
                        nxt.append(child)
                if found is not None:
                    break
            frontier = nxt
        if found is None:
            continue
        path = [found]
        while path[-1] != start:
            path.append(parent[path[-1]])
        cycle = [*reversed(path), start]
        if best is None or len(cycle) < len(best):
            best = cycle
    assert best is not None
    return best


def describe(graph: Graph, comp: list[str]) -> str:
    cycle = shortest_cycle(graph, comp)
    hops = " -> ".join(
        [cycle[0]] + [f"{b} ({graph.edges[a][b]})" for a, b in zip(cycle, cycle[1:], strict=False)]
    )
    return f"cycle of {len(comp)} module(s) {{{', '.join(comp)}}}, e.g. {hops}"


FIRMWARE = (ROOT / "firmware", None)
HOST = (ROOT / "host" / "tractor_table", "tractor_table")
ENGINE = (ROOT / "engine" / "shengji", "shengji")


def _cycles(*trees: tuple[Path, str | None]) -> tuple[Graph, list[list[str]]]:
    graph = build(trees)
    return graph, strongly_connected(graph)


def test_no_import_cycle_in_host() -> None:
    graph, comps = _cycles(HOST)
    assert not comps, "\n".join(describe(graph, c) for c in comps)


def test_no_import_cycle_in_engine() -> None:
    graph, comps = _cycles(ENGINE)
    assert not comps, "\n".join(describe(graph, c) for c in comps)


def test_no_import_cycle_in_firmware_outside_the_known_ones() -> None:
    graph, comps = _cycles(FIRMWARE)
    rest = [c for c in comps if not any(k in c for k in KNOWN)]
    assert not rest, "\n".join(describe(graph, c) for c in rest)


def test_no_import_cycle_in_the_firmware_table_core() -> None:
    graph, comps = _cycles(FIRMWARE)
    core = [c for c in comps if TABLE_CORE in c]
    assert not core, "\n".join(describe(graph, c) for c in core)


def test_no_import_cycle_between_the_firmware_link_ends() -> None:
    graph, comps = _cycles(FIRMWARE)
    link = [c for c in comps if LINK in c and TABLE_CORE not in c]
    assert not link, "\n".join(describe(graph, c) for c in link)


def test_the_console_does_not_import_a_cli_command() -> None:
    graph = build([HOST])
    found = [
        f"{a} imports {b} ({where})"
        for a, targets in sorted(graph.edges.items())
        if a == "tractor_table.console" or a.startswith("tractor_table.console.")
        for b, where in sorted(targets.items())
        if b == "tractor_table.commands" or b.startswith("tractor_table.commands.")
    ]
    assert not found, "the operator console uses a CLI command's code; move it to a module both use:\n" + "\n".join(
        found
    )


# --- the walker itself, on small trees written here ---


def _write(tmp: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp


@pytest.mark.parametrize(
    "files",
    [
        {"pkg/__init__.py": "", "pkg/a.py": "from . import b\n", "pkg/b.py": "from .a import x\n"},
        {"pkg/__init__.py": "", "pkg/a.py": "def f():\n    import pkg.b\n", "pkg/b.py": "from pkg import a\n"},
        {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/a.py": "from ..b import y\n",
         "pkg/b.py": "def g():\n    from .sub.a import z\n"},
        {"pkg/__init__.py": "from .a import f\n", "pkg/a.py": "from pkg import version\n"},
    ],
)
def test_the_walker_finds_a_cycle(tmp_path: Path, files: dict[str, str]) -> None:
    top = _write(tmp_path, files) / "pkg"
    graph = build([(top, "pkg")], root=tmp_path)
    comps = strongly_connected(graph)
    assert comps, files
    assert " -> " in describe(graph, comps[0])


def test_the_walker_finds_a_firmware_cycle_through_a_parts_table(tmp_path: Path) -> None:
    _write(tmp_path, {
        "fw/table.py": "PARTS = (\n    'tablescan',\n    'tabledeal',\n)\ndef f():\n    __import__(PARTS[1]).deal()\n",
        "fw/tabledeal.py": "import table\n",
        "fw/main.py": "import table\n",
    })
    graph = build([(tmp_path / "fw", None)], root=tmp_path)
    assert strongly_connected(graph) == [["table", "tabledeal"]]
    assert describe(graph, ["table", "tabledeal"]).endswith(
        "table -> tabledeal (fw/table.py:3) -> table (fw/tabledeal.py:1)"
    )


@pytest.mark.parametrize(
    "files",
    [
        {"pkg/__init__.py": "", "pkg/a.py": "from . import b\n", "pkg/b.py": "import os\n"},
        {"pkg/__init__.py": "", "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
         "pkg/b.py": "from .a import A\n"},
        {"pkg/__init__.py": "from .a import f\n", "pkg/a.py": "from .b import g\n", "pkg/b.py": "x = 1\n"},
    ],
)
def test_the_walker_takes_a_tree_without_cycles(tmp_path: Path, files: dict[str, str]) -> None:
    top = _write(tmp_path, files) / "pkg"
    assert strongly_connected(build([(top, "pkg")], root=tmp_path)) == []
