"""``tractor-table console``: the operator's console, a full-screen terminal UI.

Connects to a table — a real one over USB (``--port``, or the Pico found by
its USB id) or the real firmware on a virtual table (``--virtual``, with
``--bots`` to let four bots play) — and shows the link, the table's display,
the game, every event with the verifier's verdict, and the disagreements.
Keys: ``p`` push the host's state to the table (asks first), ``s`` status,
``t`` tap a card or press a button at a seat (virtual table), ``q`` quit.
What the table reports, and every verdict, is recorded in SQLite as
``tractor-table link`` records it (``--db FILE``, ``--no-record``).
docs/console.md describes it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import CommandError
from ._rules import rules_help, table_rules


def configure(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--port", help="serial port or pyserial URL (default: the Pico, USB id 2E8A)")
    where.add_argument(
        "--virtual", action="store_true", help="the real firmware on a virtual table (MicroPython)"
    )
    parser.add_argument(
        "--rules",
        default="classic",
        metavar="PRESET",
        help=rules_help("the rules the table plays (a real table's as given to 'tractor-table deploy --rules')"),
    )
    parser.add_argument(
        "--decks", type=int, default=None, choices=(1, 2, 3, 4),
        help="decks (default: the preset's, 2 for classic)",
    )
    parser.add_argument("--bots", action="store_true", help="with --virtual: four bots play")
    parser.add_argument("--hands", type=int, default=None, help="with --bots: hands they play (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="with --bots: seed of their deal (default: a fresh one, shown on the message line)")
    parser.add_argument(
        "--pace", type=float, default=None, metavar="S",
        help="with --bots: at least S seconds between the table's events, so that people can follow "
        "(default 0.5; 0: as fast as they play); keys: space pauses or goes on, n plays one step, "
        "+ and - change the pace as they play",
    )
    parser.add_argument(
        "--readers", default="spi", choices=("spi", "direct"),
        help="with --virtual: simulated PN532 readers on SPI (default), or taps given as card ids",
    )
    parser.add_argument(
        "--board", default="virtual", choices=("virtual", "pico"),
        help="with --virtual: the fast simulated board (default), or the board model (a modelled Pico "
        "running the real boot.py, main.py and picoboard.py)",
    )
    parser.add_argument("--no-verify", action="store_true", help="only follow the link, judge nothing")
    parser.add_argument(
        "--disagreements", type=Path, metavar="FILE", help="append disagreements to this JSON-lines file"
    )
    parser.add_argument(
        "--db", type=Path, metavar="FILE",
        help="record the table's events, hands and verdicts in this SQLite file "
        "(default: records.sqlite in the user's data directory)",
    )
    parser.add_argument("--no-record", action="store_true", help="record nothing")
    from . import _club

    _club.add_options(parser)
    parser.add_argument(
        "--lang", choices=("en", "zh"), default="en",
        help="card names in the event log and the game pane: English (AS, AS.1) or Chinese (黑桃A)",
    )




def make_verifier(rules: Any, *, verify: bool = True, log_path: Path | None = None) -> Any:
    """The host's second opinion: the full engine replaying the table's events."""
    from ..link.serial_link import host_identity
    from ..link.verifier import TrustingReplayer, Verifier

    if verify:
        from ..link.engine_replayer import EngineReplayer

        replayer: Any = EngineReplayer(rules)
    else:
        replayer = TrustingReplayer()
    return Verifier(replayer, host_identity()[1], log_path=log_path)


def club_commands(source: Any, verifier: Any = None) -> Any:
    """The club's table commands (a competition's new match, time called) for the table
    of ``source`` (a :class:`~tractor_table.console.source.TableSource`), as ``link``
    takes them: sent over its link, the table's answers heard on the link's thread, what
    became of each said on the console's message line ("club: call time done")."""
    from ..club.tablecommands import LinkCommands

    cmds = LinkCommands(say=lambda text: source.inbox.put(("club", text)))
    source.note_hooks.append(cmds.on_note)
    if verifier is not None:
        from ._club import tell_verifier

        tell_verifier(cmds, verifier)

    def send(payload: list[Any]) -> None:
        link = source.link
        if link is not None:
            link.send_app(payload)

    cmds.attach(send, lambda: source.link is not None and source.link.synced())
    return cmds


def run(args: argparse.Namespace) -> int:
    from ._files import check_writable

    if not args.virtual:
        for flag, given in (
            ("--bots", args.bots), ("--readers", args.readers != "spi"), ("--board", args.board != "virtual"),
        ):
            if given:
                raise CommandError(f"{flag} needs --virtual (a real table's players tap their own cards)")
    for flag, value in (("--hands", args.hands), ("--seed", args.seed), ("--pace", args.pace)):
        if value is not None and not args.bots:
            raise CommandError(f"{flag} is for the bots: add --bots (and --virtual)")
    if args.hands is not None and args.hands < 1:
        raise CommandError(f"--hands must be at least 1, not {args.hands}")
    if args.pace is not None and not 0 <= args.pace <= 60:
        raise CommandError(f"--pace must be seconds from 0 to 60, not {args.pace:g}")
    rules = table_rules(args)
    if args.disagreements is not None:
        check_writable(args.disagreements, "--disagreements")
    from ..console.source import PortSource, TableSource, check_port
    from ..sim.virtual.source import VirtualSource

    source: TableSource
    if args.virtual:
        from ..mpy import micropython_binary
        from ..sim.virtual.seed import bots_seed

        micropython_binary()
        table = None
        if args.board == "pico":
            if args.readers != "spi":
                raise CommandError("--board pico reads its PN532 models over SPI: leave out --readers direct")
            from .virtual import make_table

            table = make_table("pico", rules)
        source = VirtualSource(
            rules, bots=args.bots, hands=args.hands or 1, seed=bots_seed(args.seed),
            readers=args.readers, table=table, pace=0.5 if args.pace is None else args.pace,
        )
    else:
        from ..link.serial_link import resolve_port

        port = resolve_port(args.port)
        check_port(port)
        source = PortSource(port, rules.decks)
    verifier = make_verifier(rules, verify=not args.no_verify, log_path=args.disagreements)
    from ..records.recorder import open_recorder

    # before the table is started: a records file that cannot be used stops here
    recorder = open_recorder(
        args.db, args.no_record, port="virtual" if args.virtual else source.port,
        source="console", rules=rules,
    )
    from ..console.app import ConsoleApp
    from . import _club

    cmds = club_commands(source, verifier)
    try:
        club = _club.start(args, recorder, quiet=True, commands=cmds)
    except CommandError:
        if recorder is not None:
            recorder.store.close()
        raise
    try:
        if args.virtual:
            print("starting the firmware on a virtual table...", flush=True)
        source.start()
        try:
            status = ConsoleApp(source, verifier, recorder=recorder, lang=args.lang).run()
        finally:
            source.close()  # the link's thread ends before the records close
    finally:
        _club.stop(club)
        if recorder is not None:
            recorder.store.close()
    if recorder is not None:
        print(recorder.summary())
    print(f"tractor-table console: {verifier.summary()}")
    return 0 if status is None else int(status)
