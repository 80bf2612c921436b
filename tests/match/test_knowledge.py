"""What the table can know (docs/rules.md §10): a hand that sees only the cards played."""

from __future__ import annotations

import pytest
from match_scenario import KITTY, c, new_hand, play_events, tricks
from shengji.hand import Call, Challenge, Hand, IllegalEvent, Phase, Play, Reveal
from shengji.play import Reason


def play_all(h: Hand, script: list[list[int]]) -> None:
    for e in play_events(script):
        h.apply(e)


def test_a_legal_hand_seen_card_by_card_has_no_findings() -> None:
    h = new_hand(known=False)
    play_all(h, tricks())
    assert h.phase == Phase.REVEAL  # the kitty was never seen
    h.apply(Reveal(tuple(KITTY)))
    assert h.phase == Phase.DONE and h.findings == ()
    assert h.result().score == 0


def test_immediate_checks_without_hands() -> None:
    h = new_hand(known=False)
    before = h.state_hash()
    for event, rule in [
        (Play(2, (c("QS"),)), Reason.OUT_OF_TURN),
        (Play(0, (c("AS"), c("AH"))), Reason.MIXED_SUITS),
        (Play(0, tuple(range(13))), Reason.WRONG_COUNT),  # more than 12 cards
    ]:
        with pytest.raises(IllegalEvent) as exc:
            h.apply(event)
        assert exc.value.findings[0].rule == rule
        assert h.state_hash() == before
    h.apply(Play(0, (c("AS"),)))
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Play(1, (c("AS"),)))  # seen twice
    assert exc.value.findings[0].rule == Reason.SEEN_TWICE


def swapped_script() -> list[list[int]]:
    """Seat 1 plays 5H on the first (spade) trick, keeps KS, and plays KS on the
    last heart trick instead: a revoke that its next spade (9S, trick 2) proves."""
    script = tricks()
    assert script[0][1] == c("KS") and script[5][1] == c("5H")
    script[0][1], script[5][1] = c("5H"), c("KS")
    return script


def test_revoke_proven_by_a_later_card() -> None:
    h = new_hand(known=False)
    script = swapped_script()
    play_all(h, script[:1])
    assert h.findings == ()  # nothing proves it yet: seat 1 might have been void
    for e in play_events(script[1:2])[:2]:
        h.apply(e)  # seat 1 now shows 9S: it held a spade on trick 1
    assert [(f.trick, f.seat, f.rule, f.at) for f in h.findings] == [(0, 1, Reason.REVOKE, "play")]
    assert "proven" in h.findings[0].message


def test_revoke_with_hand_scan_is_found_at_once() -> None:
    h = new_hand(known=True)
    script = swapped_script()
    play_all(h, script[:1])
    assert [(f.trick, f.seat, f.rule) for f in h.findings] == [(0, 1, Reason.REVOKE)]


def test_forfeit_ends_the_hand_when_proven() -> None:
    h = new_hand(known=False, revoke="forfeit")
    script = swapped_script()
    play_all(h, script[:1])
    for e in play_events(script[1:2])[:2]:
        h.apply(e)
    assert h.phase == Phase.DONE and h.forfeit == 1
    r = h.result()
    assert r.forced_result is not None and not r.forced_result.attackers_win  # defenders +1


def test_structure_revoke_proven_later() -> None:
    # 2 decks, seen mode: seat 1 answers a pair of spades with two single spades,
    # then later plays a pair of 7S it must have held.
    from shengji.hand import Bury, EndDraw
    from shengji.rules import Rules

    h = Hand(Rules(), level=0, dealer=0, first_hand=False)
    h.apply(EndDraw())
    h.apply(Bury())
    h.apply(Play(0, (c("AS"), 54 + c("AS"))))
    h.apply(Play(1, (c("3S"), c("4S"))))
    h.apply(Play(2, (c("5S"), c("6S"))))
    h.apply(Play(3, (c("8S"), c("9S"))))
    assert h.findings == ()
    h.apply(Play(0, (c("KH"),)))
    h.apply(Play(1, (c("7S"),)))  # one 7S: still no proof of a pair
    assert h.findings == ()
    h.apply(Play(2, (c("QH"),)))
    h.apply(Play(3, (c("JH"),)))
    h.apply(Play(0, (c("KD"),)))
    h.apply(Play(1, (54 + c("7S"),)))  # the second 7S: seat 1 held the pair 7S 7S
    assert [(f.trick, f.seat, f.rule) for f in h.findings] == [(0, 1, Reason.REVOKE)]


