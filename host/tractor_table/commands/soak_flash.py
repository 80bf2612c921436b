"""``tractor-table soak-flash``: the power-cut soak of the table's saves on littlefs.

Bots play whole hands; the table core saves its state on littlefs on the
modelled NOR flash as ``main.py`` does; the power is cut ``--cuts`` times at a
random erase or program (often partway), and after each cut the table boots
again from the image as left and must resume with at most the trick in
progress lost, never a corrupt or half-restored state, and end every hand as
the uncut run does (:mod:`tractor_table.sim.board.flashsoak`). Exit status 1 on
any failure. The preparation's steps and a bar of the hands and the cuts go
to standard error (plain lines when it is not a terminal); a Ctrl-C prints
the figures of the cuts done so far and exits with status 130. ``bench/bench_flash.py`` (``make soak-flash``) runs it and writes
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
    parser.add_argument("--quiet", action="store_true", help="no progress (the steps of the preparation, a bar of the cuts)")


def run(args: argparse.Namespace) -> int:
    if args.cuts < 1:
        raise CommandError("--cuts must be at least 1")
    if args.hands < 0 or args.max_gap < 1:
        raise CommandError("--hands must be 0 or more and --max-gap at least 1")
    from ..progress import Progress
    from ..sim.board import flashsoak

    hands = args.hands or max(2, args.cuts // 5)
    bars: list[Progress] = []  # the bar now shown: the bots' hands, then the cuts

    def stop_bar() -> None:
        while bars:
            bars.pop().stop()

    def stage(text: str) -> None:
        stop_bar()
        print(f"soak-flash: {text}", file=sys.stderr, flush=True)

    def bar(label: str, total: int, unit: str) -> Progress:
        if not bars:
            bars.append(Progress(label, total, unit=unit, stream=sys.stderr, say_stream=sys.stderr).start())
        return bars[0]

    def on_hand(done: int) -> None:
        bar("soak-flash: hands", hands, "hands").update(done)

    def on_boot(fig: flashsoak.Figures) -> None:
        bar("soak-flash: cuts", args.cuts, "cuts").update(fig.cuts)

    quiet = args.quiet
    try:
        fig, _ref = flashsoak.soak(
            args.cuts, hands=args.hands, seed=args.seed, max_gap=args.max_gap,
            stage=None if quiet else stage, on_hand=None if quiet else on_hand,
            on_boot=None if quiet else on_boot,
        )
    except flashsoak.Interrupted as stop:
        stop_bar()
        fig = stop.figures
        print("\n".join(flashsoak.report(fig)))
        for f in fig.failures[:20]:
            print("FAIL", f, file=sys.stderr)
        print(
            f"soak-flash: interrupted {fig.interrupted} after {fig.cuts} of {args.cuts} cuts "
            f"({fig.boots} boots, {len(fig.failures)} failures so far); the figures above are those of "
            "the cuts done",
            file=sys.stderr,
        )
        return 130
    finally:
        stop_bar()
    print("\n".join(flashsoak.report(fig)))
    for f in fig.failures[:20]:
        print("FAIL", f, file=sys.stderr)
    return 1 if fig.failures else 0
