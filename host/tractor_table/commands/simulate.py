"""``tractor-table simulate``: bots play a match with the full rules engine.

Prints a score sheet, one line per hand: the dealer, the trump (and who
declared it), the attackers' trick points, the kitty bonus, penalties, the
score, what it is worth, and the levels after it. ``--records DIR`` also writes
each hand's record (JSON lines, docs/records.md).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

from ..errors import CommandError
from ._files import write_atomic
from ._rules import rules_help

_STRENGTHS = {"random": 0, "basic": 1, "good": 2, "0": 0, "1": 1, "2": 2}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hands", type=int,
        help="hands to play at most (default 8): a won match ends the run first, so a large "
        "--hands plays one whole match; with --until-won, the default is 500",
    )
    parser.add_argument("--until-won", action="store_true", help="play until the match is won")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the bots (default 0)")
    parser.add_argument("--rules", default="classic", help=rules_help("the rules the bots play"))
    parser.add_argument("--decks", type=int, help="override the preset's number of decks (1-4)")
    parser.add_argument(
        "--partners", choices=("fixed", "called"), help="override partnerships (called = find-a-friend)"
    )
    parser.add_argument(
        "--bots",
        default="basic",
        help="bot strength: random, basic or good, or four comma-separated (one per seat)",
    )
    parser.add_argument("--records", type=Path, help="write each hand's record (JSON lines) into this folder")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")


def _strengths(text: str) -> list[int]:
    parts = [p.strip().lower() for p in text.split(",")]
    if len(parts) == 1:
        parts = parts * 4
    if len(parts) != 4 or any(p not in _STRENGTHS for p in parts):
        raise CommandError(f"--bots {text!r}: give random, basic or good, once or four times (comma-separated)")
    return [_STRENGTHS[p] for p in parts]


def _rules(args: argparse.Namespace) -> Any:
    from shengji.rules import InvalidRulesError, Rules

    overrides: dict[str, Any] = {}
    if args.decks is not None:
        overrides["decks"] = args.decks
    if args.partners is not None:
        overrides["partners"] = args.partners
    try:
        return Rules.preset(args.rules, **overrides)
    except InvalidRulesError as exc:
        given = f"--rules {args.rules}" + (f" --decks {args.decks}" if args.decks is not None else "")
        raise CommandError(f"{given}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from shengji import record
    from shengji.match import Match, make_bots, play_hand
    from shengji.settle import level_name

    if args.hands is None:
        args.hands = 500 if args.until_won else 8
    if args.hands < 1:
        raise CommandError("--hands must be 1 or more")
    rules = _rules(args)
    strengths = _strengths(args.bots)
    if args.records is not None:
        try:
            args.records.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"--records {args.records}: cannot create the folder ({exc.strerror})") from None
    rng = random.Random(args.seed)
    bots = make_bots(strengths, args.seed)
    match = Match(rules)
    names = ["random", "basic", "good"]
    bot_text = (
        names[strengths[0]] if len(set(strengths)) == 1 else ",".join(names[s] for s in strengths)
    )
    per_seat = match.per_seat
    print(
        f"tractor-table simulate: seed {args.seed}, rules {args.rules} "
        f"({rules.decks} deck{'s' if rules.decks > 1 else ''}, level table {rules.level_table.value}, "
        f"partners {rules.partners.value}), bots {bot_text}"
    )
    lv_head = "levels S0 S1 S2 S3" if per_seat else "levels 0&2 1&3"
    if not args.quiet:
        print(
            f"{'hand':>4} {'lvl':>3} {'dealer':>6} {'trump':<9} {'attackers':<9} {'tricks':>6} "
            f"{'kitty':<12} {'pen':>4} {'score':>5}  {'result':<22} {lv_head}"
        )
    started = time.perf_counter()
    total_findings = 0
    n = 0
    while n < args.hands and not match.is_over:
        hand = play_hand(
            rules, bots, rng, level=match.hand_level(), dealer=match.dealer, first_hand=match.first_hand
        )
        s = match.finish(hand)
        n += 1
        if args.records is not None:
            # zero-padded to the widest hand number, so the files sort in play order
            path = args.records / f"hand-{args.seed}-{n:0{max(3, len(str(args.hands)))}d}.jsonl"
            write_atomic(path, record.dumps(hand).encode("utf-8"), "--records")
        levels = " ".join(level_name(x) for x in s.levels_after)
        if s.redeal:
            if not args.quiet:
                print(f"{n:>4} {level_name(s.level):>3} {'-':>6} {'redeal: nobody declared':<50} {'':>22} {levels}")
            continue
        r, st = s.result, s.settlement
        assert r is not None and st is not None
        total_findings += s.findings
        trump = "NT" if r.trump is None else "SHDC"[r.trump]
        trump += f" (by {s.declarer})" if s.declarer is not None else " (flip)" if hand.flipped is not None else ""
        att = "&".join(map(str, r.attackers))
        kitty = f"{r.kitty_points}x{r.multiplier}={r.kitty_bonus}" if r.multiplier else "-"
        side = "attackers" if st.attackers_win else "defenders"
        result = (
            f"{side} take over +{st.gain}" if st.attackers_win else f"{side} +{st.gain}"
        )
        if r.forfeit is not None:
            result = f"revoke by {r.forfeit}: {result}"
        if st.j_reset:
            result += ", J back to 2"
        if not args.quiet:
            print(
                f"{n:>4} {level_name(r.level):>3} {r.dealer:>6} {trump:<9} {att:<9} {r.trick_points:>6} "
                f"{kitty:<12} {r.penalty:>4} {r.score:>5}  {result:<22} {levels}"
            )
    elapsed = time.perf_counter() - started
    scored = [h for h in match.history if h.result is not None and h.settlement is not None]
    if scored:
        kept = sum(1 for h in scored if h.settlement and not h.settlement.attackers_win)
        mean = sum(h.result.score for h in scored if h.result) / len(scored)
        print(
            f"defenders kept the deal in {kept} of {len(scored)} hands; "
            f"attackers' mean score {mean:.1f} of {100 * rules.decks}"
        )
    if match.winner is not None:
        w = match.winner
        who = f"seats {'&'.join(map(str, w))}" if isinstance(w, tuple) else f"side {w} (seats {w}&{w + 2})"
        print(f"match won by {who} after {n} hands")
        if n < args.hands and not args.until_won:
            print(f"the won match ended the run ({n} of the --hands {args.hands} asked for were played)")
    else:
        print(f"after {n} hand{'s' if n > 1 else ''}: no winner yet; levels {' '.join(level_name(x) for x in match.levels)}")
    print(f"{n} hands in {elapsed:.2f} s ({n / elapsed:.1f} hands/s); rule findings: {total_findings}")
    if args.records is not None:
        print(f"records written to {args.records}/")
    return 0
