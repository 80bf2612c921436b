"""The whole chain: the real firmware (compiled, under MicroPython, on the
virtual table), its game events over the link on a pty, and the verifier
replaying every one through the full engine."""

from __future__ import annotations

import time

from shengji import Rules
from tractor_table import virtual_heap
from tractor_table.events import describe
from tractor_table.link import ttlink
from tractor_table.link.engine_replayer import EngineReplayer
from tractor_table.link.verifier import Verifier
from tractor_table.sim.virtual.game import BotGame
from tractor_table.sim.virtual.runner import VirtualTable


def test_every_event_of_a_firmware_hand_is_judged_and_agrees() -> None:
    with VirtualTable(2, readers="direct") as vt:
        game = BotGame(vt, Rules(decks=2), seed=5, strength=1, say=lambda s: None)
        game.play(1)
        time.sleep(0.1)
        assert vt.link is not None
        base, base_hash, events = vt.link.with_link(
            lambda h: (h.record.base, h.record.base_hash, [list(e) for e in h.record.events])
        )
    assert base == 0 and len(events) > 60
    v = Verifier(EngineReplayer(Rules(decks=2)), "rules-2026.1", describe=describe)
    for k, (h, ev) in enumerate(events):
        v.check(k, h, ev)
    assert [d.show() for d in v.disagreements] == []
    assert v.checked == len(events) == v.agreed
    assert v.host_hash == ttlink.chain_hash(events[-2][0], events[-1][1])


def test_failed_throws_with_a_penalty_agree_over_the_link() -> None:
    """Tournament rules (throw_penalty 10), random bots that throw: every
    CHALLENGE, FORCED and running score of the firmware is judged and agrees."""
    rules = Rules.preset("tournament")
    with VirtualTable(2, readers="direct", rules=rules) as vt:
        game = BotGame(vt, rules, seed=1, strength=0, say=lambda s: None)
        game.play(1)
        time.sleep(0.1)
        assert vt.link is not None
        events = vt.link.with_link(lambda h: [list(e) for e in h.record.events])
    assert any(ev[0] == 9 and ev[3] == 10 for _, ev in events)  # FORCED, penalty 10
    v = Verifier(EngineReplayer(rules), "rules-2026.1", describe=describe)
    for k, (h, ev) in enumerate(events):
        v.check(k, h, ev)
    assert [d.show() for d in v.disagreements] == []
    assert v.checked == len(events) == v.agreed


def _verified(rules: Rules, events: list[list[object]]) -> Verifier:
    v = Verifier(EngineReplayer(rules), "rules-2026.1", describe=describe)
    for k, (h, ev) in enumerate(events):
        v.check(k, h, ev)  # type: ignore[arg-type]
    return v


def test_a_revoke_loses_the_hand_over_the_link() -> None:
    """Tournament rules (revoke = "forfeit"): a seat revokes on purpose in
    each hand; the firmware ends the hand when a later play proves it
    (REVOKE, FORFEIT, HAND_END settled by the forfeit), and the full engine,
    knowing no more than the table, judges every event and agrees."""
    rules = Rules.preset("tournament")
    with VirtualTable(2, readers="direct", rules=rules) as vt:
        game = BotGame(vt, rules, seed=3, strength=1, say=lambda s: None, revoke_from=2)
        game.play(2)
        time.sleep(0.1)
        assert vt.link is not None
        events = vt.link.with_link(lambda h: [list(e) for e in h.record.events])
    assert game.disagreements == [] and game.revokes == 2
    forfeits = [ev for _, ev in events if ev[0] == 15]
    assert len(forfeits) == 2 and all(ev[1] >= 2 for ev in forfeits)
    v = _verified(rules, events)
    assert [d.show() for d in v.disagreements] == []
    assert v.checked == len(events) == v.agreed
    assert 0 < vt.firmware_peak < virtual_heap.firmware_budget(vt.decks)


def test_the_kitty_turned_up_names_trump_over_the_link() -> None:
    """QQ rules (no_bid = "kitty"): nobody bids in the second hand; the
    dealer taps the kitty face up at its reader, in order; the firmware
    names trump from its first card (KITTY_UP, TRUMP) and the full engine,
    given the same cards, agrees on every event."""
    rules = Rules.preset("qq")
    with VirtualTable(2, readers="direct", rules=rules) as vt:
        game = BotGame(vt, rules, seed=4, strength=1, say=lambda s: None, quiet_hands=(2,))
        game.play(2)
        time.sleep(0.1)
        assert vt.link is not None
        events = vt.link.with_link(lambda h: [list(e) for e in h.record.events])
    assert game.disagreements == [] and game.kitty_reveals == 1
    evs = [ev for _, ev in events]
    k = next(i for i, ev in enumerate(evs) if ev[0] == 16)  # KITTY_UP
    assert len(evs[k]) == 2 + 8 and evs[k + 1][0] == 3 and evs[k + 1][2] == -1
    v = _verified(rules, events)
    assert [d.show() for d in v.disagreements] == []
    assert v.checked == len(events) == v.agreed
    assert 0 < vt.firmware_peak < virtual_heap.firmware_budget(vt.decks)


def test_a_stray_follow_taken_back_agrees_over_the_link() -> None:
    """A stray read commits a wrong (legal) card as a follow; the seat's long
    press takes it back (UNDO) before the next seat taps, and the card meant
    is played. The firmware's events, UNDO included, are all judged by the
    full engine (which takes the play back with Hand.undo) and agree."""
    rules = Rules(decks=2)
    with VirtualTable(2, readers="direct", rules=rules) as vt:
        game = BotGame(vt, rules, seed=5, strength=1, say=lambda s: None, stray_every=3)
        game.play(1)
        time.sleep(0.1)
        assert vt.link is not None
        events = vt.link.with_link(lambda h: [list(e) for e in h.record.events])
    assert game.disagreements == [] and game.undos >= 5
    undos = [ev for _, ev in events if ev[0] == 19]
    assert len(undos) == game.undos
    v = _verified(rules, events)
    assert [d.show() for d in v.disagreements] == []
    assert v.checked == len(events) == v.agreed
    # the verifier's own judgement of a take-back that is not the last play
    bad = EngineReplayer(rules)
    for _, ev in events[: events.index(next(e for e in events if e[1][0] == 19)) - 1]:
        bad.replay(0, ev)
    mine = bad.replay(0, undos[0])
    assert mine is not None and mine.raw() == [19, undos[0][1], undos[0][2]] and bad.lost
