# runs-under: micropython heapsize=120K
# (112K: the table core, tableforfeit/tablereveal, drules_hand (a forfeit's
# levels), display and these scripts are compiled from source in the heap; the
# firmware's own budget, from .mpy files, is checked by test_virtual_table.)
# The rule options the table core plays itself, with the scripted rules
# (fakerules.py): revoke = "forfeit" (docs/rules.md §10: a revoke the table
# knows ends the hand, lost for the offending side) and no_bid = "kitty"
# (section 8: nobody bid, the dealer turns the kitty up, its first card
# names trump).
import events as E
import table as T
from fakerules import FakeRules, points_of
from tablescript import Log, _hash, deal_to_play, find, hands_1deck, make, play_trick

KITTY = [48, 49, 50, 51, 47, 46]


def scanned(forfeit=False):
    """hand_scan mode: seat 1 bids 2H and deals; every seat scans its hand."""
    r = FakeRules()
    r.revoke = 1 if forfeit else 0
    t = T.Table(r, decks=1, hand_scan=True, chain_hash=_hash)
    t.tap(1, 13, 0)  # 2H
    t.button(1, E.BTN_OK, 0)
    t.button(0, E.BTN_OK, 0)
    hands = hands_1deck()
    for s in range(4):
        for c in hands[s] + (KITTY if s == 1 else []):
            t.tap(s, c, 0)
    t.take_events()
    return t, r, hands


def test_with_revoke_forfeit_the_proven_revoke_loses_the_hand():
    # the same revoke as above, at a table playing revoke = "forfeit"
    t, r = make(forfeit=True)
    deal_to_play(t)
    t.take_events()
    r.illegal = [([1], [14])]
    play_trick(t, [[5], [1], [14], [6]])  # seat 2's revoke: not known yet
    assert t.phase == T.PLAY and find(t.take_events(), E.FORFEIT) == []
    t.tap(1, 16, 0)
    t.button(1, E.BTN_OK, 0)
    t.tap(2, 2, 0)  # 4S: proves it; the hand ends before seats 3 and 0 follow
    evs = [e[2] for e in t.take_events()]
    assert evs == [
        [E.PLAY, 1, 1, 16],
        [E.PLAY, 1, 2, 2],
        [E.REVOKE, 1, 2, 0, 5],
        [E.FORFEIT, 0, 2],
        [E.HAND_END, 0, points_of([48, 49, 50, 51, 47, 46]), 0, 0, 3, 0, 1, -1],
    ]
    # seat 2 is an attacker (seat 1 deals): the defenders (side 1) go up one
    assert t.phase == T.HAND_END and t.levels == [0, 1] and t.dealer == 3
    assert r.follow_calls > 0 and t.result == evs[-1]
    t.tap(3, 17, 0)  # too late: the hand is over
    assert [e[2][:4] for e in t.take_events()] == [[E.REJECT, 1, 3, E.WRONG_PHASE]]


def test_with_revoke_forfeit_a_lead_proves_the_revoke_too():
    t, r = make(forfeit=True)
    deal_to_play(t)
    r.illegal = [([1], [14])]
    r.winners = [2]  # seat 2 wins trick 0, then leads the spade it held
    play_trick(t, [[5], [1], [14], [6]])
    t.take_events()
    t.tap(2, 2, 0)
    t.button(2, E.BTN_OK, 0)
    evs = [e[2] for e in t.take_events()]
    assert evs[:3] == [[E.PLAY, 1, 2, 2], [E.REVOKE, 1, 2, 0, 5], [E.FORFEIT, 0, 2]]
    assert evs[3][0] == E.HAND_END and t.phase == T.HAND_END


def test_the_forfeit_found_by_the_audit_is_the_first_in_trick_and_play_order():
    import tableforfeit

    t, r = make(forfeit=True)
    t.tricks = T.Tricks(t.hand_size, t.ncards)
    t.tricks.add(1, 1, 0, 0, [[], [], [], []])
    t.tricks.add(3, 3, 0, 0, [[], [], [], []])
    # blocks as the audit keeps them, the latest trick first; trick 1, led
    # by seat 3: seat 1 (third to play) and seat 0 (first to play) revoked
    found = [
        [[E.AUDIT, 1, 1, E.REVOKE_FOLLOW, 5], [E.AUDIT, 1, 0, E.REVOKE_FOLLOW, 6]],
        [[E.AUDIT, 0, 1, E.THROW_FAILED, 0]],  # trick 0: a throw, no revoke
    ]
    tableforfeit.from_audit(t, found)
    assert t.forfeit == [1, 0]
    t.forfeit = None
    tableforfeit.from_audit(t, [found[1]])  # no revoke: no forfeit
    assert t.forfeit is None


