# runs-under: micropython heapsize=80K
"""Device rules engine, the hand around the play (docs/rules.md §8-9): settling under
every level table and ladder, declaring trump, find-a-friend. Each rule with a
case that applies and one that does not; CPython and MicroPython (80 KB heap)."""

import drules_friend as F
import drules_hand as H
from dcards import ids

R2, R3, R5, RT, RJ, RQ, RK, RA = 0, 1, 3, 8, 9, 10, 11, 12


def settle(score, dealer=0, levels=(R2, R2), **kw):
    return H.settle(score, dealer, list(levels), **kw)


def test_classic_table_two_decks():
    assert settle(0) == [2, R5, R2, -1]  # defenders +3, the partner deals
    assert settle(5)[:3] == [2, 2, 0]
    assert settle(35)[:3] == [2, 2, 0]
    assert settle(40)[:3] == [2, 1, 0]
    assert settle(75)[:3] == [2, 1, 0]
    assert settle(80)[:3] == [1, 0, 0]  # attackers take over, +0
    assert settle(120)[:3] == [1, 0, 1]
    assert settle(160)[:3] == [1, 0, 2]
    assert settle(-10)[:3] == [2, 3, 0]  # a negative score counts as 0


def test_classic_step_follows_the_decks():
    assert H.settle(20, 0, [R2, R2], 1)[:3] == [2, 1, 0]  # 1 deck: step 20
    assert H.settle(60, 0, [R2, R2], 1)[:3] == [1, 0, 1]
    assert H.settle(180, 0, [R2, R2], 3)[:3] == [1, 0, 1]  # 3 decks: step 60


def test_lianzhong_and_qq():
    assert settle(80, table=H.LT_LIANZHONG)[:3] == [1, 0, 1]
    assert settle(80)[:3] == [1, 0, 0]
    assert settle(400, table=H.LT_QQ)[2] == 6  # capped at +6
    assert settle(400)[2] == 8


def test_tournament_onedeck_xuwen():
    t = H.LT_TOURNAMENT
    assert [H.level_gain(s, 2, t) for s in (0, 35, 40, 80, 120, 150)] == [
        (0, 3, False),
        (0, 2, False),
        (0, 1, False),
        (1, 0, True),
        (1, 2, True),
        (1, 3, True),
    ]
    o = H.LT_ONEDECK
    assert [H.level_gain(s, 1, o)[1:] for s in (0, 35, 40, 80, 100)] == [
        (2, False),
        (1, False),
        (0, True),
        (1, True),
        (2, True),
    ]
    x = H.LT_XUWEN
    assert [H.level_gain(s, 4, x)[1:] for s in (0, 75, 155, 160, 199, 200)] == [
        (3, False),
        (2, False),
        (1, False),
        (0, True),
        (0, True),
        (1, True),
    ]


def test_levels_stop_at_ace_and_win_there():
    assert settle(0, levels=(RK, 7))[:4] == [2, RA, 7, -1]
    assert settle(20, levels=(RA, 7))[:4] == [2, RA, 7, 0]  # defenders at A win
    assert settle(200, levels=(7, RQ))[:4] == [1, 7, RA, -1]  # attackers stop at A


def test_tournament_ladder_and_must_play():
    lad = H.LL_TOURNAMENT
    assert H.advance(R2, 1, lad) == R5
    assert H.advance(R5, 2, lad) == RJ
    assert H.advance(4, 1, lad) == RT  # a level off the ladder moves up to a rung
    assert H.advance(R2, 3, H.LL_FULL, 1 << R3) == R3  # stops at a must-play level
    assert H.advance(R3, 3, H.LL_FULL, 1 << R3) == R3 + 3  # and goes on from it


def test_tournament_kitty_j_sends_defenders_back_to_2():
    kw = {"table": H.LT_TOURNAMENT, "ladder": H.LL_TOURNAMENT}
    assert settle(120, levels=(RJ, R5), kitty_j=True, **kw)[:3] == [1, R2, RJ]
    assert settle(120, levels=(RJ, R5), kitty_j=False, **kw)[:3] == [1, RJ, RJ]
    assert settle(120, levels=(RJ, R5), kitty_j=True)[:3] == [1, RJ, 4]  # classic: no J rule


