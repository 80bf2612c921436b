# runs-under: micropython heapsize=176K
# The table core with the real device rules engine (drules.py through
# tablerules.py): bids, the trick winner, a challenge that fails a throw and
# one that does not, a revoke proven later with the engine's own reason code,
# a mixed-suit lead refused. Two decks, level 2, spades trump.
import drules as D
import events as E
import table as T
import tablerules


def c(face, copy=0):
    return copy * 54 + face


# faces: suit*13 + rank (2=0 ... A=12); S=0 H=1 D=2 C=3
S2, S3 = 0, 1
H3, H4, H5, H6, H7, HK, HA = 14, 15, 16, 17, 18, 24, 25
HQ = 23
C9 = 46


def started():
    """Seat 0 bids 2S and deals; the draw ends; it buries eight clubs."""
    t = T.Table(tablerules.TableRules(decks=2), decks=2)
    t.tap(0, c(S2), 0)
    t.button(0, E.BTN_OK, 0)
    t.button(1, E.BTN_OK, 0)
    for f in range(39, 47):  # 2C .. 9C (copy 0): 5 points
        t.tap(0, c(f), 0)
    t.take_events()
    return t


def test_bids_and_kitty_with_the_engine():
    t = T.Table(tablerules.TableRules(decks=2), decks=2)
    t.take_events()
    t.tap(1, c(13), 0)  # 2H single
    t.button(1, E.BTN_OK, 0)
    t.tap(2, c(26), 0)  # 2D single: not stronger
    t.button(2, E.BTN_OK, 0)
    t.tap(3, c(39), 0)
    t.tap(3, c(39, 1), 0)  # 2C pair: stronger
    t.button(3, E.BTN_OK, 0)
    t.button(0, E.BTN_OK, 0)
    evs = [e[2] for e in t.take_events()]
    assert evs[0] == [E.BID, 1, 1, E.OK, 13]
    assert evs[1] == [E.BID, 2, 0, E.BID_WEAK, 26]
    assert evs[2] == [E.BID, 3, 1, E.OK, 39, 93]
    # first hand: the first bidder deals (first_dealer = "first"); clubs are trump
    assert evs[3] == [E.TRUMP, 3, 3, 1]
    for f in range(40, 48):
        t.tap(1, c(f), 0)
    ev = t.take_events()[0][2]
    assert ev[:3] == [E.KITTY, 1, 5 + 10]


def test_single_joker_is_not_a_bid_a_pair_is():
    # docs/rules.md, "Declaring trump": jokers declare NT only as a pair; one
    # joker is no bid at all ("not a bid"), not a bid too weak to stand
    t = T.Table(tablerules.TableRules(decks=2), decks=2)
    t.take_events()
    t.tap(1, c(52), 0)  # one small joker
    t.button(1, E.BTN_OK, 0)
    t.tap(2, c(53), 0)  # one big joker
    t.button(2, E.BTN_OK, 0)
    t.tap(3, c(52), 0)
    t.tap(3, c(52, 1), 0)  # a pair of small jokers: NT
    t.button(3, E.BTN_OK, 0)
    evs = [e[2] for e in t.take_events()]
    assert evs[0] == [E.BID, 1, 0, E.BID_CARDS, 52]
    assert evs[1] == [E.BID, 2, 0, E.BID_CARDS, 53]
    assert evs[2] == [E.BID, 3, 1, E.OK, 52, 106]
    assert t.message == "S3 bids"


