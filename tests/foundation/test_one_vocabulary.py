"""Every value the firmware and the host share is defined once, in the firmware.

The firmware names its shared values as ``const()`` (event kinds, reasons,
phases, the app messages, the snapshot's field indexes, the device rules
engine's codes, ...); the host reads them through ``tractor_table.vocab``.
This test reads every firmware ``NAME = const(int)`` and every module-level
table of literals, then scans the host's source for a copy:

- an integer bound at module or class level (an assignment, a tuple of them,
  an enum member) whose name is a firmware constant's, give or take a prefix
  (``PHASE_KITTY`` for ``KITTY``, ``WRONG_COUNT`` for ``R_WRONG_COUNT``), with
  the same value;
- a dict literal at module or class level mapping such a name (``Rule.X``,
  ``X``) to the firmware constant's value;
- a tuple, list or set of integer literals at module or class level whose
  name says it holds a vocabulary (``*PHASE*``, ``*KIND*``, ``*REASON*``,
  ``*APP*``, ``*SNAP*``, ``*FIELD*``);
- a literal table equal to one of the firmware's (``REASONS``, ``NAMES``, ...).

Left out, each with its reason below: the game's facts (docs/rules.md), which
the host's engine knows on its own, and the parts' own numbers (the PN532
chip model, the SSD1306's size). Each check has a case it must catch and one
it must let through.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

from tractor_table.paths import FIRMWARE_DIR, ROOT

HOST_DIRS = (ROOT / "host", ROOT / "bench", ROOT / "tools")
#: words that mark a literal table of a vocabulary
VOCAB_WORDS = ("PHASE", "KIND", "REASON", "APP", "SNAP", "FIELD")
#: firmware prefixes a host name may leave off or add
PREFIXES = ("R_", "PHASE_", "APP_", "CMD_", "SNAP_", "EV_", "REASON_", "KIND_")
#: Values the host has of its own, on purpose, whatever their name (not the
#: firmware's vocabulary): facts of the game from docs/rules.md, which the
#: host's engine knows independently of the device's (the two engines share
#: no code), and the size of a part, from its datasheet.
INDEPENDENT_NAMES = {
    "SEATS": "four seats (docs/rules.md §1)",
    "FACES": "54 faces to a deck (docs/rules.md §1)",
    "KITTY_SIZE": "the kitty's size by decks (docs/rules.md §1)",
    "WIDTH": "the SSD1306's 128 columns (its datasheet)",
    "HEIGHT": "the SSD1306's 64 rows (its datasheet)",
}
#: Files whose values are another party's, modelled on their own on purpose.
INDEPENDENT_FILES = {
    "host/tractor_table/sim/pn532sim/chip.py": "the PN532's own frames and commands (NXP's user manual): "
    "the chip model must not share the driver's numbers, or a wrong one would pass",
    "host/tractor_table/adversarial.py": "the conformance cases' notation (trump names; docs/rules.md §13)",
}


def _int_value(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _const_call(node: ast.expr) -> int | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "const" and node.args:
        return _int_value(node.args[0])
    return None


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def firmware_vocabulary(folder: Path = FIRMWARE_DIR) -> tuple[dict[str, set[int]], dict[str, object]]:
    """(const name -> values, 'module.NAME' -> literal table) of the firmware."""
    consts: dict[str, set[int]] = {}
    tables: dict[str, object] = {}
    for py in sorted(folder.glob("*.py")):
        for node in ast.parse(py.read_text(encoding="utf-8")).body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            target = node.targets[0]
            if not isinstance(target, ast.Name):
                continue
            value = _const_call(node.value)
            if value is not None:
                consts.setdefault(target.id.lstrip("_"), set()).add(value)
            elif isinstance(node.value, (ast.Tuple, ast.List)) and len(node.value.elts) >= 3:
                table = _literal(node.value)
                if table is not None:
                    tables[f"{py.stem}.{target.id}"] = table
    return consts, tables


def _names_match(host: str, fw: str) -> bool:
    host = host.lstrip("_")
    if host == fw:
        return True
    for p in PREFIXES:
        if host == p + fw or fw == p + host:
            return True
    return False


def _dotted_last(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _bindings(body: Iterable[ast.stmt]) -> Iterator[tuple[ast.stmt, list[str], ast.expr]]:
    """(statement, target names, value) of the module- and class-level bindings."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield from _bindings(node.body)
        elif isinstance(node, (ast.If, ast.Try)):
            yield from _bindings(node.body)
            yield from _bindings(node.orelse)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield node, [target.id], node.value
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for t, v in zip(target.elts, node.value.elts, strict=False):
                        if isinstance(t, ast.Name):
                            yield node, [t.id], v
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            yield node, [node.target.id], node.value


