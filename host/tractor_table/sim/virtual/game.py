"""Bots play a match on the virtual table, and the full engine checks the table.

:class:`BotGame` keeps the host's own copy of each hand (a ``shengji`` :class:`Hand`
with the deal known) and four ``shengji`` bots. For each decision it asks the
bot of the seat whose turn the *table* says it is, taps the chosen cards at that
seat's reader (and presses the seat's button where a play needs it), then waits
for the table's game event on the link and compares it with the full engine:
bids accepted, trump, kitty, every play, every trick's winner and points, the
hand's score and the settlement. Every difference is kept in
:attr:`BotGame.disagreements` and printed; the game goes on with the table's
view where it can.

Bots of strength 0 (random) throw combinations that may fail. The table (no
hand scans) lets a throw stand unless a seat challenges it (docs/rules.md §10.1); the
host, knowing the hands, forces it at once. So when the full engine forces a
throw, a seat that can beat it challenges at the table: it double-presses, taps
its cards of the throw's suit, and clicks; the table must then force the same
cards.

Options the table plays that change the hand:

- ``revoke_from`` with ``revoke = "flag"`` in hand_scan mode: the table knows
  every hand and refuses the revoke at the play (REJECT, reason REVOKE_FOLLOW);
  the seat then plays its honest cards (counted in ``revokes_refused``).
- ``revoke = "forfeit"``: with ``revoke_from`` set, one seat per hand revokes
  on purpose (the first follow, from that trick on, that can break docs/rules.md §6 by
  swapping a card of the suit led for another). In hand_scan mode the table
  (like the host) knows it at once; otherwise only when a later play proves
  it or at the audit. So the host keeps, besides its copy with the deal (the
  bots' view, which records the revoke and plays on), a *blind* hand without
  the deal, which knows what the table knows: when it is lost, the table must
  end the hand there (FORFEIT, HAND_END), and it settles the match.
- ``quiet_hands``: in the hands of these table numbers nobody bids. On the
  match's first hand that is a redeal (docs/rules.md §8.1), after which the bots bid
  again (a quiet hand is quiet for one deal).
- ``no_bid = "kitty"``: in the hands numbered in ``quiet_hands`` nobody bids;
  when the draw ends without a bid (not on the match's first hand) the dealer
  taps the kitty's cards face up, in the deal's order (KITTY_UP, then TRUMP).
- ``partners = "called"`` (find-a-friend): after the burial the dealer's bot
  names a face (``Bot.call``, or the ``call`` function's) and makes the call
  gesture at its seat (:func:`call_gesture`: taps and presses, then OK; CALL);
  the bots play to the partnership as far as they know it (the engine's
  bots). The table's view is a *blind* hand without the deal (unless in
  hand_scan mode): when it knows the partner, the table must say so
  (PARTNER) with the same partner and score; until then TRICK's score is -1.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from shengji import Rules
from shengji.hand import Bid, Bury, Call, Challenge, Deal, EndDraw, Hand, Phase, Play
from shengji.match import Match, deal_cards, make_bots
from shengji.play import Reason, check_throw
from shengji.rules import NoBid, Partners, Revoke

from ... import events as E
from ...errors import CommandError
from ...events import EV, TRUMPS, cards_text, describe, face_name, levels_text
from ...link.engine_replayer import (
    adopt_forced,
    attackers_score,
    equally_weak,
    hand_end_event,
    partner_field,
)
from ...vocab.enums import NT
from .runner import VirtualTable

_E = TypeVar("_E", bound=E.Event)

# The call gesture's actions at the dealer's seat (firmware/tablefriend.py)
TAP, BEFORE, AFTER = "tap", "double", "long"


def gesture_step(shown: int, action: str, face: int = -1) -> int:
    """The call shown after one action (firmware/tablefriend.py, the same
    reading): shown the face shown (-1 none); face the face of a card tapped.
    Double and long presses step through 2S .. AS 2H .. AC SJ BJ."""
    if action == TAP:
        if shown < 0 or shown >= 52 or face >= 52 or face % 13 == shown % 13:
            return face
        return (shown // 13) * 13 + face % 13  # another rank: the suit shown stays
    return (shown + (53 if action == BEFORE else 1)) % 54


def call_gesture(held: Sequence[int], face: int) -> list[tuple[str, int]]:
    """The fewest actions at the dealer's reader and button that show `face`
    (then OK confirms it): taps of cards it holds (card ids), double presses
    (the face before) and long presses (the face after). Breadth first over
    what the display can show."""
    cards: dict[int, int] = {}
    for c in held:
        cards.setdefault(c % 54, c)
    back: dict[int, tuple[int, tuple[str, int]] | None] = {-1: None}
    todo = [-1]
    while todo:
        nxt = []
        for shown in todo:
            if shown == face:
                path: list[tuple[str, int]] = []
                at = shown
                while (step := back[at]) is not None:
                    at, act = step
                    path.append(act)
                return path[::-1]
            moves = [(TAP, f, c) for f, c in cards.items()]
            if shown >= 0:
                moves += [(BEFORE, -1, -1), (AFTER, -1, -1)]
            for action, f, c in moves:
                new = gesture_step(shown, action, f)
                if new not in back:
                    back[new] = (shown, (action, c))
                    nxt.append(new)
        todo = nxt
    raise CommandError(f"no call gesture shows {face_name(face)}")


class BotGame:
    def __init__(
        self,
        table: VirtualTable,
        rules: Rules,
        *,
        seed: int = 1,
        strength: int = 1,
        say: Callable[[str], None] = print,
        verbose: bool = False,
        event_timeout: float = 10.0,
        revoke_from: int | None = None,
        quiet_hands: Sequence[int] = (),
        call: Callable[[Hand], int] | None = None,
        stray_every: int = 0,
    ) -> None:
        self.table = table
        self.rules = rules
        self.match = Match(rules)
        self.bots = make_bots(strength, seed)
        self.rng = random.Random(seed)
        self.say = say
        self.verbose = verbose
        self.timeout = event_timeout
        self.disagreements: list[str] = []
        self.checks = 0
        self.events_seen = 0
        self.hands_played = 0
        self.tricks_played = 0
        self.findings: list[E.Revoke | E.Audit] = []  # REVOKE and AUDIT events of the hand
        self.hand: Hand | None = None
        #: the link's event index of each play of the hand, of the trick in
        #: progress, and the index after the last trick's end (rewind_to)
        self.hand_plays: list[int] = []
        self.trick_plays: list[int] = []
        self.trick_start = 0
        self.challenges = 0
        self.forced_at_once = 0
        self.forced_equal = 0  # the table forced another, equally weak unit (followed)
        self.revoke_from = revoke_from  # a seat revokes once a hand from this trick on
        self.quiet_hands = set(quiet_hands)  # table hand numbers without a bid
        self.redeals = 0
        self.revoked = False  # this hand's revoke was made
        self.revokes = 0
        self.revokes_refused = 0  # hand_scan mode with revoke = "flag": refused at the play
        self.forfeits: list[E.Forfeit] = []  # the FORFEIT events seen
        self.kitty_reveals = 0
        # revoke = "forfeit" or partners = "called" without hand scans: the
        # hand as the table knows it
        self.blind: Hand | None = None
        self.hand_no = 0
        self.call = call  # find-a-friend: the face to call in a hand (else the dealer's bot's)
        self.call_actions: list[int] = []  # actions per call gesture (OK included)
        self.partners_named = 0
        # every stray_every-th follow of one card that does not end its trick, a
        # stray read first: another legal card commits, a long press takes it
        # back (UNDO), then the card meant (firmware/tableundo.py)
        self.stray_every = stray_every
        self.follows = 0
        self.undos = 0

    # --- events ------------------------------------------------------------------

    def _next(self) -> E.Event:
        ev = self.table.next_event(self.timeout)
        self.events_seen += 1
        if self.verbose:
            self.say("    " + describe(ev))
        return ev

    def _expect(self, kind: type[_E]) -> _E:
        """The next event of `kind`; verdict events met on the way are reported."""
        ev = self._expect_any(kind)
        assert isinstance(ev, kind)
        return ev

    def _expect_any(self, *kinds: type[E.Event]) -> E.Event:
        """The next event of one of `kinds`; verdict events met on the way are reported."""
        while True:
            ev = self._next()
            if isinstance(ev, kinds):
                return ev
            if isinstance(ev, (E.Revoke, E.Audit)):
                self.findings.append(ev)
                self.say("  ! " + describe(ev))
            elif isinstance(ev, E.Forfeit):
                self.forfeits.append(ev)
                self.say("  ! " + describe(ev))
            elif isinstance(ev, E.Reject):
                self._disagree(f"the table refused a play the full engine allows: {describe(ev)}")
                raise CommandError("the table refused a legal play: " + describe(ev))
            else:
                want = ", ".join(k.KIND.name for k in kinds)
                raise CommandError(f"expected {want} from the table, got: {describe(ev)}")

    def _check(self, what: str, table_says: object, host_says: object) -> None:
        self.checks += 1
        if table_says != host_says:
            self._disagree(f"{what}: table {table_says!r}, full engine {host_says!r}")

    def _disagree(self, text: str) -> None:
        self.disagreements.append(text)
        self.say("  DISAGREEMENT " + text)

    # --- the simulated players -------------------------------------------------------

    def _tap_all(self, seat: int, cards: Sequence[int]) -> None:
        for c in cards:
            self.table.tap(seat, c)

    # --- a match -------------------------------------------------------------------

    def play(self, hands: int, *, start: E.HandStart | None = None,
             go_on: Callable[[], bool] | None = None) -> None:
        """Play `hands` hands (redeals not counted), or until the match is won; from the
        next HAND_START, or from ``start`` (already taken from the table). ``go_on``,
        asked after each hand: False ends the match there (time called at the table)."""
        if start is None:
            start = self._expect(E.HandStart)
        while True:
            outcome = self.play_hand(start)
            if outcome == "redeal":
                start = self._expect(E.HandStart)
                continue
            self.hands_played += 1
            if self.hands_played >= hands or self.match.is_over or (
                    go_on is not None and not go_on()):
                return
            self.table.press(0, EV.BTN_OK)
            start = self._expect(E.HandStart)

    def play_hand(self, start: E.HandStart) -> str:
        """One hand from its HAND_START event: "done", or "redeal"."""
        if self.start_hand(start) == "redeal":
            return "redeal"
        while not self.play_trick():
            pass
        self.finish_hand()
        return "done"

    def start_hand(self, start: E.Event) -> str:
        """Deal, bid, end the draw, bury: "play", or "redeal"."""
        if not isinstance(start, E.HandStart):
            raise CommandError(f"expected HAND_START from the table, got: {describe(start)}")
        m = self.match
        hand_no, dealer, decks, first = start.hand_no, start.dealer, start.decks, start.first_hand
        self._check("hand start: dealer", dealer, -1 if m.dealer is None else m.dealer)
        self._check("hand start: levels", list(start.levels), list(m.levels))
        self._check("hand start: decks", decks, self.rules.decks)
        self._check("hand start: first hand", bool(first), m.first_hand)
        self.hand_no = hand_no
        forfeit = self.rules.revoke == Revoke.FORFEIT
        own = self.rules
        if forfeit and not self.table.hand_scan:
            # the host's copy plays on after a revoke; the blind hand decides
            own = self.rules.replace(revoke="flag")
        level = m.hand_level()
        hand = Hand(own, level=level, dealer=m.dealer, first_hand=m.first_hand,
                    strict=self.revoke_from is None)
        self.blind = None
        called = self.rules.partners == Partners.CALLED
        if own is not self.rules or (called and not self.table.hand_scan):
            self.blind = Hand(self.rules, level=level, dealer=m.dealer, first_hand=m.first_hand)
        self.hand = hand
        self.hand_plays = []
        self.trick_plays = []
        self.trick_start = 0
        self.findings = []
        self.forfeits = []
        self.revoked = False
        deal = deal_cards(self.rules, self.rng)
        hand.apply(deal)
        self.say(describe(start))
        if self._draw(hand, deal) == "redeal":
            m.finish(hand)
            return "redeal"
        self._bury(hand)
        if hand.phase == Phase.CALL:
            self._call(hand)
        return "play"

    @property
    def view(self) -> Hand:
        """The hand as the table knows it (the blind one, if any)."""
        return self.judge

    def _call(self, hand: Hand) -> None:
        """Find-a-friend: the dealer's bot names a face and makes the gesture."""
        dealer = hand.dealer
        assert dealer is not None
        face = self.call(hand) if self.call is not None else self.bots[dealer].call(hand)
        actions = call_gesture(hand.held(dealer), face)
        for action, card in actions:
            if action == TAP:
                self.table.tap(dealer, card)
            else:
                self.table.press(dealer, EV.BTN_CHALLENGE if action == BEFORE else EV.BTN_UNDO)
        self.table.press(dealer, EV.BTN_OK)
        self.call_actions.append(len(actions) + 1)
        ev = self._expect(E.Call)
        self._check("the call", [ev.dealer, ev.face], [dealer, face])
        self.say(f"  {describe(ev)} in {len(actions) + 1} action(s)")
        before = self.view.defenders
        hand.apply(Call(face))
        self._both(Call(face))
        self._partner_known(before, 0)

    def _partner_known(self, before: tuple[int, ...] | None, trick: int) -> None:
        """The table names the partner when (and only when) it can know it."""
        view = self.view
        if before is not None or view.defenders is None:
            return
        ev = self._expect(E.Partner)
        self._check("the partner named", [ev.trick, ev.partner, ev.attackers_score],
                    [trick, partner_field(view), attackers_score(view, trick)])
        self.say("  " + describe(ev))
        self.partners_named += 1

    def _both(self, event: Any) -> None:
        """An event for the blind hand too (what the table sees)."""
        if self.blind is not None:
            self.blind.apply(event)

    @property
    def judge(self) -> Hand:
        """The hand whose result settles the match: the blind one, if any."""
        assert self.hand is not None
        return self.blind if self.blind is not None else self.hand

    def lost(self) -> bool:
        """The hand is over by a revoke (revoke = "forfeit"), as the table knows it."""
        j = self.judge
        return j.forfeit is not None and j.phase == Phase.DONE

    def play_trick(self) -> bool:
        """Play the current trick to its end; True when the hand's cards are all played."""
        hand = self.hand
        assert hand is not None
        while True:
            self._play_one(hand)
            if self.lost():
                return True
            if hand.tricks[-1].complete:
                return hand.phase != Phase.PLAY

    def play_one(self) -> None:
        """One play (a lead or a follow) of the seat whose turn it is."""
        assert self.hand is not None
        self._play_one(self.hand)

    def rewind_to(self, count: int) -> int:
        """After a power cut the table resumes from its last snapshot, whose
        event log ends at ``count`` (the count of its WELCOME when the link is
        up again). A save is taken after a trick ends, at the table's first
        quiet turn, so it may already hold the next trick's first plays, and a
        cut during it leaves the one before: take back from the host's copy
        the plays the table lost (their cards are tapped again), and none that
        it kept. Returns the plays undone (the caller judges how many may be
        lost: at most the trick in progress, docs/firmware.md)."""
        hand = self.hand
        assert hand is not None
        n = 0
        while self.hand_plays and self.hand_plays[-1] >= count:
            self.hand_plays.pop()
            hand.undo()
            if self.blind is not None:
                self.blind.undo()
            n += 1
        last = hand.tricks[-1] if hand.tricks else None
        self.trick_plays = self.hand_plays[len(self.hand_plays) - len(last.plays):] if last and not last.complete else []
        return n

    def finish_hand(self) -> None:
        assert self.hand is not None
        self._end(self.hand)

    def _draw(self, hand: Hand, deal: Deal) -> str:
        n = self.rules.hand_size
        start = 0 if hand.dealer is None else hand.dealer
        drawn: list[list[int]] = [[] for _ in range(4)]
        quiet = self.hand_no in self.quiet_hands
        for i in range(4 * n):
            seat = (start + i) % 4
            drawn[seat].append(deal.hands[seat][len(drawn[seat])])
            show = None if quiet else self.bots[seat].bid(hand, drawn[seat], n)
            if show is None:
                continue
            host_ok = hand.would_accept_bid(seat, show)
            self._tap_all(seat, show)
            self.table.press(seat, EV.BTN_OK)
            ev = self._expect(E.Bid)
            self._check(f"bid {cards_text(show)} by S{seat}", ev.accepted, host_ok)
            self.say("  " + describe(ev))
            if host_ok:
                hand.apply(Bid(seat, tuple(show)))
                self._both(Bid(seat, tuple(show)))
        self.table.press(0, EV.BTN_OK)  # the draw is over
        if not hand.bids and not hand.first_hand and self.rules.no_bid == NoBid.KITTY:
            # nobody bid: the dealer turns the kitty up, card by card, in order
            assert hand.dealer is not None
            self._tap_all(hand.dealer, deal.kitty)
            up = self._expect(E.KittyUp)
            self._check("kitty turned up", [up.dealer, *up.ids], [hand.dealer, *deal.kitty])
            self.say("  " + describe(up))
            self.kitty_reveals += 1
        end = self._expect_any(E.Trump, E.Redeal)
        hand.apply(EndDraw())
        self._both(EndDraw(kitty=tuple(deal.kitty)))
        if isinstance(end, E.Redeal):
            self._check("redeal", True, hand.redeal)
            self.say("  " + describe(end))
            self.redeals += 1
            # a quiet hand redealt (the match's first hand) is quiet once:
            # bidding again, not redealing forever
            self.quiet_hands.discard(self.hand_no)
            return "redeal"
        trump = NT if hand.trump is None else int(hand.trump)
        declarer = -1 if hand.declarer is None else hand.declarer
        assert isinstance(end, E.Trump)
        self._check("trump, declarer, dealer", [end.trump, end.declarer, end.dealer], [trump, declarer, hand.dealer])
        self.say("  " + describe(end))
        return "play"

    def _scan(self, hand: Hand) -> None:
        """hand_scan mode: every seat scans its hand (the dealer's holds the kitty)."""
        for seat in range(4):
            held = hand.held(seat)
            self._tap_all(seat, held)
            scan = self._expect(E.Scan)
            self._check(f"hand scanned at S{seat}", [scan.seat, sorted(scan.ids)], [seat, sorted(held)])
        self.say("  every hand scanned")

    def _bury(self, hand: Hand) -> None:
        dealer = hand.dealer
        assert dealer is not None
        if self.table.hand_scan:
            self._scan(hand)
        cards = self.bots[dealer].bury(hand)
        self._tap_all(dealer, cards)
        kitty = self._expect(E.Kitty)
        hand.apply(Bury(tuple(cards)))
        self._both(Bury(tuple(cards)))
        self._check("buried cards", sorted(kitty.ids), sorted(cards))
        self.say("  " + describe(kitty))

    def _play_one(self, hand: Hand) -> None:
        seat = hand.next_seat()
        assert seat is not None
        cards = self.bots[seat].play(hand)
        leading = hand.current_trick() is None
        honest = cards
        if not leading and self.revoke_from is not None and not self.revoked:
            cards = self._revoke(hand, seat, cards)
        if not leading and self.stray_every:
            self._stray(hand, seat, cards)
        self._tap_all(seat, cards)
        if leading:
            self.table.press(seat, EV.BTN_OK)
        if cards is not honest and self.table.hand_scan and self.rules.revoke != Revoke.FORFEIT:
            # hand_scan mode, revoke = "flag": the table knows every hand and
            # refuses the revoke at once (docs/rules.md §10.2); the seat plays honestly
            rej = self._expect(E.Reject)
            self._check("revoke refused at once", [rej.seat, rej.reason, sorted(rej.ids)],
                        [seat, EV.REVOKE_FOLLOW, sorted(cards)])
            self.say("  " + describe(rej))
            self.revokes_refused += 1
            cards = honest
            self._tap_all(seat, cards)
        play = self._expect(E.Play)
        self._check("play", [play.seat, sorted(play.ids)], [seat, sorted(cards)])
        before = self.view.defenders
        hand.apply(Play(seat, tuple(cards)))
        self._both(Play(seat, tuple(cards)))
        self.trick_plays.append(play.index)
        self.hand_plays.append(play.index)
        if self.rules.partners == Partners.CALLED:
            self._partner_known(before, len(self.view.tricks) - 1)
        last = hand.tricks[-1]
        if self.lost() and not last.complete:
            return  # the table ends the hand here (FORFEIT, HAND_END)
        if leading and last.attempt:
            if self.table.hand_scan:
                # the table knows every hand: it forces the throw by itself
                forced = self._expect(E.Forced)
                self._table_forced(hand, forced)
                self.say("  " + describe(forced))
                self.forced_at_once += 1
            else:
                self._challenge(hand, seat, cards)
        if not last.complete:
            return
        tr = self._expect(E.Trick)
        self.trick_plays = []
        self.trick_start = tr.index + 1
        self.tricks_played += 1
        self._check(f"trick {tr.trick + 1} winner, points", [tr.winner, tr.points], [last.winner, last.points])
        if self.rules.partners == Partners.CALLED:
            self._check(f"trick {tr.trick + 1} attackers' score", tr.attackers_score, attackers_score(self.view))
        plays = "  ".join(f"S{s} {cards_text(cs)}" for s, cs in last.plays)
        score = "partner unknown" if tr.attackers_score == -1 else f"attackers {tr.attackers_score}"
        self.say(f"  trick {tr.trick + 1:2d}: {plays}  -> S{tr.winner} wins {tr.points}, {score}")

    def _stray(self, hand: Hand, seat: int, cards: Sequence[int]) -> None:
        """A stray read (see ``stray_every``): another card of the same effective
        suit (as legal as the card meant, for one card) commits as the follow;
        the seat's long press takes it back and the table says UNDO."""
        trick = hand.current_trick()
        if trick is None or len(cards) != 1 or (seat + 1) % 4 == trick.leader:
            return
        es = hand.ruling.order.effective_suit
        other = [c for c in hand.held(seat) if c != cards[0] and es(c % 54) == es(cards[0] % 54)]
        if not other:
            return
        self.follows += 1
        if self.follows % self.stray_every:
            return
        self.table.tap(seat, other[0])
        stray = self._expect(E.Play)
        self._check("stray play", [stray.seat, *stray.ids], [seat, other[0]])
        self.table.press(seat, EV.BTN_UNDO)
        ev = self._expect(E.Undo)
        self._check("undo", [ev.seat, *ev.ids], [seat, other[0]])
        self.undos += 1
        self.say("  " + describe(ev))

    def _revoke(self, hand: Hand, seat: int, cards: tuple[int, ...]) -> tuple[int, ...]:
        """This seat's follow, made illegal if it can be (once a hand, from
        trick ``revoke_from`` on): a card of the suit led swapped for another."""
        trick = hand.current_trick()
        if trick is None or len(hand.tricks) - 1 < (self.revoke_from or 0):
            return cards
        es = hand.ruling.order.effective_suit
        led = es(trick.lead[0] % 54)
        off = [c for c in hand.held(seat) if es(c % 54) != led and c not in cards]
        in_suit = [i for i, c in enumerate(cards) if es(c % 54) == led]
        if not off or not in_suit:
            return cards
        bad = list(cards)
        bad[in_suit[0]] = off[0]
        if hand.is_legal(seat, bad)[0]:
            return cards
        self.revoked = True
        self.revokes += 1
        self.say(f"  (S{seat} revokes on purpose: {cards_text(bad)})")
        return tuple(bad)

    def _challenge(self, hand: Hand, leader: int, cards: Sequence[int]) -> None:
        """The full engine forced this throw: a seat that beats it challenges."""
        trick = hand.tricks[-1]
        order = hand.ruling.order
        forced = sorted(c % 54 for c in trick.lead)
        es = order.effective_suit(cards[0] % 54)
        for s in trick.forced_by:
            shown = [c for c in hand.held(s) if order.effective_suit(c % 54) == es]
            alone: list[list[int]] = [[], [], [], []]
            alone[s] = [c % 54 for c in shown]  # the engine takes plain ints as faces
            r = check_throw(order, leader, [c % 54 for c in cards], alone)
            if not r.ok and sorted(r.play) == forced:
                break
        else:
            raise CommandError("no seat's cards alone fail the throw as the full engine does")
        self.table.press(s, EV.BTN_CHALLENGE)
        self._tap_all(s, shown)
        self.table.press(s, EV.BTN_OK)
        ch = self._expect(E.Challenge)
        self._check("challenge accepted", [ch.seat, int(ch.accepted)], [s, 1])
        self._both(Challenge(s, tuple(shown)))
        self.say("  " + describe(ch))
        table_forced = self._expect(E.Forced)
        self._table_forced(hand, table_forced)
        self.say("  " + describe(table_forced))
        self.challenges += 1

    def _table_forced(self, hand: Hand, ev: E.Forced) -> None:
        """The table's FORCED cards against the full engine's. Of two units of
        the beaten category at the same position (off-suit level pairs of two
        suits) either is "the weakest unit" (docs/rules.md §5.2): the table's choice
        is followed, in the host's copy and in the blind hand."""
        cards = ev.ids
        trick = hand.tricks[-1]
        if sorted(cards) != sorted(trick.lead) and set(cards) <= set(trick.attempt) and equally_weak(
            hand, cards, trick.lead
        ):
            adopt_forced(hand, cards)
            if self.blind is not None and self.blind.tricks and self.blind.tricks[-1].attempt:
                adopt_forced(self.blind, cards)
            self.forced_equal += 1
        self._check("forced cards", sorted(cards), sorted(hand.tricks[-1].lead))

    def _end(self, hand: Hand) -> None:
        ev = self._expect(E.HandEnd)
        judge = self.judge
        res = judge.result()
        summary = self.match.finish(judge)
        first = next((f for f in judge.findings if f.rule == Reason.REVOKE), None)
        want = [first.trick, judge.forfeit] if judge.forfeit is not None and first else None
        self._check("revoke that lost the hand", [[f.trick, f.seat] for f in self.forfeits], [want] if want else [])
        st = summary.settlement
        assert st is not None
        self._check("hand score", ev.attackers_score, res.score)
        self._check(
            "kitty points, multiplier, bonus",
            [ev.kitty_points, ev.multiplier, ev.bonus],
            [res.kitty_points, res.multiplier, res.kitty_bonus],
        )
        settled = hand_end_event(0, 0, 0, 0, st)
        self._check("next dealer, levels, match winner", [ev.next_dealer, ev.levels, ev.match_winner],
                    [settled.next_dealer, settled.levels, settled.match_winner])
        # each revoke the table reported (REVOKE: its earlier trick; AUDIT: its trick) is one
        # the engine found, and none is missing
        told = {(e.earlier_trick, e.seat) if isinstance(e, E.Revoke) else (e.trick, e.seat)
                for e in self.findings if isinstance(e, E.Revoke) or e.reason == EV.REVOKE_FOLLOW}
        found = {(f.trick, f.seat) for f in judge.findings if f.rule == Reason.REVOKE}
        self._check("revokes found", sorted(told), sorted(found))
        self.say("  " + describe(ev))
        lv = levels_text(ev.levels)
        self.say(
            f"  score sheet: hand {summary.number}, trump {TRUMPS[NT if hand.trump is None else int(hand.trump)]}, "
            f"attackers {ev.attackers_score}, levels now {lv}"
        )
