"""No two top-level classes of host/, engine/ and firmware/ share a name.

Two classes of one name (there were two ``CardSet``s: an enrolled card set
and the card map deploy copies) make a reader guess which one a line means.
The only repeats allowed are listed in :data:`SEPARATE`, each with the two
files and why they are separate on purpose; a new repeat, or a third class
of a listed name, fails.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREES = ("host", "engine", "firmware")

#: name -> the files that may each define it, and why
SEPARATE: dict[str, tuple[frozenset[str], str]] = {
    # the link's typed game events (the table's wire events, one class per kind
    # of firmware/evlayout.py) beside the full engine's hand events (its inputs)
    **{
        name: (
            frozenset({"host/tractor_table/events.py", "engine/shengji/hand.py"}),
            "tractor_table.events decodes what the table sent (a PLAY with its trick and seat); "
            "shengji.hand's are what a hand is fed; the replayer turns the one into the other",
        )
        for name in ("Bid", "Call", "Challenge", "Play", "Scan", "Trick")
    },
    "Revoke": (
        frozenset({"host/tractor_table/events.py", "engine/shengji/rules.py"}),
        "the table's REVOKE event (a revoke proven) and the rules' revoke option (flag or forfeit)",
    ),
    "App": (
        frozenset({"host/tractor_table/link/notes.py", "firmware/main.py"}),
        "the link's note of an application message (host) and the table's main application (firmware)",
    ),
    "Sweep": (
        frozenset({"engine/shengji/sweep.py", "firmware/drules_sweep.py"}),
        "the two rules engines are separate code on purpose (no shared code) and must agree "
        "verdict for verdict: the device engine mirrors the full engine's sweep by name",
    ),
    "CaseError": (
        frozenset({"engine/shengji/caseerror.py", "host/tractor_table/sim/engine/mpy/serve_mp.py"}),
        "the two engines' conformance runners (the full engine's, and the device engine's under "
        "MicroPython) answer the same cases and name the same error in their answers "
        "('CaseError: ...'); separate code on purpose, as the engines are",
    ),
    "Store": (
        frozenset({"host/tractor_table/records/store.py", "firmware/persist.py"}),
        "two programs that never meet: the host's SQLite records (CPython, never loads "
        "firmware/persist.py) and the table's saves on its flash (the Pico)",
    ),
}


def _top_level_classes(tree: ast.Module) -> list[ast.ClassDef]:
    """The module's classes, those under a top-level ``if``/``try``/``with`` too."""
    out: list[ast.ClassDef] = []
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.ClassDef):
            out.append(node)
        elif isinstance(node, ast.If | ast.With):
            todo += [*node.body, *getattr(node, "orelse", [])]
        elif isinstance(node, ast.Try):
            todo += [*node.body, *node.orelse, *node.finalbody]
            for h in node.handlers:
                todo += h.body
    return out


def classes_by_name(root: Path = ROOT) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for tree in TREES:
        for path in sorted((root / tree).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(root).as_posix()
            module = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
            for cls in _top_level_classes(module):
                found[cls.name].append(f"{rel}:{cls.lineno}")
    return found


def _repeats(found: dict[str, list[str]]) -> list[str]:
    bad = []
    for name, where in sorted(found.items()):
        if len(where) < 2:
            continue
        files = frozenset(w.rsplit(":", 1)[0] for w in where)
        allowed = SEPARATE.get(name)
        if allowed is not None and files == allowed[0] and len(where) == len(files):
            continue
        bad.append(f"class {name} is defined {len(where)} times: {', '.join(where)}")
    return bad


def test_no_two_top_level_classes_share_a_name() -> None:
    bad = _repeats(classes_by_name())
    assert bad == [], (
        "rename one of each (or, if they are the same thing, keep one); a repeat that is "
        "separate on purpose goes into SEPARATE with its reason:\n" + "\n".join(bad)
    )


def test_every_allowed_repeat_is_still_there() -> None:
    found = classes_by_name()
    stale = [
        name for name, (files, _why) in SEPARATE.items()
        if frozenset(w.rsplit(":", 1)[0] for w in found.get(name, [])) != files
    ]
    assert stale == [], f"SEPARATE lists repeats the code no longer has: {stale}; drop them"


def test_a_repeat_is_found(tmp_path: Path) -> None:
    """The walk sees a repeat across trees and one under a top-level ``try``."""
    (tmp_path / "host").mkdir()
    (tmp_path / "engine").mkdir()
    (tmp_path / "firmware").mkdir()
    (tmp_path / "host" / "a.py").write_text("class CardSet:\n    pass\n")
    (tmp_path / "engine" / "b.py").write_text(
        "try:\n    class CardSet:\n        pass\nexcept ImportError:\n    pass\n"
    )
    (tmp_path / "firmware" / "c.py").write_text(
        "def f():\n    class Local:\n        pass\nclass Other:\n    class CardSet:\n        pass\n"
    )
    found = classes_by_name(tmp_path)
    assert _repeats(found) == ["class CardSet is defined 2 times: host/a.py:1, engine/b.py:2"]
    assert "Local" not in found  # a class inside a function is not top-level


def test_an_allowed_repeat_with_a_third_copy_fails() -> None:
    found = {"Sweep": ["engine/shengji/sweep.py:1", "firmware/drules_sweep.py:1", "host/x.py:3"]}
    assert _repeats(found) == [
        "class Sweep is defined 3 times: engine/shengji/sweep.py:1, firmware/drules_sweep.py:1, host/x.py:3"
    ]
    assert _repeats({"Sweep": found["Sweep"][:2]}) == []