def copies_in(source: str, consts: dict[str, set[int]], tables: dict[str, object]) -> list[str]:
    """What in ``source`` retypes the firmware's vocabulary: 'line: why'."""
    found: list[str] = []
    fw_tables = {repr(v): k for k, v in tables.items()}
    for stmt, names, value in _bindings(ast.parse(source).body):
        name = names[0]
        n = _int_value(value)
        if n is None:
            n = _const_call(value)
        if n is not None:
            for fw, values in consts.items():
                if n in values and _names_match(name, fw):
                    found.append(f"{stmt.lineno}: {name} = {n} retypes the firmware's {fw}")
                    break
            continue
        if isinstance(value, ast.Dict):
            for k, v in zip(value.keys, value.values, strict=False):
                for key, val in ((k, v), (v, k)):
                    if key is None or val is None:
                        continue
                    kn, vn = _dotted_last(key), _int_value(val)
                    if kn is None or vn is None:
                        continue
                    hit = next((fw for fw, vs in consts.items() if vn in vs and _names_match(kn, fw)), None)
                    if hit is not None:
                        found.append(f"{stmt.lineno}: {name} maps {kn} to {vn}, the firmware's {hit}")
            continue
        elems = value.elts if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else None
        if (
            isinstance(value, ast.Call)
            and _dotted_last(value.func) in ("frozenset", "set", "tuple")
            and value.args
            and isinstance(value.args[0], (ast.Tuple, ast.List, ast.Set))
        ):
            elems = value.args[0].elts
        if elems is None:
            continue
        ints = [_int_value(e) for e in elems]
        if ints and all(i is not None for i in ints) and any(w in name.upper() for w in VOCAB_WORDS):
            found.append(f"{stmt.lineno}: {name} is a literal table of a firmware vocabulary")
            continue
        lit = _literal(value)
        if isinstance(value, ast.Set) or lit is None or len(elems) < 3:
            continue
        for cand in (lit, tuple(lit) if isinstance(lit, list) else lit):
            if repr(cand) in fw_tables:
                found.append(f"{stmt.lineno}: {name} copies the firmware's {fw_tables[repr(cand)]}")
                break
    return found


def host_sources() -> Iterator[Path]:
    for d in HOST_DIRS:
        yield from sorted(p for p in d.rglob("*.py") if ".venv" not in p.parts)


def test_the_firmware_has_a_vocabulary() -> None:
    consts, tables = firmware_vocabulary()
    # the shared vocabularies are there, as const() names and tables
    for name, value in (("HAND_START", 1), ("OUT_OF_TURN", 1), ("APP_REPLY", 100), ("R_PAIRS", 6)):
        assert value in consts[name], name
    assert "events.REASONS" in tables and "evlayout.NAMES" in tables


def test_no_firmware_constant_is_retyped_on_the_host() -> None:
    consts, tables = firmware_vocabulary()
    for name in INDEPENDENT_NAMES:
        consts.pop(name, None)
    tables = {k: v for k, v in tables.items() if k.split(".")[1] not in INDEPENDENT_NAMES}
    problems = []
    for py in host_sources():
        if py.relative_to(ROOT).as_posix() in INDEPENDENT_FILES:
            continue
        for why in copies_in(py.read_text(encoding="utf-8"), consts, tables):
            problems.append(f"{py.relative_to(ROOT)}:{why}")
    assert problems == [], "\n".join(
        ["define each shared value once, in firmware/, and read it through tractor_table.vocab:"]
        + problems
    )