def test_trick_winner_trump_pair_kills():
    t = started()
    t.tap(0, c(H5), 0)
    t.tap(0, c(H5, 1), 0)
    t.button(0, E.BTN_OK, 0)
    t.tap(1, c(S3), 0)  # void in hearts: a pair of trump 3S kills
    t.tap(1, c(S3, 1), 0)
    t.tap(2, c(H3), 0)
    t.tap(3, c(H6), 0)
    t.tap(3, c(H7), 0)
    t.tap(2, c(H4), 0)  # seat 2's second card (seat 3 tapped out of turn)
    evs = [e[2] for e in t.take_events()]
    assert [E.REJECT, 0, 3, E.OUT_OF_TURN, H6] in evs
    t.tap(3, c(H6), 0)
    t.tap(3, c(H7), 0)
    tr = [e[2] for e in t.take_events() if e[2][0] == E.TRICK]
    # seat 1, an attacker (the dealer is seat 0), takes the two fives
    assert tr == [[E.TRICK, 0, 1, 10, 10]]


def test_challenge_fails_a_throw_and_a_weaker_one_does_not():
    t = started()
    t.tap(0, c(HA), 0)
    t.tap(0, c(HK), 0)
    t.button(0, E.BTN_OK, 0)  # a throw: single A, single K
    assert t.throw_open
    t.button(2, E.BTN_CHALLENGE, 0)
    t.tap(2, c(HQ), 0)  # a queen beats neither
    t.button(2, E.BTN_OK, 0)
    evs = [e[2] for e in t.take_events()]
    assert evs == [[E.PLAY, 0, 0, 25, 24], [E.CHALLENGE, 0, 2, 0, 23]]
    assert t.throw_open and t.lead == [25, 24]
    t.button(3, E.BTN_CHALLENGE, 0)
    t.tap(3, c(HA, 1), 0)  # the other ace beats the king
    t.button(3, E.BTN_OK, 0)
    evs = [e[2] for e in t.take_events()]
    assert evs[0] == [E.CHALLENGE, 0, 3, 1, 79]
    # the weakest unit of the beaten category stands as the lead: the king
    assert evs[1] == [E.FORCED, 0, 0, 0, 24]
    assert t.lead == [24] and t.seen[25] == 0 and t.turn == 1


def test_revoke_is_proven_with_the_engines_reason():
    t = started()
    t.tap(0, c(HA), 0)
    t.button(0, E.BTN_OK, 0)
    t.tap(1, c(C9, 1), 0)  # seat 1 discards a club on a heart lead ...
    t.tap(2, c(H6), 0)
    t.tap(3, c(H7), 0)
    assert [e[2] for e in t.take_events()][-1][:3] == [E.TRICK, 0, 0]
    # trick 2: seat 0 won; it leads a club, seat 1 then plays a heart
    t.tap(0, c(47), 0)  # TC
    t.button(0, E.BTN_OK, 0)
    t.tap(1, c(H3), 0)  # ... so it held a heart at trick 1
    evs = [e[2] for e in t.take_events()]
    assert [E.REVOKE, 1, 1, 0, D.R_FOLLOW_SUIT] in evs


def test_mixed_lead_is_refused():
    t = started()
    t.tap(0, c(HA), 0)
    t.tap(0, c(S3), 0)  # a trump with a heart
    t.button(0, E.BTN_OK, 0)
    evs = [e[2] for e in t.take_events()]
    assert evs == [[E.REJECT, 0, 0, E.MIXED_LEAD, 25, 1]]
    t.tap(0, c(S2, 1), 0)  # a level card of the trump suit and a trump 3S: one suit
    t.tap(0, c(S3), 0)
    t.button(0, E.BTN_OK, 0)
    evs = [e[2] for e in t.take_events()]
    assert evs == [[E.PLAY, 0, 0, 54, 1]]


def test_settlement_passes_the_kitty_won_by_a_jack():
    import drules_hand as DH

    r = tablerules.TableRules(decks=2, level_table=DH.LT_TOURNAMENT, level_ladder=DH.LL_TOURNAMENT)
    JS, TS = 9, 8
    # the dealer's side at J keeps the deal with 50 points: it goes up to Q ...
    assert r.settle(50, 0, [9, 3], None) == (2, [10, 3], -1)
    assert r.settle(50, 0, [9, 3], [c(TS)]) == (2, [10, 3], -1)
    # ... but back to 2 when the attackers won the kitty with a J (tournament)
    assert r.settle(50, 0, [9, 3], [c(JS, 1)]) == (2, [0, 3], -1)
    # the classic table has no such rule
    assert tablerules.TableRules(decks=2).settle(50, 0, [9, 3], [c(JS)]) == (2, [10, 3], -1)