def throw_script() -> list[list[list[int]]]:
    """Seat 0 throws AS TS on trick 1 (seat 1's KS beats TS), nobody challenges."""
    spades = [
        [[c("AS"), c("TS")], [c("KS"), c("9S")], [c("QS"), c("8S")], [c("JS"), c("7S")]],
        [[c("6S")], [c("5S")], [c("4S")], [c("3S")]],
    ]
    rest = [[[x] for x in t] for t in tricks()[3:]]
    return spades + rest


def test_unchallenged_throw_that_should_fail_is_reported_at_the_audit() -> None:
    h = new_hand(known=False)
    for trick in throw_script():
        for seat, cards in enumerate(trick):
            h.apply(Play(seat, tuple(cards)))
    found = [(f.trick, f.seat, f.rule, f.at) for f in h.findings]
    assert found == [(0, 0, Reason.THROW_SHOULD_FAIL, "audit")]
    h.apply(Reveal(tuple(KITTY)))
    assert h.result().score == 0


def test_challenge_forces_the_throw() -> None:
    h = new_hand(known=False, throw_penalty=10)
    h.apply(Play(0, (c("AS"), c("TS"))))
    before = h.state_hash()
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Challenge(1, (c("9S"),)))  # 9S beats nothing
    assert exc.value.findings[0].rule == Reason.BAD_CHALLENGE and h.state_hash() == before
    with pytest.raises(IllegalEvent):
        h.apply(Challenge(0, (c("KS"),)))  # not the leader
    h.apply(Challenge(1, (c("KS"),)))
    t = h.tricks[0]
    assert t.lead == (c("TS"),) and t.forced_by == (1,) and h.penalties == ((0, 0, 10),)
    assert c("AS") not in h.played  # back in seat 0's hand
    with pytest.raises(IllegalEvent):
        h.apply(Challenge(2, (c("QS"),)))  # forced already
    h.apply(Play(1, (c("KS"),)))
    with pytest.raises(IllegalEvent):
        h.apply(Challenge(2, (c("QS"),)))  # too late: the next play came


def test_called_friend_known_when_it_shows_the_card() -> None:
    h = new_hand(known=False, partners="called")
    h.apply(Call(c("9H")))  # seat 1 holds 9H; seat 1 is nearest after the dealer
    assert h.defenders is None
    script = tricks()
    play_all(h, script[:4])
    assert h.defenders is None
    for e in play_events(script[4:5])[:2]:
        h.apply(e)
    assert h.defenders == (0, 1)


def test_called_friend_settled_at_the_end() -> None:
    h = new_hand(known=False, partners="called")
    h.apply(Call(c("8D")))  # seat 2 holds the only copy (one deck)
    play_all(h, tricks())
    assert h.defenders == (0, 2)  # one deck: the copy is located when played
    h.apply(Reveal(tuple(KITTY)))
    assert h.result().defenders == (0, 2)


def test_hand_scan_needs_the_scan_then_checks_at_once() -> None:
    from match_scenario import deal
    from shengji.hand import Scan

    h = new_hand(known=False, hand_scan=True)
    with pytest.raises(IllegalEvent) as exc:
        h.apply(Play(0, (c("AS"),)))
    assert exc.value.findings[0].rule == Reason.PHASE
    h.apply(Scan.of(deal().hands, KITTY))
    script = swapped_script()
    play_all(h, script[:1])
    assert [(f.trick, f.seat, f.rule) for f in h.findings] == [(0, 1, Reason.REVOKE)]
    with pytest.raises(IllegalEvent):
        h.apply(Scan.of(deal().hands, KITTY))  # after the first play


