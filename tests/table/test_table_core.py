# runs-under: micropython heapsize=88K
# (84K: the table core as merged on 2026-12-06 passes from 78K, fails at 76K; before, 74K-80K passed and
# 72K failed: where the
# compile from source needs the qstr pool's next block (2-3.5 KB in one piece)
# moves with every change of the sources; the table core and these scripts are compiled from source in the heap;
# the firmware's own budget, from .mpy files, is checked by test_virtual_table.)
# The table core's state machine driven by scripts and a fake clock, with a
# scripted rules object (fakerules.py): phases, turns, grouping taps into
# plays, refusals, throw challenges, revokes, audit, settlement, snapshots.
import events as E
import table as T
from tablescript import (
    TWO_H,
    TWO_S,
    _hash,
    deal_to_play,
    find,
    kinds,
    make,
)


def test_start_emits_hand_start():
    t, _ = make()
    evs = t.take_events()
    assert len(evs) == 1
    idx, h, ev = evs[0]
    assert idx == 0 and ev == [E.HAND_START, 1, -1, 1, 0, 0, 1]
    assert h == _hash(0, ev)
    assert t.phase == T.DEAL


def test_bid_accepted_and_refused():
    t, _ = make()
    t.take_events()
    t.tap(1, TWO_H, 0)
    t.button(1, E.BTN_OK, 5)
    t.tap(2, 5, 6)  # 7S: not a level card
    t.button(2, E.BTN_OK, 7)
    t.tap(3, TWO_S, 8)  # a single 2S does not beat a single 2H
    t.button(3, E.BTN_OK, 9)
    bids = find(t.take_events(), E.BID)
    assert bids[0] == [E.BID, 1, 1, E.OK, TWO_H]
    assert bids[1] == [E.BID, 2, 0, E.BID_CARDS, 5]
    assert bids[2] == [E.BID, 3, 0, E.BID_WEAK, TWO_S]
    assert t.take_sound() == E.SND_ERROR
    t.button(0, E.BTN_OK, 20)  # end of the draw
    evs = t.take_events()
    assert [e[2] for e in evs] == [[E.TRUMP, 1, 1, 1]]
    assert t.phase == T.KITTY and t.turn == 1 and t.dealer == 1


def test_no_bid_on_first_hand_redeals():
    t, _ = make()
    t.take_events()
    t.button(2, E.BTN_OK, 0)
    evs = t.take_events()
    assert kinds(evs) == [E.REDEAL, E.HAND_START]
    assert t.hand_no == 1 and t.phase == T.DEAL


def test_kitty_burial_only_by_dealer():
    t, _ = make()
    t.tap(1, TWO_H, 0)
    t.button(1, E.BTN_OK, 10)
    t.button(0, E.BTN_OK, 20)
    t.take_events()
    t.tap(2, 7, 30)  # not the dealer
    assert find(t.take_events(), E.REJECT) == [[E.REJECT, 0, 2, E.WRONG_PHASE, 7]]
    t.tap(1, 8, 31)
    t.button(1, E.BTN_OK, 32)  # too few: refused, the card tapped stays
    assert find(t.take_events(), E.REJECT) == [[E.REJECT, 0, 1, E.KITTY_COUNT, 8]]
    assert t.phase == T.KITTY and t.pending[1] == [8] and t.message == "S1 kitty count"
    for c in (3, 11, 21, 22):
        t.tap(1, c, 40)
    t.button(1, E.BTN_OK, 41)  # five of six: one more
    assert find(t.take_events(), E.REJECT) == [[E.REJECT, 0, 1, E.KITTY_COUNT, 8, 3, 11, 21, 22]]
    assert t.pending[1] == [8, 3, 11, 21, 22]  # the display: "S1 bury 5/6"
    t.tap(1, 24, 42)
    evs = t.take_events()
    assert [e[2] for e in evs] == [[E.KITTY, 1, 5 + 10 + 10 + 10 + 10, 8, 3, 11, 21, 22, 24]]
    assert t.phase == T.PLAY and t.turn == 1 and t.leader == 1
    assert t.take_save() is True
    assert t.take_save() is False