def test_a_forfeit_settles_as_the_full_engines_forced_result():
    import drules_hand as DH
    import tableforfeit

    t = tablerules.TableRules(
        decks=2, level_table=DH.LT_TOURNAMENT, level_ladder=DH.LL_TOURNAMENT, must_play=1
    )
    lv = tableforfeit.levels
    # dealer 0 (side 0 defends at 5): the defenders' seat 2 revoked: the
    # attackers take the deal over, +0
    assert lv(t, 0, [3, 0], 2) == (1, [3, 0], -1)
    # the attackers' seat 3 revoked: the defenders go up one (tournament ladder 5 -> T)
    assert lv(t, 0, [3, 0], 3) == (2, [8, 0], -1)
    # at A they win the match; at J with the kitty won by a J they go back to 2
    assert lv(t, 1, [0, 12], 0) == (3, [0, 12], 1)
    assert lv(t, 0, [9, 0], 1, True) == (2, [0, 0], -1)
    assert lv(t, 0, [9, 0], 1, False) == (2, [10, 0], -1)
    # the full ladder: 2 -> 3; a must_play stop holds a side at 5 ...
    assert lv(tablerules.TableRules(decks=2), 2, [0, 0], 1) == (0, [1, 0], -1)
    stop = tablerules.TableRules(decks=2, must_play=1 << 3)
    assert lv(stop, 0, [2, 0], 1) == (2, [3, 0], -1)


def test_no_bid_kitty_trump_with_the_engine():
    import drules_hand as DH

    r = tablerules.TableRules(decks=2, no_bid=DH.NB_KITTY)
    t = T.Table(r, decks=2)
    t.first_hand = False
    t.dealer = 2
    t.levels = [3, 0]  # side 0 deals at 5
    t.button(0, E.BTN_OK, 0)
    assert t.phase == T.REVEAL
    up = [c(16), c(3), c(52), c(53), c(40), c(41), c(42), c(43)]  # 5H (a level card) first
    for x in up:
        t.tap(2, x, 0)
    evs = [e[2] for e in t.take_events()]
    assert evs[-2:] == [[E.KITTY_UP, 2] + up, [E.TRUMP, 4, -1, 2]]  # NT
    # the engine's rule directly: a suit card names its suit, a joker NT
    assert r.declare(False, 2, 3, [], [c(46, 1), c(52)])[1:] == (3, -1, 2)
    assert r.declare(False, 2, 3, [], [c(52), c(46)])[1:] == (4, -1, 2)
    assert r.declare(True, -1, 0, [], [c(46)])[1] == -1  # the first hand redeals


# --- rules made exact (docs/rules.md), at the table with the device engine ---


def _turned_up(first, **opts):
    """A later hand at level 5, nobody bids: dealer 2 turns the kitty up, `first` first."""
    import drules_hand as DH

    t = T.Table(tablerules.TableRules(decks=2, no_bid=DH.NB_KITTY, **opts), decks=2)
    t.first_hand = False
    t.dealer = 2
    t.levels = [3, 0]
    t.button(0, E.BTN_OK, 0)
    assert t.phase == T.REVEAL
    up = [first, c(44), c(45), c(46), c(40), c(41), c(42), c(43)]  # then clubs
    for x in up:
        t.tap(2, x, 0)
    return [e[2] for e in t.take_events()][-1]


def test_a_two_turned_up_first_with_permanent_twos_is_no_trump_at_the_table():
    assert _turned_up(c(26), permanent_twos=True) == [E.TRUMP, 4, -1, 2]  # 2D: NT
    assert _turned_up(c(26)) == [E.TRUMP, 2, -1, 2]  # without the option: diamonds
    assert _turned_up(c(33), permanent_twos=True) == [E.TRUMP, 2, -1, 2]  # 9D: diamonds


