"""Rules made exact (docs/rules.md), end to end: the firmware's table core
with the device engine plays them (bots tapping the cards), the verifier
judges every event with the full engine, and the records keep what the table
said. For each rule: an honest table agrees, and a table following the
old reading is caught at the event where it differs."""

from __future__ import annotations

import random
from typing import Any

from shengji import Rules
from test_engine_replayer import InProcessTable, tampered, verify
from tractor_table import records
from tractor_table.events import EV
from tractor_table.sim.virtual.game import BotGame

Log = list[tuple[int, int, list[Any]]]


class _TwoTurnedUp(random.Random):
    """Shuffles as random.Random does, then swaps a 2 into the kitty's first
    place (the deal is still every card once; the kitty is the last 8)."""

    def shuffle(self, x: Any, *args: Any) -> None:
        super().shuffle(x)
        k = len(x) - 8
        j = next(i for i in range(k) if x[i] % 54 < 52 and x[i] % 54 % 13 == 0)
        x[k], x[j] = x[j], x[k]


QQ2 = Rules.preset("qq", permanent_twos=True)  # no_bid = "kitty"


def _two_turned_up_log(seed: int = 1) -> Log:
    vt = InProcessTable(2, QQ2)
    game = BotGame(vt, QQ2, seed=seed, strength=1, say=lambda s: None, quiet_hands=(2,))  # type: ignore[arg-type]
    game.rng = _TwoTurnedUp(seed)
    game.play(2)
    assert game.disagreements == [] and game.kitty_reveals == 1
    return vt.log


def test_a_two_turned_up_with_permanent_twos_is_no_trump_at_the_table_and_host() -> None:
    log = _two_turned_up_log()
    evs = [ev for _, _, ev in log]
    k = next(i for i, ev in enumerate(evs) if ev[0] == EV.KITTY_UP)
    start = [ev for ev in evs[:k] if ev[0] == EV.HAND_START][-1]
    level = start[4 + start[2] % 2]
    first = evs[k][2] % 54
    assert first % 13 == 0 and level != 0  # a 2, and not the level
    assert evs[k + 1] == [EV.TRUMP, 4, -1, start[2]]  # NT
    v = verify(log, rules=QQ2)
    assert [d.show() for d in v.disagreements] == []
    assert v.agreed == v.checked == len(log)
    # a table that named the 2's suit is told at its TRUMP event
    wrong = [EV.TRUMP, first // 13, -1, start[2]]
    d = verify(tampered(log, k + 1, wrong), rules=QQ2).disagreements[0]
    assert d.index == k + 1 and d.host_event.raw() == evs[k + 1]
    # and without permanent_twos the same kitty names the 2's suit
    d = verify(log, rules=QQ2.replace(permanent_twos=False)).disagreements[0]
    assert d.index <= k + 1


ONE_DECK_TRUMP_KITTY = Rules(decks=1, kitty_requires_trump=True)


def _offsuit_kitty_log() -> tuple[Log, int]:
    """One deck, kitty_requires_trump: seed 9's first hand ends with the
    attackers taking the last trick (and a kitty of 5 points) without trump."""
    vt = InProcessTable(1, ONE_DECK_TRUMP_KITTY)
    game = BotGame(vt, ONE_DECK_TRUMP_KITTY, seed=9, strength=1, say=lambda s: None)  # type: ignore[arg-type]
    game.play(1)
    assert game.disagreements == []
    j = next(i for i, (_, _, ev) in enumerate(vt.log) if ev[0] == EV.HAND_END)
    return vt.log, j


def test_a_voided_kitty_bonus_keeps_the_multiplier_table_host_and_records() -> None:
    log, j = _offsuit_kitty_log()
    end = log[j][2]
    # HAND_END: score, kitty points, multiplier, bonus, ...
    assert end[2] == 5 and end[3] == 2 and end[4] == 0
    v = verify(log, rules=ONE_DECK_TRUMP_KITTY)
    assert [d.show() for d in v.disagreements] == []
    # a table that reported no multiplier (or counted the bonus) is caught
    for field, value, name in ((3, 0, "multiplier"), (4, 10, "bonus")):
        bad = list(end)
        bad[field] = value
        if field == 4:
            bad[1] += 10
        (d, *_) = verify(tampered(log, j, bad), rules=ONE_DECK_TRUMP_KITTY).disagreements
        assert d.index == j and name in d.fields and d.host_event.raw() == end
    # without the option the bonus counts: the host expects it
    d = verify(log, rules=Rules(decks=1)).disagreements[0]
    assert d.index == j and d.host_event.raw()[3:5] == [2, 10]
    # the records keep the table's multiplier and bonus
    rows = [(k + 1, idx, ev, "2026-01-01T00:00:00") for k, (idx, _, ev) in enumerate(log)]
    (hand,) = [h for h in records.derive_hands(rows) if h.status == "done"]
    assert (hand.facts["kitty_points"], hand.facts["multiplier"], hand.facts["bonus"]) == (5, 2, 0)
    assert "x2 = 0" in hand.facts["result"]


NO_SELF = Rules(allow_self_override=False)


def _bids_log() -> Log:
    """A first hand at level 2 without self-override: seat 1 bids 2S, then
    tries SJ SJ (a self-override: refused), seat 3 bids 2H (too weak), seat 1
    reinforces with the other 2S."""
    vt = InProcessTable(2, NO_SELF)
    for seat, cards in ((1, [0]), (1, [52, 106]), (3, [13]), (1, [54])):
        for x in cards:
            vt.tap(seat, x)
        vt.press(seat, EV.BTN_OK)
    return vt.log


def test_a_refused_self_override_is_said_so_and_the_verifier_judges_why() -> None:
    from tractor_table.link import engine_replayer as er

    assert er.BID_SELF == EV.BID_SELF and er.BID_WEAK == EV.BID_WEAK
    log = _bids_log()
    bids = [ev for _, _, ev in log if ev[0] == EV.BID]
    assert [ev[:4] for ev in bids] == [
        [EV.BID, 1, 1, EV.OK],
        [EV.BID, 1, 0, EV.BID_SELF],
        [EV.BID, 3, 0, EV.BID_WEAK],
        [EV.BID, 1, 1, EV.OK],
    ]
    v = verify(log, rules=NO_SELF)
    assert [d.show() for d in v.disagreements] == [] and v.agreed == v.checked == len(log)
    at = [k for k, (_, _, ev) in enumerate(log) if ev[0] == EV.BID]
    # a table that calls the refused self-override a weak bid ...
    weak = [EV.BID, 1, 0, EV.BID_WEAK, 52, 106]
    d = verify(tampered(log, at[1], weak), rules=NO_SELF).disagreements[0]
    assert d.index == at[1] and d.host_event.raw() == bids[1]
    # ... or a weak bid a self-override, is caught
    self_ = [EV.BID, 3, 0, EV.BID_SELF, 13]
    d = verify(tampered(log, at[2], self_), rules=NO_SELF).disagreements[0]
    assert d.index == at[2] and d.host_event.raw() == bids[2]
    # with self-override allowed the engine accepts the SJ SJ the table refused
    d = verify(log, rules=Rules()).disagreements[0]
    assert d.index == at[1] and d.host_event.raw()[:3] == [EV.BID, 1, 1]
