"""``tractor-table judge``: answer rules conformance cases (docs/rules.md §13; the format: ``CASE_FORMAT`` below, printed by ``--help``).

Reads one case per JSON line on standard input and writes one answer per line
on standard output, in the same order. A malformed line gets an error answer
and the runner goes on; it exits 0 when every line is answered.

``--engine full`` (default) answers with the host engine (``shengji``);
``--engine device`` hands the same streams to the device rules engine's runner
(``tractor_table.device_judge``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Iterable
from typing import TextIO

from ..errors import CommandError

CASE_FORMAT = """\
A case is one JSON object per line, e.g.
  {"id": "t1", "kind": "trick", "rules": {"decks": 2, "level": "T", "trump": "S"},
   "leader": 0, "plays": ["AH", "3H", "TS", "KH"], "expect": {"winner": 2, "points": 20}}
"rules": the level, the trump (S H D C or NT) and any option of docs/rules.md
(§0, "Options at a glance"); cards as in docs/rules.md (AS, TH, 5C, SJ, BJ).
kind      fields                                        answer
compare   a, b: one card each                           {"cmp": 1 | 0 | -1 | "none"}
shape     cards                                         {"suit": ..., "shape": ["t2", "p", "s"]}
throw     leader, lead, hands (all four)                {"ok": bool, "play": cards that stand}
follow    lead, hand (the follower's), play             {"legal": bool}
trick     leader, plays (four, the lead first)          {"winner": seat, "points": n}
kitty     lead, winner_play, kitty                      {"multiplier": m, "bonus": n}
settle    score, dealer, levels [side0, side1]          {"dealer": s, "levels": [..], "winner": ...}
declare   first_hand, dealer, bids [{"seat", "cards"}]  {"accepted": [..], "trump": ..., ...}
Each answer is one JSON line with the case's id, in the input's order; a line
that is not a case gets {"id": ..., "error": "why"}. With --check, every
answer is compared with the case's "expect" (each key given there; the cards
of "play" in any order) and a summary is printed instead of the answers.
See docs/rules.md §13, "Checking the engine"."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = CASE_FORMAT
    parser.add_argument(
        "--engine",
        choices=("full", "device"),
        default="full",
        help="which rules engine answers: the full host engine (default) or the device engine",
    )
    parser.add_argument(
        "--check", action="store_true",
        help="compare each answer with the case's 'expect' and print one line per case that "
        "differs and a summary (exit status 1 if any differs or fails)",
    )


def judge_stream(stdin: TextIO, stdout: TextIO) -> int:
    """Answer every line of ``stdin`` on ``stdout`` with the full engine."""
    from shengji.conformance import answer_line

    raw = getattr(stdin, "buffer", None)
    lines: Iterable[str | bytes] = raw if raw is not None else stdin
    try:
        for line in lines:
            if isinstance(line, bytes):
                try:
                    text = line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    stdout.write(
                        json.dumps({"id": None, "error": f"line is not UTF-8: {exc}"}) + "\n"
                    )
                    stdout.flush()
                    continue
            else:
                text = line
            out = answer_line(text)
            if out is not None:
                stdout.write(out + "\n")
                stdout.flush()
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): nothing left to answer to
        return 0
    return 0


def run(args: argparse.Namespace) -> int:
    if args.check:
        return check(args.engine, sys.stdin, sys.stdout)
    return _answer(args.engine, sys.stdin, sys.stdout)


def _answer(engine: str, stdin: TextIO, stdout: TextIO) -> int:
    if engine == "device":
        try:
            device_judge = importlib.import_module("tractor_table.device_judge")
        except ModuleNotFoundError as exc:
            if exc.name == "tractor_table.device_judge":
                raise CommandError(
                    "the device engine's judge (tractor_table.device_judge) is not built yet; "
                    "use --engine full"
                ) from None
            raise
        return int(device_judge.main(stdin, stdout))
    return judge_stream(stdin, stdout)


def _same(key: str, want: object, got: object) -> bool:
    if key == "play" and isinstance(want, str) and isinstance(got, str):
        return sorted(want.split()) == sorted(got.split())  # the cards as a multiset
    return want == got


def check(engine: str, stdin: TextIO, stdout: TextIO) -> int:
    """--check: answer every case, compare each answer with its ``expect``,
    print what differs and a summary; 0 when every case with an ``expect`` agrees."""
    import io

    lines = [line for line in stdin.read().splitlines() if line.strip()]
    answers_out = io.StringIO()
    _answer(engine, io.StringIO("".join(line + "\n" for line in lines)), answers_out)
    answers = answers_out.getvalue().splitlines()
    agree = differ = errors = unchecked = 0
    for no, line in enumerate(lines, start=1):
        try:
            case = json.loads(line)
        except ValueError:
            case = None
        got = json.loads(answers[no - 1]) if no - 1 < len(answers) else {"error": "no answer"}
        cid = case.get("id") if isinstance(case, dict) else None
        name = f"line {no}" + (f" ({cid})" if cid is not None else "")
        if "error" in got:
            errors += 1
            stdout.write(f"{name}: error: {got['error']}\n")
            continue
        expect = case.get("expect") if isinstance(case, dict) else None
        if not isinstance(expect, dict):
            unchecked += 1
            continue
        wrong = [k for k, v in expect.items() if not _same(k, v, got.get(k))]
        if wrong:
            differ += 1
            said = "; ".join(f"{k}: expected {json.dumps(expect[k])}, answered {json.dumps(got.get(k))}"
                             for k in wrong)
            stdout.write(f"{name}: differs: {said}\n")
        else:
            agree += 1
    stdout.write(
        f"judge --check ({engine} engine): {len(lines)} case(s): {agree} as expected, {differ} differ, "
        f"{errors} error(s), {unchecked} without 'expect'\n"
    )
    return 1 if differ or errors else 0
