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
like are not judged (``replay`` returns None).

The host's state, for the operator to push (:meth:`EngineReplayer.host_state`),
is the table's snapshot (layout of ``firmware/tablesnap.py``) built from what
was physically played (bids, trump, kitty, every card) with the engine's
verdicts where the two differ: each trick's winner and points, the attackers'
score, the kitty's points. It exists at trick boundaries of the play phase,
where the table itself saves its state. After an event the engine cannot
follow (it refuses what the table accepted), it stops judging until the next
HAND_START, where it takes the match's position (levels, dealer) from the
table: that is recorded as a disagreement first, never hidden. After the
link resynced from a table snapshot, the hand is rebuilt in the engine from
the snapshot (bids, kitty, tricks, the trick in progress) and judging goes on
from there.
"""

from __future__ import annotations

import json
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
FORCED, TRICK, HAND_END = 9, 10, 12
NT = 4
#: firmware/table.py: snapshot layout version and the play phase
SNAPSHOT_VERSION = 1
PHASE_PLAY = 2
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
        self.shadow: _Shadow | None = None  # the table's state with the engine's verdicts

    # --- Replayer protocol

    def reset(self, snapshot: bytes | None) -> None:
        """Start from the match's beginning, or from a table snapshot
        (firmware/tablesnap.py layout): the hand in it is rebuilt in the engine
        from what it records (bids, kitty, tricks, the trick in progress)."""
        self.match = Match(self.rules)
        self.hand = None
        self.shadow = None
        self.lost = ""
        if snapshot is None:
            return
        try:
            self._rebuild(json.loads(snapshot))
        except (HandError, ValueError, TypeError, IndexError, KeyError, AssertionError) as exc:
            self.hand = None
            self.shadow = None
            self.lost = f"cannot rebuild the hand from the table's snapshot ({exc})"

    def _rebuild(self, snap: list[Any]) -> None:
        (ver, decks, phase, hand_no, first, dealer, l0, l1, trump, declarer, score, kpts,
         _mw, _idx, _h, bids, kitty, tricks, _revoked, _result, cur) = snap
        if ver != SNAPSHOT_VERSION or decks != self.rules.decks:
            raise ValueError(f"snapshot version {ver}, {decks} decks")
        m = self.match
        m.levels = [l0, l1]
        m.first_hand = bool(first)
        m.dealer = None if (first and phase == 0) or dealer < 0 else dealer
        if phase > PHASE_PLAY:
            self.lost = "the table's snapshot is past the play: judging resumes at the next hand"
            return
        hand = m.new_hand(strict=False)
        sh = _Shadow([HAND_START, hand_no, dealer, decks, l0, l1, first])
        for seat, cards in bids:
            hand.apply(Bid(seat, tuple(cards)))
            sh.bids.append([seat, list(cards)])
        if phase >= 1:
            hand.apply(EndDraw())
            got = [NT if hand.trump is None else int(hand.trump),
                   -1 if hand.declarer is None else hand.declarer, hand.dealer]
            if got != [trump, declarer, dealer]:
                raise ValueError(f"the bids give {got}, the snapshot {[trump, declarer, dealer]}")
            sh.trump, sh.declarer, sh.dealer, sh.phase = trump, declarer, dealer, 1
        if phase >= PHASE_PLAY:
            hand.apply(Bury(tuple(kitty)))
            sh.kitty, sh.kitty_points, sh.phase, sh.leader = list(kitty), kpts, PHASE_PLAY, dealer
            for tr in tricks:
                leader, forced = tr[0], tr[3]
                if forced:
                    raise ValueError("a forced throw in the snapshot")
                for k in range(4):
                    seat = (leader + k) % 4
                    hand.apply(Play(seat, tuple(tr[4 + seat])))
                sh.tricks.append(list(tr))
            sh.score = score
            if tricks:
                sh.leader = tricks[-1][1]
            if cur is not None:
                leader = cur[0]
                if cur[1]:
                    raise ValueError("a forced throw in the trick in progress")
                for k in range(4):
                    seat = (leader + k) % 4
                    if cur[3 + seat] is None:
                        break
                    hand.apply(Play(seat, tuple(cur[3 + seat])))
                    sh.plays[seat] = list(cur[3 + seat])
                sh.leader = leader
        self.hand = hand
        self.shadow = sh

    def host_state(self) -> bytes | None:
        """The table snapshot with the engine's verdicts (trick boundaries of
        the play phase only; None elsewhere or after an event not followed)."""
        sh = self.shadow
        if self.lost or sh is None or not sh.at_trick_boundary():
            return None
        return json.dumps(sh.snapshot(self.rules.decks), separators=(",", ":")).encode()

    def replay(self, index: int, event: Event) -> Event | None:
        kind = event[0]
        if kind == HAND_START:
            return self._hand_start(event)
        hand = self.hand
        if self.lost or hand is None:
            return None
        try:
            mine = self._judge(hand, kind, event)
        except (HandError, AssertionError, IndexError, ValueError) as exc:
            self._lose(f"event {index}: {exc}")
            return None
        if self.shadow is not None:
            self.shadow.follow(event, mine)
        return mine

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
        self.shadow = _Shadow(ev)
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


class _Shadow:
    """The table's state as firmware/tablesnap.py lays it out, kept from the
    events (what was played) and the engine's versions (the verdicts)."""

    def __init__(self, start: Event) -> None:
        _, self.hand_no, self.dealer, _, l0, l1, first = start
        self.levels = [l0, l1]
        self.first = first
        self.trump = -1
        self.declarer = -1
        self.score = 0
        self.kitty_points = 0
        self.bids: list[list[Any]] = []
        self.kitty: list[int] = []
        self.tricks: list[list[Any]] = []
        self.plays: list[list[int] | None] = [None] * 4
        self.leader = -1
        self.forced = 0
        self.phase = 0

    def at_trick_boundary(self) -> bool:
        return self.phase == PHASE_PLAY and all(p is None for p in self.plays)

    def follow(self, ev: Event, mine: Event | None) -> None:
        kind = ev[0]
        if kind == BID and ev[2]:
            self.bids.append([ev[1], list(ev[4:])])
        elif kind == TRUMP:
            self.trump, self.declarer, self.dealer = ev[1], ev[2], ev[3]
            self.phase = 1
        elif kind == KITTY:
            self.kitty = list(ev[3:])
            self.kitty_points = mine[2] if mine is not None else ev[2]
            self.phase = PHASE_PLAY
            self.leader = self.dealer
        elif kind == PLAY:
            if all(p is None for p in self.plays):
                self.leader = ev[2]
            self.plays[ev[2]] = list(ev[3:])
        elif kind == FORCED:
            self.plays[ev[2]] = list(ev[4:])
            self.forced = 1
        elif kind == TRICK:
            winner, points, score = (mine or ev)[2:5]
            self.tricks.append([self.leader, winner, points, self.forced, *self.plays])
            self.score = score
            self.plays = [None] * 4
            self.forced = 0
            self.leader = winner
        elif kind == HAND_END:
            self.phase = 3

    def snapshot(self, decks: int) -> list[Any]:
        # fields 13 and 14 (event index, state hash) are the link's to set:
        # the table takes them from the snapshot's announcement
        return [
            SNAPSHOT_VERSION, decks, self.phase, self.hand_no, self.first, self.dealer,
            self.levels[0], self.levels[1], self.trump, self.declarer, self.score,
            self.kitty_points, -1, 0, 0, self.bids, self.kitty, self.tricks, [], None, None,
        ]


def judged_kinds() -> Sequence[int]:
    return (HAND_START, BID, TRUMP, REDEAL, KITTY, PLAY, REJECT, CHALLENGE, TRICK, HAND_END)