def test_with_revoke_forfeit_an_illegal_follow_stands_and_loses_the_hand():
    # revoke = "forfeit" (docs/rules.md §10): the follow the flag rule
    # refuses (the test above) is played, reported at once, and ends the hand
    t, r, hands = scanned(forfeit=True)
    for c in KITTY:
        t.tap(1, c, 0)
    t.take_events()
    lead = hands[1][0]
    r.illegal = [([lead], [hands[2][1]])]
    t.tap(1, lead, 0)
    t.button(1, E.BTN_OK, 0)
    t.tap(2, hands[2][1], 0)  # seat 2 (an attacker: seat 1 deals) revokes
    evs = [e[2] for e in t.take_events()]
    assert evs == [
        [E.PLAY, 0, 1, lead],
        [E.PLAY, 0, 2, hands[2][1]],
        [E.REVOKE, 0, 2, 0, 5],
        [E.FORFEIT, 0, 2],
        # no kitty bonus, no audit before the last trick; an attacker
        # revoked: the defenders (side 1) go up one, the dealer's partner deals
        [E.HAND_END, 0, points_of(KITTY), 0, 0, 3, 0, 1, -1],
    ]
    assert t.phase == T.HAND_END and t.forfeit == [0, 2] and t.levels == [0, 1]
    assert t.take_sound() == E.SND_ERROR and t.message == "S2 revoke: lost"
    t.tap(3, hands[3][0], 0)  # the hand is over
    assert [e[2][:4] for e in t.take_events()] == [[E.REJECT, 0, 3, E.WRONG_PHASE]]
    # a power cut now: the settled hand comes back, OK starts the next one
    t2 = T.Table(FakeRules(), decks=1, hand_scan=True)
    t2.restore(t.snapshot())
    assert t2.phase == T.HAND_END and t2.result == evs[-1] and t2.dealer == 3
    t2.button(0, E.BTN_OK, 0)
    assert t2.take_events()[-1][2] == [E.HAND_START, 2, 3, 1, 0, 1, 0]


def test_with_revoke_forfeit_a_legal_follow_plays_on():
    t, r, hands = scanned(forfeit=True)
    for c in KITTY:
        t.tap(1, c, 0)
    t.take_events()
    r.illegal = [([hands[1][0]], [hands[2][1]])]
    log = Log()
    play_trick(t, [hands[s][0:1] for s in range(4)], log)  # seat 2 follows 4S: legal
    assert log.find(E.REVOKE) == [] and log.find(E.FORFEIT) == []
    assert t.phase == T.PLAY and t.forfeit is None


def second_hand(kitty=True):
    """A table playing no_bid = "kitty" at the draw of a hand other than the
    match's first (seat 1 deals)."""
    t, r = make(kitty=kitty)
    t.first_hand = False
    t.dealer = 1
    t.take_events()
    t.take_save()
    return t, r


def test_no_bid_the_dealer_turns_the_kitty_up_and_its_first_card_names_trump():
    t, r = second_hand()
    t.button(0, E.BTN_OK, 0)  # the draw is over, nobody bid
    assert t.phase == T.REVEAL and t.turn == 1 and t.trump == -1
    assert t.take_events() == [] and t.take_save() is True
    assert t.message == "S1 turn kitty up"
    up = [48, 13, 52, 0, 30, 31]  # JC first: clubs are trump (level 2)
    for c in up:
        t.tap(1, c, 0)
    evs = [e[2] for e in t.take_events()]
    assert evs == [[E.KITTY_UP, 1] + up, [E.TRUMP, 3, -1, 1]]
    assert t.trump == 3 and t.kitty_up == up and t.declarer == -1
    assert t.phase == T.KITTY and t.turn == 1 and t.pending[1] == []
    # the dealer now buries as in any hand (any six cards)
    for c in up:
        t.tap(1, c, 0)
    assert t.phase == T.PLAY and [e[2][0] for e in t.take_events()] == [E.KITTY]


def test_a_joker_or_a_level_card_turned_up_first_is_no_trump():
    for first in (52, 53, 13, 39):  # SJ, BJ, 2H, 2C: level 2
        t, r = second_hand()
        t.button(2, E.BTN_OK, 0)
        for c in [first, 48, 49, 50, 51, 47]:
            t.tap(1, c, 0)
        evs = [e[2] for e in t.take_events()]
        assert evs[-1] == [E.TRUMP, T.NT, -1, 1], first


def test_wrong_taps_during_the_reveal_are_refused_and_change_nothing():
    t, r = second_hand()
    t.button(0, E.BTN_OK, 0)
    for c in (48, 13, 52):
        t.tap(1, c, 0)
    t.take_events()
    t.tap(2, 30, 0)  # not the dealer
    t.tap(1, 13, 0)  # the same card again: counted once
    t.button(1, E.BTN_OK, 0)  # three of six: too early
    t.button(3, E.BTN_OK, 0)  # not the dealer: nothing
    t.tap(0, -1, 0)  # an unknown tag
    evs = [e[2] for e in t.take_events()]
    assert evs == [
        [E.REJECT, 0, 2, E.WRONG_PHASE, 30],
        [E.REJECT, 0, 1, E.KITTY_COUNT, 48, 13, 52],
        [E.REJECT, 0, 0, E.UNKNOWN_CARD],
    ]
    assert t.phase == T.REVEAL and t.pending[1] == [48, 13, 52] and t.pending[2] == []
    assert t.trump == -1 and t.kitty_up == [] and t.message == "S0 unknown card"
    t.button(1, E.BTN_UNDO, 0)  # a long press: the dealer starts again
    assert t.pending[1] == [] and t.phase == T.REVEAL
    for c in (0, 48, 13, 52, 30, 31):  # 2S first now: no trump (level card)
        t.tap(1, c, 0)
    assert [e[2] for e in t.take_events()][-1] == [E.TRUMP, T.NT, -1, 1]


