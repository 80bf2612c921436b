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
from ._rules import rules_help, table_rules

if TYPE_CHECKING:
    from ..sim.virtual.runner import VirtualTable


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        action="store_true",
        help="let four bots play (else: type commands: tap SEAT CARD[.copy], ok SEAT, undo SEAT, "
        "challenge SEAT, show, quit; .copy is the deck, 0 for the first: AS.1; 红桃A, 大王 too)",
    )
    parser.add_argument(
        "--hands", type=int, default=None, help="hands to play with --bots (default 1)"
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
        help=rules_help("the rules the table plays, written into its table.cfg"),
    )
    parser.add_argument(
        "--seed", type=int, default=None,
        help="seed of the deal and the bots (default: a fresh one, printed: give it again for the same deal)"
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
        "--board",
        default="virtual",
        choices=("virtual", "pico"),
        help="virtual: the fast simulated board (default); pico: the board model, a modelled "
        "Raspberry Pi Pico on which the real boot.py, main.py and picoboard.py run from littlefs "
        "and read the PN532 models through machine.SPI (docs/firmware.md, 'Board model')",
    )
    parser.add_argument(
        "--png", type=Path, metavar="FILE",
        help="with --board pico: write the display as the board's display model holds it at the end, as a PNG",
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
        "--serve", action="store_true",
        help="keep the virtual table running without a link of its own and print its "
        "pseudo-terminal: follow it as a real table with 'tractor-table link --port PTY' or "
        "'tractor-table console --port PTY' from another terminal, and type taps here: each is "
        "answered from the table's events and the prompt says what it waits for, as without "
        "--serve (quit or Ctrl-C ends it); it records only with --db; with --board pico it serves the board model",
    )
    parser.add_argument(
        "--club-rounds", action="store_true",
        help="with --bots and --club: the bots play only the matches the club starts (a "
        "competition round started from the director's pages): each up to --hands hands, "
        "until a side passes the top or until time is called; then they wait for the next "
        "round (Ctrl-C ends it; docs/competition.md)",
    )
    parser.add_argument(
        "--pace", type=float, default=None, metavar="S",
        help="with --bots: at least S seconds between the table's events (default 0: as fast "
        "as they play)",
    )
    parser.add_argument(
        "--db", type=Path, metavar="FILE",
        help="record the table's events, hands and verdicts in this SQLite file "
        "(default: records.sqlite in the user's data directory; with --serve: none unless given)",
    )
    parser.add_argument("--no-record", action="store_true", help="record nothing")
    from . import _club

    _club.add_options(parser)


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

    if args.serve and args.bots:
        raise CommandError(
            "--serve leaves the table to another program's link; the bots need this one's: "
            "drop --bots (tap the cards here), or drop --serve"
        )
    if args.hands is not None and not args.bots:
        raise CommandError(
            "--hands is for the bots: add --bots, or leave --hands out to tap the cards yourself "
            "(as many hands as you play)"
        )
    if args.club_rounds and not (args.bots and args.club):
        raise CommandError("--club-rounds is for the bots at a club's table: add --bots and "
                           "--club URL (with --token)")
    if args.pace is not None and not args.bots:
        raise CommandError("--pace is for the bots: add --bots")
    if args.pace is not None and not 0 <= args.pace <= 60:
        raise CommandError(f"--pace must be seconds from 0 to 60, not {args.pace:g}")
    args.hands = 1 if args.hands is None else args.hands
    if args.hands < 1:
        raise CommandError("--hands must be at least 1")
    if args.heapsize is not None and not re.fullmatch(r"[1-9][0-9]*[KkMm]?", args.heapsize):
        raise CommandError(f"--heapsize {args.heapsize}: give a size such as 160K, 1M or 200000 (bytes)")
    micropython_binary()
    rules = table_rules(args)
    if args.board == "pico" and args.readers != "spi":
        raise CommandError("--board pico reads its PN532 models over SPI: leave out --readers direct")
    if args.serve:
        return _serve(args, rules)
    from ..records.recorder import open_recorder

    # before the virtual table exists: a records file that cannot be used stops here
    if args.png is not None:
        if args.board != "pico":
            raise CommandError("--png needs --board pico (the fast virtual board draws no pixels)")
        from ._files import check_writable

        check_writable(args.png, "--png")
    recorder = open_recorder(args.db, args.no_record, port="virtual", source="virtual", rules=rules)
    from . import _club

    cmds = _club.link_commands()
    try:
        club = _club.start(args, recorder, commands=cmds)
    except CommandError:
        if recorder is not None:
            recorder.store.close()
        raise
    t0 = time.monotonic()
    vt = make_table(args.board, rules, heapsize=args.heapsize, readers=args.readers, hand_scan=args.hand_scan)
    # the club's commands (new match, time called) go to the table over its link
    vt.note_hooks.append(cmds.on_note)
    cmds.attach(lambda p: vt.link.send_app(p) if vt.link is not None else None,
                lambda: vt.link is not None and vt.link.synced())
    # the host's side of the architecture: every event re-judged by the full engine
    verifier = Verifier(EngineReplayer(rules), host_identity()[1])
    _club.tell_verifier(cmds, verifier)
    vt.note_hooks.append(recorder.follow(verifier) if recorder is not None else verifier.on_note)
    print(f"records: {recorder.store.path}" if recorder is not None else "records: off (--no-record)")
    try:
        if args.club_rounds:
            return _club_rounds(args, vt, rules, verifier, cmds)
        return _play(args, vt, rules, verifier, t0)
    finally:
        if recorder is not None:
            vt.close()  # the link's thread stops before the records close
            _club.stop(club)
            print(recorder.summary())
            recorder.store.close()


