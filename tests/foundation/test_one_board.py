"""One board model (issue 23): the fast virtual board is a mode of the board
(``host/tractor_table/sim/board/``), not a second simulator. Its control
protocol is parsed in one place (``mpy/hands.py``) and documented once
(docs/firmware.md, "The control protocol"); one module says which tags a card
is and when a hand may put the next one down; one launcher starts either mode.
Read from the sources (their AST), so that a second copy fails here by name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "host" / "tractor_table" / "sim"
BOARD = SIM / "board" / "mpy"
HANDS = BOARD / "hands.py"
DOC = ROOT / "docs" / "firmware.md"


def _sources(where: Path) -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(), str(p)) for p in sorted(where.rglob("*.py"))}


def _functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]


def _calls(fn: ast.AST, attr: str) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == attr for n in ast.walk(fn)
    )


def _bytes_compared(fn: ast.AST) -> set[bytes]:
    out: set[bytes] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Compare):
            for side in (n.left, *n.comparators):
                if isinstance(side, ast.Constant) and isinstance(side.value, bytes):
                    out.add(side.value)
    return out


def _names(tree: ast.AST) -> set[str]:
    got = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return got | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


def test_the_control_lines_are_parsed_in_one_function() -> None:
    # a parser: reads lines and tells ops apart by their bytes (b"T", b"B", ...)
    parsers = [
        f"{p.relative_to(SIM)}:{fn.name}"
        for p, tree in _sources(SIM).items()
        for fn in _functions(tree)
        if _calls(fn, "readline") and _bytes_compared(fn)
    ]
    assert parsers == ["board/mpy/hands.py:control"], parsers
    # a tag given by UID ("U seat uid ...") is read from hex there alone
    unhex = [str(p.relative_to(SIM)) for p, tree in _sources(SIM).items() if _calls(tree, "unhexlify")]
    assert unhex == ["board/mpy/hands.py"], unhex


def test_one_module_puts_the_tags_down() -> None:
    # which tags a card is (the virtual deck's UID, a tag not in the map, two
    # at once) and how far apart a hand puts them: hands.py, for both modes
    # (pn532sim/ is the chip model itself and the USB reader's simulator)
    tagging = {"deck_uid", "UNKNOWN_UID", "OTHER_UID"}
    spacing = {"due", "_due", "next_due_ms"}
    placing = []
    for p, tree in _sources(SIM / "board").items():
        defined = {fn.name for fn in _functions(tree)}
        if _names(tree) & tagging or defined & spacing:
            placing.append(p.name)
    assert placing == ["hands.py"], placing


def test_one_launcher_and_one_board_per_mode() -> None:
    # the board's process is start.py in either mode; the fast mode's board
    # (the firmware's board interface given directly) is vboard.py alone, the
    # board model's is the real picoboard.py on machine.py
    # (sim/engine/mpy/chipjudge_mp.py runs the rules engine's checks on the
    # chip's stack too: a runner of the device engine, not a board)
    launchers = [p.name for p, tree in _sources(SIM).items() if _calls(tree, "run") and "chipstack" in _names(tree)
                 and p.name != "chipstack.py" and p.parent != SIM / "engine" / "mpy"]
    assert launchers == ["start.py"], launchers
    boards = [
        f"{p.name}:{c.name}"
        for p, tree in _sources(SIM).items()
        for c in ast.walk(tree)
        if isinstance(c, ast.ClassDef) and {"taps", "presses", "show", "beep"} <= {f.name for f in _functions(c)}
    ]
    assert boards == ["vboard.py:VirtualBoard"], boards
    assert not (SIM / "virtual" / "mpy").exists()


def test_every_op_parsed_is_documented_once() -> None:
    tree = ast.parse(HANDS.read_text())
    control = next(fn for fn in _functions(tree) if fn.name == "control")
    parsed = {b.decode() for b in _bytes_compared(control)}
    text = DOC.read_text()
    assert text.count("### The control protocol") == 1
    section = text.split("### The control protocol", 1)[1].split("\n### ", 1)[0]
    table = section.split("Control lines (host to board):", 1)[1].split("\n\n", 2)[1]
    documented = {m.group(1) for m in re.finditer(r"^\| `([^`\s]+)", table, re.M)}
    assert parsed == documented, (sorted(parsed - documented), sorted(documented - parsed))
