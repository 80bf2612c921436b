"""Find-a-friend (``--rules friend``: partners = "called") on the virtual table
end to end: the compiled firmware with its readers on the simulated SPI bus,
the dealer's bot making the call gesture at its reader and button, the bots
playing to the partnership as far as they know it, every event checked by the
bot driver against the full engine and re-judged by the verifier (the full
engine replaying the link's events). The cases of the issue: a call of a card
the dealer does not hold; of a card it holds one copy of; a dealer alone (in
hand_scan mode known at the call); a power cut before and after the partner is
known, the table resuming from flash and the verifier from its snapshot."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from shengji import Rules
from shengji.hand import Hand
from tractor_table.events import describe
from tractor_table.link.engine_replayer import EngineReplayer
from tractor_table.link.serial_link import host_identity
from tractor_table.link.verifier import Verifier
from tractor_table.sim.virtual.game import AFTER, BEFORE, TAP, BotGame, call_gesture, gesture_step
from tractor_table.sim.virtual.runner import VirtualTable
from tractor_table.vocab.snapshot import saved_snapshot

FRIEND = Rules.preset("friend")


def _table(base: Path, name: str, *, keep: bool = False, hand_scan: bool = False) -> VirtualTable:
    work = base / name
    work.mkdir(exist_ok=True)
    fw = work / "firmware"
    if not fw.exists():
        fw.symlink_to(base / "firmware")
    return VirtualTable(2, workdir=work, keep_state=keep, rules=FRIEND, hand_scan=hand_scan)


def _verifier(vt: VirtualTable) -> Verifier:
    v = Verifier(EngineReplayer(FRIEND), host_identity()[1], describe=describe)
    vt.note_hooks.append(v.on_note)
    return v


def _copies(hand: Hand, seat: int, face: int) -> int:
    return sum(1 for c in hand.held(seat) if c % 54 == face)


def _face(pick: Callable[[Hand, int], bool]) -> Callable[[Hand], int]:
    """A call: the first side-suit face (aces first) for which pick(hand, face) holds."""

    def call(hand: Hand) -> int:
        order = [f for r in range(12, -1, -1) for f in (r, 13 + r, 26 + r, 39 + r)]
        for f in order + [53, 52]:
            if pick(hand, f):
                return f
        raise AssertionError("no face fits the test's call")

    return call


def _play(base: Path, name: str, call: Callable[[Hand], int], seed: int, lines: list[str],
          hand_scan: bool = False) -> BotGame:
    vt = _table(base, name, hand_scan=hand_scan)
    v = _verifier(vt)
    vt.start()
    try:
        game = _one_hand(vt, call, seed, lines)
    finally:
        vt.close()
    assert not v.refused and v.disagreements == [] and v.checked > 50 and not v.replayer.lost
    return game


def _one_hand(vt: VirtualTable, call: Callable[[Hand], int], seed: int, lines: list[str]) -> BotGame:
    game = BotGame(vt, FRIEND, seed=seed, strength=1, say=lines.append, call=call)
    game.play(1)
    vt._drain_reports()
    assert game.disagreements == []
    assert game.partners_named == 1
    return game


def test_the_call_gesture_shows_every_face_within_a_few_actions() -> None:
    rng = random.Random(4)
    counts = []
    for _ in range(40):
        deck = list(range(108))
        rng.shuffle(deck)
        held = deck[:25]
        for face in range(54):
            actions = call_gesture(held, face)
            shown = -1
            for action, card in actions:
                shown = gesture_step(shown, action, card % 54 if action == TAP else -1)
            assert shown == face
            if any(c % 54 == face for c in held):
                assert len(actions) == 1  # a face it holds: tap it (then OK)
            counts.append(len(actions) + 1)
    assert max(counts) <= 6
    assert sum(1 for n in counts if n <= 3) / len(counts) > 0.9
    # the steps go round the whole deck: a face the dealer has nothing near is reachable
    assert gesture_step(51, AFTER) == 52 and gesture_step(53, AFTER) == 0 and gesture_step(0, BEFORE) == 53


def test_a_call_of_a_card_the_dealer_does_not_hold(compiled: Path) -> None:
    lines: list[str] = []
    call = _face(lambda h, f: _copies(h, h.dealer, f) == 0)
    game = _play(compiled, "none", call, 3, lines)
    assert game.hand is not None and game.hand.friend_face is not None
    face = game.hand.friend_face
    assert any("calls" in x for x in lines)
    # the partner was named by a play of the called face (not at the call)
    named = next(x for x in lines if "dealer's partner" in x)
    assert game.hand.defenders is not None and len(game.hand.defenders) == 2
    assert f"S{[s for s in game.hand.defenders if s != game.hand.dealer][0]} is" in named
    assert any(x.strip().endswith("partner unknown") for x in lines) or "trick 1:" in named
    assert face < 52


def test_a_call_of_a_card_the_dealer_holds_one_copy_of(compiled: Path) -> None:
    lines: list[str] = []
    call = _face(lambda h, f: _copies(h, h.dealer, f) == 1)
    game = _play(compiled, "one", call, 5, lines)
    hand = game.hand
    assert hand is not None and hand.friend_face is not None and hand.defenders is not None
    other = [s for s in hand.defenders if s != hand.dealer]
    assert len(other) == 1
    # the partner is the holder of the other copy (the kitty held none)
    assert any(c % 54 == hand.friend_face for t in hand.tricks for s, cs in t.plays if s == other[0] for c in cs)


def test_a_dealer_holding_every_copy_plays_alone(compiled: Path) -> None:
    lines: list[str] = []
    call = _face(lambda h, f: _copies(h, h.dealer, f) == 2)
    game = _play(compiled, "alone", call, 3, lines)
    assert game.hand is not None and game.hand.defenders == (game.hand.dealer,)
    assert any("the dealer plays alone" in x for x in lines)


def test_in_hand_scan_mode_the_table_knows_at_the_call(compiled: Path) -> None:
    lines: list[str] = []
    call = _face(lambda h, f: _copies(h, h.dealer, f) == 2)
    _play(compiled, "scan", call, 3, lines, hand_scan=True)
    at = next(i for i, x in enumerate(lines) if "calls" in x)
    assert "trick 1: the dealer plays alone" in lines[at + 1]


def _saved(store: Path) -> list:
    try:
        return saved_snapshot(store.read_text())
    except (OSError, ValueError):
        return []


def _cut_and_resume(compiled: Path, name: str, call: Callable[[Hand], int], seed: int,
                    until: Callable[[BotGame], bool]) -> tuple[BotGame, list, Verifier]:
    """Play until `until` holds at a trick boundary, cut the power once the
    snapshot on flash has those tricks, start again from flash, finish the hand."""
    vt = _table(compiled, name, keep=True).start()
    try:
        game = BotGame(vt, FRIEND, seed=seed, strength=1, say=lambda _: None, call=call)
        assert game.start_hand(vt.next_event()) == "play"
        while not until(game):
            assert not game.play_trick()
        done = len(game.view.tricks)
        assert vt.wait(lambda: len(_saved(vt.store)[17:18] and _saved(vt.store)[17]) == done, 10)
        snap = _saved(vt.store)
        vt.kill()
    finally:
        vt.close()
    vt2 = _table(compiled, name, keep=True)
    v = _verifier(vt2)
    vt2.start()
    try:
        assert vt2.restored
        game.table = vt2
        while not game.play_trick():
            pass
        game.finish_hand()
        vt2._drain_reports()
    finally:
        vt2.close()
    assert game.disagreements == []
    assert not v.refused and v.disagreements == [] and v.checked > 10 and not v.replayer.lost
    return game, snap, v


def test_a_power_cut_before_the_partner_is_known(compiled: Path) -> None:
    # the called face is held by the two seats after the nearest one: unknown
    # until both copies are played
    def far(h: Hand, f: int) -> bool:
        d = h.dealer
        return _copies(h, (d + 2) % 4, f) == 1 and _copies(h, (d + 3) % 4, f) == 1

    game, snap, _ = _cut_and_resume(
        compiled, "cut-before", _face(far), 3, lambda g: len(g.view.tricks) >= 2
    )
    assert snap[-1][0] == 3  # the rules digest, last
    assert snap[-2][0] == 2 and snap[-2][2] == -2 and snap[10] == -1  # on flash: partner unknown
    assert game.partners_named == 1 and game.hand is not None and game.hand.defenders is not None


def test_a_power_cut_after_the_partner_is_known(compiled: Path) -> None:
    call = _face(lambda h, f: _copies(h, h.dealer, f) == 0 and _copies(h, (h.dealer + 1) % 4, f) > 0)
    game, snap, _ = _cut_and_resume(
        compiled, "cut-after", call, 5,
        lambda g: g.view.defenders is not None and (not g.view.tricks or g.view.tricks[-1].complete),
    )
    assert snap[-2][0] == 2 and snap[-2][2] >= 0 and snap[10] >= 0  # on flash: the partner, then the digest
    assert game.partners_named == 1