def _club_rounds(args: argparse.Namespace, vt: VirtualTable, rules: Any, verifier: Any,
                 cmds: Any) -> int:
    """--club-rounds: the bots play the club's matches as its rounds start, until Ctrl-C."""
    from ..console.pace import PacedTable, Pacer
    from ..sim.virtual.clubrounds import ClubRounds
    from ..sim.virtual.seed import bots_seed, seed_line

    pacer = Pacer(args.pace or 0.0)
    vt.note_hooks.append(pacer.on_note)
    with vt:
        print(f"virtual table {vt.uid}: link up on {vt.link.port if vt.link else '?'}; the bots "
              "wait for the club's new match (a round started by the director)", flush=True)
        seed = bots_seed(args.seed)
        print(seed_line(seed), flush=True)
        bots = ClubRounds(vt, rules, cmds.sent, hands=args.hands, seed=seed, strength=args.strength,
                          say=lambda text: print(text, flush=True),
                          bots_table=PacedTable(vt, pacer), event_timeout=vt.event_timeout)
        interrupted = False
        try:
            bots.run()
        except KeyboardInterrupt:
            interrupted = True
        finally:
            pacer.close()
    print(f"{bots.matches} match(es) of the club, {bots.hands_played} hand(s); "
          f"{len(bots.disagreements)} disagreement(s)")
    print(f"verifier (full engine replaying the link's events): {verifier.summary()}")
    for d in verifier.disagreements[:10]:
        print("  " + d.show())
    if bots.disagreements or verifier.disagreements or verifier.refused:
        return 1
    return 130 if interrupted else 0


def make_table(board: str, rules: Any, *, heapsize: str | None = None, readers: str = "spi",
               hand_scan: bool = False) -> VirtualTable:
    """The virtual table on the fast virtual board, or on the board model (``board="pico"``)."""
    if board == "pico":
        from ..sim.board.runner import PicoTable

        return PicoTable(rules.decks, heapsize=heapsize, hand_scan=hand_scan, rules=rules)
    from ..sim.virtual.runner import VirtualTable

    return VirtualTable(rules.decks, heapsize=heapsize, readers=readers, hand_scan=hand_scan, rules=rules)


def _play(args: argparse.Namespace, vt: VirtualTable, rules: Any, verifier: Any, t0: float) -> int:
    from ..sim.virtual.game import BotGame

    how = "simulated PN532 readers on SPI" if args.readers == "spi" else "taps given as card ids"
    if getattr(args, "board", "virtual") == "pico":
        how = ("the board model (boot.py, main.py and picoboard.py from littlefs; PN532 models "
               "on machine.SPI, an SSD1306 model on machine.I2C)")
    print(
        f"virtual table: the firmware under MicroPython (heap {vt.heapsize}), {rules.decks} deck(s), rules {args.rules}, {how}"
    )
    with vt:
        port = vt.link.port if vt.link is not None else "?"
        booted = vt.ready_alloc - vt.sim_bytes
        print(f"link up on {port} (pseudo-terminal); firmware heap after boot {booted} bytes")
        if not args.bots:
            return _console(vt, rules)
        from ..sim.virtual.seed import bots_seed, seed_line

        seed = bots_seed(args.seed)
        print(seed_line(seed), flush=True)
        game = BotGame(vt, rules, seed=seed, strength=args.strength, verbose=args.verbose,
                       event_timeout=vt.event_timeout)
        interrupted = False
        try:
            game.play(args.hands)
        except KeyboardInterrupt:
            interrupted = True  # the summary of what was played, then exit status 130
        time.sleep(0.1)
        lines = list(vt.lines)
        pixels = bytes(getattr(vt, "pixels", b""))
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
    if interrupted:
        print(f"interrupted (Ctrl-C) during hand {game.hands_played + 1} of {args.hands}: the figures above are partial")
    print(f"verifier (full engine replaying the link's events): {verifier.summary()}")
    for d in verifier.disagreements[:10]:
        print("  " + d.show())
    if args.png is not None and pixels:
        from ..monoframe import Frame
        from ._files import write_atomic

        write_atomic(args.png, Frame(pixels).png(), "--png")
        print(f"display written to {args.png} (the display model's RAM, 4x)")
    figures = getattr(vt, "figures", None)
    if figures:
        print(board_summary(figures, getattr(vt, "wall_ms", -1)))
    if args.readers == "spi":
        what = "the board's device models" if args.board == "pico" else "the simulated chips and hands"
        print(
            f"readers: at most {vt.max_fields_on} RF field on at a time, {vt.collisions} bus collisions; "
            f"{what} took {vt.sim_bytes} bytes of the heap (not counted above)"
        )
    if interrupted:
        return 130
    return 1 if game.disagreements or verifier.disagreements or verifier.refused else 0


