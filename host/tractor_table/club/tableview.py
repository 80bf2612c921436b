"""A table's events folded into what a spectator may see (the club's one reader of events).

:func:`fold` takes the current events of the hand in progress (from its
HAND_START) and gives the page's state: the hand's number, dealer, levels,
trump, declarer, the trick in progress card by card with its leader, the last
trick, the attackers' points. Hidden information never enters it: the buried
kitty (KITTY's cards, a refused burial's cards) is shown only once the hand is
over, scanned hands (SCAN) never, whatever the page or its JSON. The kinds and
fields are the firmware's (firmware/evlayout.py), decoded by
:mod:`tractor_table.events`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .. import events as E
from ..events import TRUMPS, card_name, describe

RANKS = "23456789TJQKA"
SEATS = ("S0", "S1", "S2", "S3")
Raw = E.Event | Sequence[int]


def _cards(ev: E.Event) -> list[str]:
    return [card_name(c) for c in ev.ids]


def _level(x: int) -> str:
    return RANKS[x] if 0 <= x < len(RANKS) else str(x)


def fold(events: Iterable[tuple[int, Raw]]) -> dict[str, Any]:  # noqa: C901, PLR0912
    """The spectator's view of a hand from its events ``(idx, event)`` in index order
    (typed, or the table's lists: decoded by :func:`tractor_table.events.decode`)."""
    v: dict[str, Any] = {
        "hand_no": None, "dealer": None, "levels": [], "trump": None, "declarer": None,
        "phase": "waiting", "trick_no": 0, "leader": None, "trick": [], "last_trick": None,
        "attackers": 0, "kitty": None, "kitty_points": None, "result": None, "count": 0,
        "last": None, "partial": False,
    }
    kitty_cards: list[str] = []
    first = True
    for idx, raw in events:
        ev = E.decode(raw, lenient=True)
        v["count"] = idx + 1
        if first and not isinstance(ev, E.HandStart):
            v["partial"] = True  # the records start inside this hand
        first = False
        refused_burial = isinstance(ev, E.Reject) and v["phase"] == "kitty"
        match ev:
            case E.HandStart():
                v.update(hand_no=ev.hand_no, dealer=ev.dealer if ev.dealer >= 0 else None,
                         levels=[_level(x) for x in ev.levels], phase="draw", trick=[],
                         trick_no=0, leader=None, last_trick=None, attackers=0, trump=None,
                         declarer=None, kitty=None, kitty_points=None, result=None)
                kitty_cards = []
            case E.Trump():
                v.update(trump=TRUMPS[ev.trump] if 0 <= ev.trump < len(TRUMPS) else str(ev.trump),
                         declarer=ev.declarer if ev.declarer >= 0 else None, dealer=ev.dealer, phase="kitty")
            case E.Kitty():
                kitty_cards = _cards(ev)  # hidden until the hand is over
                v["phase"] = "play"
            case E.KittyUp():
                pass  # turned up in front of everyone: the next TRUMP says what it named
            case E.Play():
                if ev.trick != v["trick_no"] or not v["trick"]:
                    if ev.trick != v["trick_no"]:
                        v["trick"] = []
                    v["trick_no"] = ev.trick
                    if not v["trick"]:
                        v["leader"] = ev.seat
                v["trick"].append({"seat": ev.seat, "cards": _cards(ev)})
                v["phase"] = "play"
            case E.Undo():
                for n in range(len(v["trick"]) - 1, -1, -1):
                    if v["trick"][n]["seat"] == ev.seat:
                        del v["trick"][n]
                        break
            case E.Forced():
                # a failed throw: the cards that stand as the lead replace it
                for p in v["trick"]:
                    if p["seat"] == ev.leader:
                        p["cards"] = _cards(ev)
            case E.Trick():
                v["last_trick"] = {"trick_no": ev.trick, "winner": ev.winner, "points": ev.points,
                                   "plays": v["trick"], "leader": v["leader"]}
                v["trick"] = []
                v["trick_no"] = ev.trick + 1
                v["leader"] = ev.winner
                if ev.attackers_score >= 0:
                    v["attackers"] = ev.attackers_score
            case E.Partner():
                if ev.attackers_score >= 0:
                    v["attackers"] = ev.attackers_score
            case E.HandEnd():
                v.update(phase="over", attackers=ev.attackers_score, kitty_points=ev.kitty_points,
                         kitty=kitty_cards, result=describe(ev))
            case E.Redeal():
                v.update(phase="over", result=describe(ev))
            case _:
                pass
        if isinstance(ev, (E.Kitty, E.Scan)) or refused_burial:
            v["last"] = f"{ev.name.lower()} ({'cards hidden' if not refused_burial else 'refused'})"
        else:
            v["last"] = describe(ev)
    v["seats"] = [{"seat": s, "name": SEATS[s], "dealer": s == v["dealer"],
                   "side": s % 2} for s in range(4)]
    for p in v["trick"]:
        p["leader"] = p["seat"] == v["leader"]
    return v


def hidden_cards(events: Iterable[tuple[int, Raw]]) -> set[str]:
    """Every card a spectator must not see yet: the buried cards and scanned
    hands of a hand not over (the browser test checks the DOM holds none)."""
    out: set[str] = set()
    for _idx, raw in events:
        ev = E.decode(raw, lenient=True)
        if isinstance(ev, E.HandStart):
            out = set()
        elif isinstance(ev, E.Kitty):
            out |= set(_cards(ev))
        elif isinstance(ev, (E.HandEnd, E.Redeal)):
            out = set()
    return out
