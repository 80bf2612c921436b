"""The full engine (``shengji``) as the verifier's replayer.

The table's game events (``firmware/events.py``) are turned into ``shengji``
hand events and judged by the full engine, without the deal (the table never
knows the hands: the engine works with what it sees, as the table does). For
each event the engine's own version is built; the verifier compares it with
the table's field by field. What is judged, per kind:

| kind | fields the engine decides |
|---|---|
| HAND_START | dealer, decks, levels (per seat with ``partners = "called"``), first hand |
| BID | accepted; when both refuse, the reason: ``BID_SELF`` for a self-override that ``allow_self_override = false`` forbids, and only for it (else the table's reason, copied) |
| KITTY_UP | ``no_bid = "kitty"``: that the kitty is turned up here (nobody bid, not the match's first hand) and by the dealer; the cards (in order) are the table's, and name trump |
| TRUMP / REDEAL | trump, declarer, dealer (with the kitty turned up: trump from its first card); or that the hand is redealt |
| KITTY | dealer, the kitty's points |
| CALL | ``partners = "called"``: that the dealer calls here (after the burial; the face is the table's: the engine takes it) |
| PARTNER | ``partners = "called"``: that the partner is known here (after the CALL in hand_scan mode, else after the play that locates it), who it is (-1: the dealer alone), the attackers' score so far; a PARTNER the engine expects and the table does not send is the disagreement on the event sent instead |
| PLAY | that the play is legal (else the engine's event is a REJECT with its reason) |
| REJECT (of a play) | that the play is illegal, and why (when the reason is one the engine has) |
| CHALLENGE | accepted |
| FORCED | the cards that stand (the engine's forced unit; which copy and the order are the table's), the penalty |
| TRICK | winner, points, the attackers' running score (failed throws' penalties included; -1 while the called partner is unknown) |
| REVOKE | after a play (a lead or a follow), the revokes it proves (docs/rules.md §10.1: each earlier follow of that seat, in a trick whose lead suit the new cards touch, illegal against what the seat played from that trick on), earliest first, with the device engine's reason code; in hand_scan mode with ``revoke = "forfeit"``, the follow just played that breaks docs/rules.md §6 (trick and earlier trick the same) |
| FORFEIT | ``revoke = "forfeit"``: the seat whose revoke lost the hand and that revoke's trick (the engine's first revoke finding); the engine ends the hand there, as the table must (HAND_END then settles by the forfeit) |
| AUDIT | after the last trick, the engine's audit (``Hand.findings``: every illegal follow, every unchallenged throw that should have failed), in trick order, the throw before the follows by seat |
| UNDO | that the seat's play taken back is the last thing played (the engine's last event, that seat's play of those cards, in a trick not yet complete): the engine takes it back too (``Hand.undo``); else the engine's version carries no cards and the engine stops judging the hand |
| HAND_END | score, kitty points, multiplier, bonus, next dealer, levels, match winner (with ``kitty_requires_trump`` and the last trick won off-suit: the table's multiplier, bonus 0); with ``partners = "called"`` the levels per seat and the winners as a bit mask of seats |

In hand_scan mode the four SCAN events (not judged themselves) give the
engine every hand after the burial: it then forces a failing throw at its
PLAY (the FORCED that follows is judged) and judges a follow refused for docs/rules.md §6
(REJECT with reason 10) or accepted against it (with ``revoke = "forfeit"``
the table must accept it: the REVOKE, FORFEIT and HAND_END that follow are
judged). A hand a revoke lost before its last trick has no AUDIT.

A REVOKE or AUDIT the engine expects and the table does not send is the
disagreement on the event the table sent in its place (that event is still
followed); one the engine does not expect is answered with reason 0 (no
finding). After a disagreement the table's version is followed (its forced
cards and penalty, the revokes it reported). Refusals for reader faults,
unknown tags, SCAN and the like are not judged (``replay`` returns None).

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
the snapshot (bids, kitty, tricks, the trick in progress; in hand_scan mode
the hands scanned so far, also during the scan and before the burial) and
judging goes on from there.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Sequence
from typing import Any

from shengji import Rules
from shengji import play as _play
from shengji.bidding import SelfOverrideError
from shengji.hand import (
    Bid,
    Bury,
    Call,
    Challenge,
    EndDraw,
    Hand,
    HandError,
    IllegalEvent,
    Phase,
    Play,
    Scan,
)
from shengji.kitty import kitty_points
from shengji.match import Match
from shengji.play import Reason
from shengji.rules import Partners, Revoke
from shengji.units import decompose_faces

from .. import events as E
from .. import rulescodec
from ..events import Event
from ..vocab.enums import NT, PARTNER_UNKNOWN, TablePhase, TableReason
from ..vocab.reasons import rules_code, table_reason
from ..vocab.snapshot import SnapFriend, SnapScans, Snapshot, SnapTrick

#: AUDIT reasons, BID reasons (firmware/events.py)
REVOKE_FOLLOW, THROW_FAILED = int(TableReason.REVOKE_FOLLOW), int(TableReason.THROW_FAILED)
BID_WEAK, BID_SELF = int(TableReason.BID_WEAK), int(TableReason.BID_SELF)
#: the table's refusals the engine has an opinion on (plays; in hand_scan
#: mode also an illegal follow, refused at once)
JUDGED_REASONS = frozenset((
    TableReason.OUT_OF_TURN, TableReason.SEEN_TWICE, TableReason.COUNT, TableReason.MIXED_LEAD,
    TableReason.WRONG_PHASE, TableReason.NOT_HELD, TableReason.REVOKE_FOLLOW,
))


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
        self.revoked: set[tuple[int, int]] = set()  # (trick, seat) revokes the table reported
        self.expect: list[Event] = []  # REVOKE/AUDIT/PARTNER events due next, in the table's order
        self.audited = False  # the end-of-hand AUDIT events are in `expect`
        self.scans: dict[int, tuple[int, ...]] = {}  # hand_scan mode: SCAN events by seat
        self.forfeit_seen = False  # the table sent FORFEIT this hand
        self.kitty_up: tuple[int, ...] = ()  # no_bid = "kitty": the kitty as turned up
        #: new matches the host asked the table for (CMD_NEW_MATCH) and not yet seen start
        self.new_matches = 0
        self._lock = threading.Lock()

    # --- Replayer protocol

    def reset(self, snapshot: bytes | None) -> None:
        """Start from the match's beginning, or from a table snapshot
        (firmware/tablesnap.py layout): the hand in it is rebuilt in the engine
        from what it records (bids, kitty, tricks, the trick in progress)."""
        self.match = Match(self.rules)
        self.hand = None
        self.shadow = None
        self.lost = ""
        self._new_hand()
        if snapshot is None:
            return
        try:
            self._rebuild(json.loads(snapshot))
        except (HandError, ValueError, TypeError, IndexError, KeyError, AssertionError) as exc:
            self.hand = None
            self.shadow = None
            self.lost = f"cannot rebuild the hand from the table's snapshot ({exc})"

    def _rebuild(self, data: Any) -> None:
        snap = Snapshot.parse(data)
        friend = snap.friend
        phase, dealer, decks, first = snap.phase, snap.dealer, snap.decks, snap.first_hand
        if decks != self.rules.decks:
            raise ValueError(f"snapshot version {snap.version}, {decks} decks")
        if (friend is not None) != self.called:
            raise ValueError("the snapshot's partners are not the rules' (find-a-friend or fixed)")
        if snap.rules_digest and snap.rules_digest != rulescodec.digest(self.rules):
            raise ValueError(rulescodec.mismatch_line(snap.rules_digest, self.rules, "the host's rules"))
        if phase == TablePhase.REVEAL:
            phase = TablePhase.DEAL  # the kitty is being turned up: the draw is over, trump not yet named
        m = self.match
        m.levels = list(snap.levels)
        m.first_hand = bool(first)
        m.dealer = None if (first and phase == TablePhase.DEAL) or dealer < 0 else dealer
        if phase not in (TablePhase.DEAL, TablePhase.KITTY, TablePhase.PLAY, TablePhase.SCAN, TablePhase.CALL):
            self.lost = "the table's snapshot is past the play: judging resumes at the next hand"
            return
        hand = m.new_hand(strict=False)
        start = E.HandStart(snap.hand_no, dealer, decks, tuple(snap.levels), bool(first))
        sh = _Shadow(start)
        for seat, cards in snap.bids:
            hand.apply(Bid(seat, tuple(cards)))
            sh.bids.append([seat, list(cards)])
        if phase != TablePhase.DEAL:
            self.kitty_up = tuple(snap.kitty_up)
            sh.kitty_up = list(snap.kitty_up)
            hand.apply(EndDraw(kitty=self.kitty_up))
            got = [NT if hand.trump is None else int(hand.trump),
                   -1 if hand.declarer is None else hand.declarer, hand.dealer]
            want = [snap.trump, snap.declarer, dealer]
            if got != want:
                raise ValueError(f"the bids give {got}, the snapshot {want}")
            sh.trump, sh.declarer, sh.dealer, sh.phase = snap.trump, snap.declarer, dealer, TablePhase.KITTY
        scans = snap.scans
        if phase in (TablePhase.KITTY, TablePhase.SCAN) and scans is not None:
            # hand_scan mode before the burial: the hands scanned so far (the
            # dealer's with the kitty), as the SCAN events gave them
            self.scans = {s: tuple(scans.hands[s]) for s in range(4) if scans.done >> s & 1}
        kitty = snap.kitty
        if phase == TablePhase.CALL:
            hand.apply(Bury(tuple(kitty)))
            sh.kitty, sh.kitty_points, sh.phase = list(kitty), snap.kitty_points, TablePhase.CALL
        if phase == TablePhase.PLAY:
            hand.apply(Bury(tuple(kitty)))
            cur = snap.current
            if scans is not None and scans.done == 15:
                # hand_scan mode: the hands after the burial are what each
                # seat still holds and everything it played
                held = [list(h) for h in scans.hands]
                for tr in snap.tricks:
                    for s in range(4):
                        held[s].extend(tr.plays[s])
                if cur is not None:
                    for s in range(4):
                        held[s].extend(cur.plays[s] or ())
                hand.apply(Scan.of(held, kitty))
            if friend is not None:
                hand.apply(Call(friend.call))
                sh.call = friend.call
            sh.kitty, sh.kitty_points, sh.phase, sh.leader = list(kitty), snap.kitty_points, TablePhase.PLAY, dealer
            for tr in snap.tricks:
                for k in range(4):
                    seat = (tr.leader + k) % 4
                    hand.apply(Play(seat, tuple(tr.plays[seat])))
                    if k == 0 and tr.forced:
                        _forced_lead(hand, len(hand.tricks) - 1, tr.leader)
                sh.tricks.append(tr)
            for t, seat in snap.revoked:
                self.revoked.add((t, seat))
                sh.revoked.append([t, seat])
            sh.score = snap.score
            if snap.tricks:
                sh.leader = snap.tricks[-1].winner
            if cur is not None:
                for k in range(4):
                    seat = (cur.leader + k) % 4
                    play = cur.plays[seat]
                    if play is None:
                        break
                    hand.apply(Play(seat, tuple(play)))
                    if k == 0 and cur.forced:
                        _forced_lead(hand, len(hand.tricks) - 1, cur.leader)
                    sh.plays[seat] = list(play)
                sh.leader = cur.leader
                sh.forced = cur.forced
        if friend is not None:
            sh.partner = partner_field(hand)
        self.hand = hand
        self.shadow = sh

    @property
    def called(self) -> bool:
        """Find-a-friend (``partners = "called"``): levels per seat, a CALL and a PARTNER."""
        return self.rules.partners == Partners.CALLED

    def host_state(self) -> bytes | None:
        """The table snapshot with the engine's verdicts (trick boundaries of
        the play phase only; None elsewhere or after an event not followed)."""
        sh = self.shadow
        if self.lost or sh is None or not sh.at_trick_boundary():
            return None
        snap = sh.snapshot(self.rules.decks)
        hand = self.hand
        if hand is not None and hand.hands is not None:
            # hand_scan mode: the cards each seat still holds
            snap.scans = SnapScans(15, [sorted(h) for h in hand.hands])
        if self.called:
            snap.friend = SnapFriend(sh.call, sh.partner, sh.levels[2:4])
        snap.rules_digest = rulescodec.digest(self.rules)  # the table refuses a state of other rules
        return json.dumps(snap.to_list(), separators=(",", ":")).encode()

    def replay(self, index: int, event: Event | Sequence[Any]) -> Event | None:
        """The engine's version of the table's event (typed, or the table's
        list: decoded here); None for what it does not judge."""
        event = E.decode(event, lenient=True)
        if isinstance(event, E.HandStart):
            return self._hand_start(event)
        hand = self.hand
        if self.lost or hand is None:
            return None
        try:
            missing = None
            if self.expect and type(event) is not type(self.expect[0]):
                # the table went on without an event the engine expected here:
                # that is the disagreement (shown on this event), which is
                # still followed
                missing = self.expect[0]
                self.expect = [e for e in self.expect if type(e) is not type(missing)]
            if isinstance(event, (E.HandEnd, E.Forfeit)) and self._audit_due(hand):
                missing = self.expect[0]
                self.expect = []
            if isinstance(event, E.HandEnd) and hand.forfeit is not None and not self.forfeit_seen:
                # revoke = "forfeit": the table settled without saying the hand was lost
                missing = missing or self._forfeit_event(hand)
            mine = self._judge(hand, event)
        except (HandError, AssertionError, IndexError, ValueError) as exc:
            self._lose(f"event {index}: {exc}")
            return None
        if self.shadow is not None:
            self.shadow.follow(event, mine)
        return missing if missing is not None else mine

    # --- kinds

    def expect_new_match(self) -> None:
        """The host sent the table a new match (CMD_NEW_MATCH: a club's round starts; any
        thread): the table's next first HAND_START of hand 1 starts a fresh match, at the
        first level, whatever the match in play had reached."""
        with self._lock:
            self.new_matches += 1

    def _hand_start(self, ev: E.HandStart) -> Event:
        if ev.hand_no == 1 and ev.first_hand:
            with self._lock:
                fresh = self.new_matches > 0
                if fresh:
                    self.new_matches -= 1
            if fresh:
                self.match = Match(self.rules)
        m = self.match
        mine = E.HandStart(
            ev.hand_no,
            -1 if m.dealer is None else m.dealer,
            self.rules.decks,
            tuple(m.levels),  # partners = "called": per seat
            m.first_hand,
        )
        # follow the table: its position of the match is what is played
        dealer, first, levels = ev.dealer, ev.first_hand, list(ev.levels)
        m.dealer = None if dealer < 0 else dealer
        if len(levels) == len(m.levels):
            m.levels = levels
        else:
            self._lose("the table's levels are not the rules' (per side, or per seat with find-a-friend)")
        m.first_hand = bool(first)
        self.hand = m.new_hand(strict=False)
        self.lost = ""
        self.shadow = _Shadow(ev)
        self._new_hand()
        return mine

    def _new_hand(self) -> None:
        self.revoked = set()
        self.expect = []
        self.audited = False
        self.scans = {}
        self.forfeit_seen = False
        self.kitty_up = ()

    def _lose(self, why: str) -> None:
        self.lost = why
        self.unfollowed += 1

    def _judge(self, hand: Hand, ev: Event) -> Event | None:  # noqa: C901, PLR0911, PLR0912
        match ev:
            case E.Bid():
                seat, cards = ev.seat, ev.ids
                refusal = hand.bid_refusal(seat, cards)
                ok = refusal is None
                if ev.accepted:
                    self._follow(hand, Bid(seat, cards))
                if ok:
                    reason = 0
                elif ev.accepted:
                    reason = -1
                elif isinstance(refusal, SelfOverrideError):
                    reason = BID_SELF  # docs/rules.md §8.1: a refused self-override says so
                elif ev.reason == BID_SELF:
                    reason = BID_WEAK  # refused, but not as a self-override
                else:
                    reason = ev.reason
                return E.Bid(seat, ok, reason, ev.cards)
            case E.KittyUp():
                # no_bid = "kitty": judged is that the engine wants the kitty
                # turned up here (no bid standing, not the match's first hand), and
                # by whom; the cards, in order, name trump at the TRUMP that follows
                self.kitty_up = ev.ids
                wanted = (hand.standing is None and not hand.first_hand
                          and self.rules.no_bid.value == "kitty")
                return E.KittyUp(hand.dealer if wanted and hand.dealer is not None else -1, ev.cards)
            case E.Trump() | E.Redeal():
                return self._end_draw(hand, ev)
            case E.Kitty():
                cards = ev.ids
                self._follow(hand, Bury(cards))
                if len(self.scans) == 4 and hand.buried == cards:
                    # hand_scan mode: every hand is known from here on (docs/rules.md §10.2)
                    hands = [self.scans[s] for s in range(4)]
                    hands[hand.dealer or 0] = tuple(c for c in hands[hand.dealer or 0] if c not in cards)
                    self._follow(hand, Scan.of(hands, cards))
                return E.Kitty(-1 if hand.dealer is None else hand.dealer, kitty_points(c % 54 for c in cards),
                               ev.cards)
            case E.Call():
                # find-a-friend: the dealer calls after the burial; the face is the table's
                if hand.phase != Phase.CALL:
                    self._lose("the table called a card where the rules have no call")
                    return E.Call(-1, ev.face)
                self._follow(hand, Call(ev.face))
                self.expect = self._partner_due(hand, None)
                return E.Call(-1 if hand.dealer is None else hand.dealer, ev.face)
            case E.Partner():
                if self.expect and isinstance(self.expect[0], E.Partner):
                    return self.expect.pop(0)
                # the engine does not know it here
                return E.Partner(ev.trick, partner_field(hand), ev.attackers_score)
            case E.Scan():
                self.scans[ev.seat] = ev.ids
                return None
            case E.Play():
                return self._play(hand, ev)
            case E.Undo():
                return self._undo(hand, ev)
            case E.Forced():
                return self._forced(hand, ev)
            case E.Revoke():
                return self._revoke(ev)
            case E.Forfeit():
                self.forfeit_seen = True
                if hand.forfeit is None:
                    return E.Forfeit(ev.trick, -1)  # the engine finds no revoke that loses the hand
                return self._forfeit_event(hand)
            case E.Audit():
                return self._audit(hand, ev)
            case E.Reject():
                return self._reject(hand, ev)
            case E.Challenge():
                seat, cards = ev.seat, ev.ids
                try:
                    hand.apply(Challenge(seat, cards))
                    ok = True
                    if not ev.accepted:
                        hand.undo()
                except IllegalEvent:
                    ok = False
                if ev.accepted and not ok:
                    self._lose("the engine refuses a challenge the table accepted")
                return E.Challenge(ev.trick, seat, ok, ev.cards)
            case E.Trick():
                last = hand.tricks[-1]
                if not last.complete or last.winner is None:
                    raise ValueError("a TRICK event before the trick is complete")
                return E.Trick(len(hand.tricks) - 1, last.winner, last.points, attackers_score(hand))
            case E.HandEnd():
                return self._hand_end(hand)
        return None

    def _end_draw(self, hand: Hand, ev: E.Trump | E.Redeal) -> Event:
        redeal = isinstance(ev, E.Redeal)
        if (not self.kitty_up and hand.standing is None and not hand.first_hand
                and self.rules.no_bid.value == "kitty"):
            # the rules want the kitty turned up first: the table left it out
            self._lose("the table ended the draw without turning the kitty up")
            return E.KittyUp(-1 if hand.dealer is None else hand.dealer)
        hand.apply(EndDraw(kitty=self.kitty_up))
        mine: Event
        if hand.redeal:
            mine = E.Redeal(ev.hand_no if isinstance(ev, E.Redeal) else -1)
            self.match.finish(hand)
            self.hand = None
        else:
            mine = E.Trump(
                NT if hand.trump is None else int(hand.trump),
                -1 if hand.declarer is None else hand.declarer,
                -1 if hand.dealer is None else hand.dealer,
            )
        if isinstance(mine, E.Redeal) != redeal:
            self._lose("the engine and the table end the draw differently")
        return mine

    def _play(self, hand: Hand, ev: E.Play) -> Event:
        seat, cards = ev.seat, ev.ids
        found = len(hand.findings)
        held = hand.hands[seat] if hand.hands is not None else ()
        before = hand.defenders
        try:
            hand.apply(Play(seat, cards))
        except IllegalEvent as exc:
            self._lose(f"the engine refuses a play the table accepted: {exc}")
            return E.Reject(ev.trick, seat, self._reason(exc), ev.cards)
        t_index = len(hand.tricks) - 1
        if hand.known and any(f.rule == Reason.REVOKE for f in hand.findings[found:]):
            # hand_scan mode: the engine knows the hand, and this follow
            # breaks docs/rules.md §6 (recorded, and followed as the table took it)
            if self.rules.revoke != Revoke.FORFEIT:
                return E.Reject(ev.trick, seat, REVOKE_FOLLOW, ev.cards)
            # revoke = "forfeit": the play stands, the revoke is reported
            # at once and loses the hand
            lead = hand.tricks[t_index].lead
            why = self._reason_of(hand, lead, held, cards)
            self.expect = [E.Revoke(t_index, seat, t_index, why)]
            return E.Play(t_index, seat, ev.cards)
        # every play (a lead too) proves what the seat held earlier; a
        # called partner it locates is said first (PARTNER, then REVOKE)
        self.expect = [*self._partner_due(hand, before), *self._revokes_proven(hand, seat, cards)]
        return E.Play(t_index, seat, ev.cards)

    def _undo(self, hand: Hand, ev: E.Undo) -> Event:
        """A long press took back the seat's last play (firmware/tableundo.py)."""
        trick_no, seat, cards = ev.trick, ev.seat, ev.ids
        last = hand.events[-1] if hand.events else None
        open_trick = bool(hand.tricks) and not hand.tricks[-1].complete
        if (isinstance(last, Play) and last.seat == seat and tuple(last.cards) == cards
                and open_trick and len(hand.tricks) - 1 == trick_no):
            hand.undo()
            return E.Undo(trick_no, seat, ev.cards)
        self._lose(f"the table took back a play of S{seat} that is not the last one played")
        return E.Undo(trick_no, seat)

    def _follow(self, hand: Hand, event: Any) -> None:
        try:
            hand.apply(event)
        except IllegalEvent as exc:
            self._lose(f"the engine refuses what the table did: {exc}")

    @staticmethod
    def _reason(exc: IllegalEvent) -> int:
        for f in exc.findings:
            why = table_reason(f.rule)
            if why >= 0:
                return why
        return -1

    def _forced(self, hand: Hand, ev: E.Forced) -> Event:
        """A failed throw: the engine forced it at the CHALLENGE it accepted;
        which cards stand and the penalty are compared, then the table's
        choice is followed."""
        pen, cards = ev.penalty, ev.ids
        trick = hand.current_trick()
        if trick is None or len(trick.plays) != 1 or not trick.attempt:
            self._lose("the table forced a throw the engine did not")
            lead = trick.lead if trick is not None else ()
            return E.Forced(ev.trick, ev.leader, 0, E.cards_of(lead))
        t_index = len(hand.tricks) - 1
        mine_pen = sum(p for t, _, p in hand.penalties if t == t_index)
        forced = trick.lead
        if set(cards) <= set(trick.attempt) and (
            sorted(c % 54 for c in forced) == sorted(c % 54 for c in cards)
            or equally_weak(hand, cards, forced)
        ):
            # the same faces: which copy, and the order, are the table's; or
            # another unit of the category at the same position (off-suit level
            # pairs of two suits): docs/rules.md §5.2 forces "the weakest unit of that
            # category", and both are
            forced = cards
        mine: Event = E.Forced(t_index, trick.leader, mine_pen, E.cards_of(forced))
        # follow the table: its cards stand as the lead, its penalty counts
        if set(cards) <= set(trick.attempt) and cards:
            adopt_forced(hand, cards)
        else:
            self._lose("the table forced cards that were not in the throw")
        hand.penalties = (
            *(p for p in hand.penalties if p[0] != t_index),
            *(((t_index, trick.leader, pen),) if pen else ()),
        )
        return mine

    def _revokes_proven(self, hand: Hand, seat: int, cards: Sequence[int]) -> list[Event]:
        """The REVOKE events the table owes after ``seat``'s follow (docs/rules.md
        §10.1, firmware/tabletrick.py ``check_revokes``): each earlier follow of
        the seat, in a trick whose lead suit the new cards touch, that the
        engine finds illegal against the cards the seat is proven to have held
        then (everything it played from that trick on), earliest first."""
        ruling = hand.ruling
        esuit = ruling.order.esuit
        now = len(hand.tricks) - 1
        out: list[Event] = []
        for t, trick in enumerate(hand.tricks[:now]):
            if trick.leader == seat or (t, seat) in self.revoked:
                continue
            lead = [c % 54 for c in trick.lead]
            if not any(esuit[c % 54] == esuit[lead[0]] for c in cards):
                continue
            why = self._follow_reason(hand, t, seat)
            if why:
                out.append(E.Revoke(now, seat, t, why))
        return out

    @staticmethod
    def _follow_reason(hand: Hand, t: int, seat: int) -> int:
        """The device code of why ``seat``'s follow in trick ``t`` breaks docs/rules.md §6
        against what the seat played from trick ``t`` on (0: it does not)."""
        trick = hand.tricks[t]
        held = [c for tr in hand.tricks[t:] for c in tr.cards_of(seat)]
        return EngineReplayer._reason_of(hand, trick.lead, held, trick.cards_of(seat))

    @staticmethod
    def _reason_of(hand: Hand, lead: Sequence[int], held: Sequence[int], play: Sequence[int]) -> int:
        """The device code of why ``play`` from ``held`` breaks docs/rules.md §6 on ``lead`` (0: it does not)."""
        v = _play.check_follow(
            hand.ruling.order, [c % 54 for c in lead], [c % 54 for c in held],
            [c % 54 for c in play],
        )
        if v.legal:
            return 0
        return rules_code(v.reason) if v.reason is not None else -1

    @staticmethod
    def _forfeit_event(hand: Hand) -> Event:
        """[FORFEIT, trick, seat]: the revoke that lost the hand (revoke =
        "forfeit"): the engine's first revoke finding."""
        t = next(f.trick for f in hand.findings if f.rule == Reason.REVOKE and f.seat == hand.forfeit)
        assert hand.forfeit is not None
        return E.Forfeit(-1 if t is None else t, hand.forfeit)

    def _revoke(self, ev: E.Revoke) -> Event:
        self.revoked.add((ev.earlier_trick, ev.seat))
        if self.expect and isinstance(self.expect[0], E.Revoke):
            return self.expect.pop(0)
        return E.Revoke(ev.trick, ev.seat, ev.earlier_trick, 0)  # the engine proves no revoke there

    def _audit_due(self, hand: Hand) -> bool:
        """Build the end-of-hand AUDIT events once the play is over; true while
        some are still expected."""
        if not self.audited and hand.phase in (Phase.REVEAL, Phase.DONE):
            self.audited = True
            # a hand lost by a revoke (revoke = "forfeit") before its last
            # trick is not audited: the table does not know every hand
            complete = len(hand.played) == 4 * self.rules.hand_size
            self.expect = self._audit_events(hand) if complete else []
        return bool(self.expect) and isinstance(self.expect[0], E.Audit)

    def _audit_events(self, hand: Hand) -> list[Event]:
        """The engine's end-of-hand audit (``Hand`` findings: every revoke,
        found at the play or by the audit, and every unchallenged throw that
        should have failed) as the table reports them: in trick order, the
        throw first, then the follows by seat."""
        keys: set[tuple[int, int, int]] = set()
        for f in hand.findings:
            if f.trick is None or f.seat is None:
                continue
            if f.rule == Reason.REVOKE:
                keys.add((f.trick, 1 + f.seat, f.seat))
            elif f.rule == Reason.THROW_SHOULD_FAIL:
                keys.add((f.trick, 0, f.seat))
        out: list[Event] = []
        for t, k, seat in sorted(keys):
            if k == 0:
                out.append(E.Audit(t, seat, THROW_FAILED, 0))
            else:
                out.append(E.Audit(t, seat, REVOKE_FOLLOW, self._follow_reason(hand, t, seat)))
        return out

    def _audit(self, hand: Hand, ev: E.Audit) -> Event:
        self._audit_due(hand)
        if self.expect and isinstance(self.expect[0], E.Audit):
            return self.expect.pop(0)
        return E.Audit(ev.trick, ev.seat, 0, 0)  # the engine finds nothing more

    def _reject(self, hand: Hand, ev: E.Reject) -> Event | None:
        seat, reason, cards = ev.seat, ev.reason, ev.ids
        if hand.phase != Phase.PLAY or reason not in JUDGED_REASONS:
            return None
        if reason == REVOKE_FOLLOW:
            if not hand.known:
                return None  # without the hands, a follow is not refused for docs/rules.md §6
            ok, _ = hand.is_legal(seat, cards)
            if ok or self.rules.revoke == Revoke.FORFEIT:
                # legal; or with revoke = "forfeit" the play stands (and loses the hand)
                return E.Play(ev.trick, seat, ev.cards)
            return E.Reject(ev.trick, seat, REVOKE_FOLLOW, ev.cards)
        try:
            hand.apply(Play(seat, cards))
        except IllegalEvent as exc:
            why = self._reason(exc)
            return E.Reject(ev.trick, seat, why if why >= 0 else reason, ev.cards)
        hand.undo()  # the engine would accept it; the table did not: follow the table
        return E.Play(ev.trick, seat, ev.cards)

    def _hand_end(self, hand: Hand) -> Event:
        if hand.phase == Phase.REVEAL and hand.buried is not None:
            from shengji.hand import Reveal

            hand.apply(Reveal(tuple(hand.buried)))
        res = hand.result()
        summary = self.match.finish(hand)
        st = summary.settlement
        assert st is not None
        self.hand = None
        return hand_end_event(res.score, res.kitty_points, res.multiplier, res.kitty_bonus, st)

    def _partner_due(self, hand: Hand, before: tuple[int, ...] | None) -> list[Event]:
        """[PARTNER ...] when the event just followed made the called partner known."""
        if not self.called or before is not None or hand.defenders is None:
            return []
        now = max(len(hand.tricks) - 1, 0)  # the trick of the play (0 at the call)
        return [E.Partner(now, partner_field(hand), attackers_score(hand, now))]