def board_summary(f: dict[str, int], wall_ms: int) -> str:
    """The board model's figures in a line (virtual time: the RP2040's, see docs/firmware.md)."""
    def ms(k: str) -> str:
        return f"{f[k] / 1000:.1f}" if f.get(k, -1) >= 0 else "-"

    return (
        f"board model: {f.get('virtual_us', 0) / 1e6:.1f} s of board time ({f.get('cpu_us', 0) / 1e6:.1f} s of it "
        f"the firmware's own work) in {wall_ms / 1000:.1f} s; {f.get('taps', 0)} tags read, {f.get('frames', 0)} "
        f"display frames, {f.get('boots', 0)} boot(s); tap to display p50 {ms('lat_p50')} ms, p99 {ms('lat_p99')} ms; "
        f"four-seat poll cycle p50 {ms('cycle_p50')} ms, p99 {ms('cycle_p99')} ms; flash {f.get('flash_erases', 0)} "
        f"erases, {f.get('flash_programs', 0)} page programs"
    )


def _console(vt: VirtualTable, rules: Any) -> int:
    from ..sim.virtual.taps import read_commands

    read_commands(vt, rules, sys.stdin, lambda text: print(text, flush=True))
    return 0


def _serve(args: argparse.Namespace, rules: Any) -> int:
    """--serve: the table keeps running, its terminal for another program's link;
    its events come beside the link (the board's output), so the typed commands
    are answered from them and, with --db, recorded as plain ``virtual`` records."""
    import signal

    from ..link.engine_replayer import EngineReplayer
    from ..link.serial_link import host_identity
    from ..link.verifier import Verifier
    from ..records.recorder import open_recorder
    from ..sim.virtual.taps import read_commands

    def stop(_sig: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    # recorded here only when asked (--db): the program that follows the
    # table records too, into its own file (link --db, console --db)
    recorder = None
    if args.db is not None and not args.no_record:
        recorder = open_recorder(args.db, False, port="virtual --serve", source="virtual", rules=rules)
    # either board reports the table's events beside the link (mpy/vevents.py)
    vt = make_table(args.board, rules, heapsize=args.heapsize, readers=args.readers, hand_scan=args.hand_scan)
    if recorder is not None:
        verifier = Verifier(EngineReplayer(rules), host_identity()[1])
        vt.note_hooks.append(recorder.follow(verifier))
    try:
        vt.start(host_link=False, side_events=True)
    except BaseException:
        if recorder is not None:
            recorder.store.close()
        raise
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        board = " on the board model (a modelled Pico)" if args.board == "pico" else ""
        print(f"virtual table serving on {vt.port} (pseudo-terminal){board}, {rules.decks} deck(s), "
              f"rules {args.rules}")
        print(f"  follow it: tractor-table link --port {vt.port} --rules {args.rules}")
        print(f"         or: tractor-table console --port {vt.port} --rules {args.rules}")
        print(f"records: {recorder.store.path}" if recorder is not None
              else "records: none here (--db FILE records the hands played here)")
        print("  type taps here; quit or Ctrl-C stops the table", flush=True)
        try:
            quit_typed = read_commands(vt, rules, sys.stdin, lambda text: print(text, flush=True),
                                       side_events=True)
            if not quit_typed:  # the end of a script or of a pipe: keep serving
                while vt.alive():
                    time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        print("virtual table stopped", flush=True)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        vt.close()  # the board's output is read to its end before the records close
        if recorder is not None:
            print(recorder.summary(), flush=True)
            recorder.store.close()