def test_settle_per_seat_find_a_friend():
    # dealer 0 with partner 3 (called), defenders keep the deal with +1
    out = H.settle_seats(50, 0, [R2, R3, R5, R2], (1 << 0) | (1 << 3))
    assert out == [3, R3, R3, R5, R3, 0]
    # attackers (1 and 2) take over
    out = H.settle_seats(130, 0, [R2, R3, R5, R2], (1 << 0) | (1 << 3))
    assert out[:5] == [1, R2, 2, 4, R2]
    # the dealer alone at A wins, and deals again
    out = H.settle_seats(0, 2, [R2, R3, RA, R2], 1 << 2)
    assert out[0] == 2 and out[5] == 1 << 2


# --- declaring --------------------------------------------------------------


def test_bid_classes_and_strictly_stronger():
    b = H.Bidding(2, R2)
    assert b.bid(1, ids("2H"))
    assert not b.bid(3, ids("2S"))  # same class: the earlier stands
    assert b.bid(3, ids("2S 2S"))
    assert not b.bid(1, ids("2H 2H"))
    assert b.bid(0, ids("SJ SJ"))
    assert b.trump_of_bid() == H.NT and b.declarer == 0 and b.first_seat == 1
    assert not b.bid(2, ids("SJ"))  # one joker is no bid
    assert not b.bid(2, ids("3S"))  # not a level card
    assert b.bid(2, ids("BJ BJ"))


def test_reinforcement_and_self_override():
    b = H.Bidding(2, R5)
    assert b.bid(1, ids("5H"))
    assert b.bid(1, ids("5H"))  # adds to the shown card: a pair
    assert b.count == 2 and b.klass == 1
    assert not b.bid(1, ids("5H"))  # three 5H cannot exist with two decks
    assert b.bid(1, ids("SJ SJ"))  # self-override allowed by default
    strict = H.Bidding(2, R5, allow_self_override=False)
    assert strict.bid(1, ids("5H"))
    assert not strict.bid(1, ids("5S 5S"))
    assert strict.bid(2, ids("5S 5S"))


def test_three_and_four_deck_classes():
    b = H.Bidding(3, R2)
    assert b.bid(0, ids("BJ BJ"))
    assert b.bid(1, ids("2C 2C 2C"))  # a triple of L beats two big jokers
    assert not b.bid(2, ids("2D 2D 2D 2D"))  # four copies need four decks
    assert H.bid_class(53, 4, R2, 4) == 9


def test_end_of_draw():
    b = H.Bidding(2, R5)
    assert H.end_of_draw(b, True, -1) == (-1, -1, -1)  # first hand: redeal
    assert H.end_of_draw(b, False, 2) == (H.NT, -1, 2)
    assert H.end_of_draw(b, False, 2, H.NB_KITTY, H.FD_FIRST, ids("7D 3S")) == (2, -1, 2)
    assert H.end_of_draw(b, False, 2, H.NB_KITTY, H.FD_FIRST, ids("5D 3S")) == (H.NT, -1, 2)
    b.bid(1, ids("5H"))
    b.bid(3, ids("5S 5S"))
    assert H.end_of_draw(b, True, -1) == (0, 3, 1)  # first declarer deals
    assert H.end_of_draw(b, True, -1, H.NB_NT, H.FD_FINAL) == (0, 3, 3)


# --- rules made exact (docs/rules.md: declaring, levels, the kitty) ---------


