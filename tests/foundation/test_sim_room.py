"""The simulators live in their own room: no product module (the link, the
records, the reports, the console, deploy, the club) imports anything from
``tractor_table.sim``: the virtual table (``sim.virtual``), the board model
(``sim.board``), the PN532 simulator (``sim.pn532sim``) or the display panels'
models (``ssd1306sim``, ``ssd1309sim``). The simulators may import the product; the command line
(``tractor_table.commands``) wires the two together.

Imports are read from the source (module level and inside functions, relative
ones resolved, ``importlib.import_module("...")`` and ``__import__("...")``
with a literal name), not those under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
from pathlib import Path

HOST = Path(__file__).resolve().parents[2] / "host" / "tractor_table"
#: the product: packages and modules that run against a real table
PRODUCT = ("link", "records", "report", "console", "club", "deploy")
#: the simulators
SIMULATORS = ("tractor_table.sim",)
SIM_MODULES = ("ssd1306sim", "ssd1309sim")


def product_files() -> list[Path]:
    out: list[Path] = []
    for name in PRODUCT:
        p = HOST / name
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return out


def _module_of(path: Path) -> str:
    rel = path.relative_to(HOST.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package_of(path: Path) -> str:
    mod = _module_of(path)
    return mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                for sub in ast.walk(child):
                    if hasattr(sub, "lineno"):
                        lines.add(sub.lineno)
    return lines


def imports_of(path: Path, text: str | None = None) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path`` (or in ``text``
    read as the module at ``path``)."""
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text, str(path))
    skip = _type_checking_lines(tree)
    package = _package_of(path)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((node.lineno, mod))
            out += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            fn = ast.unparse(node.func)
            if fn in ("importlib.import_module", "import_module", "__import__") and isinstance(node.args[0].value, str):
                out.append((node.lineno, node.args[0].value))
    return out


def is_simulator(module: str) -> bool:
    return any(module == s or module.startswith(s + ".") for s in SIMULATORS) or module.rsplit(".", 1)[-1] in SIM_MODULES


def test_no_product_module_imports_a_simulator() -> None:
    files = product_files()
    assert len(files) > 30 and HOST / "deploy" / "install.py" in files
    bad = [
        f"{path.relative_to(HOST.parents[1])}:{line}: imports {mod}"
        for path in files
        for line, mod in imports_of(path)
        if is_simulator(mod)
    ]
    assert bad == [], (
        "product code must not import the simulators (sim/, ssd1306sim, ssd1309sim); "
        "move what both need beside them, or the simulator's part into the simulators:\n" + "\n".join(bad)
    )


def test_the_check_finds_an_import_of_a_simulator() -> None:
    # the reader of imports sees each way a module can be imported, and skips TYPE_CHECKING
    text = (
        "from typing import TYPE_CHECKING\n"
        "from ..sim.virtual.runner import VirtualTable\n"
        "import tractor_table.sim.pn532sim.chip\n"
        "def f():\n"
        "    from ..sim.board import flashsoak\n"
        "    import importlib\n"
        "    importlib.import_module('tractor_table.sim.virtual.game')\n"
        "    __import__('ssd1306sim')\n"
        "if TYPE_CHECKING:\n"
        "    from ..sim.board.runner import PicoTable\n"
        "from ..events import Event\n"
    )
    found = [(line, mod) for line, mod in imports_of(HOST / "link" / "probe.py", text) if is_simulator(mod)]
    assert [line for line, _ in found] == [2, 2, 3, 5, 5, 7, 8]
    assert "tractor_table.sim.virtual.runner" in {m for _, m in found}
    assert "tractor_table.sim.board.flashsoak" in {m for _, m in found}
    assert all(line != 10 for line, _ in found)  # under TYPE_CHECKING: not an import at run time
    assert not is_simulator("tractor_table.events") and not is_simulator("tractor_table.virtualize")


def test_the_simulators_are_all_in_the_sim_room() -> None:
    # no simulator package is left beside the product
    for name in ("virtual", "board", "pn532sim"):
        assert not (HOST / name).exists(), f"{name}/ belongs in sim/"
        assert (HOST / "sim" / name / "__init__.py").is_file()
