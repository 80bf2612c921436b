"""``tractor-table enroll``: map every card's tag to its card, guided, on a reader."""

from __future__ import annotations

import argparse
import math
import os
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from ..enroll.cardset import CardSet, open_or_create
from ..enroll.procedure import Enrollment, rebuild
from ..enroll.readers import AdafruitUartReader, TableLostError, TableTagReader
from ..errors import CommandError
from ._files import check_writable, write_atomic


def configure(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--reader", metavar="PORT", help="a PN532 on a USB-UART adapter, e.g. /dev/ttyUSB0")
    where.add_argument("--table", metavar="PORT", help="a connected table's seat reader (through the link)")
    parser.add_argument("--seat", type=int, default=0,
                        help="with --table: the seat whose reader enrolls (0-3; default 0)")
    parser.add_argument("--set", dest="set_file", metavar="FILE", required=True, type=Path,
                        help="card-set file to write (resumed if it exists)")
    parser.add_argument("--name", help="name of a new set (at most 31 bytes)")
    parser.add_argument("--decks", type=int, help="decks in a new set (1-4; default 2)")
    parser.add_argument("--write-codes", action="store_true",
                        help="also write each card's code into its tag (pages 4-5) so a lost file can be rebuilt")
    parser.add_argument("--tap-timeout", type=float, default=20.0, metavar="S",
                        help="say 'missed tap' after S seconds without a card (default 20)")
    parser.add_argument("--rebuild", action="store_true",
                        help="rebuild a lost set file from the codes in the tags (needs --name and --decks)")
    parser.add_argument("--idle", type=float, default=10.0, metavar="S",
                        help="with --rebuild: stop S seconds after the last new card (default 10)")
    parser.add_argument("--export", metavar="FILE", type=Path,
                        help="when the set is complete, also write the firmware's binary map (cards.bin)")


def _say(text: str) -> None:
    print(text, flush=True)


class Keyboard:
    """The operator's lines at the terminal while enroll waits for taps: ``u``
    (or ``undo``) and Enter takes the last card back. Read by a daemon thread
    from standard input when it is a terminal or a pipe; :meth:`take` is true
    once per ``u``."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self._undos = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._read, name="enroll-keys", daemon=True).start()

    @staticmethod
    def usable() -> bool:
        try:
            mode = os.fstat(sys.stdin.fileno()).st_mode
        except (AttributeError, OSError, ValueError):
            return False  # no standard input (or one that cannot be read, as under pytest)
        return sys.stdin.isatty() or stat.S_ISFIFO(mode)

    def _read(self) -> None:
        try:
            for line in sys.stdin:
                word = line.strip().lower()
                if word in ("u", "undo"):
                    with self._lock:
                        self._undos += 1
                elif word:
                    self.say(f"typed {line.strip()!r}: u and Enter takes the last card back; "
                             "Ctrl-C stops (progress is kept)")
        except (OSError, ValueError):
            return

    def take(self) -> bool:
        with self._lock:
            if not self._undos:
                return False
            self._undos -= 1
            return True


def _check_args(args: argparse.Namespace) -> None:
    """Refuse bad options before any file is made or any port opened."""
    if not 0 <= args.seat <= 3:
        raise CommandError(f"--seat must be 0-3, not {args.seat}")
    for option, value in (("--tap-timeout", args.tap_timeout), ("--idle", args.idle)):
        if not (math.isfinite(value) and value > 0):
            raise CommandError(f"{option} must be a number of seconds above 0, not {value:g}")
    if args.export is not None:
        check_writable(args.export, "--export")


def run(args: argparse.Namespace) -> int:
    _check_args(args)
    if args.table is not None and (args.write_codes or args.rebuild):
        raise CommandError(
            f"{'--write-codes' if args.write_codes else '--rebuild'} reads or writes the tags' memory, "
            "which a table's reader does not do for the host; use --reader PORT with a PN532 "
            "on a USB-UART adapter"
        )
    if args.rebuild:
        return _rebuild(args)
    cs = open_or_create(args.set_file, args.name, args.decks)
    reader: AdafruitUartReader | TableTagReader
    if args.table is not None:
        table = TableTagReader(args.table, args.seat, say=_say)
        _say(f"the table on {args.table} is in enroll mode: tap the cards on seat {args.seat}'s reader")
        reader = table
    else:
        reader = AdafruitUartReader(args.reader)
    try:
        if not cs.cards and not args.set_file.exists():
            # the reader answered: from now on the file exists, so the run can be resumed
            _save(cs, args.set_file)
        from ..progress import Progress

        with Progress("enroll", cs.total, unit="cards", plain=False, start=len(cs.cards)) as bar:
            say = bar.counting_say()
            keys = Keyboard(say).take if Keyboard.usable() else None
            Enrollment(reader, cs, args.set_file, say=say, write_codes=args.write_codes,
                       tap_timeout=args.tap_timeout, undo_requested=keys).run()
    except (KeyboardInterrupt, TableLostError):
        # Ctrl-C, or the table came back from a replug or a restart without enroll mode
        print(f"stopped: {len(cs.cards)} of {cs.total} cards are saved in {args.set_file}; "
              "run the same command again to resume", file=sys.stderr, flush=True)
        raise
    finally:
        reader.close()
    if args.export is not None:
        write_atomic(args.export, cs.export_map(), "--export")
        _say(f"wrote the firmware map {args.export} ({len(cs.cards)} tags)")
    return 0


def _save(cs: CardSet, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        cs.save(path)
    except OSError as exc:
        raise CommandError(f"--set {path}: cannot write it ({exc.strerror or exc})") from None


def _rebuild(args: argparse.Namespace) -> int:
    if args.name is None or args.decks is None:
        raise CommandError("--rebuild needs the set's --name and --decks (the tags carry only a hash of the name)")
    if args.set_file.exists():
        raise CommandError(f"{args.set_file} exists; rebuild into a new file (it is never overwritten)")
    args.set_file.parent.mkdir(parents=True, exist_ok=True)
    reader = AdafruitUartReader(args.reader)
    try:
        cs = rebuild(reader, args.name, args.decks, args.set_file, args.idle, say=_say)
    finally:
        reader.close()
    if args.export is not None and not cs.missing():
        write_atomic(args.export, cs.export_map(), "--export")
        _say(f"wrote the firmware map {args.export} ({len(cs.cards)} tags)")
    return 0 if not cs.missing() else 1