def test_kitty_turned_up_with_permanent_twos_a_two_is_no_trump():
    b = H.Bidding(2, R5)
    kitty = ids("2H 7D 3S")
    # with permanent_twos a 2 is trump in every suit: it names no suit (NT)
    assert H.end_of_draw(b, False, 1, H.NB_KITTY, H.FD_FIRST, kitty, True) == (H.NT, -1, 1)
    # without the option a 2 is a plain heart
    assert H.end_of_draw(b, False, 1, H.NB_KITTY, H.FD_FIRST, kitty, False) == (1, -1, 1)
    assert H.end_of_draw(b, False, 1, H.NB_KITTY, H.FD_FIRST, kitty) == (1, -1, 1)
    # only the first card counts; a joker or a level card first is NT as ever
    assert H.end_of_draw(b, False, 3, H.NB_KITTY, H.FD_FIRST, ids("7D 2H"), True) == (2, -1, 3)
    assert H.end_of_draw(b, False, 3, H.NB_KITTY, H.FD_FIRST, ids("BJ 7D"), True) == (H.NT, -1, 3)
    assert H.end_of_draw(b, False, 3, H.NB_KITTY, H.FD_FIRST, ids("5C 7D"), True) == (H.NT, -1, 3)
    # at level 2 a 2 is a level card anyway
    b2 = H.Bidding(2, R2)
    assert H.end_of_draw(b2, False, 0, H.NB_KITTY, H.FD_FIRST, ids("2C"), False) == (H.NT, -1, 0)
    # a bid stands: the kitty does not name trump; the first hand redeals
    assert b.bid(2, ids("5S"))
    assert H.end_of_draw(b, False, 1, H.NB_KITTY, H.FD_FIRST, kitty, True) == (0, 2, 1)
    assert H.end_of_draw(H.Bidding(2, R5), True, -1, H.NB_KITTY, H.FD_FIRST, kitty, True)[0] == -1


def test_self_override_is_any_bid_of_the_declarer_that_does_not_reinforce():
    for allow in (True, False):
        # another suit
        b = H.Bidding(3, R5, allow)
        assert b.bid(0, ids("5S"))
        assert b.bid(0, ids("5H 5H")) == allow
        assert b.trump_of_bid() == (1 if allow else 0) and b.declarer == 0
        # NT by jokers
        b = H.Bidding(3, R5, allow)
        assert b.bid(1, ids("5S"))
        assert b.bid(1, ids("SJ SJ")) == allow
        assert b.trump_of_bid() == (H.NT if allow else 0)
        # the other kind of joker
        b = H.Bidding(3, R5, allow)
        assert b.bid(2, ids("SJ SJ"))
        assert b.bid(2, ids("BJ BJ")) == allow
        assert b.face == (53 if allow else 52)
        # a suit after NT
        b = H.Bidding(3, R5, allow)
        assert b.bid(2, ids("SJ SJ"))
        assert b.bid(2, ids("5H 5H 5H")) == allow
        # reinforcing is never a self-override (a joker bid too)
        b = H.Bidding(3, R5, allow)
        assert b.bid(3, ids("SJ SJ"))
        assert b.bid(3, ids("SJ"))
        assert b.count == 3 and b.klass == 5
        assert not b.bid(1, ids("BJ BJ"))  # weaker than three small jokers
    # a self-override must still be of a stronger class
    b = H.Bidding(2, R5)
    assert b.bid(0, ids("5S 5S"))
    assert not b.bid(0, ids("5H"))
    # the option is about the standing declarer only
    b = H.Bidding(2, R5, False)
    assert b.bid(0, ids("5S"))
    assert b.bid(1, ids("5H 5H"))
    assert b.bid(0, ids("SJ SJ"))  # seat 0 no longer stands
    assert not b.bid(0, ids("BJ BJ"))  # now it does


def test_a_refused_bid_says_why():
    b = H.Bidding(2, R5, False)
    assert not b.bid(0, ids("3S")) and b.refused == H.BR_CARDS
    assert b.bid(0, ids("5S")) and b.refused == H.BR_NONE
    assert not b.bid(0, ids("5H 5H")) and b.refused == H.BR_SELF
    assert not b.bid(1, ids("5H")) and b.refused == H.BR_WEAK
    assert not b.bid(0, ids("5S 5S")) and b.refused == H.BR_WEAK  # three 5S: no class
    ok = H.Bidding(2, R5, True)
    assert ok.bid(0, ids("5S")) and ok.bid(0, ids("5H 5H")) and ok.refused == H.BR_NONE


