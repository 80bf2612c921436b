"""The full engine (``shengji``) as the verifier's replayer.

The table's game events (``firmware/events.py``) are turned into ``shengji``
hand events and judged by the full engine, without the deal (the table never
knows the hands: the engine works with what it sees, as the table does). For
each event the engine's own version is built; the verifier compares it with
the table's field by field. What is judged, per kind:

| kind | fields the engine decides |
|---|---|
| HAND_START | dealer, decks, levels, first hand |
| BID | accepted (the reason too when both refuse: copied) |
| TRUMP / REDEAL | trump, declarer, dealer; or that the hand is redealt |
| KITTY | dealer, the kitty's points |
| PLAY | that the play is legal (else the engine's event is a REJECT with its reason) |
| REJECT (of a play) | that the play is illegal, and why (when the reason is one the engine has) |
| CHALLENGE | accepted |
| TRICK | winner, points, the attackers' running score |
| HAND_END | score, kitty points, multiplier, bonus, next dealer, levels, match winner |

FORCED, AUDIT and REVOKE, refusals for reader faults, unknown tags and the
like are not judged (``replay`` returns None). After an event the engine cannot
follow (it refuses what the table accepted), it stops judging until the next
HAND_START, where it takes the match's position (levels, dealer) from the
table: that is recorded as a disagreement first, never hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shengji import Rules
from shengji.hand import (
    Bid,
    Bury,
    Challenge,
    EndDraw,
    Hand,
    HandError,
    IllegalEvent,
    Phase,
    Play,
    Rule,
)
from shengji.kitty import kitty_points
from shengji.match import Match

Event = list[Any]

# firmware/events.py kinds and reasons (kept in step by tests/link/test_engine_replayer.py)
HAND_START, BID, TRUMP, REDEAL, KITTY, PLAY, REJECT, CHALLENGE = 1, 2, 3, 4, 5, 6, 7, 8
TRICK, HAND_END = 10, 12
NT = 4
#: shengji refusal rules -> the table's reason codes
REASON_OF_RULE = {
    Rule.OUT_OF_TURN: 1,
    Rule.SEEN_TWICE: 2,
    Rule.WRONG_COUNT: 3,
    Rule.MIXED_LEAD: 4,
    Rule.PHASE: 6,
}
#: the table's refusals the engine has an opinion on (plays)
JUDGED_REASONS = frozenset(REASON_OF_RULE.values())


class EngineReplayer:
    """Replays the table's events through ``shengji`` (see the module docs)."""

    name = "full engine"

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.match = Match(rules)
        self.hand: Hand | None = None
        self.lost = ""  # why the engine cannot judge until the next HAND_START
        self.unfollowed = 0

    # --- Replayer protocol

    def reset(self, snapshot: bytes | None) -> None:
        self.match = Match(self.rules)
        self.hand = None
        # a table snapshot is in the table's own format: judge again from the
        # next hand, whose HAND_START carries the match's position
        self.lost = "" if snapshot is None else "started from a table snapshot"

    def host_state(self) -> bytes | None:
        return None  # the table's snapshot format is the table core's, not the engine's

    def replay(self, index: int, event: Event) -> Event | None:
        kind = event[0]
        if kind == HAND_START:
            return self._hand_start(event)
        hand = self.hand
        if self.lost or hand is None:
            return None
        try:
            return self._judge(hand, kind, event)
        except (HandError, AssertionError, IndexError, ValueError) as exc:
            self._lose(f"event {index}: {exc}")
            return None

    # --- kinds

    def _hand_start(self, ev: Event) -> Event:
        m = self.match
        mine = [
            HAND_START,
            ev[1],
            -1 if m.dealer is None else m.dealer,
            self.rules.decks,
            *m.levels[:2],
            1 if m.first_hand else 0,
        ]
        # follow the table: its position of the match is what is played
        _, _, dealer, _, l0, l1, first = ev
        m.dealer = None if dealer < 0 else dealer
        m.levels = [l0, l1]
        m.first_hand = bool(first)
        self.hand = m.new_hand(strict=False)
        self.lost = ""
        return mine

    def _lose(self, why: str) -> None:
        self.lost = why
        self.unfollowed += 1

    def _judge(self, hand: Hand, kind: int, ev: Event) -> Event | None:
        if kind == BID:
            seat, accepted, reason, cards = ev[1], ev[2], ev[3], tuple(ev[4:])
            ok = hand.would_accept_bid(seat, cards)
            if accepted:
                self._follow(hand, Bid(seat, cards))
            return [BID, seat, int(ok), 0 if ok else (reason if not accepted else -1), *cards]
        if kind == TRUMP or kind == REDEAL:
            hand.apply(EndDraw())
            if hand.redeal:
                mine: Event = [REDEAL, ev[1] if kind == REDEAL else -1]
                self.match.finish(hand)
                self.hand = None
            else:
                mine = [
                    TRUMP,
                    NT if hand.trump is None else int(hand.trump),
                    -1 if hand.declarer is None else hand.declarer,
                    hand.dealer,
                ]
            if kind == REDEAL and mine[0] == REDEAL:
                mine[1] = ev[1]
            if (mine[0] == REDEAL) != (kind == REDEAL):
                self._lose("the engine and the table end the draw differently")
            return mine
        if kind == KITTY:
            cards = tuple(ev[3:])
            self._follow(hand, Bury(cards))
            return [KITTY, hand.dealer, kitty_points(c % 54 for c in cards), *cards]
        if kind == PLAY:
            trick_no, seat, cards = ev[1], ev[2], tuple(ev[3:])
            try:
                hand.apply(Play(seat, cards))
            except IllegalEvent as exc:
                self._lose(f"the engine refuses a play the table accepted: {exc}")
                return [REJECT, trick_no, seat, self._reason(exc), *cards]
            return [PLAY, len(hand.tricks) - 1, seat, *cards]
        if kind == REJECT:
            return self._reject(hand, ev)
        if kind == CHALLENGE:
            trick_no, seat, accepted, cards = ev[1], ev[2], ev[3], tuple(ev[4:])
            try:
                hand.apply(Challenge(seat, cards))
                ok = True
                if not accepted:
                    hand.undo()
            except IllegalEvent:
                ok = False
            if accepted and not ok:
                self._lose("the engine refuses a challenge the table accepted")
            return [CHALLENGE, trick_no, seat, int(ok), *cards]
        if kind == TRICK:
            last = hand.tricks[-1]
            if not last.complete:
                raise ValueError("a TRICK event before the trick is complete")
            by_seat = hand.trick_points_by_seat()
            dealer = hand.dealer if hand.dealer is not None else 0
            attackers = hand.attackers() or ((dealer + 1) % 4, (dealer + 3) % 4)
            return [TRICK, len(hand.tricks) - 1, last.winner, last.points,
                    sum(by_seat[s] for s in attackers)]
        if kind == HAND_END:
            return self._hand_end(hand)
        return None

    def _follow(self, hand: Hand, event: Any) -> None:
        try:
            hand.apply(event)
        except IllegalEvent as exc:
            self._lose(f"the engine refuses what the table did: {exc}")

    @staticmethod
    def _reason(exc: IllegalEvent) -> int:
        for f in exc.findings:
            if f.rule in REASON_OF_RULE:
                return REASON_OF_RULE[f.rule]
        return -1

    def _reject(self, hand: Hand, ev: Event) -> Event | None:
        trick_no, seat, reason, cards = ev[1], ev[2], ev[3], tuple(ev[4:])
        if hand.phase != Phase.PLAY or reason not in JUDGED_REASONS:
            return None
        try:
            hand.apply(Play(seat, cards))
        except IllegalEvent as exc:
            why = self._reason(exc)
            return [REJECT, trick_no, seat, why if why >= 0 else reason, *cards]
        hand.undo()  # the engine would accept it; the table did not: follow the table
        return [PLAY, trick_no, seat, *cards]

    def _hand_end(self, hand: Hand) -> Event:
        if hand.phase == Phase.REVEAL and hand.buried is not None:
            from shengji.hand import Reveal

            hand.apply(Reveal(tuple(hand.buried)))
        res = hand.result()
        summary = self.match.finish(hand)
        st = summary.settlement
        assert st is not None
        winner = st.winner if isinstance(st.winner, int) else -1
        self.hand = None
        return [
            HAND_END,
            res.score,
            res.kitty_points,
            res.multiplier,
            res.kitty_bonus,
            st.next_dealer,
            *st.levels,
            winner,
        ]


def judged_kinds() -> Sequence[int]:
    return (HAND_START, BID, TRUMP, REDEAL, KITTY, PLAY, REJECT, CHALLENGE, TRICK, HAND_END)
