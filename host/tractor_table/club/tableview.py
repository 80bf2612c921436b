"""A table's events folded into what a spectator may see (the club's one reader of events).

:func:`fold` takes the current events of the hand in progress (from its
HAND_START) and gives the page's state: the hand's number, dealer, levels,
trump, declarer, the trick in progress card by card with its leader, the last
trick, the attackers' points. Hidden information never enters it: the buried
kitty (KITTY's cards, a refused burial's cards) is shown only once the hand is
over, scanned hands (SCAN) never, whatever the page or its JSON. The kinds and
fields are the firmware's (firmware/events.py), read through
:mod:`tractor_table.virtual.events`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..virtual.events import EV, TRUMPS, card_name, describe, event_levels

RANKS = "23456789TJQKA"
SEATS = ("S0", "S1", "S2", "S3")


def _cards(ev: Sequence[int], at: int) -> list[str]:
    return [card_name(c) for c in ev[at:]]


def _level(x: int) -> str:
    return RANKS[x] if 0 <= x < len(RANKS) else str(x)


def fold(events: Iterable[tuple[int, Sequence[int]]]) -> dict[str, Any]:
    """The spectator's view of a hand from its events ``(idx, event)`` in index order."""
    v: dict[str, Any] = {
        "hand_no": None, "dealer": None, "levels": [], "trump": None, "declarer": None,
        "phase": "waiting", "trick_no": 0, "leader": None, "trick": [], "last_trick": None,
        "attackers": 0, "kitty": None, "kitty_points": None, "result": None, "count": 0,
        "last": None, "partial": False,
    }
    kitty_cards: list[str] = []
    first = True
    for idx, ev in events:
        k = ev[0]
        v["count"] = idx + 1
        if first and k != EV.HAND_START:
            v["partial"] = True  # the records start inside this hand
        first = False
        if k == EV.HAND_START:
            v.update(hand_no=ev[1], dealer=ev[2] if ev[2] >= 0 else None,
                     levels=[_level(x) for x in event_levels(ev)], phase="draw", trick=[],
                     trick_no=0, leader=None, last_trick=None, attackers=0, trump=None,
                     declarer=None, kitty=None, kitty_points=None, result=None)
            kitty_cards = []
        elif k == EV.TRUMP:
            v.update(trump=TRUMPS[ev[1]] if 0 <= ev[1] < len(TRUMPS) else str(ev[1]),
                     declarer=ev[2] if ev[2] >= 0 else None, dealer=ev[3], phase="kitty")
        elif k == EV.KITTY:
            kitty_cards = _cards(ev, 3)  # hidden until the hand is over
            v["phase"] = "play"
        elif k == EV.KITTY_UP:
            pass  # turned up in front of everyone: the next TRUMP says what it named
        elif k == EV.PLAY:
            if ev[1] != v["trick_no"] or not v["trick"]:
                if ev[1] != v["trick_no"]:
                    v["trick"] = []
                v["trick_no"] = ev[1]
                if not v["trick"]:
                    v["leader"] = ev[2]
            v["trick"].append({"seat": ev[2], "cards": _cards(ev, 3)})
            v["phase"] = "play"
        elif k == EV.UNDO:
            for n in range(len(v["trick"]) - 1, -1, -1):
                if v["trick"][n]["seat"] == ev[2]:
                    del v["trick"][n]
                    break
        elif k == EV.FORCED:
            # a failed throw: the cards that stand as the lead replace it
            for p in v["trick"]:
                if p["seat"] == ev[2]:
                    p["cards"] = _cards(ev, 4)
        elif k == EV.TRICK:
            v["last_trick"] = {"trick_no": ev[1], "winner": ev[2], "points": ev[3],
                               "plays": v["trick"], "leader": v["leader"]}
            v["trick"] = []
            v["trick_no"] = ev[1] + 1
            v["leader"] = ev[2]
            if ev[4] >= 0:
                v["attackers"] = ev[4]
        elif k == EV.PARTNER:
            if ev[3] >= 0:
                v["attackers"] = ev[3]
        elif k == EV.HAND_END:
            v.update(phase="over", attackers=ev[1], kitty_points=ev[2], kitty=kitty_cards,
                     result=describe(ev))
        elif k == EV.REDEAL:
            v.update(phase="over", result=describe(ev))
        if k in (EV.KITTY, EV.SCAN) or (k == EV.REJECT and v["phase"] == "kitty"):
            v["last"] = f"{EV.NAMES[k]} ({'cards hidden' if k != EV.REJECT else 'refused'})"
        elif k == EV.REJECT:
            v["last"] = describe(ev)
        else:
            v["last"] = describe(ev)
    v["seats"] = [{"seat": s, "name": SEATS[s], "dealer": s == v["dealer"],
                   "side": s % 2} for s in range(4)]
    for p in v["trick"]:
        p["leader"] = p["seat"] == v["leader"]
    return v


def hidden_cards(events: Iterable[tuple[int, Sequence[int]]]) -> set[str]:
    """Every card a spectator must not see yet: the buried cards and scanned
    hands of a hand not over (the browser test checks the DOM holds none)."""
    out: set[str] = set()
    for _idx, ev in events:
        k = ev[0]
        if k == EV.HAND_START:
            out = set()
        elif k == EV.KITTY:
            out |= set(_cards(ev, 3))
        elif k in (EV.HAND_END, EV.REDEAL):
            out = set()
    return out