def test_a_lead_proves_an_earlier_revoke_too() -> None:
    # seat 1 shows a heart on trick 1 (spades), wins nothing, but in a 2-deck
    # seen hand the proof can come from any later play of the seat, lead or follow
    from shengji.hand import Bury, EndDraw
    from shengji.rules import Rules

    h = Hand(Rules(), level=0, dealer=0, first_hand=False)
    h.apply(EndDraw())
    h.apply(Bury())
    h.apply(Play(0, (c("3S"),)))
    h.apply(Play(1, (c("4H"),)))  # claims no spade
    h.apply(Play(2, (c("4S"),)))
    h.apply(Play(3, (c("5S"),)))  # seat 3 wins with 5S... then leads
    h.apply(Play(3, (c("KD"),)))
    h.apply(Play(0, (c("3D"),)))
    h.apply(Play(1, (c("AD"),)))  # seat 1 wins the diamond trick
    h.apply(Play(2, (c("4D"),)))
    assert h.findings == ()
    h.apply(Play(1, (c("AS"),)))  # seat 1 leads a spade: it held one on trick 1
    assert [(f.trick, f.seat, f.rule) for f in h.findings] == [(0, 1, Reason.REVOKE)]


def test_audit_catches_a_challenge_with_cards_not_held() -> None:
    h = new_hand(known=False)
    h.apply(Play(0, (c("AS"), c("TS"))))
    h.apply(Challenge(2, (c("KS"),)))  # KS is seat 1's card, not seat 2's
    # the trick goes on with the forced TS; then the script, AS played later by seat 0
    for seat, card in ((1, "9S"), (2, "8S"), (3, "7S")):
        h.apply(Play(seat, (c(card),)))
    for t in (["AS", "KS", "QS", "JS"], ["6S", "5S", "4S", "3S"]):
        for seat, card in enumerate(t):
            h.apply(Play(seat, (c(card),)))
    for e in play_events(tricks()[3:]):
        h.apply(e)
    found = [(f.trick, f.seat, f.rule, f.at) for f in h.findings]
    assert found == [(0, 2, Reason.BAD_CHALLENGE, "audit")]


def test_audit_catches_a_bid_with_cards_not_held() -> None:
    from shengji.hand import Bid, Bury, EndDraw

    def hand_with_bid(seat: int, card: str) -> Hand:
        h = Hand(new_hand(known=False).rules, level=0, dealer=0, first_hand=False)
        h.apply(Bid(seat, (c(card),)))
        h.apply(EndDraw())  # trump: hearts; the script still has seat 0 win every trick
        h.apply(Bury())
        for e in play_events(tricks()):
            h.apply(e)
        return h

    h = hand_with_bid(2, "2H")  # 2H is in the kitty: seat 2 cannot have held it
    assert [(f.seat, f.rule, f.at) for f in h.findings] == [(2, Reason.BAD_BID, "audit")]
    # the dealer may bid with a card it then buries
    d = hand_with_bid(0, "2H")
    d.apply(Reveal(tuple(KITTY)))
    assert d.findings == ()


def test_legal_plays_and_is_legal() -> None:
    h = new_hand(known=True)
    leads = set(h.legal_plays())
    assert (c("AS"),) in leads and all(len(p) == 1 for p in leads)  # one deck: singles only
    assert any(len(p) == 2 for p in h.legal_plays(throws=True))
    h.apply(Play(0, (c("AS"),)))
    assert set(h.legal_plays()) == {(c("5S"),), (c("9S"),), (c("KS"),)}
    before = h.state_hash()
    assert h.is_legal(1, (c("KS"),)) == (True, "")
    ok, why = h.is_legal(1, (c("KH"),))
    assert not ok and "revoke" in why
    assert not h.is_legal(2, (c("QS"),))[0]  # out of turn
    assert h.state_hash() == before