def attackers_score(hand: Hand, before: int | None = None) -> int:
    """The attackers' running score as the table sends it (TRICK, PARTNER):
    their trick points with the failed throws' penalties (the defenders'
    count for them, theirs against them, as ``HandResult.penalty``); -1
    while a called partner is unknown. before: only the tricks before this
    one (PARTNER comes before its trick's TRICK); penalties all count."""
    if hand.rules.partners == Partners.CALLED and hand.defenders is None:
        return -1
    by_seat = [0, 0, 0, 0]
    for t in hand.tricks[:before]:
        if t.winner is not None:
            by_seat[t.winner] += t.points
    dealer = hand.dealer if hand.dealer is not None else 0
    attackers = hand.attackers() or ((dealer + 1) % 4, (dealer + 3) % 4)
    penalty = sum(-pts if seat in attackers else pts for _, seat, pts in hand.penalties)
    return sum(by_seat[s] for s in attackers) + penalty


def partner_field(hand: Hand) -> int:
    """The table's partner field: the dealer's partner, -1 alone, -2 unknown."""
    if hand.defenders is None:
        return PARTNER_UNKNOWN
    return next((s for s in hand.defenders if s != hand.dealer), -1)


def hand_end_event(score: int, kpts: int, mult: int, bonus: int, st: Any) -> E.HandEnd:
    """HAND_END as the table says it: with levels per seat (find-a-friend)
    the match's winners are a bit mask of seats."""
    if len(st.levels) == 4:
        won = sum(1 << s for s in st.winner) if isinstance(st.winner, tuple) and st.winner else -1
    else:
        won = st.winner if isinstance(st.winner, int) else -1
    return E.HandEnd(score, kpts, mult, bonus, st.next_dealer, tuple(st.levels), won)


