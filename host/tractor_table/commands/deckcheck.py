"""``tractor-table deckcheck``: is a card set complete and consistent? Optionally
scan the physical cards on a reader, and export the firmware's binary map."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..enroll import AdafruitUartReader, CardSet, CardSetError, check_scan, check_static


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("set_file", metavar="SET", type=Path, help="card-set file (from 'tractor-table enroll')")
    parser.add_argument("--reader", metavar="PORT",
                        help="also tap the physical cards on a PN532 (USB-UART) to find unknown and missing tags")
    parser.add_argument("--idle", type=float, default=10.0, metavar="S",
                        help="with --reader: stop S seconds after the last new card (default 10)")
    parser.add_argument("--export", metavar="FILE", type=Path,
                        help="write the firmware's binary card map (cards.bin) if the set is sound")


def _say(text: str) -> None:
    print(text, flush=True)


def run(args: argparse.Namespace) -> int:
    cs = CardSet.load(args.set_file)
    if args.reader is not None:
        reader = AdafruitUartReader(args.reader)
        try:
            report = check_scan(cs, reader, args.idle, say=_say)
        finally:
            reader.close()
    else:
        report = check_static(cs)
    for line in report.lines(cs, scanned=args.reader is not None):
        _say(line)
    if args.export is not None:
        if cs.missing():
            raise CardSetError(
                f"not exporting: {len(cs.missing())} card(s) of set {cs.name!r} are not enrolled; "
                "finish with 'tractor-table enroll'"
            )
        args.export.write_bytes(cs.export_map())
        _say(f"wrote the firmware map {args.export} ({len(cs.cards)} tags)")
    return 0 if report.ok else 1
