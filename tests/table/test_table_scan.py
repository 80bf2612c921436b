# runs-under: micropython heapsize=96K
# (80K with the layered table core, where 74K passes but 76K and 78K do not:
# compiling the table core from source interns the names that need the qstr
# pool's next block in one piece, which those heaps happen not to have then;
# 76K before, 72K before find-a-friend: the table core and these scripts are compiled from source in the heap;
# the firmware's own budget, from .mpy files, is checked by test_virtual_table.)
# hand_scan mode of the table core, with the scripted rules (fakerules.py):
# every seat scans its hand after the draw; then a card not held is refused, an
# illegal follow is refused at once (with revoke = "forfeit": it stands and
# loses the hand, test_table_options.py), a failing throw is forced at once (no challenge); the state
# survives a snapshot.
import events as E
import table as T
import tablerestore  # noqa: F401 - compiled once here: Table.restore then keeps it
from fakerules import FakeRules
from tablescript import Log, _hash, hands_1deck, play_trick

KITTY = [48, 49, 50, 51, 47, 46]


def scanning():
    r = FakeRules()
    t = T.Table(r, decks=1, hand_scan=True, chain_hash=_hash)
    t.tap(1, 13, 0)  # 2H
    t.button(1, E.BTN_OK, 0)
    t.button(0, E.BTN_OK, 0)
    t.take_events()
    return t, r


def scanned():
    t, r = scanning()
    hands = hands_1deck()
    for s in range(4):
        cards = hands[s] + (KITTY if s == 1 else [])
        for c in cards:
            t.tap(s, c, 0)
    return t, r, hands


def test_the_draw_leads_to_the_scan_and_the_scan_to_the_burial():
    t, r = scanning()
    assert t.phase == T.SCAN and t.turn == -1
    hands = hands_1deck()
    for c in hands[0][:3]:
        t.tap(0, c, 0)
    t.tap(0, hands[0][0], 0)  # the same card again: counted once
    t.tap(2, hands[0][1], 0)  # seat 0's card at seat 2: refused
    evs = [e[2] for e in t.take_events()]
    assert evs == [[E.REJECT, 0, 2, E.SEEN_TWICE, hands[0][1]]]
    t.button(0, E.BTN_UNDO, 0)  # seat 0 starts its scan again
    assert t.hands[0] == []
    for s in range(4):
        cards = hands[s] + (KITTY if s == 1 else [])
        for c in cards:
            t.tap(s, c, 0)
    evs = [e[2] for e in t.take_events()]
    assert [e[0] for e in evs] == [E.SCAN] * 4
    assert evs[1][:2] == [E.SCAN, 1] and len(evs[1]) == 2 + 12 + 6  # the dealer with the kitty
    assert t.phase == T.KITTY and t.turn == 1 and sum(t.seen) == 0
    assert t.take_save() is True


def test_a_card_not_held_is_refused_then_play_goes_on():
    t, r, hands = scanned()
    t.tap(1, hands[0][0], 0)  # seat 0's card offered for the burial
    evs = [e[2] for e in t.take_events() if e[2][0] == E.REJECT]
    assert evs == [[E.REJECT, 0, 1, E.NOT_HELD, hands[0][0]]]
    for c in KITTY:
        t.tap(1, c, 0)
    assert t.phase == T.PLAY and len(t.hands[1]) == 12
    t.tap(1, hands[2][0], 0)  # not seat 1's
    evs = [e[2] for e in t.take_events() if e[2][0] == E.REJECT]
    assert evs == [[E.REJECT, 0, 1, E.NOT_HELD, hands[2][0]]]


def test_an_illegal_follow_is_refused_at_once():
    t, r, hands = scanned()
    for c in KITTY:
        t.tap(1, c, 0)
    t.take_events()
    lead = hands[1][0]  # 3S
    # scripted: following 3S with seat 2's second card is illegal while it
    # holds another card of the suit (it holds 4S, its first)
    r.illegal = [([lead], [hands[2][1]])]
    t.tap(1, lead, 0)
    t.button(1, E.BTN_OK, 0)
    t.tap(2, hands[2][1], 0)
    evs = [e[2] for e in t.take_events()]
    assert evs[-1] == [E.REJECT, 0, 2, E.REVOKE_FOLLOW, hands[2][1]]
    assert t.turn == 2 and hands[2][1] in t.hands[2] and t.seen[hands[2][1]] == 0
    t.tap(2, hands[2][0], 0)  # a legal follow
    evs = [e[2] for e in t.take_events()]
    assert evs == [[E.PLAY, 0, 2, hands[2][0]]]
    assert hands[2][0] not in t.hands[2]


def test_a_failing_throw_is_forced_at_once_and_the_hand_ends():
    t, r, hands = scanned()
    for c in KITTY:
        t.tap(1, c, 0)
    t.take_events()
    throw = hands[1][0:2]
    r.throw_answer = [throw[0]]
    log = Log()
    play_trick(t, [hands[s][0:2] if s == 1 else hands[s][0:1] for s in range(4)], log)
    # judged against every hand as scanned (the dealer's without the kitty)
    assert r.throw_calls[-1] == [1, throw, hands]
    # one card stands, at once, without a challenge; the other stays in the hand
    assert log.find(E.FORCED) == [[E.FORCED, 0, 1, 0, throw[0]]]
    assert log.find(E.CHALLENGE) == []
    assert throw[1] in t.hands[1] and throw[0] not in t.hands[1]
    r.throw_answer = None
    while t.phase == T.PLAY:
        play_trick(t, [[t.hands[s][0]] for s in range(4)], log)
    assert t.phase == T.HAND_END
    assert len(log.find(E.TRICK)) == 12 and log.find(E.HAND_END)
    assert t.hands == [[], [], [], []]


def test_scan_state_survives_a_snapshot():
    t, r = scanning()
    hands = hands_1deck()
    for c in hands[3]:
        t.tap(3, c, 0)
    t.tap(0, hands[0][0], 0)
    snap = t.snapshot()
    assert snap[2] == T.SCAN and snap[22] == [1, 8, [hands[0][0]], [], [], hands[3]]
    t2 = T.Table(FakeRules(), decks=1, hand_scan=True)
    t2.restore(snap)
    assert t2.scan_done == 8 and t2.hands[3] == hands[3] and t2.seen[hands[0][0]] == 2
    t2.tap(2, hands[0][0], 0)  # already scanned by seat 0
    evs = [e[2] for e in t2.take_events()]
    assert evs == [[E.REJECT, 0, 2, E.SEEN_TWICE, hands[0][0]]]


def test_a_follow_taken_back_returns_to_the_scanned_hand():
    """firmware/tableundo.py in hand_scan mode: the card goes back to the
    seat's scanned hand (and the snapshot's), and may be played again."""
    t, r, hands = scanned()
    for c in KITTY:
        t.tap(1, c, 0)
    t.take_events()
    t.tap(1, hands[1][0], 0)
    t.button(1, E.BTN_OK, 0)
    t.tap(2, hands[2][1], 0)  # the stray card
    assert hands[2][1] not in t.hands[2]
    t.button(2, E.BTN_UNDO, 0)
    assert [e[2] for e in t.take_events()][-1] == [E.UNDO, 0, 2, hands[2][1]]
    assert hands[2][1] in t.hands[2] and t.seen[hands[2][1]] == 0 and t.turn == 2
    assert hands[2][1] in t.snapshot()[22][4]
    t.tap(2, hands[2][0], 0)
    assert [e[2] for e in t.take_events()] == [[E.PLAY, 0, 2, hands[2][0]]]