class _Shadow:
    """The table's state as firmware/tablesnap.py lays it out, kept from the
    events (what was played) and the engine's versions (the verdicts)."""

    def __init__(self, start: E.HandStart) -> None:
        self.hand_no, self.dealer, first = start.hand_no, start.dealer, int(start.first_hand)
        self.levels = list(start.levels)
        self.call = -1
        self.partner = PARTNER_UNKNOWN
        self.first = first
        self.trump = -1
        self.declarer = -1
        self.score = 0
        self.kitty_points = 0
        self.bids: list[list[Any]] = []
        self.kitty: list[int] = []
        self.tricks: list[SnapTrick] = []
        self.plays: list[list[int] | None] = [None] * 4
        self.leader = -1
        self.forced = 0
        self.phase = TablePhase.DEAL
        self.revoked: list[list[int]] = []
        self.kitty_up: list[int] = []

    def at_trick_boundary(self) -> bool:
        return self.phase == TablePhase.PLAY and all(p is None for p in self.plays)

    def follow(self, ev: Event, mine: Event | None) -> None:  # noqa: C901
        match ev:
            case E.Bid(accepted=True):
                self.bids.append([ev.seat, list(ev.ids)])
            case E.KittyUp():
                self.kitty_up = list(ev.ids)
            case E.Trump():
                self.trump, self.declarer, self.dealer = ev.trump, ev.declarer, ev.dealer
                self.phase = TablePhase.KITTY
            case E.Kitty():
                self.kitty = list(ev.ids)
                self.kitty_points = mine.points if isinstance(mine, E.Kitty) else ev.points
                self.phase = TablePhase.CALL if len(self.levels) == 4 else TablePhase.PLAY
                self.leader = self.dealer
            case E.Call():
                self.call = ev.face
                self.phase = TablePhase.PLAY
            case E.Partner():
                known = mine if isinstance(mine, E.Partner) else ev
                self.partner, self.score = known.partner, known.attackers_score
            case E.Play():
                if all(p is None for p in self.plays):
                    self.leader = ev.seat
                self.plays[ev.seat] = list(ev.ids)
            case E.Undo():
                self.plays[ev.seat] = None
            case E.Forced():
                self.plays[ev.leader] = list(ev.ids)
                self.forced = 1
            case E.Revoke():
                self.revoked.append([ev.earlier_trick, ev.seat])
            case E.Trick():
                won = mine if isinstance(mine, E.Trick) else ev
                winner, points, score = won.winner, won.points, won.attackers_score
                self.tricks.append(SnapTrick(self.leader, winner, points, self.forced, [p or [] for p in self.plays]))
                self.score = score
                self.plays = [None] * 4
                self.forced = 0
                self.leader = winner
            case E.HandEnd():
                self.phase = TablePhase.HAND_END
            case _:
                pass

    def snapshot(self, decks: int) -> Snapshot:
        # the event index and state hash are the link's to set: the table
        # takes them from the snapshot's announcement
        return Snapshot(
            decks=decks, phase=self.phase, hand_no=self.hand_no, first_hand=self.first,
            dealer=self.dealer, levels=self.levels[:2], trump=self.trump, declarer=self.declarer,
            score=self.score, kitty_points=self.kitty_points, bids=self.bids, kitty=self.kitty,
            tricks=self.tricks, revoked=self.revoked, kitty_up=self.kitty_up,
        )


