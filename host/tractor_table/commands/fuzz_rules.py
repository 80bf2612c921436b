"""``tractor-table fuzz-rules``: differential fuzzing of the two rules engines.

The full engine's bots play ``--hands`` random hands (every preset, 1-4 decks,
hand scans on and off); the device engine judges the same hands under
MicroPython; every verdict, reason, trick winner, score, kitty bonus and
settlement must agree (see ``tractor_table.difffuzz``). Disagreements are
written as replayable case files into ``--out``; ``--replay FILE`` runs them
again. Exit status 1 when the engines disagree.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from .. import difffuzz
from ..errors import CommandError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=1000, help="hands to play (default 1000)")
    parser.add_argument("--seed", type=int, default=None, help="first hand's seed (default: random)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("build/fuzz-rules"),
        help="folder for disagreement case files (default build/fuzz-rules)",
    )
    parser.add_argument("--replay", type=Path, default=None, help="run a disagreement case file again")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument(
        "--jobs", type=int, default=1, help="worker processes for the bots (default 1; one MicroPython process judges)"
    )


def run(args: argparse.Namespace) -> int:
    if args.replay is not None:
        if not args.replay.is_file():
            raise CommandError(f"no case file {args.replay}: give a file written by fuzz-rules")
        results = difffuzz.replay(args.replay)
        bad = 0
        for cid, diff in results:
            if diff is None:
                print(f"{cid}: the engines agree")
            else:
                bad += 1
                print(f"{cid}: still differ at answer {diff[0]}: device {diff[1]!r}")
        return 1 if bad else 0
    if args.hands < 1:
        raise CommandError("--hands must be at least 1")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)

    def progress(r: difffuzz.Report) -> None:
        if not args.quiet:
            print(f"  {r.hands} hands, {r.checks} answers compared, {len(r.disagreements)} disagreements", file=sys.stderr)

    if args.jobs < 1:
        raise CommandError("--jobs must be at least 1")
    report = difffuzz.run(args.hands, seed, out_dir=args.out, progress=progress, jobs=args.jobs)
    print(
        f"fuzz-rules: {report.hands} hands from seed {seed} ({len(report.variants)} rule sets), "
        f"{report.plays} plays, {report.checks} answers compared in {report.seconds:.1f} s: "
        + ("the engines agree" if not report.disagreements else f"{len(report.disagreements)} disagreements")
    )
    for d in report.disagreements:
        print(f"  seed {d.seed} [{d.variant}] {d.label}: full {d.full!r}, device {d.device!r}")
    for f in report.files:
        print(f"  case file: {f}  (replay: tractor-table fuzz-rules --replay {f})")
    return 1 if report.disagreements else 0
