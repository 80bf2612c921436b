"""The firmware's parts are listed in one place each (docs/firmware.md, "The
firmware's parts"): the table core's in ``table.PARTS`` (the modules table.py
loads by name when a phase or an option needs them, and drops after), the
rules engine's in ``tablerules.PARTS`` (the modules ``drules.Engine`` is assembled
from, dropped with it). Read from the source: the tables match the firmware's
files, nothing is loaded by a name written anywhere else, and every firmware
module is reached from the entry points through imports and these tables."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from firmware_parts import FIRMWARE, parts_of, parts_table

#: modules nothing on the table imports: the entry points (boot.py, main.py),
#: the self-test deploy runs on the board (selftest), the host's end of the
#: link (ttlink_host: never on the table) and the layouts only the host reads
#: (evlayout, snaplayout: the table writes events and snapshots by position);
#: the NTAG pages of a PN532's tag (pn532tag: a tool's, the table reads UIDs)
ENTRIES = ("boot", "main", "selftest", "ttlink_host", "evlayout", "snaplayout", "pn532tag")


def _tree(name: str) -> ast.Module:
    return ast.parse((FIRMWARE / f"{name}.py").read_text(encoding="utf-8"))


def _modules() -> set[str]:
    return {p.stem for p in FIRMWARE.glob("*.py")}


def static_imports(name: str) -> set[str]:
    """The firmware modules ``name`` imports with an import statement (anywhere in it)."""
    out: set[str] = set()
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
    return out & _modules()


def test_the_parts_tables_name_firmware_files() -> None:
    files = _modules()
    for owner in ("table", "tablerules"):
        parts = parts_of(owner)
        assert parts, f"firmware/{owner}.py has no PARTS table"
        assert len(set(parts)) == len(parts), f"{owner}.PARTS names a module twice: {parts}"
        missing = [p for p in parts if p not in files]
        assert missing == [], f"{owner}.PARTS names modules that are not in firmware/: {missing}"


def test_the_table_core_loads_by_name_only_what_its_table_lists() -> None:
    # every __import__ in the firmware takes its name from a parts table:
    # no module is loaded by a name written anywhere else
    for path in sorted(FIRMWARE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "__import__":
                arg = ast.unparse(node.args[0])
                assert path.stem == "table" and re.fullmatch(r"PARTS\[\w+\]", arg), (
                    f"{path.name}:{node.lineno}: __import__({arg}): load a part through its module's PARTS table"
                )
    # the table core's parts: every table*.py beside the core's own modules is
    # either imported by table.py (it stays) or in its table (it comes and goes)
    core = {"table", "tablebase", "tablerules", "tableconfig"}  # the core, its rules adapter, table.cfg
    table_parts = {m for m in _modules() if m.startswith("table")} - core
    listed = set(parts_of("table"))
    assert table_parts - listed - static_imports("table") == set(), "a table part table.py neither imports nor lists"
    assert listed & static_imports("table") == set(), "a part both imported at the top and loaded by name"


def test_the_table_cores_part_numbers_match_its_table() -> None:
    # table.py names each part by a const index (_SCAN = const(0), ...): each
    # index is its part's place in PARTS, and the first three follow the phases
    # SCAN, REVEAL, CALL (tap() indexes PARTS by the phase)
    tree = _tree("table")
    parts = parts_of("table")
    consts = {
        t.id: node.value.args[0].value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == "const"
        for t in node.targets
        if isinstance(t, ast.Name) and isinstance(node.value.args[0], ast.Constant)
    }
    assert len(consts) == len(parts)
    for name, i in consts.items():
        assert parts[i] == "table" + name.strip("_").lower(), f"table.{name} = const({i}) is {parts[i]}"
    base = {
        t.id: node.value.args[0].value
        for node in _tree("tablebase").body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
        for t in node.targets
        if isinstance(t, ast.Name) and t.id in ("SCAN", "REVEAL", "CALL")
    }
    assert [base["SCAN"], base["REVEAL"], base["CALL"]] == [base["SCAN"] + i for i in range(3)]
    assert parts[:3] == ["tablescan", "tablereveal", "tablecall"]


def test_the_engines_table_lists_what_the_engine_is_made_of() -> None:
    # tablerules.PARTS: every module drules imports, directly or through its parts
    # (tablerules.unload drops exactly these with drules)
    seen: set[str] = set()
    todo = ["drules"]
    while todo:
        for m in static_imports(todo.pop()) - seen:
            seen.add(m)
            todo.append(m)
    assert set(parts_of("tablerules")) == seen
    assert "drules_hand" not in seen  # bids and settlement: the table keeps them (tablerules imports it)


def test_every_firmware_module_is_reached_from_the_entry_points() -> None:
    reached: set[str] = set()
    todo = list(ENTRIES)
    while todo:
        m = todo.pop()
        if m in reached:
            continue
        reached.add(m)
        todo += static_imports(m) | set(name for name, _ in parts_table(_tree(m)))
    assert _modules() - reached == set(), "firmware modules nothing imports or lists: add them to a parts table, or to ENTRIES here"


def test_the_reader_refuses_a_table_that_is_not_names(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text('PARTS = ("a", NAME)\n')
    try:
        parts_of("x", tmp_path)
    except ValueError as exc:
        assert "NAME" in str(exc)
    else:
        raise AssertionError("a PARTS entry that is no string literal was read")
    (tmp_path / "y.py").write_text('OTHER = ("a",)\n')
    assert parts_of("y", tmp_path) == []
