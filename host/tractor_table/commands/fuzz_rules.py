"""``tractor-table fuzz-rules``: differential fuzzing of the two rules engines.

The full engine's bots play ``--hands`` random hands (every preset, 1-4 decks,
hand scans on and off); the device engine judges the same hands under
MicroPython; every verdict, reason, trick winner, score, kitty bonus and
settlement must agree (see ``tractor_table.difffuzz``). Disagreements are
written as replayable case files into ``--out``; ``--replay FILE`` runs them
again. Exit status 1 when the engines disagree.

``--adversarial N`` runs the adversarial generator instead
(``tractor_table.adversarial``): a hill-climbing search over N follows,
throws, challenges and tricks for the slowest checks (cost ``--cost``: the
device engine's time under MicroPython, the full engine's, or a deterministic
work counter), every one judged by both engines; ``--keep FILE`` writes the
worst of each family as regression data.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import time
from pathlib import Path

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
    parser.add_argument(
        "--adversarial",
        type=int,
        default=None,
        metavar="N",
        help="search N cases for the slowest checks (both engines judge each) instead of playing hands",
    )
    parser.add_argument(
        "--cost",
        choices=("device", "host", "work"),
        default="device",
        help="what --adversarial maximises: the device engine's time under MicroPython (default), "
        "the full engine's time, or a deterministic work counter",
    )
    parser.add_argument(
        "--keep", type=Path, default=None, help="with --adversarial: write the worst case of each family to this file"
    )


def check_case_file(path: Path) -> int:
    """The number of cases in a disagreement case file; CommandError naming the
    first line that is not one (the file is read before MicroPython starts)."""
    if not path.is_file():
        raise CommandError(f"no case file {path}: give a file written by fuzz-rules")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"case file {path}: cannot read it ({exc})") from None
    count = 0
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            rec = None
        if not (
            isinstance(rec, dict)
            and rec.get("kind") == "hand"
            and isinstance(rec.get("steps"), list)
            and isinstance(rec.get("expect"), list)
        ):
            what = "not JSON" if rec is None else "not a fuzz-rules case (no kind 'hand', steps and expect)"
            raise CommandError(
                f"case file {path}, line {no}: {what}; give a disagreement-*.jsonl file "
                "written by fuzz-rules, unedited"
            )
        count += 1
    if count == 0:
        raise CommandError(f"case file {path}: holds no case; give a disagreement-*.jsonl file written by fuzz-rules")
    return count


def run(args: argparse.Namespace) -> int:
    from .. import difffuzz  # the engines and bots load only when this command runs

    if args.replay is not None and _adversarial_file(args.replay):
        return _replay_adversarial(args.replay)
    if args.replay is not None:
        check_case_file(args.replay)
        results = difffuzz.replay(args.replay)
        bad = 0
        for cid, diff in results:
            if diff is None:
                print(f"{cid}: the engines agree")
            else:
                bad += 1
                print(f"{cid}: still differ at answer {diff[0]}: device {diff[1]!r}")
        return 1 if bad else 0
    if args.adversarial is not None:
        return _adversarial(args)
    if args.hands < 1:
        raise CommandError("--hands must be at least 1")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)

    if args.jobs < 1:
        raise CommandError("--jobs must be at least 1")
    if args.out.exists() and not args.out.is_dir():
        raise CommandError(f"--out {args.out}: is a file; give a folder for the disagreement case files")
    from ..progress import Progress

    seen: list[difffuzz.Report] = []  # the report as it grows: its state at a Ctrl-C
    bar = Progress("fuzz-rules", args.hands, unit="hands", stream=sys.stderr)

    def progress(r: difffuzz.Report) -> None:
        if not seen:
            seen.append(r)
        if not args.quiet:
            bar.update(r.hands)

    t0 = time.perf_counter()
    interrupted = False
    try:
        with bar if not args.quiet else contextlib.nullcontext():
            report = difffuzz.run(args.hands, seed, out_dir=args.out, progress=progress, jobs=args.jobs,
                                  progress_every=1)
    except KeyboardInterrupt:
        interrupted = True
        report = seen[0] if seen else difffuzz.Report()
        report.seconds = time.perf_counter() - t0
    verdict = "the engines agree" if not report.disagreements else f"{len(report.disagreements)} disagreements"
    if interrupted:
        verdict = f"interrupted after {report.hands} of {args.hands} hands; so far {verdict}"
    print(
        f"fuzz-rules: {report.hands} hands from seed {seed} ({len(report.variants)} rule sets), "
        f"{report.plays} plays, {report.checks} answers compared in {report.seconds:.1f} s: "
        + verdict
    )
    for d in report.disagreements:
        print(f"  seed {d.seed} [{d.variant}] {d.label}: full {d.full!r}, device {d.device!r}")
    for f in report.files:
        print(f"  case file: {f}  (replay: tractor-table fuzz-rules --replay {f})")
    if interrupted:
        return 130
    return 1 if report.disagreements else 0


def _adversarial_file(path: Path) -> bool:
    from .. import adversarial

    return path.is_file() and adversarial.is_case_file(path)


def _replay_adversarial(path: Path) -> int:
    from .. import adversarial

    bad = 0
    for cid, full, device, us in adversarial.replay(path):
        case_ok = device is not None and adversarial.agree(_case(path, cid), full, device)
        if case_ok:
            print(f"{cid}: the engines agree ({full}; device {us} µs)")
        else:
            bad += 1
            print(f"{cid}: the engines differ: full {full!r}, device {device!r}")
    return 1 if bad else 0


def _case(path: Path, cid: str) -> dict[str, object]:
    from .. import adversarial

    return next(c for c in adversarial.read_cases(path) if str(c.get("id")) == cid)


def _adversarial(args: argparse.Namespace) -> int:
    from .. import adversarial

    if args.adversarial < 1:
        raise CommandError("--adversarial must be at least 1 (cases to evaluate)")
    if args.out.exists() and not args.out.is_dir():
        raise CommandError(f"--out {args.out}: is a file; give a folder for the disagreement case files")
    if args.keep is not None:
        from ._files import check_writable

        check_writable(args.keep, "--keep")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)

    def progress(r: adversarial.SearchReport) -> None:
        if not args.quiet:
            print(f"  {r.evaluated} cases, {len(r.disagreements)} disagreements", file=sys.stderr)

    report = adversarial.search(args.adversarial, seed, cost=args.cost, out_dir=args.out, progress=progress)
    unit = {"device": "µs (device, unix port)", "host": "µs (full engine)", "work": "calls (full engine)"}[args.cost]
    print(
        f"fuzz-rules --adversarial: {report.evaluated} cases from seed {seed}, cost {args.cost}, "
        f"in {report.seconds:.1f} s: "
        + ("the engines agree" if not report.disagreements else f"{len(report.disagreements)} disagreements")
    )
    for s in report.worst():
        print(f"  {s.cost:12,.0f} {unit}  {s.case.get('family')}: {s.case['kind']} -> {s.full}")
    for d in report.disagreements[:20]:
        print(f"  DISAGREE {d.case.get('id')}: full {d.full!r}, device {d.device!r}")
    for f in report.files:
        print(f"  case file: {f}  (replay: tractor-table fuzz-rules --replay {f})")
    if args.keep is not None:
        from ._files import write_atomic

        text = "".join(json.dumps(s.record()) + "\n" for s in report.worst())
        write_atomic(args.keep, text.encode(), "--keep")
        print(f"  the worst case of each family: {args.keep}")
    return 1 if report.disagreements else 0
