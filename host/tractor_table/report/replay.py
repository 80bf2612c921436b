"""Step through a hand event by event, forwards and back, in the terminal.

A hand is a list of :class:`ReplayStep` (what happened, and the game as it stands
after it), built from a recorded hand (the table's events, as
``tractor-table records`` keeps them) or from an engine hand record (a
``simulate --records`` file, docs/records.md), then walked with
:func:`walk`: Enter or ``n`` the next event, ``b`` back, ``f``/``l`` the
first/last, a number that step, ``q`` to stop."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..errors import CommandError
from .cards import level_name, levels_name, names, trump_name
from .model import HandReport, feed, levels_of
from .text import score_text, words

KEYS = "Enter/n next, b back, f first, l last, NUMBER that step, q quit"


@dataclass
class ReplayStep:
    title: str
    lines: list[str]


def _table_state(rep: HandReport, lang: str) -> list[str]:
    dealer = f"S{rep.dealer}" if rep.dealer is not None and rep.dealer >= 0 else "?"
    out = [f"dealer {dealer}, trump {trump_name(rep.trump, lang)}, levels "
           f"{levels_name(rep.levels)}"]
    done = [t for t in rep.tricks if t.winner is not None]
    if done and done[-1].score is not None and done[-1].score < 0:  # find-a-friend, partner unknown
        out.append(f"tricks {len(done)}, {score_text(done[-1], words('en'))}")
    else:
        out.append(f"tricks {len(done)}, attackers {done[-1].score if done else 0} points")
    if rep.tricks:
        t = rep.tricks[-1]
        plays = "  ".join(f"S{s} {names(c, lang)}" for s, c in t.plays) or "-"
        won = f" -> S{t.winner} wins {t.points}" if t.winner is not None else ""
        out.append(f"trick {t.number}: {plays}{won}")
    if rep.end is not None:
        e = rep.end
        out.append(f"hand over: attackers {e['score']}, kitty bonus {e['bonus']}, levels after "
                   f"{levels_name(e['levels'])}")
    return out


def recorded_steps(store: Any, hand: dict[str, Any], lang: str = "en") -> list[ReplayStep]:
    """The steps of a recorded hand (its own branch of events)."""
    from ..events import describe
    from ..records.export import branch

    # the facts as the events tell them, one by one (a hand the records start
    # inside of: from its snapshot's)
    partial = bool(hand["partial"])
    rep = HandReport(hand["id"], hand["table_id"], None, hand["hand_no"], hand["status"],
                     hand["started_at"], hand["ended_at"],
                     dealer=hand["dealer"] if partial else None,
                     levels=levels_of(hand) if partial else (None, None),
                     trump=hand["trump"] if partial else None)
    steps = []
    for e in branch(store, hand):
        feed(rep, e["event"])
        verdicts = sorted({v["verdict"] for v in e["verdicts"]}) or ["not judged"]
        steps.append(ReplayStep(f"event {e['index']}: {describe(e['event'])}  [{', '.join(verdicts)}]",
                          _table_state(rep, lang)))
    return steps


def _engine_state(hand: Any, lang: str) -> list[str]:
    dealer = "?" if hand.dealer is None else f"S{hand.dealer}"
    trump = "?" if hand.trump is None and hand.phase.value == "draw" else (
        "NT" if hand.trump is None else trump_name(hand.trump, lang))
    out = [f"phase {hand.phase.value}, dealer {dealer}, trump {trump}, level {level_name(hand.level)}"]
    attackers = hand.attackers()
    pts = hand.trick_points_by_seat()
    done = [t for t in hand.tricks if t.winner is not None]
    if attackers is not None:
        out.append(f"tricks {len(done)}, attackers {sum(pts[s] for s in attackers)} points")
    if hand.tricks:
        t = hand.tricks[-1]
        plays = "  ".join(f"S{s} {names(c, lang)}" for s, c in t.plays) or "-"
        won = f" -> S{t.winner} wins {t.points}" if t.winner is not None else ""
        out.append(f"trick {len(hand.tricks)}: {plays}{won}")
    if hand.hands is not None:
        for s in range(4):
            out.append(f"  S{s} holds {names(sorted(hand.held(s), key=lambda c: (c % 54, c // 54)), lang)}")
    if hand.is_over:
        r = hand.result()
        out.append(f"hand over: attackers {r.score} (tricks {r.trick_points}, kitty bonus {r.kitty_bonus})")
    return out


def _say(d: dict[str, Any], lang: str) -> str:
    k = d.get("event")
    if k in ("play", "bid", "challenge"):
        from shengji import record as erecord

        cards = names(erecord.parse_ids(d.get("cards", "")), lang)
        return f"S{d.get('seat')} {k}s {cards}"
    if k in ("bury", "reveal"):
        from shengji import record as erecord

        return f"{k}: {names(erecord.parse_ids(d.get('cards', '')), lang)}"
    if k == "end_draw":
        return "the draw is over"
    if k == "deal":
        return "the deal"
    if k == "scan":
        return "every hand scanned"
    return str(k)


def file_steps(path: Path, lang: str = "en") -> list[ReplayStep]:
    """The steps of an engine hand record (``simulate --records``)."""
    from shengji import record as erecord

    try:
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    except OSError as exc:
        raise CommandError(f"records replay {path}: cannot read it ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise CommandError(f"records replay {path}: not a text file (a hand record is JSON lines)") from None
    try:
        hand = erecord.replay(lines[:1])
    except erecord.RecordError as exc:
        raise CommandError(
            f"records replay {path}: not a hand record ({exc}); give a hand's number or a "
            "'simulate --records' file"
        ) from None
    steps = [ReplayStep("the hand starts", _engine_state(hand, lang))]
    for n, line in enumerate(lines[1:], start=2):
        try:
            d = json.loads(line)
            hand.apply(erecord.event_from_json(d))
        except (ValueError, erecord.RecordError) as exc:
            raise CommandError(f"records replay {path}: line {n}: {exc}") from None
        steps.append(ReplayStep(f"line {n}: {_say(d, lang)}", _engine_state(hand, lang)))
    return steps


def show(steps: list[ReplayStep], k: int, out: Callable[[str], None]) -> None:
    s = steps[k]
    out(f"-- step {k + 1}/{len(steps)}: {s.title}")
    for line in s.lines:
        out(f"   {line}")


def walk(steps: list[ReplayStep], keys: Iterable[str] | TextIO, out: Callable[[str], None],
         start: int = 0) -> int:
    """Show step ``start``, then move as each line of ``keys`` says; the last step shown."""
    if not steps:
        out("no events to step through")
        return -1
    k = max(0, min(start, len(steps) - 1))
    show(steps, k, out)
    out(f"   ({KEYS})")
    for raw in keys:
        key = raw.strip().lower()
        if key in ("q", "quit"):
            break
        if key in ("", "n", "next"):
            if k == len(steps) - 1:
                out("   (the last step; b goes back, q quits)")
                continue
            k += 1
        elif key in ("b", "p", "back"):
            if k == 0:
                out("   (the first step; Enter goes on, q quits)")
                continue
            k -= 1
        elif key == "f":
            k = 0
        elif key == "l":
            k = len(steps) - 1
        elif key.isdigit() and 1 <= int(key) <= len(steps):
            k = int(key) - 1
        else:
            out(f"   not a key: {raw.strip()!r}; {KEYS} (1-{len(steps)})")
            continue
        show(steps, k, out)
    return k
