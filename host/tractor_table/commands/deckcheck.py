"""``tractor-table deckcheck``: is a card set complete and consistent? Optionally
scan the physical cards, on a USB PN532 reader (``--reader``) or at a connected
table's seat reader (``--table``, in the table's enroll mode), and export the
firmware's binary map."""

from __future__ import annotations

import argparse
import math
import signal
from pathlib import Path

from ..enroll.cardset import CardSet, CardSetError
from ..enroll.checks import CheckReport, check_scan, check_static
from ..enroll.readers import AdafruitUartReader, TableTagReader
from ..errors import CommandError
from ._files import check_writable, write_atomic

#: --reader: the check ends this long after the last new card unless --idle says otherwise
READER_IDLE = 10.0
#: --table: a reminder after this long without a tap (the check itself waits)
TABLE_REMIND = 20.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("set_file", metavar="SET", type=Path, help="card-set file (from 'tractor-table enroll')")
    parser.add_argument("--reader", metavar="PORT",
                        help="also tap the physical cards on a PN532 (USB-UART) to find unknown and missing tags")
    parser.add_argument("--table", metavar="PORT",
                        help="also tap the physical cards at a connected table's seat reader (the table is in "
                             "enroll mode meanwhile: it plays no cards)")
    parser.add_argument("--seat", type=int, metavar="N",
                        help="with --table: the seat whose reader reads the cards (0-3; default 0)")
    parser.add_argument("--in-order", action="store_true",
                        help="with --reader or --table: ask for the cards one by one in enroll's order and "
                             "report a tag enrolled as another card (a mislabel, or a whole set shifted by "
                             "a tap behind the prompts); tap the deck sorted as enroll asked for it")
    parser.add_argument("--idle", type=float, metavar="S",
                        help=f"with --reader or --table: stop S seconds after the last new card "
                             f"(default {READER_IDLE:g} with --reader; with --table none: the check waits)")
    parser.add_argument("--timeout", type=float, metavar="S",
                        help="with --reader or --table: stop S seconds after the check began (default none)")
    parser.add_argument("--export", metavar="FILE", type=Path,
                        help="write the firmware's binary card map (cards.bin) if the set is sound")


def _say(text: str) -> None:
    print(text, flush=True)


def _check_args(args: argparse.Namespace) -> None:
    """Refuse bad options before the set is read or a reader or table is touched."""
    if args.reader is not None and args.table is not None:
        raise CommandError("give --reader PORT (a USB PN532) or --table PORT (a table's seat reader), not both")
    scan = args.reader is not None or args.table is not None
    if args.seat is not None and args.table is None:
        raise CommandError("--seat picks a table's seat reader: give it with --table PORT")
    if args.seat is not None and not 0 <= args.seat <= 3:
        raise CommandError(f"--seat must be 0-3, not {args.seat}")
    if args.in_order and not scan:
        raise CommandError("--in-order asks for each card in turn: give it with --reader PORT or --table PORT")
    for name in ("idle", "timeout"):
        value = getattr(args, name)
        if value is None:
            continue
        if not scan:
            raise CommandError(f"--{name} limits a scan of the cards: give it with --reader PORT or --table PORT")
        if not (math.isfinite(value) and value > 0):
            raise CommandError(f"--{name} must be a number of seconds above 0, not {value:g}")
    if args.export is not None:
        check_writable(args.export, "--export")


def run(args: argparse.Namespace) -> int:
    _check_args(args)
    cs = CardSet.load(args.set_file)
    scanned = args.reader is not None or args.table is not None
    if args.table is not None:
        report = _scan_at_table(cs, args)
    elif args.reader is not None:
        from ..progress import Progress

        reader = AdafruitUartReader(args.reader)
        try:
            idle = READER_IDLE if args.idle is None else args.idle
            with Progress("deckcheck", cs.total, unit="cards", plain=False) as bar:
                report = check_scan(cs, reader, idle, say=bar.counting_say(), timeout=args.timeout,
                                    in_order=args.in_order)
        finally:
            reader.close()
    else:
        report = check_static(cs)
    for line in report.lines(cs, scanned=scanned):
        _say(line)
    if report.interrupted:
        return 130  # as for any command stopped with Ctrl-C; nothing exported
    if args.export is not None:
        if cs.missing():
            raise CardSetError(
                f"not exporting: {len(cs.missing())} card(s) of set {cs.name!r} are not enrolled; "
                "finish with 'tractor-table enroll'"
            )
        write_atomic(args.export, cs.export_map(), "--export")
        _say(f"wrote the firmware map {args.export} ({len(cs.cards)} tags)")
    return 0 if report.ok else 1


def _scan_at_table(cs: CardSet, args: argparse.Namespace) -> CheckReport:
    """The check at a table's seat reader: enroll mode on, the scan, enroll mode
    off whatever happens (done, Ctrl-C, --idle/--timeout, an error)."""
    seat = 0 if args.seat is None else args.seat
    table = TableTagReader(args.table, seat, say=_say)
    try:
        _say(f"the table on {args.table} is in enroll mode (it plays no cards meanwhile): "
             f"tap the cards on seat {seat}'s reader")
        from ..progress import Progress

        with Progress("deckcheck", cs.total, unit="cards", plain=False) as bar:
            return check_scan(cs, table, args.idle, say=bar.counting_say(), timeout=args.timeout,
                              remind=TABLE_REMIND, in_order=args.in_order)
    finally:
        _close_unhurried(table)


def _close_unhurried(table: TableTagReader) -> None:
    """Leave enroll mode; a second Ctrl-C meanwhile does not cut that short
    (it takes at most the reader's reply timeout)."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to set
        table.close()
        return
    try:
        table.close()
    finally:
        signal.signal(signal.SIGINT, previous)
