"""Which modules the rp2 port of MicroPython ships, read from the stubs package.

``micropython-rp2-rpi-pico-stubs`` has one stub per module of the port (with
``u``-prefixed aliases such as ``ustruct`` for ``struct``); its file list is the
authority the firmware import check uses.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

STUBS_DISTRIBUTION = "micropython-rp2-rpi-pico-stubs"


def rp2_module_names() -> frozenset[str]:
    try:
        dist = metadata.distribution(STUBS_DISTRIBUTION)
    except metadata.PackageNotFoundError as exc:  # pragma: no cover - setup problem
        raise RuntimeError(f"{STUBS_DISTRIBUTION} is not installed; run 'make setup'") from exc
    names: set[str] = set()
    for f in dist.files or ():
        parts = f.parts
        if not parts or ".dist-info" in parts[0] or not f.name.endswith(".pyi"):
            continue
        top = parts[0].removesuffix(".pyi")
        if top.startswith("_") and top != "_thread":
            continue
        names.add(top)
        if top.startswith("u") and len(top) > 2:
            names.add(top[1:])  # ustruct -> struct, uasyncio -> asyncio, ...
    return frozenset(names)


@dataclass(frozen=True)
class ImportUse:
    file: Path
    line: int
    module: str
    guarded: bool  # inside ``try: ... except ImportError``


def _guards_import_error(handler: ast.ExceptHandler) -> bool:
    t = handler.type
    names = [t] if not isinstance(t, ast.Tuple) else list(t.elts)
    return any(isinstance(n, ast.Name) and n.id in {"ImportError", "ModuleNotFoundError"} for n in names)


def imports_of(path: Path) -> list[ImportUse]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    uses: list[ImportUse] = []

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.Try):
            g = guarded or any(_guards_import_error(h) for h in node.handlers)
            for stmt in node.body:
                visit(stmt, g)
            rest: list[ast.AST] = [*node.handlers, *node.orelse, *node.finalbody]
            for other in rest:
                visit(other, guarded)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                uses.append(ImportUse(path, node.lineno, alias.name.split(".")[0], guarded))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            uses.append(ImportUse(path, node.lineno, node.module.split(".")[0], guarded))
        for child in ast.iter_child_nodes(node):
            visit(child, guarded)

    visit(tree, False)
    return uses