def test_the_scan_finds_each_kind_of_copy() -> None:
    consts = {"HAND_START": {1}, "KITTY": {1, 5}, "R_WRONG_COUNT": {4}, "APP_REPLY": {100}}
    tables = {"events.REASONS": ("ok", "out of turn", "card seen twice")}
    source = (
        "HAND_START = 1\n"
        "A, PHASE_KITTY = 0, 1\n"
        "class R(IntEnum):\n    WRONG_COUNT = 4\n"
        "M = {Reason.WRONG_COUNT: 4}\n"
        "_HAND_PHASES = (0, 1, 2)\n"
        "WORDS = ('ok', 'out of turn', 'card seen twice')\n"
        "APP_REPLY: int = const(100)\n"
    )
    assert [line.split(":")[0] for line in copies_in(source, consts, tables)] == [
        "1", "2", "4", "5", "6", "7", "8",
    ]


def test_the_scan_lets_unrelated_values_through() -> None:
    consts = {"HAND_START": {1}, "KITTY": {1}, "APP_REPLY": {100}}
    tables = {"events.REASONS": ("ok", "out of turn", "card seen twice")}
    source = (
        "HAND_START = 2\n"  # another value: not a copy
        "KITTY_CARDS = 1\n"  # another name
        "HAND_START = EventKind.HAND_START\n"  # read from the vocabulary
        "M = {Reason.WRONG_COUNT: Code.WRONG_COUNT}\n"
        "SIZES = (0, 1, 2)\n"  # a table, but of no vocabulary
        "WORDS = ('ok', 'out of turn')\n"
        "def f():\n    APP_REPLY = 100\n    return APP_REPLY\n"  # local: not a definition
    )
    assert copies_in(source, consts, tables) == []


def test_the_host_types_are_the_firmwares() -> None:
    from tractor_table.events import EV
    from tractor_table.vocab import enums, loader

    table = loader.firmware("table")
    names = loader.firmware("evlayout").NAMES
    assert [(k.name.lower(), int(k)) for k in enums.EventKind] == [(n, i) for i, n in enumerate(names) if i]
    assert len(enums.TableReason) == len(EV.REASONS) and enums.TableReason.BID_SELF == EV.BID_SELF
    assert enums.AppCode.REPLY == EV.APP_REPLY and enums.AppCode.TAG == EV.APP_TAG
    assert len(enums.TablePhase) == len(table.PHASE_NAMES) and enums.TablePhase.CALL == table.CALL
    assert enums.RulesCode.SAME_SHAPE == loader.firmware("drules").R_SAME_SHAPE
    # one loader: each firmware module once, its imports of the others the same modules
    base = loader.firmware("tablebase")  # the table core's constants, under table.py's surface
    assert loader.firmware("tablesnap").T is base and table.T is base and table.E is EV
    host_end = loader.firmware("ttlink_host")
    assert host_end.HostLink.__module__ == "tractor_table.firmware.ttlink_host"
    assert host_end._Link is loader.firmware("ttlink")._Link


def test_one_map_between_shengji_and_the_table() -> None:
    from shengji.play import Reason, check_follow
    from tractor_table.vocab import enums, reasons

    # the refusals of a play the table has a code for, and one it has not
    assert reasons.table_reason(Reason.WRONG_COUNT) in (enums.TableReason.COUNT, -1)
    assert reasons.table_reason(Reason.MUST_PLAY_PAIRS) == -1
    # a follow's reason: the device engine's code for the same rule
    assert reasons.rules_code(Reason.MUST_FOLLOW_SUIT) == enums.RulesCode.FOLLOW_SUIT
    assert reasons.rules_code(Reason.THROW_FAILED) == -1
    # and a real verdict goes through it
    from shengji import Rank, Rules, Suit, parse_faces
    from shengji.order import Order

    order = Order(Rules(), Rank.TEN, Suit.HEARTS)
    verdict = check_follow(order, parse_faces("5S"), parse_faces("6S 7D"), parse_faces("7D"))
    assert not verdict.legal and reasons.rules_code(verdict.reason) == enums.RulesCode.FOLLOW_SUIT


