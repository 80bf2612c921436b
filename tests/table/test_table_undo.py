# runs-under: micropython heapsize=112K
# (112K: the restore compiles tablerestore.py from source in the heap, as test_table_options does.)
# A long press takes back the seat's last play (firmware/tableundo.py): legal
# while nothing followed it; refused for another seat, after the next seat
# tapped, once the trick is scored. The snapshot after an undo is consistent.
import events as E
import table as T
from tablescript import deal_to_play, find, make


def _lead_and_follow(t):
    deal_to_play(t)  # dealer 1 leads
    t.take_events()
    t.tap(1, 8, 0)  # TS
    t.button(1, E.BTN_OK, 1)
    t.tap(2, 4, 2)  # a stray 6S commits the follow at once
    evs = t.take_events()
    assert find(evs, E.PLAY) == [[E.PLAY, 0, 1, 8], [E.PLAY, 0, 2, 4]]
    assert t.turn == 3


def test_undo_takes_back_the_last_follow():
    t, _ = make()
    _lead_and_follow(t)
    before = t.ev_index
    t.button(2, E.BTN_UNDO, 3)
    evs = t.take_events()
    assert [e[2] for e in evs] == [[E.UNDO, 0, 2, 4]]
    assert evs[0][0] == before
    assert t.turn == 2 and t.plays[2] is None and t.seen[4] == 0
    assert t.message == "S2 takes back"
    snap = t.snapshot()
    assert snap[20] == [1, 0, 0, None, [8], None, None]
    assert snap[13] == t.ev_index and snap[14] == t.ev_hash
    # the right card now: the play goes on from seat 2
    t.tap(2, 6, 4)
    assert find(t.take_events(), E.PLAY) == [[E.PLAY, 0, 2, 6]]
    assert t.turn == 3
    # a snapshot after the undo restores to the same state
    snap = t.snapshot()
    t.restore(snap)
    assert t.snapshot() == snap and t.turn == 3 and t.plays[2] == [6]


def test_undo_of_a_lead_gives_the_lead_back():
    t, _ = make()
    deal_to_play(t)
    t.take_events()
    t.tap(1, 2, 0)
    t.tap(1, 3, 1)
    t.button(1, E.BTN_OK, 2)  # a throw: the challenge window is open
    assert t.throw_open
    t.take_events()
    t.button(1, E.BTN_UNDO, 3)
    assert [e[2] for e in t.take_events()] == [[E.UNDO, 0, 1, 2, 3]]
    assert t.lead is None and t.turn == 1 and not t.throw_open
    assert t.snapshot()[20] is None


def test_undo_refused_for_another_seat_and_after_the_next_tap():
    t, _ = make()
    _lead_and_follow(t)
    t.button(1, E.BTN_UNDO, 3)  # not the seat of the last play
    assert t.take_events() == []
    assert t.message == "S1 no undo"
    assert t.turn == 3 and t.plays[2] == [4]
    t.tap(3, 7, 4)  # the next seat taps (and plays): seat 2's play stands
    t.button(2, E.BTN_UNDO, 5)
    assert find(t.take_events(), E.UNDO) == []
    assert t.plays[2] == [4] and t.seen[4] == T.SEEN_PLAYED and t.turn == 0


def test_undo_refused_once_the_trick_is_scored():
    t, r = make()
    deal_to_play(t)
    t.take_events()
    r.winners = [2]
    t.tap(1, 8, 0)
    t.button(1, E.BTN_OK, 1)
    t.tap(2, 11, 2)
    t.tap(3, 3, 3)
    t.tap(0, 5, 4)  # completes the trick: TRICK
    t.take_events()
    t.button(0, E.BTN_UNDO, 5)
    assert t.take_events() == []
    assert len(t.tricks) == 1 and t.turn == 2 and t.message == "S0 no undo"


def test_a_refusal_between_does_not_block_the_undo():
    t, _ = make()
    _lead_and_follow(t)
    t.tap(0, 9, 3)  # out of turn: REJECT
    t.take_events()
    t.button(2, E.BTN_UNDO, 4)
    assert [e[2] for e in t.take_events()] == [[E.UNDO, 0, 2, 4]]
