"""The hand state machine with the hands known (a deal, or hand_scan)."""

from __future__ import annotations

import pytest
from match_scenario import KITTY, c, deal, new_hand, play_events, rules, tricks
from shengji.hand import (
    Bid,
    Bury,
    Call,
    Deal,
    EndDraw,
    Hand,
    HandError,
    IllegalEvent,
    Phase,
    Play,
)
from shengji.play import Reason


def test_the_scripted_hand_plays_out() -> None:
    h = new_hand(known=True)
    for e in play_events(tricks()):
        h.apply(e)
    assert h.phase == Phase.DONE and len(h.tricks) == 12
    assert all(t.winner == 0 for t in h.tricks)
    r = h.result()
    assert (r.trick_points, r.kitty_bonus, r.score, r.defenders) == (0, 0, 0, (0, 2))
    assert h.findings == ()


def test_undo_restores_every_state() -> None:
    h = new_hand(known=True)
    hashes = [h.state_hash()]
    for e in play_events(tricks()[:4]):
        h.apply(e)
        hashes.append(h.state_hash())
    while len(hashes) > 1:
        hashes.pop()
        h.undo()
        assert h.state_hash() == hashes[-1]
    with pytest.raises(HandError):
        Hand(rules()).undo()


def test_refused_events_change_nothing() -> None:
    h = new_hand(known=True)
    before = h.state_hash()
    cases = [
        (Play(1, (c("KS"),)), Reason.OUT_OF_TURN),
        (Play(0, (c("KS"),)), Reason.NOT_IN_HAND),
        (Play(0, (c("AS"), c("AH"))), Reason.MIXED_SUITS),
        (Play(0, ()), Reason.WRONG_COUNT),
        (Play(0, (999,)), Reason.BAD_EVENT),
        (Bury(()), Reason.PHASE),
    ]
    for event, rule in cases:
        with pytest.raises(IllegalEvent) as exc:
            h.apply(event)
        assert exc.value.findings[0].rule == rule, event
        assert h.state_hash() == before
    h.apply(Play(0, (c("AS"),)))
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Play(1, (c("KS"), c("9S"))))
    assert exc.value.findings[0].rule == Reason.WRONG_COUNT
    h.apply(Play(1, (c("KS"),)))
    h.apply(Play(2, (c("QS"),)))
    h.apply(Play(3, (c("JS"),)))
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Play(0, (c("AS"),)))
    assert exc.value.findings[0].rule in (Reason.SEEN_TWICE,)


def test_revoke_found_at_the_play_flag_forfeit_strict() -> None:
    # seat 1 holds spades but plays a heart on the spade lead
    h = new_hand(known=True)
    h.apply(Play(0, (c("AS"),)))
    h.apply(Play(1, (c("5H"),)))
    assert [f.rule for f in h.findings] == [Reason.REVOKE] and h.findings[0].trick == 0
    assert h.phase == Phase.PLAY
    f = new_hand(known=True, revoke="forfeit")
    f.apply(Play(0, (c("AS"),)))
    f.apply(Play(1, (c("5H"),)))
    assert f.phase == Phase.DONE and f.forfeit == 1
    res = f.result()
    assert res.forced_result is not None and res.forced_result.attackers_win is False
    s = new_hand(known=True)
    s.strict = True
    s.apply(Play(0, (c("AS"),)))
    with pytest.raises(IllegalEvent):
        s.apply(Play(1, (c("5H"),)))
    s.apply(Play(1, (c("KS"),)))  # the legal follow is fine


def test_failed_throw_is_forced_and_penalised() -> None:
    h = new_hand(known=True, throw_penalty=10)
    h.apply(Play(0, (c("AS"), c("TS"))))  # seat 1's KS beats TS
    t = h.tricks[0]
    assert t.lead == (c("TS"),) and set(t.attempt) == {c("AS"), c("TS")}
    assert t.forced_by == (1,)
    assert c("AS") in h.held(0) and h.penalties == ((0, 0, 10),)


def test_penalty_goes_to_the_other_side() -> None:
    h = new_hand(known=True, throw_penalty=10)
    h.apply(Play(0, (c("AS"), c("TS"))))  # forced: TS alone
    script = [["TS", "9S", "8S", "7S"], ["AS", "KS", "QS", "JS"], ["6S", "5S", "4S", "3S"]]
    for e in play_events([[c(x) for x in t] for t in script])[1:]:
        h.apply(e)
    for e in play_events(tricks()[3:]):
        h.apply(e)
    r = h.result()
    assert h.phase == Phase.DONE
    # seat 0, a defender, failed: +10 for the attackers, who took no points
    assert (r.trick_points, r.penalty, r.score) == (0, 10, 10)