def test_a_snapshot_reads_and_writes_the_firmware_layout() -> None:
    from tractor_table.vocab import enums, snapshot

    F = enums.SnapshotField
    wire: list[object] = [enums.SNAPSHOT_VERSION, 2, int(enums.TablePhase.PLAY), 3, 0, 1, 4, 5, 2, 1, 40, 0, -1, 99, 7,
                          [[1, [13, 13]]], list(range(8)), [[1, 2, 10, 0, [5], [6], [7], [8]]], [], None,
                          [2, 0, 0, [9], None, None, None], [],
                          [2, 30, enums.PARTNER_UNKNOWN, 6, 7]]  # the last: partners = "called"
    snap = snapshot.Snapshot.parse(wire)
    assert (snap.phase, snap.dealer, snap.levels, snap.ev_index) == (enums.TablePhase.PLAY, 1, [4, 5, 6, 7], 99)
    assert snap.tricks[0].winner == 2 and snap.tricks[0].plays[3] == [8]
    assert snap.current is not None and snap.current.plays[0] == [9] and snap.current.plays[1] is None
    assert snap.friend is not None and snap.friend.partner == enums.PARTNER_UNKNOWN and snap.scans is None
    assert snap.to_list() == wire and wire[F.EV_HASH] == 7
    # not a snapshot: a clear error, naming what is wrong
    for bad, says in (([1, 2], "wrong shape"), ([9] + wire[1:], "version 9"), (b"{", "not JSON")):
        try:
            snapshot.Snapshot.parse(bad)
        except snapshot.SnapshotError as exc:
            assert says in str(exc)
        else:
            raise AssertionError(f"{bad!r} parsed")


def test_the_layout_names_are_the_table_cores_own() -> None:
    # firmware/snaplayout.py names the fields that tablesnap.py writes by
    # position: a real snapshot of the firmware's table core, read by name
    from tractor_table.vocab import enums, loader, snapshot

    T, E = loader.firmware("table"), loader.firmware("events")
    rules, link = loader.firmware("tablerules"), loader.firmware("ttlink")
    for hand_scan in (False, True):
        t = T.Table(rules.TableRules(1), decks=1, chain_hash=link.chain_hash, hand_scan=hand_scan)
        t.tap(2, 13, 10)  # the level's 2 of hearts at seat 2: a bid
        t.button(2, E.BTN_OK, 20)  # the bid stands
        t.button(2, E.BTN_OK, 30)  # the draw ends: trump hearts, seat 2 declares and deals
        wire = t.snapshot()
        snap = snapshot.Snapshot.parse(wire)
        assert snap.to_list() == wire
        assert (snap.decks, snap.phase, snap.hand_no, snap.first_hand) == (1, t.phase, t.hand_no, 1)
        assert snap.phase == (enums.TablePhase.SCAN if hand_scan else enums.TablePhase.KITTY)
        assert (snap.dealer, snap.trump, snap.declarer, snap.bids) == (2, 1, 2, [[2, [13]]])
        assert (snap.ev_index, snap.ev_hash, snap.levels) == (t.ev_index, t.ev_hash, [0, 0])
        assert (snap.scans is not None) == hand_scan and snap.friend is None
        assert not snap.time_called
        t.command([T.CMD_CALL_TIME])  # time called: [4], kept across a restart
        wire = t.snapshot()
        snap = snapshot.Snapshot.parse(wire)
        assert snap.time_called and snap.to_list() == wire
        assert [loader.firmware("snaplayout").X_TIME] in wire