def test_with_a_bid_or_on_the_first_hand_the_kitty_stays_down():
    t, r = second_hand()
    t.tap(3, 13, 0)  # 2H
    t.button(3, E.BTN_OK, 0)
    t.button(0, E.BTN_OK, 0)
    assert [e[2][0] for e in t.take_events()] == [E.BID, E.TRUMP] and t.phase == T.KITTY
    t, r = make(kitty=True)  # the match's first hand: redealt
    t.take_events()
    t.button(0, E.BTN_OK, 0)
    assert [e[2][0] for e in t.take_events()] == [E.REDEAL, E.HAND_START]
    t, r = second_hand(kitty=False)  # no_bid = "nt"
    t.button(0, E.BTN_OK, 0)
    assert [e[2] for e in t.take_events()] == [[E.TRUMP, T.NT, -1, 1]]


def test_a_power_cut_during_or_after_the_reveal():
    t, r = second_hand()
    t.button(0, E.BTN_OK, 0)
    t.tap(1, 48, 0)
    snap = t.snapshot()  # saved as the reveal began; the card tapped is not kept
    assert snap[2] == T.REVEAL and snap[21] == []
    t2, r2 = make(kitty=True)
    t2.restore(snap)
    assert t2.phase == T.REVEAL and t2.turn == 1 and t2.pending[1] == []
    up = [49, 48, 13, 52, 30, 31]
    for c in up:
        t2.tap(1, c, 0)
    assert t2.trump == 3 and t2.phase == T.KITTY
    snap = t2.snapshot()
    assert snap[21] == up
    t3, r3 = make(kitty=True)
    t3.restore(snap)
    assert t3.kitty_up == up and t3.phase == T.KITTY and t3.trump == 3
    # a snapshot whose kitty turned up does not fit is refused, nothing changed
    for bad in ([49, 49, 13, 52, 30, 31], [49, 48], [49, 48, 13, 52, 30, 999]):
        wrong = list(snap)
        wrong[21] = bad
        try:
            t3.restore(wrong)
            raise AssertionError(bad)
        except T.TableError as exc:
            assert "kitty" in str(exc)
        assert t3.kitty_up == up and t3.phase == T.KITTY
    wrong = list(snap)
    wrong[2] = T.REVEAL  # a reveal under way with the kitty already turned up
    try:
        t3.restore(wrong)
        raise AssertionError("restored a reveal with its kitty")
    except T.TableError:
        pass
    assert t3.phase == T.KITTY


def test_the_display_asks_the_dealer_for_the_kitty_and_names_the_revoke():
    from display import DisplayModel

    t, r = second_hand()
    t.button(0, E.BTN_OK, 0)
    t.tap(1, 48, 0)
    t.tap(1, 13, 0)
    lines = DisplayModel().text_lines(t)
    assert lines[2] == "S1 kitty up 2/6" and lines[4] == ">S1 JC2H"  # the cards face up
    assert lines[7] == "S1 turn kitty up"
    t, r = make(forfeit=True)
    deal_to_play(t)
    r.illegal = [([1], [14])]
    play_trick(t, [[5], [1], [14], [6]])
    t.tap(1, 16, 0)
    t.button(1, E.BTN_OK, 0)
    t.tap(2, 2, 0)
    lines = DisplayModel().text_lines(t)
    assert lines[2] == "revoke S2 OK=nxt" and lines[7] == "S2 revoke: lost"


def test_in_hand_scan_mode_the_kitty_turned_up_is_the_dealers_to_scan():
    r = FakeRules()
    r.no_bid = 1
    t = T.Table(r, decks=1, hand_scan=True, chain_hash=_hash)
    t.first_hand = False
    t.dealer = 1
    t.button(0, E.BTN_OK, 0)
    for c in KITTY:
        t.tap(1, c, 0)
    assert t.phase == T.SCAN and t.trump == 3  # JC first (KITTY[0] = 48)
    t.take_events()
    t.tap(0, KITTY[0], 0)  # another seat scans a card of the kitty: refused
    assert [e[2] for e in t.take_events()] == [[E.REJECT, 0, 0, E.SEEN_TWICE, KITTY[0]]]
    assert t.hands[0] == []
    t.tap(1, KITTY[0], 0)  # the dealer picked the kitty up: its card
    assert t.hands[1] == [KITTY[0]] and t.take_events() == []