def test_deal_validation() -> None:
    good = deal()
    h = Hand(rules(), level=0, dealer=0, first_hand=False)
    bad_hands = [list(x) for x in good.hands]
    bad_hands[0][0] = bad_hands[1][0]
    for bad in (
        Deal.of(good.hands[:3], good.kitty),
        Deal.of(bad_hands, good.kitty),
        Deal.of(good.hands, good.kitty[:5]),
    ):
        with pytest.raises(IllegalEvent):
            h.apply(bad)
    h.apply(good)
    with pytest.raises(IllegalEvent):
        h.apply(good)  # dealt already


def test_bids_during_the_draw_pick_trump_and_dealer() -> None:
    h = Hand(rules(), level=0)  # the match's first hand: no dealer yet
    h.apply(deal())
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Bid(1, (c("2S"),)))  # 2S is in the kitty, not seat 1's
    assert exc.value.findings[0].rule == Reason.NOT_IN_HAND
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Bid(1, (c("KS"),)))
    assert exc.value.findings[0].rule == Reason.BAD_BID
    h2 = Hand(rules(), level=11)  # level K: seat 1 holds KS KH KD KC
    h2.apply(deal())
    h2.apply(Bid(1, (c("KH"),)))
    with pytest.raises(IllegalEvent):
        h2.apply(Bid(3, (c("JS"),)))
    h2.apply(EndDraw())
    assert (h2.dealer, h2.declarer, h2.trump, h2.phase) == (1, 1, 1, Phase.BURY)
    assert len(h2.held(1)) == 12 + 6  # the dealer took the kitty


def test_no_bid_first_hand_redeals() -> None:
    h = Hand(rules(), level=0)
    h.apply(deal())
    h.apply(EndDraw())
    assert h.redeal and h.phase == Phase.DONE
    with pytest.raises(HandError):
        h.result()


def test_no_bid_kitty_flip() -> None:
    h = Hand(rules(no_bid="kitty"), level=5, dealer=2, first_hand=False)
    kitty = [c("9D"), *KITTY[1:]]
    hands = [list(x) for x in deal().hands]
    # swap 9D (seat 1's) with 2S (the kitty's)
    hands[1][hands[1].index(c("9D"))] = c("2S")
    h.apply(Deal.of(hands, kitty))
    h.apply(EndDraw())
    assert h.trump == 2 and h.flipped == c("9D")


def test_bury_rules() -> None:
    h = Hand(rules(), level=0, dealer=0, first_hand=False)
    h.apply(deal())
    h.apply(EndDraw())
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Bury(tuple(KITTY[:5])))
    assert exc.value.findings[0].rule == Reason.WRONG_COUNT
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Bury((c("KS"), *KITTY[:5])))
    assert exc.value.findings[0].rule == Reason.NOT_IN_HAND
    h.apply(Bury((c("AS"), *KITTY[:5])))  # points and aces may be buried
    assert c("BJ") in h.held(0)


@pytest.mark.parametrize(
    ("face", "friend"),
    [("KH", 1), ("AH", None), ("QD", 2), ("SJ", None)],
)
def test_find_a_friend(face: str, friend: int | None) -> None:
    h = Hand(rules(partners="called"), level=0, dealer=0, first_hand=False)
    h.apply(deal())
    h.apply(EndDraw())
    h.apply(Bury(tuple(KITTY)))
    assert h.phase == Phase.CALL
    h.apply(Call(c(face)))
    # the dealer holds AH itself (alone); SJ is buried (alone); KH: seat 1; QD: seat 2
    assert h.defenders == ((0,) if friend is None else (0, friend))


def test_find_a_friend_two_decks_nearest_holder() -> None:
    from shengji.cards import parse_face
    from shengji.rules import Rules

    r = Rules().replace(partners="called")
    ids = list(range(108))
    # seats get 25 cards each in id order; swap so that AS copies sit with seats 3 and 2
    hands = [ids[i * 25 : (i + 1) * 25] for i in range(4)]
    kitty = ids[100:]
    a0, a1 = parse_face("AS"), 54 + parse_face("AS")
    assert a0 in hands[0] and a1 in hands[2]
    hands[0][hands[0].index(a0)] = hands[3][0]
    hands[3][0] = a0
    h = Hand(r, level=0, dealer=1, first_hand=False)
    h.apply(Deal.of(hands, kitty))
    h.apply(EndDraw())
    h.apply(Bury(tuple(h.held(1)[:8])))
    h.apply(Call(parse_face("AS")))
    assert h.defenders == (1, 2)  # seat 2 comes before seat 3 after the dealer