def test_must_play_every_path_of_a_climb():
    R4, R6, R7, R8 = 2, 4, 5, 6
    mp5 = 1 << R5
    # the defenders keep the deal (+3): stop at a listed level, move on from it
    assert settle(0, 0, (R3, R2))[:3] == [2, R6, R2]
    assert settle(0, 0, (R3, R2), must_play=mp5)[:3] == [2, R5, R2]
    assert settle(20, 2, (R3, R2), must_play=mp5)[:3] == [0, R5, R2]  # +2: reached exactly
    assert settle(0, 0, (R5, R2), must_play=mp5)[:3] == [2, R8, R2]
    assert settle(0, 0, (R5, R2), must_play=mp5 | (1 << R7))[:3] == [2, R7, R2]
    # the attackers take over (+2 at 160): the same
    assert settle(160, 0, (R2, R4))[:3] == [1, R2, R6]
    assert settle(160, 0, (R2, R4), must_play=mp5)[:3] == [1, R2, R5]
    assert settle(160, 1, (R5, 9), must_play=mp5)[:3] == [2, R7, 9]
    assert settle(80, 0, (R2, R4), must_play=mp5)[:3] == [1, R2, R4]  # take over, +0
    # A: always a stop, and the match is won defending there
    assert settle(0, 1, (R2, RQ), must_play=1 << RK)[:4] == [3, R2, RK, -1]
    assert settle(0, 1, (R2, RK), must_play=1 << RK)[:4] == [3, R2, RA, -1]
    assert settle(20, 1, (R2, RA), must_play=1 << RK)[:4] == [3, R2, RA, 1]
    assert settle(200, 1, (RA, 9), must_play=1 << RK)[:4] == [2, RA, 9, -1]
    # the tournament ladder 2 5 T J Q K A
    kw = {"table": H.LT_TOURNAMENT, "ladder": H.LL_TOURNAMENT}
    assert settle(0, 0, (R2, R2), **kw)[:3] == [2, RJ, R2]
    assert settle(0, 0, (R2, R2), must_play=1 << RT, **kw)[:3] == [2, RT, R2]
    assert settle(0, 0, (RT, R2), must_play=1 << RT, **kw)[:3] == [2, RK, R2]
    assert settle(150, 0, (R2, RT), must_play=1 << RQ, **kw)[:3] == [1, R2, RQ]
    assert settle(0, 0, (RQ, R2), must_play=1 | (1 << RA), **kw)[:3] == [2, RA, R2]
    # ... where the tournament's J rule still sends the defenders back to 2
    assert settle(50, 0, (RJ, R2), must_play=1 << RQ, kitty_j=True, **kw)[:3] == [2, R2, R2]
    # find-a-friend: each member climbs from its own level
    out = H.settle_seats(0, 0, [R3, R2, R4, R5], (1 << 0) | (1 << 3), must_play=mp5)
    assert out == [3, R5, R2, R4, R8, 0]
    out = H.settle_seats(0, 0, [R3, R2, R4, R5], (1 << 0) | (1 << 3))
    assert out == [3, R6, R2, R4, R8, 0]
    out = H.settle_seats(160, 0, [R2, R4, R5, R6], 1 << 0, must_play=1 << R6)
    assert out == [1, R2, R6, R6, R8, 0]
    out = H.settle_seats(0, 2, [R2, R3, RA, RK], 1 << 2, must_play=1 << RK)
    assert out == [2, R2, R3, RA, RK, 1 << 2]


def test_friend_partner():
    # the dealer holds one copy: the other copy's holder
    assert F.friend_partner(0, [1, 0, 1, 0]) == 2
    # the dealer holds none: the nearest holder after the dealer
    assert F.friend_partner(1, [1, 0, 0, 1]) == 3
    # the dealer holds both: alone
    assert F.friend_partner(0, [2, 0, 0, 0]) == F.FRIEND_ALONE
    # not known yet
    assert F.friend_partner(0, [1, -1, 0, 1]) == F.FRIEND_UNKNOWN
