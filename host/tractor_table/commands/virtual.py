"""``tractor-table virtual``: the real firmware on a virtual table.

With ``--bots`` the full engine's bots play: the host deals, each bot's cards
are tapped at its seat's reader, the table judges them and reports its game
events over the (pseudo-terminal) USB serial link, and every event is checked
against the full engine. Without ``--bots`` the table waits for commands typed
on standard input (``tap SEAT CARD``, ``ok SEAT``, ``undo SEAT``,
``challenge SEAT``, ``show``, ``quit``), a console for trying the firmware by hand.
The table's events, hands and the verdicts are recorded in SQLite as
``tractor-table link`` records them (``--db FILE``, ``--no-record``).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CommandError
from ._rules import table_rules

if TYPE_CHECKING:
    from ..virtual.runner import VirtualTable


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        action="store_true",
        help="let four bots play (else: type commands: tap SEAT CARD[.copy], ok SEAT, undo SEAT, "
        "challenge SEAT, show, quit; .copy is the deck, 0 for the first: AS.1; 红桃A, 大王 too)",
    )
    parser.add_argument(
        "--hands", type=int, default=1, help="hands to play with --bots (default 1)"
    )
    parser.add_argument(
        "--decks",
        type=int,
        default=None,
        choices=(1, 2, 3, 4),
        help="decks (default: the preset's, 2 for classic)",
    )
    parser.add_argument(
        "--rules",
        default="classic",
        metavar="PRESET",
        help="rules preset of RULES.md (classic, lianzhong, qq, tournament, onedeck, titanic, "
        "xuwen); the table gets them in its table.cfg (default classic)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the deal and the bots (default 1)"
    )
    parser.add_argument(
        "--strength",
        type=int,
        default=1,
        choices=(0, 1, 2),
        help="bot strength: 0 random (its failed throws get challenged), 1 basic, 2 good (default 1)",
    )
    parser.add_argument(
        "--hand-scan",
        action="store_true",
        help="hand_scan mode: every seat scans its hand after the draw, every rule is checked at once",
    )
    parser.add_argument(
        "--readers",
        default="spi",
        choices=("spi", "direct"),
        help="spi: the firmware's scanner and PN532 driver read simulated chips (default); "
        "direct: taps go to the table core as card ids",
    )
    parser.add_argument(
        "--heapsize",
        default=None,
        help=_heap_help(),
    )
    parser.add_argument(
        "--verbose", action="store_true", help="print every game event as it arrives"
    )
    parser.add_argument(
        "--db", type=Path, metavar="FILE",
        help="record the table's events, hands and verdicts in this SQLite file "
        "(default: records.sqlite in the user's data directory)",
    )
    parser.add_argument("--no-record", action="store_true", help="record nothing")


def _heap_help() -> str:
    """--heapsize's help, from the virtual table's own defaults (they cannot drift apart)."""
    from ..virtual_heap import FIRMWARE_HEAP_BY_DECKS, SIM_HEAP_BY_DECKS

    def by_decks(table: dict[int, str]) -> str:
        return ", ".join(f"{h} with {d} deck(s)" for d, h in sorted(table.items()))

    return (
        f"MicroPython heap (default with --readers direct: {by_decks(FIRMWARE_HEAP_BY_DECKS)}; "
        f"with --readers spi, as the simulated chips live in it too: {by_decks(SIM_HEAP_BY_DECKS)})"
    )


def run(args: argparse.Namespace) -> int:

    from ..link.engine_replayer import EngineReplayer
    from ..link.serial_link import host_identity
    from ..link.verifier import Verifier
    from ..mpy import micropython_binary
    from ..virtual.events import describe
    from ..virtual.runner import VirtualTable

    if args.hands < 1:
        raise CommandError("--hands must be at least 1")
    if args.heapsize is not None and not re.fullmatch(r"[1-9][0-9]*[KkMm]?", args.heapsize):
        raise CommandError(f"--heapsize {args.heapsize}: give a size such as 160K, 1M or 200000 (bytes)")
    micropython_binary()
    rules = table_rules(args)
    from ..records import open_recorder

    # before the virtual table exists: a records file that cannot be used stops here
    recorder = open_recorder(args.db, args.no_record, port="virtual", source="virtual", rules=rules)
    t0 = time.monotonic()
    vt = VirtualTable(
        rules.decks,
        heapsize=args.heapsize,
        readers=args.readers,
        hand_scan=args.hand_scan,
        rules=rules,
    )
    # the host's side of the architecture: every event re-judged by the full engine
    verifier = Verifier(EngineReplayer(rules), host_identity()[1], describe=describe)
    vt.note_hooks.append(recorder.follow(verifier) if recorder is not None else verifier.on_note)
    print(f"records: {recorder.store.path}" if recorder is not None else "records: off (--no-record)")
    try:
        return _play(args, vt, rules, verifier, t0)
    finally:
        if recorder is not None:
            vt.close()  # the link's thread stops before the records close
            print(recorder.summary())
            recorder.store.close()


def _play(args: argparse.Namespace, vt: VirtualTable, rules: Any, verifier: Any, t0: float) -> int:
    from ..virtual.game import BotGame

    how = "simulated PN532 readers on SPI" if args.readers == "spi" else "taps given as card ids"
    print(
        f"virtual table: the firmware under MicroPython (heap {vt.heapsize}), {rules.decks} deck(s), rules {args.rules}, {how}"
    )
    with vt:
        port = vt.link.port if vt.link is not None else "?"
        booted = vt.ready_alloc - vt.sim_bytes
        print(f"link up on {port} (pseudo-terminal); firmware heap after boot {booted} bytes")
        if not args.bots:
            return _console(vt)
        game = BotGame(vt, rules, seed=args.seed, strength=args.strength, verbose=args.verbose)
        game.play(args.hands)
        time.sleep(0.1)
        lines = list(vt.lines)
    dt = time.monotonic() - t0
    print("table display at the end:")
    for line in lines:
        print("  |" + line.ljust(16) + "|")
    print(
        f"{game.hands_played} hand(s), {game.tricks_played} tricks, {game.events_seen} game events; "
        f"{game.checks} checks against the full engine, {len(game.disagreements)} disagreement(s); "
        f"firmware live heap peak {vt.firmware_peak} bytes; {dt:.1f} s"
    )
    if game.challenges:
        print(f"{game.challenges} throw(s) challenged at the table and forced")
    if game.forced_at_once:
        print(f"{game.forced_at_once} throw(s) forced at once (hand scan)")
    print(f"verifier (full engine replaying the link's events): {verifier.summary()}")
    for d in verifier.disagreements[:10]:
        print("  " + d.show())
    if args.readers == "spi":
        print(
            f"readers: at most {vt.max_fields_on} RF field on at a time, {vt.collisions} bus collisions; "
            f"the simulated chips took {vt.sim_bytes} bytes of the heap (not counted above)"
        )
    return 1 if game.disagreements or verifier.disagreements or verifier.refused else 0


CONSOLE_HELP = "commands: tap SEAT CARD[.copy] | ok SEAT | undo SEAT | challenge SEAT | show | quit"


def parse_console(line: str, decks: int) -> tuple[str, int, int] | None:
    """One console line as (``tap``/``ok``/``undo``/``challenge``/``show``/``quit``,
    seat, card id); None for an empty line. ValueError with a sentence for the
    player when the line is not a command: the seat must be 0-3, the card a card
    of RULES.md's notation (Chinese names too: 红桃A, 大王), and ``.copy`` (0 =
    the first deck, as the records write it: ``AS.1``) one of the decks."""
    from shengji.cards import parse_card_id

    words = line.split()
    if not words:
        return None
    verb = words[0].lower()
    if verb in ("show", "quit") and len(words) == 1:
        return verb, -1, -1
    want = {"tap": 3, "ok": 2, "undo": 2, "challenge": 2}.get(verb)
    if want is None or len(words) != want:
        raise ValueError(f"not a command: {line.strip()!r}; {CONSOLE_HELP}")
    if words[1] not in ("0", "1", "2", "3"):
        raise ValueError(f"seat {words[1]!r}: give a seat 0-3")
    seat = int(words[1])
    if verb != "tap":
        return verb, seat, -1
    return verb, seat, parse_card_id(words[2], decks)  # its ValueError names the card and the notation


def _console(vt: VirtualTable) -> int:
    from ..virtual.events import EV, describe

    kinds = {"ok": EV.BTN_OK, "undo": EV.BTN_UNDO, "challenge": EV.BTN_CHALLENGE}
    print(CONSOLE_HELP)
    for raw in sys.stdin:
        try:
            command = parse_console(raw, vt.decks)
        except ValueError as exc:
            print(f"bad input: {exc}")
            continue
        if command is None:
            continue
        verb, seat, card = command
        if verb == "quit":
            break
        if verb == "show":
            for line in vt.lines:
                print("  |" + line.ljust(16) + "|")
        elif verb == "tap":
            vt.tap(seat, card)
        else:
            vt.press(seat, kinds[verb])
        time.sleep(0.2)
        while not vt.events.empty():
            print("  " + describe(vt.events.get()))
    return 0
