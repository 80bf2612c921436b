"""Events are decoded once: no host module but ``tractor_table.events`` reads a
game event (or a link note) by position.

The table's events are flat lists (``[kind, field, ...]``, firmware/evlayout.py
names the fields); ``tractor_table.events.decode`` turns each into a typed
value, and every other module reads ``ev.seat``, ``ev.cards``. This test reads
every host module's syntax tree and fails on a subscript by a constant
position or a slice (``ev[4]``, ``e[8]``, ``ev[3:]``, ``note[0]``) of a name
that holds an event or a note, and on a HostLink note dispatched by its
string tag (``note[0] == "event"``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host" / "tractor_table"
#: the one module that knows where a field sits (and the typed notes, which
#: read HostLink's lists once)
DECODERS = {"events.py", "link/notes.py"}
#: names that hold a game event or a link note in the host's code
EVENTISH = {"ev", "e", "event", "evt", "mine", "theirs", "start", "end", "note", "n", "raw_event",
            "host_ev", "device_event", "host_event", "result_ev"}


def _positional(node: ast.Subscript) -> bool:
    idx = node.slice
    if isinstance(idx, ast.Slice):
        return True
    if isinstance(idx, ast.UnaryOp) and isinstance(idx.operand, ast.Constant):
        idx = idx.operand
    if isinstance(idx, ast.Constant) and isinstance(idx.value, int):
        return True
    return isinstance(idx, ast.BinOp) and isinstance(idx.left, ast.Constant)


def _subject(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def findings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _positional(node):
            name = _subject(node.value)
            if name in EVENTISH:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
        # a note's tag is its first position (note[0] == "event"); a record
        # read by key (an outbox row's it["kind"] == "event") is not a note
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Subscript) and _positional(node.left):
            right = node.comparators[0]
            if isinstance(right, ast.Constant) and right.value in ("event", "up", "app", "snapshot"):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)} (a note by its tag)")
    return out


def host_modules() -> list[Path]:
    return sorted(p for p in HOST.rglob("*.py") if p.relative_to(HOST).as_posix() not in DECODERS
                  and "mpy" not in p.relative_to(HOST).parts)


def test_no_host_module_reads_an_event_by_position() -> None:
    bad = [f for p in host_modules() for f in findings(p)]
    assert bad == [], (
        "read the typed event's fields (tractor_table.events: decode(raw) -> Play, Bid, ...; "
        "ev.seat, ev.cards) instead of its positions:\n" + "\n".join(bad)
    )


def test_the_check_finds_a_positional_read(tmp_path: Path) -> None:
    # the check itself: a module that reads an event by position, or a note
    # by its tag, is found; one that reads fields by name is not
    mod = HOST / "_probe_positional.py"
    try:
        mod.write_text(
            "def f(ev, note, rep):\n"
            "    a = ev[4]\n    b = ev[3:]\n    c = note[0] == 'event'\n"
            "    d = ev.seat\n    e = rep['score']\n    g = rep['kind'] == 'event'\n    return a, b, c, d, e, g\n",
            encoding="utf-8",
        )
        found = findings(mod)
    finally:
        mod.unlink()
    assert sorted(f.split(": ", 1)[1] for f in found) == [
        "ev[3:]", "ev[4]", "note[0]", "note[0] == 'event' (a note by its tag)"
    ]


def test_the_event_reader_is_not_in_the_simulators() -> None:
    # product modules take events from tractor_table.events, never from sim/
    assert not (HOST / "sim" / "virtual" / "events.py").exists()
    for p in host_modules():
        if "sim" in p.relative_to(HOST).parts:
            continue
        text = p.read_text(encoding="utf-8")
        assert "virtual.events" not in text and "virtual import events" not in text, p


def test_the_docs_table_of_kinds_is_the_layout() -> None:
    # docs/firmware.md, "Game events": each kind's row shows evlayout.py's notation
    import re

    from tractor_table import events as E

    text = (ROOT / "docs" / "firmware.md").read_text(encoding="utf-8")
    rows = {int(k): (name, fields) for k, name, fields in
            re.findall(r"^\| (\d+) \| `([A-Z_]+)` \| `([^`]*)` \|", text, flags=re.M)}
    assert set(rows) == set(E.layouts()), "docs/firmware.md lists other kinds than firmware/evlayout.py"
    for kind, lay in E.layouts().items():
        name, fields = rows[kind]
        assert name == E.EventKind(kind).name and fields == lay.text(), (kind, fields, lay.text())


def test_a_field_added_to_the_layout_stops_the_host_naming_it(monkeypatch: object) -> None:
    # a made-up field in the firmware's layout: the host's typed event no
    # longer matches and the check says which class and which fields
    import pytest
    from tractor_table import events as E

    mp = pytest.MonkeyPatch()
    lay = dict(E.layouts())
    lay[int(E.EventKind.TRICK)] = E._parse_layout(int(E.EventKind.TRICK), "trick winner points attackers_score bonus")
    mp.setattr(E, "layouts", lambda: lay)
    try:
        with pytest.raises(ImportError, match=r"events\.Trick has the fields .*firmware/evlayout\.py"):
            E._check_classes()
    finally:
        mp.undo()
    E._check_classes()  # the real layout: every class agrees


def test_every_event_the_table_core_makes_reads_back_as_itself() -> None:
    # the firmware's own table core (under CPython) plays a hand's start; each
    # event it emits decodes to a typed value whose raw() is the very list
    from tractor_table import events as E
    from tractor_table.vocab import loader

    T, EV = loader.firmware("table"), loader.firmware("events")
    rules, link = loader.firmware("tablerules"), loader.firmware("ttlink")
    t = T.Table(rules.TableRules(1), decks=1, chain_hash=link.chain_hash)
    t.tap(2, 13, 10)
    t.button(2, EV.BTN_OK, 20)
    t.button(2, EV.BTN_OK, 30)
    t.tap(1, 999, 40)  # an unknown tag: a REJECT
    got = [raw for _, _, raw in t.take_events()]
    assert len(got) >= 3
    for raw in got:
        ev = E.decode(raw)
        assert not isinstance(ev, E.Unknown) and ev.raw() == raw, raw
    kinds = [type(E.decode(r)) for r in got]
    assert kinds[:3] == [E.HandStart, E.Bid, E.Trump]


def test_a_malformed_event_is_named_and_the_link_keeps_it_whole() -> None:
    from tractor_table import events as E

    for bad, says in (([6], "PLAY [6]: 0 fields"), ([3, 1, 2], "TRUMP [3, 1, 2]: 2 fields"),
                      ([6, 0, 2, 999], "card ids run from 0"), ([2, 0, 7, 0], "accepted is 0 or 1"),
                      ([], "non-empty list")):
        try:
            E.decode(bad)
        except E.EventError as exc:
            assert says in str(exc), (bad, str(exc))
        else:
            raise AssertionError(f"{bad!r} decoded")
        if bad:
            kept = E.decode(bad, lenient=True, index=3, hash=9)
            assert isinstance(kept, E.Unknown) and kept.raw() == bad and kept.problem and kept.index == 3