def test_play_refusals_and_grouping():
    t, _ = make()
    deal_to_play(t)
    t.take_events()
    t.tap(2, 1, 0)  # out of turn
    t.tap(1, 48, 1)  # buried: seen twice
    t.tap(1, -1, 2)  # unknown tag
    t.tap(1, -2, 2)  # reader fault
    rej = find(t.take_events(), E.REJECT)
    assert [r[3] for r in rej] == [E.OUT_OF_TURN, E.SEEN_TWICE, E.UNKNOWN_CARD, E.READER_FAULT]
    t.button(1, E.BTN_OK, 3)  # nothing tapped
    assert find(t.take_events(), E.REJECT) == [[E.REJECT, 0, 1, E.EMPTY]]
    # a mixed lead: 3S + 3H (2 is the level)
    t.tap(1, 1, 4)
    t.tap(1, 14, 5)
    t.button(1, E.BTN_OK, 6)
    assert find(t.take_events(), E.REJECT) == [[E.REJECT, 0, 1, E.MIXED_LEAD, 1, 14]]
    assert t.pending[1] == [] and t.lead is None
    # a pair 3S 3S? one deck has one copy; lead 4S+5S (a throw of singles)
    t.tap(1, 2, 7)
    t.tap(1, 2, 7)  # the same card again: ignored
    t.tap(1, 3, 8)
    t.button(1, E.BTN_OK, 9)
    evs = t.take_events()
    assert [e[2] for e in evs] == [[E.PLAY, 0, 1, 2, 3]]
    assert t.turn == 2 and t.throw_open
    # a follow ends by itself at the lead's count
    t.tap(2, 4, 10)
    assert t.turn == 2
    t.tap(2, 6, 11)
    assert find(t.take_events(), E.PLAY) == [[E.PLAY, 0, 2, 4, 6]]
    assert t.turn == 3 and not t.throw_open
    # a short follow ended by the button is refused and the cards go back
    t.tap(3, 7, 12)
    t.button(3, E.BTN_OK, 13)
    assert find(t.take_events(), E.REJECT) == [[E.REJECT, 0, 3, E.COUNT, 7]]
    assert t.turn == 3 and t.seen[7] == 0
    # undo clears pending taps
    t.tap(3, 7, 14)
    t.button(3, E.BTN_UNDO, 15)
    assert t.pending[3] == []


def test_trick_completes_and_scores_attackers():
    t, r = make()
    deal_to_play(t)  # dealer 1: defenders side 1, attackers side 0
    t.take_events()
    r.winners = [2]
    t.tap(1, 8, 0)  # TS lead, 10 points
    t.button(1, E.BTN_OK, 1)
    t.tap(2, 11, 2)  # KS 10 points
    t.tap(3, 3, 3)  # 5S 5 points
    t.tap(0, 5, 4)
    evs = t.take_events()
    assert find(evs, E.TRICK) == [[E.TRICK, 0, 2, 25, 25]]
    assert t.score == 25 and t.leader == 2 and t.turn == 2
    assert t.take_sound() == E.SND_TRICK
    assert t.take_save() is True
    assert T.trick_unpack(t.tricks[0]) == [1, 2, 25, 0, [5], [8], [11], [3]]
    assert t.snapshot()[17] == [[1, 2, 25, 0, [5], [8], [11], [3]]]


def test_throw_challenged_is_forced():
    t, r = make(penalty=10)
    deal_to_play(t)
    t.take_events()
    t.tap(1, 12, 0)  # AS
    t.tap(1, 2, 1)  # 4S
    t.button(1, E.BTN_OK, 2)
    assert t.throw_open
    t.tap(2, 9, 3)  # seat 2 starts following ...
    t.button(3, E.BTN_CHALLENGE, 4)  # ... seat 3 challenges: seat 2's taps go back
    assert t.pending[2] == [] and t.challenger == 3
    t.tap(3, 6, 5)  # shows 8S (beats the 4S)
    r.throw_answer = [2]
    t.button(3, E.BTN_OK, 6)
    evs = t.take_events()
    assert find(evs, E.CHALLENGE) == [[E.CHALLENGE, 0, 3, 1, 6]]
    assert find(evs, E.FORCED) == [[E.FORCED, 0, 1, 10, 2]]
    assert r.throw_calls[-1] == [1, [12, 2], [[], [12, 2], [], [6]]]
    # the leader is a defender (dealer side): the penalty goes to the attackers
    assert t.score == 10
    assert t.lead == [2] and t.seen[12] == 0 and t.seen[2] == 1 and t.seen[6] == 0
    assert t.turn == 2 and not t.throw_open
    t.tap(2, 9, 7)  # a single now completes the follow
    assert find(t.take_events(), E.PLAY) == [[E.PLAY, 0, 2, 9]]
    # no challenge once the throw is closed
    t.button(0, E.BTN_CHALLENGE, 8)
    assert find(t.take_events(), E.REJECT) == [[E.REJECT, 0, 0, E.WRONG_PHASE]]


def test_failed_challenge_lets_throw_stand():
    t, r = make()
    deal_to_play(t)
    t.take_events()
    t.tap(1, 12, 0)
    t.tap(1, 2, 1)
    t.button(1, E.BTN_OK, 2)
    t.button(0, E.BTN_CHALLENGE, 3)
    t.tap(0, 4, 4)
    r.throw_answer = None
    t.button(0, E.BTN_OK, 5)
    evs = t.take_events()
    assert find(evs, E.CHALLENGE) == [[E.CHALLENGE, 0, 0, 0, 4]]
    assert find(evs, E.FORCED) == []
    assert t.lead == [12, 2] and t.throw_open and t.challenger == -1
    assert t.take_sound() == E.SND_ERROR