def equally_weak(hand: Hand, a: Sequence[int], b: Sequence[int]) -> bool:
    """Are card ids ``a`` and ``b`` each one unit of the same shape, effective
    suit and strength (the same positions: e.g. off-suit level pairs of two
    suits, docs/rules.md §2 "all equal")? Then neither is weaker than the other."""
    order = hand.ruling.order
    da = decompose_faces(order, [c % 54 for c in a])
    db = decompose_faces(order, [c % 54 for c in b])
    if da is None or db is None or len(da.units) != 1 or len(db.units) != 1:
        return False
    ua, ub = da.units[0], db.units[0]
    return (ua.shape, ua.esuit, ua.top) == (ub.shape, ub.esuit, ub.top)


def adopt_forced(hand: Hand, cards: Sequence[int]) -> None:
    """The current trick's failed throw stands as ``cards`` (the table's
    choice, from the attempted throw) instead of the engine's forced unit:
    the lead, the cards played and, with the hands known, the leader's hand
    (the engine's forced cards go back to it, the table's leave it)."""
    trick = hand.tricks[-1]
    old = set(trick.lead)
    new = tuple(cards)
    hand.tricks = (*hand.tricks[:-1], dataclasses.replace(trick, plays=((trick.leader, new),)))
    hand.played = (hand.played - old) | set(new)
    if hand.hands is not None:
        held = [c for c in hand.hands[trick.leader] if c not in new]
        hand._set_hand(trick.leader, held + [c for c in old if c not in new])


def _forced_lead(hand: Hand, t_index: int, leader: int) -> None:
    """A forced lead rebuilt from a table snapshot (which keeps the cards that
    stood, not the throw): played as a lead, with the failed throw's penalty."""
    pen = hand.rules.throw_penalty
    if pen:
        hand.penalties = (*hand.penalties, (t_index, leader, pen))


def judged_kinds() -> Sequence[type[Event]]:
    return (E.HandStart, E.Bid, E.Trump, E.Redeal, E.Kitty, E.Play, E.Reject, E.Challenge, E.Forced,
            E.Trick, E.Audit, E.HandEnd, E.Revoke, E.Forfeit, E.KittyUp, E.Call, E.Partner, E.Undo)
