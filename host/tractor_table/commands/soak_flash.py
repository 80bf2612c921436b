"""``tractor-table soak-flash``: the power-cut soak of the table's saves on littlefs.

Bots play whole hands; the table core saves its state on littlefs on the
modelled NOR flash as ``main.py`` does; the power is cut ``--cuts`` times at a
random erase or program (often partway), and after each cut the table boots
again from the image as left and must resume with at most the trick in
progress lost, never a corrupt or half-restored state, and end every hand as
the uncut run does (:mod:`tractor_table.board.flashsoak`). Exit status 1 on
any failure. ``bench/bench_flash.py`` (``make soak-flash``) runs it and writes
its figures into docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import CommandError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cuts", type=int, default=1000, help="power cuts (default 1000)")
    parser.add_argument("--hands", type=int, default=0, help="hands recorded (default: one per 5 cuts)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the hands and the cut points (default 1)")
    parser.add_argument(
        "--max-gap", type=int, default=80, help="at most this many erases/programs between a boot and its cut (default 80)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def run(args: argparse.Namespace) -> int:
    if args.cuts < 1:
        raise CommandError("--cuts must be at least 1")
    if args.hands < 0 or args.max_gap < 1:
        raise CommandError("--hands must be 0 or more and --max-gap at least 1")
    from ..board import flashsoak

    say = None if args.quiet else print
    fig, _ref = flashsoak.soak(args.cuts, hands=args.hands, seed=args.seed, max_gap=args.max_gap, say=say)
    lines = flashsoak.report(fig)
    print("\n".join(lines))
    for f in fig.failures[:20]:
        print("FAIL", f, file=sys.stderr)
    return 1 if fig.failures else 0
