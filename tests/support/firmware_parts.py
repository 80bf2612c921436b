"""The firmware's parts tables, read from the source (``ast``, nothing run):
``table.PARTS`` (the table core's parts, loaded by name when a phase or an
option needs them) and ``tablerules.PARTS`` (the modules the rules engine is
assembled from, dropped with it). docs/firmware.md, "The firmware's parts".

A parts table is a module-level ``PARTS = ("name", ...)`` of string literals:
the modules its module loads (or drops) by name. Tools that read imports
(the import-cycle test, the table's layering test) count each as an import.
"""

from __future__ import annotations

import ast
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def parts_table(tree: ast.Module) -> list[tuple[str, int]]:
    """(module name, line) of each entry of the module's ``PARTS`` table; [] without one."""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [ast.unparse(t) for t in node.targets] == ["PARTS"]
            and isinstance(node.value, ast.Tuple)
        ):
            out = []
            for elt in node.value.elts:
                if not (isinstance(elt, ast.Constant) and isinstance(elt.value, str)):
                    raise ValueError(f"PARTS holds {ast.unparse(elt)}: a parts table lists module names as string literals")
                out.append((elt.value, elt.lineno))
            return out
    return []


def parts_of(module: str, folder: Path = FIRMWARE) -> list[str]:
    """The names in ``folder/module.py``'s parts table, in order."""
    tree = ast.parse((folder / f"{module}.py").read_text(encoding="utf-8"))
    return [name for name, _ in parts_table(tree)]