def _bids(allow, bids):
    t = T.Table(tablerules.TableRules(decks=2, allow_self_override=allow), decks=2)
    t.take_events()
    for seat, cards in bids:
        for x in cards:
            t.tap(seat, x, 0)
        t.button(seat, E.BTN_OK, 0)
    return [e[2] for e in t.take_events()]


def test_self_override_at_the_table():
    SJ, SJ2 = 52, 52 + 54
    H2, H2B = 13, 13 + 54
    for second in ([H2, H2B], [SJ, SJ2]):  # another suit; NT by jokers
        evs = _bids(True, [(1, [c(0)]), (1, second)])
        assert evs[1] == [E.BID, 1, 1, E.OK] + second
        evs = _bids(False, [(1, [c(0)]), (1, second), (3, second)])
        assert evs[1] == [E.BID, 1, 0, E.BID_SELF] + second  # refused, and why ...
        assert evs[2] == [E.BID, 3, 1, E.OK] + second  # ... but not to another seat
    # reinforcing stays allowed
    evs = _bids(False, [(1, [c(0)]), (1, [c(0, 1)])])
    assert evs[1] == [E.BID, 1, 1, E.OK, c(0, 1)]
    # a bid no stronger than the standing one keeps its own reason
    evs = _bids(False, [(1, [c(0), c(0, 1)]), (3, [c(13)]), (1, [c(13, 1)])])
    assert evs[1][:4] == [E.BID, 3, 0, E.BID_WEAK] and evs[2][:4] == [E.BID, 1, 0, E.BID_SELF]
    t = T.Table(tablerules.TableRules(decks=2, allow_self_override=False), decks=2)
    t.tap(1, c(0), 0)
    t.button(1, E.BTN_OK, 0)
    t.tap(1, c(52), 0)
    t.tap(1, c(52, 1), 0)
    t.button(1, E.BTN_OK, 0)
    assert t.message == "S1 no self-raise" and t.bids == [[1, [c(0)]]]


def test_must_play_climbs_at_the_table():
    import drules_hand as DH

    free = tablerules.TableRules(decks=2)
    stop = tablerules.TableRules(decks=2, must_play=1 << 3)  # 5
    # defenders +3 from 3: 6 freely, held at 5; from 5 on as usual
    assert free.settle(0, 0, [1, 0]) == (2, [4, 0], -1)
    assert stop.settle(0, 0, [1, 0]) == (2, [3, 0], -1)
    assert stop.settle(0, 0, [3, 0]) == (2, [6, 0], -1)
    # attackers take over +2 from 4
    assert free.settle(160, 0, [0, 2]) == (1, [0, 4], -1)
    assert stop.settle(160, 0, [0, 2]) == (1, [0, 3], -1)
    # A: a stop, and the match is won there
    assert stop.settle(0, 1, [0, 11]) == (3, [0, 12], -1)
    assert stop.settle(0, 1, [0, 12]) == (3, [0, 12], 1)
    # the tournament ladder: 2 -> 5 -> T (held) instead of J
    t = tablerules.TableRules(decks=2, level_table=DH.LT_TOURNAMENT, level_ladder=DH.LL_TOURNAMENT)
    tm = tablerules.TableRules(
        decks=2, level_table=DH.LT_TOURNAMENT, level_ladder=DH.LL_TOURNAMENT, must_play=1 << 8
    )
    assert t.settle(0, 0, [0, 0]) == (2, [9, 0], -1)
    assert tm.settle(0, 0, [0, 0]) == (2, [8, 0], -1)


