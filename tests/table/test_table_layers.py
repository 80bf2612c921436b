"""The table core's layering (docs/firmware.md, "Table core"): tablebase.py
holds the state, its constants and the outputs and imports no part; each part
(the phases and options: tabledeal, tabletrick, tablesnap, tablerestore,
tablescan, tablereveal, tablecall, tablefriend, tableforfeit, tableundo) imports only the
base, events.py and the rules engine; table.py alone loads the parts; no part
reaches into the Table's private names; and no firmware module imports itself
back through any chain, lazy imports inside functions and modules loaded by
name (``__import__("x")``, ``sys.modules.pop("x")``) included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from astread import docstring_ids

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"

BASE = "tablebase"
PARTS = (
    "tabledeal",
    "tablestart",
    "tabletrick",
    "tablehandend",
    "tablesnap",
    "tablerestore",
    "tablescan",
    "tablereveal",
    "tablecall",
    "tablefriend",
    "tableforfeit",
    "tableundo",
)
# what a part may import besides the base: the events, the rules engine, and
# the modules MicroPython itself has
ENGINE = ("events", "drules_hand", "drules_friend", "drules")
BUILTIN = ("sys", "gc", "micropython", "typing")


def module_refs(source: str, names: set[str]) -> set[str]:
    """The modules among ``names`` that ``source`` imports anywhere (at the top,
    inside a function, under a try) or names in a string (``__import__("x")``,
    a loader's ``_opt("x")``, a table of module names, ``sys.modules.pop("x")``):
    a module loaded by name is a dependency as much as one imported."""
    tree = ast.parse(source)
    skip = docstring_ids(tree)
    refs: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            refs.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            refs.add(node.module.split(".")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            refs.add(node.value)
    return refs & names


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Each module of ``folder`` -> the modules of ``folder`` it depends on (itself left out)."""
    mods = {p.stem: p for p in folder.glob("*.py")}
    names = set(mods)
    return {m: module_refs(p.read_text(), names) - {m} for m, p in mods.items()}


def find_cycle(graph: dict[str, set[str]], roots: tuple[str, ...] | None = None) -> list[str] | None:
    """A cycle among the modules reachable from ``roots`` (all: None) as
    [a, b, ..., a], or None (depth-first search, modules in name order)."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return path[path.index(n) :] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph) if roots is None else roots:
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(FIRMWARE)


def test_no_table_module_imports_itself_back(graph: dict[str, set[str]]) -> None:
    # every module the table core reaches, lazily or by name, included (the
    # repository-wide check of firmware, host and engine is not this file's)
    core = ("table", BASE, *PARTS)
    assert find_cycle(graph, core) is None, " -> ".join(find_cycle(graph, core) or [])
    # the table's users, and all they reach
    users = ("main", "display", "enrollmode", "picoboard", "persist")
    assert find_cycle(graph, users) is None, " -> ".join(find_cycle(graph, users) or [])


def test_the_base_imports_no_part_and_not_the_table(graph: dict[str, set[str]]) -> None:
    assert graph[BASE] <= {"events"}, graph[BASE]


def test_each_part_imports_only_the_base_the_events_and_the_engine(graph: dict[str, set[str]]) -> None:
    for part in PARTS:
        assert part in graph, f"{part}.py is gone: update PARTS and docs/firmware.md"
        extra = graph[part] - {BASE, *ENGINE}
        assert not extra, f"{part} imports {sorted(extra)}: a part reaches another only through table.Table"


def test_only_the_table_loads_the_parts(graph: dict[str, set[str]]) -> None:
    # every firmware module but table.py stays off the parts (display.py finds
    # find-a-friend's lines in the table's own t.friend); the base is the
    # parts' and the users' vocabulary
    for m, refs in graph.items():
        if m not in ("table", *PARTS):
            loaded = refs & set(PARTS)
            assert not loaded, f"{m} loads {sorted(loaded)}: only table.py does"
    assert set(PARTS) <= graph["table"]
    assert {"tablebase", "tabletrick", "tablesnap"} <= graph["table"]


def _private_uses(source: str, owners: tuple[str, ...]) -> list[str]:
    """``owner._name`` (not dunder) uses in ``source``, where owner is a plain
    name among ``owners`` or an attribute ``.table``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
            continue
        v = node.value
        owner = v.id if isinstance(v, ast.Name) else v.attr if isinstance(v, ast.Attribute) else None
        if owner in owners:
            out.append(f"line {node.lineno}: {owner}.{node.attr}")
    return out


def test_no_part_or_user_reaches_into_the_tables_private_names() -> None:
    # the parts get the table's state as `tb`; main.py, enrollmode.py and the
    # display see it as `table`, `t` or `app.table`; T is the base module
    found = {}
    for p in sorted(FIRMWARE.glob("*.py")):
        if p.stem in ("table", BASE):
            continue
        uses = _private_uses(p.read_text(), ("tb", "t", "table", "T"))
        if uses:
            found[p.name] = uses
    assert not found, found


# --- the walker itself ----------------------------------------------------------------


def test_the_walker_finds_lazy_and_by_name_cycles(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def f():\n    import c\n")
    (tmp_path / "c.py").write_text('"""a docstring naming a"""\ndef g():\n    return __import__("a")\n')
    (tmp_path / "d.py").write_text('import sys\nsys.modules.pop("d", None)\nfrom a import x\n')
    g = import_graph(tmp_path)
    assert g == {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(g) == ["a", "b", "c", "a"]
    assert find_cycle(g, ("d",)) == ["a", "b", "c", "a"]  # reached from d
    (tmp_path / "c.py").write_text('"""a docstring naming a"""\n')
    assert find_cycle(import_graph(tmp_path)) is None


def test_the_private_check_finds_a_private_call() -> None:
    src = "def f(tb, app):\n    tb._emit([1])\n    app.table._say('x', 0)\n    tb.emit([1])\n    tb.__class__\n"
    assert _private_uses(src, ("tb", "table")) == ["line 2: tb._emit", "line 3: table._say"]
