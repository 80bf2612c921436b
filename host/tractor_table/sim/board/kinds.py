"""Which firmware code the board model charges as native code (issue 22).

The board's virtual clock charges the firmware's bytecode at
``CPU_FACTOR`` (GENERIC x FLASH_WAIT, 162.5) and its ``@micropython.native``
methods at ``C_FACTOR`` (the rp2 port's native-code ratio, 68 x 1.3): the
wrappers of ``mpy/kinds.py`` switch the clock's factor as the code's kind
changes. This module reads the firmware's source for them: the native methods
and functions of ``KIND_MODULES``, and the bytecode ones that native code
calls (a stretch of bytecode inside a native call; bytecode called from
bytecode is charged right without a wrapper), as
``tractor_table.adversarial.engine_methods`` does for the rules engine.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

#: the firmware modules whose native code the board charges as native: the
#: readers' polling path (the rules engine's native methods are charged at
#: the bytecode factor on the board, as before: docs/performance.md)
KIND_MODULES = ("scanner", "pn532")

#: (module, class or "", name, positional arity, 1 native / 0 bytecode,
#: the defaults of the last parameters)
Kind = tuple[str, str, str, int, int, tuple[Any, ...]]


def _is_native(f: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Attribute) and d.attr == "native" for d in f.decorator_list)


def fw_kinds(fw_dir: Path, modules: tuple[str, ...] = KIND_MODULES) -> list[Kind]:
    """The wrappers the board needs for ``modules`` of the firmware in ``fw_dir``."""
    defs: list[tuple[str, str, ast.FunctionDef]] = []
    for m in modules:
        tree = ast.parse((fw_dir / f"{m}.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                defs.append((m, "", node))
            elif isinstance(node, ast.ClassDef):
                for f in node.body:
                    if isinstance(f, ast.FunctionDef) and not f.name.startswith("__"):
                        defs.append((m, node.name, f))
    # the kinds of the code that calls each method (by name) or function
    callers: dict[tuple[str, str], set[int]] = {}
    for m, _cls, f in defs:
        kind = 1 if _is_native(f) else 0
        for n in ast.walk(f):
            if isinstance(n, ast.Call):
                if isinstance(n.func, ast.Attribute):
                    callers.setdefault(("", n.func.attr), set()).add(kind)
                elif isinstance(n.func, ast.Name):
                    callers.setdefault((m, n.func.id), set()).add(kind)
    out: list[Kind] = []
    for m, cls, f in defs:
        kind = 1 if _is_native(f) else 0
        by = callers.get(("", f.name) if cls else (m, f.name), set())
        # wrapped where code of the other kind calls it, or (native) where
        # only other modules do (picoboard.taps calls Scanner.tick): a call
        # between two pieces of code of one kind needs no switch
        wanted = bool(by - {kind}) or (kind == 1 and not by)
        if not wanted or f.args.vararg or f.args.kwarg or f.args.kwonlyargs:
            continue
        dflt = tuple(ast.literal_eval(d) for d in f.args.defaults)
        out.append((m, cls, f.name, len(f.args.args), kind, dflt))
    return out


def write_fwkinds(path: Path, kinds: list[Kind]) -> None:
    """``fwkinds.py`` for the board (mpy/kinds.py reads KINDS from it)."""
    path.write_text(
        "# written by tractor_table.sim.board.kinds: the firmware's code by kind\nKINDS = (\n"
        + "".join(f"    {k!r},\n" for k in kinds)
        + ")\n",
        encoding="utf-8",
    )