def test_table_cfg_refuses_a_must_play_level_off_the_ladder():
    import drules_hand as DH
    import tableconfig as C

    o = C.Options({"level_ladder": "tournament", "must_play": "2,7,A"})
    assert o.problems == ["must_play: 7 is not on the tournament ladder (2 5 T J Q K A)"]
    assert o.rules["must_play"] == 1 | (1 << 12)  # played without it
    o = C.Options({"level_ladder": "full", "must_play": "2,7,A"})
    assert o.problems == [] and o.rules["must_play"] == 1 | (1 << 5) | (1 << 12)
    assert o.rules["level_ladder"] == DH.LL_FULL


def test_kitty_requires_trump_keeps_the_multiplier_at_the_table():
    lead = [c(49), c(49, 1), c(48), c(48, 1)]  # QC QC JC JC: a tractor, x8
    offsuit = [c(51), c(51, 1), c(50), c(50, 1)]  # AC AC KC KC
    trump = [c(1), c(1, 1), c(2), c(2, 1)]  # 3S 3S 4S 4S
    kitty = [c(37), c(42)]  # KD 5C: 15 points
    r = tablerules.TableRules(decks=2, kitty_requires_trump=True)
    r.begin_hand(0, 0)  # level 2, spades trump
    assert r.kitty(lead, offsuit, kitty) == (8, 0)
    assert r.kitty(lead, trump, kitty) == (8, 120)
    plain = tablerules.TableRules(decks=2)
    plain.begin_hand(0, 0)
    assert plain.kitty(lead, offsuit, kitty) == (8, 120)


def test_the_snapshot_carries_the_rules_digest_and_refuses_another():
    # tableconfig.Options.digest, set on the rules by main.configured_app: the
    # snapshot's last field [3, digest]; a table of other rules refuses it whole
    classic = "2.0.0.0.0.0.0.0.0.1.0.0.0.0.0"
    r = tablerules.TableRules(decks=2)
    r.digest = classic
    t = T.Table(r, decks=2)
    t.take_events()
    snap = t.snapshot()
    assert snap[-1] == [3, classic]
    # the same rules: taken, and its own snapshot is the same again
    same = tablerules.TableRules(decks=2)
    same.digest = classic
    u = T.Table(same, decks=2)
    u.restore(snap)
    assert u.snapshot() == snap
    # other rules: refused with both digests, the state unchanged
    other = tablerules.TableRules(decks=2, throw_penalty=10)
    other.digest = "2.0.0.10.0.0.0.0.0.1.0.0.0.0.0"
    w = T.Table(other, decks=2)
    before = w.snapshot()
    try:
        w.restore(snap)
    except T.TableError as exc:
        assert str(exc) == ("snapshot: saved under other rules (" + classic + "), this table plays "
                            "2.0.0.10.0.0.0.0.0.1.0.0.0.0.0")
    else:
        raise AssertionError("restored a snapshot of other rules")
    assert w.snapshot() == before
    # a table that does not know its digest, and a snapshot without one, are taken as before
    plain = T.Table(tablerules.TableRules(decks=2), decks=2)
    plain.restore(snap)
    assert plain.snapshot() == snap[:-1]
    u.restore(snap[:-1])
    assert u.snapshot() == snap


def test_the_adapters_defaults_are_drules_hands_constants():
    # the adapter's set-up is rulesinit.table_init's (loaded for it, then
    # dropped): its options' defaults are drules_hand's own constants
    import drules_hand as DH
    import tablerules as TR

    r = TR.TableRules()
    assert (r.decks, r.level_table, r.level_ladder, r.no_bid, r.first_dealer) == (
        2, DH.LT_CLASSIC, DH.LL_FULL, DH.NB_NT, DH.FD_FIRST)
    assert (r.revoke, r.partners, r.engine, r.refused_self) == (0, 0, None, False)
    r = TR.TableRules(3, level_table=DH.LT_LIANZHONG, no_bid=DH.NB_KITTY, partners=1)
    assert (r.decks, r.level_table, r.no_bid, r.partners, r._opts[0]) == (3, DH.LT_LIANZHONG, DH.NB_KITTY, 1, 3)
