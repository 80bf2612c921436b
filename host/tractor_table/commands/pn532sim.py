"""``tractor-table pn532sim``: a simulated PN532 on a USB-UART adapter, on a
pseudo-terminal, with cards tapped from the keyboard or a script.

It prints the pseudo-terminal's path; ``tractor-table enroll --reader PTY`` and
``tractor-table deckcheck SET --reader PTY`` then work against it exactly as
against a real reader on ``/dev/ttyUSB0`` (the simulator is byte-accurate:
docs/readers.md). The commands are those of :mod:`tractor_table.sim.pn532sim.taps`
(``tap``, ``deck``, ``place``, ``remove``, ``two``, ``foreign``, ``wait``, ``quit``).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import CommandError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--decks", type=int, default=2, choices=(1, 2, 3, 4),
                        help="decks of cards to tap (default 2)")
    parser.add_argument("--script", type=Path, metavar="FILE",
                        help="read the commands from this file first (then from standard input: the keyboard)")
    parser.add_argument("--hold", type=float, default=0.3, metavar="S",
                        help="seconds a tapped card stays on the reader once read (default 0.3)")
    parser.add_argument("--gap", type=float, default=0.2, metavar="S",
                        help="seconds between two taps of 'deck' (default 0.2)")


def run(args: argparse.Namespace) -> int:
    import signal

    from ..sim.pn532sim.serve import PtyPN532
    from ..sim.pn532sim.taps import HELP, Taps

    for option, value in (("--hold", args.hold), ("--gap", args.gap)):
        if not (math.isfinite(value) and 0 <= value <= 60):
            raise CommandError(f"{option} must be seconds from 0 to 60, not {value:g}")
    script: list[str] = []
    if args.script is not None:
        try:
            script = args.script.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"--script {args.script}: cannot read it ({exc})") from None

    def say(text: str) -> None:
        print(text, flush=True)

    def stop(_sig: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with PtyPN532() as sim:
            say(f"simulated PN532 (USB-UART) on {sim.port}, {args.decks} deck(s) of cards")
            say(f"  enroll:    tractor-table enroll --reader {sim.port} --set SET --decks {args.decks}")
            say(f"  deckcheck: tractor-table deckcheck SET --reader {sim.port}")
            say("  " + HELP + " (Ctrl-C stops)")
            taps = Taps(sim, args.decks, hold=args.hold, gap=args.gap, say=say)
            try:
                if not taps.run(script) and not taps.run(sys.stdin):
                    # the end of a script or a pipe: the reader stays, as one left plugged in
                    while True:
                        time.sleep(1)
            except KeyboardInterrupt:
                pass
            say(f"simulated reader stopped after {taps.tapped} tap(s)")
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0
